//! What a platform must provide. Every method either does all of its work or none of it,
//! except where it says how much landed (`typed`).

use std::future::Future;

use crate::error::Result;
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

pub trait Backend: Send + Sync + 'static {
    /// Applications that own at least one window.
    fn apps(&self) -> impl Future<Output = Result<Vec<AppInfo>>> + Send;
    /// Top-level windows, bottom to top.
    fn windows(&self) -> impl Future<Output = Result<Vec<WindowInfo>>> + Send;
    /// One window by its platform handle, `None` once it is gone.
    fn window(&self, handle: u64) -> impl Future<Output = Result<Option<WindowInfo>>> + Send;
    fn screen(&self) -> impl Future<Output = Result<Rect>> + Send;
    /// The accessibility tree of one window, extents in screen pixels.
    fn tree(&self, window: &WindowInfo) -> impl Future<Output = Result<Tree>> + Send;
    /// Where the element is now, in screen pixels; `None` when it is gone or has no extent.
    fn element_bounds(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
    ) -> impl Future<Output = Result<Option<Rect>>> + Send;
    /// The programmatic names of the element's accessibility actions ("click", "press"), which
    /// do not change with the interface language.
    fn action_names(
        &self,
        element: &ElementHandle,
    ) -> impl Future<Output = Result<Vec<String>>> + Send;
    /// Runs the element's accessibility action at `index` of [`Backend::action_names`].
    fn do_action(
        &self,
        element: &ElementHandle,
        index: usize,
    ) -> impl Future<Output = Result<()>> + Send;
    /// Whether the window's toolkit runs an accessibility action inside the request that asked
    /// for it (GTK3, LibreOffice): an action that opens a modal dialog then keeps the app from
    /// answering accessibility until the dialog closes.
    fn actions_run_in_request(&self, window: &WindowInfo) -> impl Future<Output = bool> + Send;
    /// Whether the window's application answers an accessibility request at once.
    fn answers(&self, window: &WindowInfo) -> impl Future<Output = bool> + Send;
    /// Asks the element to take the keyboard focus; `Unsupported` when it cannot be asked.
    /// The focus may arrive a moment later: [`Backend::element_focused`] tells when it has.
    fn focus_element(&self, element: &ElementHandle) -> impl Future<Output = Result<()>> + Send;
    /// Whether the element, or an element inside it, has the keyboard focus now.
    fn element_focused(&self, element: &ElementHandle)
    -> impl Future<Output = Result<bool>> + Send;
    fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> impl Future<Output = Result<()>> + Send;
    /// Scrolls at `at`, or where the pointer is when `None`.
    fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> impl Future<Output = Result<()>> + Send;
    /// Checks a key spec without sending anything; the error names the unknown key.
    fn check_keys(&self, keys: &str) -> Result<()>;
    /// Presses key chords in order, to whatever has keyboard focus.
    fn press_keys(&self, keys: &str) -> impl Future<Output = Result<InputOutcome>> + Send;
    /// Types text into whatever has keyboard focus.
    fn type_text(&self, text: &str) -> impl Future<Output = Result<InputOutcome>> + Send;
    /// Pixels of a screen rectangle, clipped to the screen.
    fn capture(&self, rect: Rect) -> impl Future<Output = Result<RgbImage>> + Send;
    /// Where the pointer is now, in screen pixels: the kill switch reads it before every action.
    fn pointer(&self) -> impl Future<Output = Result<Point>> + Send;
    /// Which top-level windows exist, and nothing else about them: cheap enough to take before
    /// every action.
    fn window_keys(&self) -> impl Future<Output = Result<Vec<WindowKey>>> + Send;

    /// Moves the pointer without pressing anything.
    fn move_pointer(&self, to: Point) -> impl Future<Output = Result<()>> + Send;
    /// Presses (`down`) or releases a button where the pointer is, with `modifiers` held down
    /// from a press until its release.
    fn button(
        &self,
        button: MouseButton,
        down: bool,
        modifiers: &[Modifier],
    ) -> impl Future<Output = Result<()>> + Send;
    /// Presses at the first point, moves through the others over `duration`, releases at the last.
    fn drag_path(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: std::time::Duration,
    ) -> impl Future<Output = Result<()>> + Send;
    /// Raises the window and gives it keyboard focus; an error when it did not take focus.
    fn activate(&self, window: &WindowInfo) -> impl Future<Output = Result<()>> + Send;
    /// Asks the window to close, as its close button would; the app may ask the user first.
    fn close(&self, window: &WindowInfo) -> impl Future<Output = Result<()>> + Send;
    /// Ends a process at once.
    fn kill(&self, pid: u32) -> impl Future<Output = Result<()>> + Send;
    /// Asks the window manager for the change; the caller reads the window back to verify it.
    fn change_window(
        &self,
        window: &WindowInfo,
        change: WindowChange,
    ) -> impl Future<Output = Result<()>> + Send;
    fn read_clipboard(&self) -> impl Future<Output = Result<ClipboardContent>> + Send;
    /// Owns the clipboard with `text` until another program takes it, after this call returns.
    fn write_clipboard(&self, text: &str) -> impl Future<Output = Result<()>> + Send;
    /// Applications that can be started, sorted by name.
    fn installed(&self) -> impl Future<Output = Result<Vec<InstalledApp>>> + Send;
    /// Starts an installed app (by its id) detached from deskhand; returns its process id.
    fn launch(&self, id: &str) -> impl Future<Output = Result<u32>> + Send;
    /// Whether process `pid` is `ancestor` or was started by it (a launcher script's child).
    fn descends_from(&self, pid: u32, ancestor: u32) -> bool;
    /// Replaces an editable text's whole content through accessibility.
    fn set_text(
        &self,
        element: &ElementHandle,
        text: &str,
    ) -> impl Future<Output = Result<()>> + Send;
    /// Sets a slider's or spin button's number through accessibility.
    fn set_number(
        &self,
        element: &ElementHandle,
        value: f64,
    ) -> impl Future<Output = Result<()>> + Send;
    /// The element's value read now, as an observation shows it (`None`: it has none).
    fn element_value(
        &self,
        element: &ElementHandle,
    ) -> impl Future<Output = Result<Option<String>>> + Send;
    /// All the text the element shows, uncut: its value where it has one, else its name.
    /// Never called for a password field.
    fn element_text(&self, element: &ElementHandle) -> impl Future<Output = Result<String>> + Send;
}
