//! What a display server gives the Linux backend: windows, input, pixels and the clipboard, and
//! which accessible frame is a window's. X11, sway and GNOME each implement [`DisplayServer`]
//! in a module of their own; the trait has no default bodies, so a display server that lacks a
//! method does not compile, rather than running another server's code.

use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use deskhand_core::backend::{InputOutcome, Partial, Typed};
use deskhand_core::error::{Error, Result};
use deskhand_core::keys::Keys;
use deskhand_core::model::{
    ClipboardContent, Modifier, Monitor, MouseButton, Point, Rect, RgbImage, ScrollDirection, Tree,
    WindowChange, WindowInfo, WindowKey,
};

use super::bus::{Bus, Placed};
use crate::atspi::live::Reader;
use crate::atspi::without_extents;

/// Apps count a press as the next click of a multi-click when it follows the last release
/// within their double-click time (400 ms in GTK and Qt, 500 ms in Chromium): on Wayland a
/// new press waits until this long after the last release, as X11's input does, so that two
/// calls never merge into a double-click nobody asked for.
const CLICK_SEPARATION: Duration = Duration::from_millis(550);

pub(super) trait DisplayServer: Send + Sync {
    /// Windows top first.
    fn windows(&self) -> impl Future<Output = Result<Vec<WindowInfo>>> + Send;
    fn window(&self, handle: u64) -> impl Future<Output = Result<Option<WindowInfo>>> + Send;
    fn screen(&self) -> impl Future<Output = Result<Rect>> + Send;
    /// The monitors as the display server lists them, in no particular order.
    fn monitors(&self) -> impl Future<Output = Result<Vec<Monitor>>> + Send;
    fn window_keys(&self) -> impl Future<Output = Result<Vec<WindowKey>>> + Send;
    fn activate(&self, window: &WindowInfo) -> impl Future<Output = Result<()>> + Send;
    fn close(&self, window: &WindowInfo) -> impl Future<Output = Result<()>> + Send;
    fn change_window(
        &self,
        window: &WindowInfo,
        change: WindowChange,
    ) -> impl Future<Output = Result<()>> + Send;
    /// Whether windows are known without their places on the screen (GNOME while deskhand's
    /// extension is absent): extents then count from a window's own corner.
    fn unplaced(&self) -> impl Future<Output = Result<bool>> + Send;
    /// The accessible frame that is `window`, and how its extents map to the screen.
    fn frame(&self, window: &WindowInfo) -> impl Future<Output = Result<Placed>> + Send;

    fn pointer(&self) -> impl Future<Output = Result<Point>> + Send;
    fn move_pointer(&self, to: Point) -> impl Future<Output = Result<()>> + Send;
    fn button(
        &self,
        button: MouseButton,
        down: bool,
        modifiers: &[Modifier],
    ) -> impl Future<Output = Result<()>> + Send;
    fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> impl Future<Output = Result<()>> + Send;
    fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> impl Future<Output = Result<()>> + Send;
    fn drag_path(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: Duration,
    ) -> impl Future<Output = Result<()>> + Send;
    fn press_keys(&self, keys: &Keys) -> impl Future<Output = Result<InputOutcome>> + Send;
    fn type_text(&self, text: &str) -> impl Future<Output = Result<Typed>> + Send;

    fn capture(&self, rect: Rect) -> impl Future<Output = Result<RgbImage>> + Send;

    fn read_clipboard(&self) -> impl Future<Output = Result<ClipboardContent>> + Send;
    fn write_clipboard(&self, text: &str) -> impl Future<Output = Result<()>> + Send;
}

/// When a button last went up on a Wayland compositor, which, unlike X11, does not keep apart
/// the clicks of two calls (see [`CLICK_SEPARATION`]).
#[derive(Default)]
pub(super) struct ClickGap {
    last_release: Mutex<Option<Instant>>,
}

impl ClickGap {
    /// Waits until a new press cannot join the last click.
    pub(super) async fn wait(&self) {
        let last = *self.last_release.lock().expect("not poisoned");
        if let Some(since) = last.map(|released| released.elapsed()) {
            tokio::time::sleep(CLICK_SEPARATION.saturating_sub(since)).await;
        }
    }

    pub(super) fn released_now(&self) {
        *self.last_release.lock().expect("not poisoned") = Some(Instant::now());
    }
}

