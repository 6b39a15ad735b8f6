//! The Linux [`Backend`](deskhand_core::backend::Backend): one display server for windows,
//! input, pixels and the clipboard (X11, sway or GNOME, each a `DisplayServer` of its own,
//! picked once from the session), and AT-SPI2 for trees, actions and values on all of them.
//! Every X, AT-SPI and compositor call has a deadline: no app can hang the server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deskhand_core::backend::{Capture, Input, InputOutcome, Typed};
use deskhand_core::error::Result;
use deskhand_core::keys::Keys;
use deskhand_core::model::{Modifier, MouseButton, Point, Rect, RgbImage, ScrollDirection};

use crate::launch;

mod accessibility;
mod apps;
mod between;
mod bus;
mod clipboard;
mod display;
mod errors;
mod frames;
mod on_gnome;
mod on_sway;
mod on_x11;
mod person;
mod session;
mod windows;

use bus::Bus;
use clipboard::ClipboardHolder;
use display::DisplayServer;
use session::{Display, on_display};

pub struct LinuxBackend {
    display: Arc<Display>,
    bus: Arc<Bus>,
    holder: Arc<ClipboardHolder>,
    /// The processes `launch` started, by pid: how each ended tells a launch that failed at
    /// once from one still starting.
    launched: Mutex<HashMap<u32, launch::Launched>>,
    /// The person at the desk, once their input is watched (see `person.rs`).
    presence: std::sync::OnceLock<Arc<deskhand_core::person::Presence>>,
    /// The task that reads changed windows again between observes, once started.
    reading_between: std::sync::OnceLock<()>,
}

impl LinuxBackend {
    /// Connects to the session's display server: sway or GNOME when the session is theirs on
    /// Wayland (GNOME Shell is reached on first use), else X (XWayland on another compositor);
    /// the accessibility bus is connected on first use.
    pub fn connect() -> Result<Self> {
        let bus = Arc::new(Bus::default());
        let holder = Arc::new(ClipboardHolder::default());
        let display = Display::pick(Arc::clone(&bus), Arc::clone(&holder))?;
        Ok(Self {
            display: Arc::new(display),
            bus,
            holder,
            launched: Mutex::new(HashMap::new()),
            presence: std::sync::OnceLock::new(),
            reading_between: std::sync::OnceLock::new(),
        })
    }

    /// Reads every element one call at a time instead of starting from the applications' caches:
    /// the slow reference the fast path is checked against.
    pub fn without_cache(self) -> Self {
        self.bus.read_without_cache();
        self
    }

    /// Keeps each observed window's tree up to date with its applications' accessibility
    /// events, so an unchanged window is observed without a walk and a changed one by reading
    /// only what changed (`atspi::live`): for a server, which observes the same windows again
    /// and again.
    pub fn with_live_trees(self) -> Self {
        self.bus.keep_live_trees();
        self
    }

    /// Observes answered from a live tree so far, patched or not.
    pub fn live_tree_answers(&self) -> usize {
        self.bus.live_answers()
    }

    /// Kept trees patched so far, for an observe or between observes.
    pub fn live_tree_patches(&self) -> usize {
        self.bus.live_patches()
    }

    /// D-Bus calls made to the accessibility bus so far.
    pub fn accessibility_calls(&self) -> usize {
        self.bus.calls()
    }
}

/// Every input first waits for a new accessibility listener to settle.
impl Input for LinuxBackend {
    async fn pointer(&self) -> Result<Point> {
        on_display!(&self.display, server => server.pointer().await)
    }

    fn presence(&self) -> Option<Arc<deskhand_core::person::Presence>> {
        self.presence.get().cloned()
    }

    fn show_intent(&self, intent: deskhand_core::backend::Intent) {
        match &*self.display {
            session::Display::X11(x11) => x11.show_intent(intent),
            session::Display::Sway(sway) => sway.show_intent(intent),
            session::Display::Gnome(gnome) => gnome.show_intent(intent),
        }
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        self.bus.settle_listener().await;
        on_display!(&self.display, server => server.move_pointer(to).await)
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        self.bus.settle_listener().await;
        on_display!(&self.display, server => server.button(button, down, modifiers).await)
    }

    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<()> {
        self.bus.settle_listener().await;
        on_display!(&self.display, server => server.click(at, button, count, modifiers).await)
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        self.bus.settle_listener().await;
        on_display!(&self.display, server => server.scroll(at, direction, amount).await)
    }

    async fn drag_path(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: Duration,
    ) -> Result<()> {
        self.bus.settle_listener().await;
        on_display!(&self.display, server => server.drag_path(points, button, modifiers, duration).await)
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        self.bus.settle_listener().await;
        on_display!(&self.display, server => server.press_keys(keys).await)
    }

    async fn type_text(&self, text: &str) -> Result<InputOutcome> {
        self.type_text_routed(text).await.map(|typed| typed.outcome)
    }

    async fn type_text_routed(&self, text: &str) -> Result<Typed> {
        self.bus.settle_listener().await;
        on_display!(&self.display, server => server.type_text(text).await)
    }
}

impl Capture for LinuxBackend {
    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        on_display!(&self.display, server => server.capture(rect).await)
    }
}
