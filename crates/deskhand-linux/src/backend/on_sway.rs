//! The display server on sway: windows through its IPC, input through Wayland's virtual pointer
//! and keyboard, captures through screencopy, the clipboard through the data-control protocol.

use std::sync::Arc;
use std::time::Duration;

use deskhand_core::backend::{InputOutcome, Typed};
use deskhand_core::error::Result;
use deskhand_core::keys::Keys;
use deskhand_core::model::{
    ClipboardContent, Modifier, Monitor, MouseButton, Point, Rect, RgbImage, ScrollDirection,
    WindowChange, WindowInfo, WindowKey,
};

use super::bus::{Bus, Placed};
use super::clipboard::{ClipboardHolder, read_on_its_own_thread};
use super::display::{
    ClickGap, DisplayServer, drag_with_pauses, keysym_chords, modifier_keysyms, wayland_outcome,
};
use super::errors::input_error;
use super::frames::{origin_for, wayland_inset, wayland_origin};
use crate::wayland::Sway;
use crate::x11;

pub(crate) struct SwayDesk {
    sway: Sway,
    bus: Arc<Bus>,
    holder: Arc<ClipboardHolder>,
    gap: ClickGap,
}

impl SwayDesk {
    pub(super) fn connect(
        socket: std::path::PathBuf,
        bus: Arc<Bus>,
        holder: Arc<ClipboardHolder>,
    ) -> Result<Self> {
        Ok(Self {
            sway: Sway::connect(socket)?,
            bus,
            holder,
            gap: ClickGap::default(),
        })
    }

    pub(super) fn show_overlay(&self) -> std::result::Result<(), String> {
        self.sway.show_overlay()
    }

    pub(super) fn watch_for_person(
        &self,
        presence: Arc<deskhand_core::person::Presence>,
    ) -> std::result::Result<(), crate::wayland::idle::IdleWatchError> {
        self.sway.watch_for_person(presence)
    }

    pub(super) fn show_intent(&self, intent: deskhand_core::backend::Intent) {
        self.sway.show_intent(intent);
    }

    /// Long text committed to the focused field through the input method, where the field
    /// takes it; `None` where it does not and nothing was sent.
    pub(super) async fn commit_text(&self, text: &str) -> Result<Option<Typed>> {
        Ok(self.sway.commit_text(text).await?.then(|| Typed {
            outcome: InputOutcome::Done,
            routes: vec![deskhand_core::backend::TextRoute::InputMethod],
            note: None,
        }))
    }

    async fn outcome(
        &self,
        sent: (usize, Option<deskhand_core::error::Error>),
        total: usize,
        unit: &'static str,
    ) -> Result<InputOutcome> {
        wayland_outcome(self, &self.bus, self.sway.sync(), sent, total, unit).await
    }
}

impl DisplayServer for SwayDesk {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        self.sway.windows().await
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        self.sway.window(handle).await
    }

    async fn screen(&self) -> Result<Rect> {
        self.sway.screen().await
    }

    async fn monitors(&self) -> Result<Vec<Monitor>> {
        self.sway.monitors().await
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        Ok(self.windows().await?.iter().map(WindowInfo::key).collect())
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        self.sway.activate(window).await
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        self.sway.close(window).await
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        self.sway.change_window(window, change).await
    }

    async fn unplaced(&self) -> Result<bool> {
        Ok(false)
    }

    async fn frame(&self, window: &WindowInfo) -> Result<Placed> {
        let matched = self
            .bus
            .matched_frame(window, self.windows().await?)
            .await?;
        let origin = wayland_origin(
            origin_for(&matched.app, &matched.frame, window),
            wayland_inset(&matched.app, &matched.frame, window, 100),
        );
        Ok(matched.placed(origin))
    }

    async fn pointer(&self) -> Result<Point> {
        self.sway.pointer().await
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        self.sway.move_pointer(to).await.map_err(input_error)
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        let held = modifier_keysyms(modifiers);
        if down {
            self.gap.wait().await;
            self.sway.hold_modifiers(held).await.map_err(input_error)?;
            self.sway.button(button, true).await.map_err(input_error)
        } else {
            let released = self.sway.button(button, false).await;
            let unheld = self.sway.hold_modifiers(Vec::new()).await;
            self.gap.released_now();
            released.and(unheld).map_err(input_error)
        }
    }

    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<()> {
        self.gap.wait().await;
        let held = modifier_keysyms(modifiers);
        let clicked = self
            .sway
            .click(at, button, count, &held)
            .await
            .map_err(input_error);
        self.gap.released_now();
        clicked
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        self.sway
            .scroll(at, direction, amount)
            .await
            .map_err(input_error)
    }

    async fn drag_path(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: Duration,
    ) -> Result<()> {
        drag_with_pauses(
            self,
            (points, button, modifiers),
            duration,
            |step| async move { self.sway.pause(step).await.map_err(input_error) },
        )
        .await
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        let chords = keysym_chords(keys);
        let total = chords.len();
        let sent = self.sway.press_chords(chords).await.map_err(input_error)?;
        self.outcome(sent, total, "key chords").await
    }

    async fn type_text(&self, text: &str) -> Result<Typed> {
        let keysyms: Vec<u32> = text
            .replace("\r\n", "\n")
            .chars()
            .map(x11::keysym_for_char)
            .collect();
        let total = keysyms.len();
        let sent = self.sway.type_keysyms(keysyms).await.map_err(input_error)?;
        self.outcome(sent, total, "characters")
            .await
            .map(Typed::from)
    }

    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        self.sway.capture(rect).await
    }

    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        read_on_its_own_thread("the Wayland compositor", crate::wayland::selection::read).await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        self.holder.start(text, true).await
    }
}