/// A drag from a display server's pointer moves and buttons, for one that has no drag of its
/// own: `pause` waits between two points and fails when a person took over meanwhile, which
/// stops the drag at once. The button is released either way.
pub(super) async fn drag_with_pauses<S: DisplayServer, P: Future<Output = Result<()>>>(
    server: &S,
    (points, button, modifiers): (&[Point], MouseButton, &[Modifier]),
    duration: Duration,
    pause: impl Fn(Duration) -> P,
) -> Result<()> {
    let Some((first, rest)) = points.split_first() else {
        return Ok(());
    };
    server.move_pointer(*first).await?;
    server.button(button, true, modifiers).await?;
    let step = duration / u32::try_from(rest.len().max(1)).unwrap_or(u32::MAX);
    let mut moved = Ok(());
    for point in rest {
        moved = match pause(step).await {
            Ok(()) => server.move_pointer(*point).await,
            Err(stopped) => Err(stopped),
        };
        if moved.is_err() {
            break;
        }
    }
    let released = server.button(button, false, modifiers).await;
    moved.and(released)
}

/// Keys sent on Wayland as the core's outcome: all of them, once the app has read them (see
/// [`keys_read`]); none, as the failure; or the part that went out before the failure.
pub(super) async fn wayland_outcome(
    server: &impl DisplayServer,
    bus: &Bus,
    synced: impl Future<Output = Result<()>>,
    (sent, failed): (usize, Option<Error>),
    total: usize,
    unit: &'static str,
) -> Result<InputOutcome> {
    match (sent, failed) {
        (_, None) => {
            keys_read(server, bus, synced).await?;
            Ok(InputOutcome::Done)
        }
        (0, Some(err)) => Err(err),
        (sent, Some(err)) => Ok(InputOutcome::Partial(Partial {
            sent,
            total,
            unit,
            reason: err.message,
        })),
    }
}

/// Returns once the compositor has passed every key on (`synced`) and the focused application
/// has answered an accessibility request since: its main loop, which reads the keys, has run.
/// A Wayland client cannot be asked directly whether it read its input.
async fn keys_read(
    server: &impl DisplayServer,
    bus: &Bus,
    synced: impl Future<Output = Result<()>>,
) -> Result<()> {
    synced
        .await
        .map_err(|err| Error::new(err.kind, err.message).after_sending())?;
    let focused = server.windows().await?.into_iter().find(|w| w.focused);
    if let Some(window) = focused {
        bus.answers(&window).await;
    }
    Ok(())
}

/// The X keysyms of held modifiers, which every display server here takes.
pub(super) fn modifier_keysyms(modifiers: &[Modifier]) -> Vec<u32> {
    modifiers
        .iter()
        .map(|&m| crate::x11::modifier_keysym(m.into()))
        .collect()
}

/// The tree of `window` as `server` places it, for an agent's observe.
pub(super) async fn tree_of(
    server: &impl DisplayServer,
    bus: &Bus,
    window: &WindowInfo,
) -> Result<Tree> {
    let reading = bus.reading(window);
    let _reading = match &reading {
        Some(lock) => Some(lock.lock().await),
        None => None,
    };
    read_tree(server, bus, window, Reader::Agent).await
}

/// `window`'s tree for `reader`: the live tree where it is current, else a walk, kept.
pub(super) async fn read_tree(
    server: &impl DisplayServer,
    bus: &Bus,
    window: &WindowInfo,
    reader: Reader,
) -> Result<Tree> {
    let unplaced = server.unplaced().await?;
    if let Some(tree) = bus.live_tree(window, unplaced, reader).await {
        return Ok(tree);
    }
    let mark = bus.live_mark().await;
    let walked = async {
        let placed = server.frame(window).await?;
        // Other windows of the app shown over this one are part of its tree, and they move and
        // change size without an event: such a tree is not kept.
        let alone = placed.popups.is_empty();
        bus.remember(window, placed.origin);
        let mut read = bus.tree(placed, window).await?;
        if unplaced {
            without_extents(&mut read.tree.root);
        }
        Ok((read, alone))
    }
    .await;
    if let Some(mark) = mark {
        let kept = match &walked {
            Ok((read, true)) => Some(read),
            _ => None,
        };
        bus.keep_tree(window, unplaced, (mark, reader), kept).await;
    }
    walked.map(|(read, _)| read.tree)
}

/// Key chords as (held modifiers, key) keysyms, as the Wayland compositors take them.
pub(super) fn keysym_chords(keys: &Keys) -> Vec<(Vec<u32>, u32)> {
    crate::x11::chords(keys)
        .into_iter()
        .map(|chord| (chord.modifiers, chord.key))
        .collect()
}
