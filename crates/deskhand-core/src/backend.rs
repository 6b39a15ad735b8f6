//! What a platform must provide. Every method either does all of its work or none of it,
//! except where it says how much landed (`typed`).

use std::future::Future;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{
    AppInfo, ClipboardContent, ElementHandle, InstalledApp, Modifier, MouseButton, Point, Rect,
    RgbImage, ScrollDirection, Tree, WindowChange, WindowInfo, WindowKey,
};

/// Input that stopped part-way: how much of it the system took before the failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partial {
    pub sent: usize,
    pub total: usize,
    /// What was counted: "characters" or "key chords".
    pub unit: &'static str,
    pub reason: String,
}

/// The result of an input that may land in part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOutcome {
    Done,
    /// Some of the input may have landed; the platform cannot say how much took effect.
    Partial(Partial),
}

/// Every method has a body that answers `unsupported`, so a new platform can ship what it has
/// (observe and input first) and say so for the rest; [`NullBackend`] is all of them.
pub trait Backend: Send + Sync + 'static {
    /// Applications that own at least one window.
    fn apps(&self) -> impl Future<Output = Result<Vec<AppInfo>>> + Send {
        async { Err(unsupported("Listing applications")) }
    }
    /// Top-level windows, bottom to top.
    fn windows(&self) -> impl Future<Output = Result<Vec<WindowInfo>>> + Send {
        async { Err(unsupported("Listing windows")) }
    }
    /// One window by its platform handle, `None` once it is gone.
    fn window(&self, _handle: u64) -> impl Future<Output = Result<Option<WindowInfo>>> + Send {
        async { Err(unsupported("Reading a window")) }
    }
    fn screen(&self) -> impl Future<Output = Result<Rect>> + Send {
        async { Err(unsupported("Reading the screen size")) }
    }
    /// The accessibility tree of one window, extents in screen pixels.
    fn tree(&self, _window: &WindowInfo) -> impl Future<Output = Result<Tree>> + Send {
        async { Err(unsupported("Reading the accessibility tree")) }
    }
    /// Where the element is now, in screen pixels; `None` when it is gone or has no extent.
    fn element_bounds(
        &self,
        _window: &WindowInfo,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<Option<Rect>>> + Send {
        async { Err(unsupported("Reading an element's place")) }
    }
    /// The programmatic names of the element's accessibility actions ("click", "press"), which
    /// do not change with the interface language.
    fn action_names(
        &self,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<Vec<String>>> + Send {
        async { Err(unsupported("Reading an element's actions")) }
    }
    /// Runs the element's accessibility action at `index` of [`Backend::action_names`].
    fn do_action(
        &self,
        _element: &ElementHandle,
        _index: usize,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Running an element's action")) }
    }
    /// Whether the window's toolkit runs an accessibility action inside the request that asked
    /// for it (GTK3, LibreOffice): an action that opens a modal dialog then keeps the app from
    /// answering accessibility until the dialog closes.
    fn actions_run_in_request(&self, _window: &WindowInfo) -> impl Future<Output = bool> + Send {
        async { false }
    }
    /// Whether the window's application answers an accessibility request at once.
    fn answers(&self, _window: &WindowInfo) -> impl Future<Output = bool> + Send {
        async { false }
    }
    /// Asks the element to take the keyboard focus; `Unsupported` when it cannot be asked.
    /// The focus may arrive a moment later: [`Backend::element_focused`] tells when it has.
    fn focus_element(&self, _element: &ElementHandle) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Focusing an element")) }
    }
    /// Whether the element, or an element inside it, has the keyboard focus now.
    fn element_focused(
        &self,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<bool>> + Send {
        async { Err(unsupported("Reading an element's focus")) }
    }
    fn click(
        &self,
        _at: Point,
        _button: MouseButton,
        _count: u32,
        _modifiers: &[Modifier],
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Clicking")) }
    }
    /// Scrolls at `at`, or where the pointer is when `None`.
    fn scroll(
        &self,
        _at: Option<Point>,
        _direction: ScrollDirection,
        _amount: u32,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Scrolling")) }
    }
    /// Checks a key spec without sending anything; the error names the unknown key.
    fn check_keys(&self, _keys: &str) -> Result<()> {
        Err(unsupported("Pressing keys"))
    }
    /// Presses key chords in order, to whatever has keyboard focus.
    fn press_keys(&self, _keys: &str) -> impl Future<Output = Result<InputOutcome>> + Send {
        async { Err(unsupported("Pressing keys")) }
    }
    /// Types text into whatever has keyboard focus.
    fn type_text(&self, _text: &str) -> impl Future<Output = Result<InputOutcome>> + Send {
        async { Err(unsupported("Typing")) }
    }
    /// Pixels of a screen rectangle, clipped to the screen.
    fn capture(&self, _rect: Rect) -> impl Future<Output = Result<RgbImage>> + Send {
        async { Err(unsupported("Capturing the screen")) }
    }
    /// Where the pointer is now, in screen pixels: the kill switch reads it before every action.
    fn pointer(&self) -> impl Future<Output = Result<Point>> + Send {
        async { Err(unsupported("Reading the pointer")) }
    }
    /// Which top-level windows exist, and nothing else about them: cheap enough to take before
    /// every action.
    fn window_keys(&self) -> impl Future<Output = Result<Vec<WindowKey>>> + Send {
        async { Err(unsupported("Listing windows")) }
    }

    /// Moves the pointer without pressing anything.
    fn move_pointer(&self, _to: Point) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Moving the pointer")) }
    }
    /// Presses (`down`) or releases a button where the pointer is, with `modifiers` held down
    /// from a press until its release.
    fn button(
        &self,
        _button: MouseButton,
        _down: bool,
        _modifiers: &[Modifier],
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Pressing a mouse button")) }
    }
    /// Presses at the first point, moves through the others over `duration`, releases at the last.
    fn drag_path(
        &self,
        _points: &[Point],
        _button: MouseButton,
        _modifiers: &[Modifier],
        _duration: std::time::Duration,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Dragging")) }
    }
    /// Raises the window and gives it keyboard focus; an error when it did not take focus.
    fn activate(&self, _window: &WindowInfo) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Focusing a window")) }
    }
    /// Asks the window to close, as its close button would; the app may ask the user first.
    fn close(&self, _window: &WindowInfo) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Closing a window")) }
    }
    /// Ends a process at once.
    fn kill(&self, _pid: u32) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Ending an app")) }
    }
    /// Asks the window manager for the change; the caller reads the window back to verify it.
    fn change_window(
        &self,
        _window: &WindowInfo,
        _change: WindowChange,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Moving or resizing a window")) }
    }
    fn read_clipboard(&self) -> impl Future<Output = Result<ClipboardContent>> + Send {
        async { Err(unsupported("Reading the clipboard")) }
    }
    /// Owns the clipboard with `text` until another program takes it, after this call returns.
    fn write_clipboard(&self, _text: &str) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Writing the clipboard")) }
    }
    /// Applications that can be started, sorted by name.
    fn installed(&self) -> impl Future<Output = Result<Vec<InstalledApp>>> + Send {
        async { Err(unsupported("Listing installed applications")) }
    }
    /// Starts an installed app (by its id) detached from deskhand; returns its process id.
    fn launch(&self, _id: &str) -> impl Future<Output = Result<u32>> + Send {
        async { Err(unsupported("Launching an app")) }
    }
    /// Whether process `pid` is `ancestor` or was started by it (a launcher script's child).
    fn descends_from(&self, _pid: u32, _ancestor: u32) -> bool {
        _pid == _ancestor
    }
    /// Replaces an editable text's whole content through accessibility.
    fn set_text(
        &self,
        _element: &ElementHandle,
        _text: &str,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Setting a text through accessibility")) }
    }
    /// Sets a slider's or spin button's number through accessibility.
    fn set_number(
        &self,
        _element: &ElementHandle,
        _value: f64,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Setting a number through accessibility")) }
    }
    /// The element's value read now, as an observation shows it (`None`: it has none).
    fn element_value(
        &self,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<Option<String>>> + Send {
        async { Err(unsupported("Reading an element's value")) }
    }
    /// All the text the element shows, uncut: its value where it has one, else its name.
    /// Never called for a password field.
    fn element_text(
        &self,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<String>> + Send {
        async { Err(unsupported("Reading an element's text")) }
    }
}

/// What a platform without a backend answers for everything it is asked.
fn unsupported(what: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!(
            "{what} is not available on this platform: deskhand has a backend for Linux (X11 \
             and AT-SPI2) only so far; run it on a Linux desktop"
        ),
    )
}

/// The backend of a platform deskhand does not support yet: every call answers `unsupported`.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullBackend;

impl Backend for NullBackend {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Session, execute, parse_call};

    #[tokio::test]
    async fn the_null_backend_answers_unsupported_and_names_the_platform_it_lacks() {
        let err = NullBackend.windows().await.unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(
            err.message
                .starts_with("Listing windows is not available on this platform")
        );
        assert!(err.message.contains("Linux"), "{}", err.message);
        let keys = NullBackend.check_keys("ctrl+s").unwrap_err();
        assert_eq!(keys.kind, ErrorKind::Unsupported);
        assert!(NullBackend.descends_from(7, 7) && !NullBackend.descends_from(7, 8));

        let call = parse_call(serde_json::json!({"action": "windows"})).unwrap();
        let reply = execute(
            &NullBackend,
            &mut Session::default(),
            &Config::default(),
            call,
        )
        .await;
        let err = reply.expect_err("nothing can be listed");
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(
            err.reply_text().starts_with("failed (unsupported): "),
            "{}",
            err.reply_text()
        );
    }
}
