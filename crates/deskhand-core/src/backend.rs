//! What a platform must provide. Every method either does all of its work or none of it,
//! except where it says how much landed (`typed`).

use std::future::Future;

use crate::error::Result;
use crate::model::{
    AppInfo, ElementHandle, Modifier, MouseButton, Point, Rect, RgbImage, ScrollDirection, Tree,
    WindowInfo,
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
    /// Moves keyboard focus to the element.
    fn focus_element(&self, element: &ElementHandle) -> impl Future<Output = Result<()>> + Send;
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
    fn drag(
        &self,
        from: Point,
        to: Point,
        button: MouseButton,
        modifiers: &[Modifier],
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
}
