//! What a platform must provide. Every method either does all of its work or none of it,
//! except where it says how much landed (`typed`).

use std::future::Future;
use std::time::Duration;

use crate::error::{Error, ErrorKind, Result};
use crate::keys::Keys;
use crate::model::{
    AppInfo, ClipboardContent, ElementHandle, InstalledApp, Modifier, Monitor, MouseButton, Point,
    Rect, RgbImage, Role, ScrollDirection, Tree, WindowChange, WindowInfo, WindowKey,
};

/// What the toolkit says is under the pointer at a point of an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// The element, or an element inside it.
    Element,
    /// Another element: something covers the element there.
    Other,
    /// Nothing: the element draws nothing there (an icon view item's empty icon), or the
    /// toolkit's hit test finds nothing anywhere (WebKit's).
    Nothing,
}

/// Which point of an element a pointer click goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpotKind {
    Center,
    /// The middle of the words it shows.
    Text,
    /// The center of one of its children.
    Part,
    /// A point across it, tried when nothing it names takes the click.
    Inside,
}

/// What an element is now, as an observation would list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub role: Role,
    /// The name an observation would list it by, uncut.
    pub name: String,
    /// It takes input now: not marked disabled.
    pub enabled: bool,
}

/// An editable text as its toolkit holds it: the whole text, and where typed keys would go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextState {
    pub text: String,
    /// The caret, in characters.
    pub caret: Option<usize>,
    /// The selected characters, start and end; typed text replaces them.
    pub selection: Option<(usize, usize)>,
}

impl TextState {
    /// What the text becomes once `typed` is typed: in place of the selection, else at the
    /// caret. `None` where the toolkit keeps neither.
    pub fn after_typing(&self, typed: &str) -> Option<String> {
        let chars: Vec<char> = self.text.chars().collect();
        let (start, end) = match self.selection {
            Some((start, end)) if start < end && end <= chars.len() => (start, end),
            _ => {
                let caret = self.caret.filter(|c| *c <= chars.len())?;
                (caret, caret)
            }
        };
        let mut after: String = chars[..start].iter().collect();
        after.push_str(typed);
        after.extend(&chars[end..]);
        Some(after)
    }

    /// How many characters typing replaces: those selected.
    pub fn selected(&self) -> usize {
        match self.selection {
            Some((start, end)) if start < end => end - start,
            _ => 0,
        }
    }
}

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

/// A way typed text reaches an app, where a platform has more than one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TextRoute {
    /// Key events.
    Keys,
    /// Committed through the input method, as an on-screen keyboard sends text.
    InputMethod,
    /// Put on the clipboard and pasted with ctrl+v, the user's clipboard put back afterwards.
    Paste,
    /// Inserted into the element in one request through accessibility (EditableText), as an
    /// input method commits text: neither the keymap nor the clipboard is touched.
    Accessibility,
}

/// Typed text's outcome, and how it went where the platform has more than one route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typed {
    pub outcome: InputOutcome,
    /// The routes the text took, in the order first used; empty where the platform has one.
    pub routes: Vec<TextRoute>,
    /// What the reply must add about a route: what became of the user's clipboard.
    pub note: Option<String>,
}

impl From<InputOutcome> for Typed {
    fn from(outcome: InputOutcome) -> Typed {
        Typed {
            outcome,
            routes: Vec::new(),
            note: None,
        }
    }
}

/// Everything deskhand asks of a platform, in capabilities. Every method has a body that answers
/// `unsupported` (or, for `click` and `drag_path`, is made of the pointer's moves and buttons),
/// so a new platform implements what it has, observe and input first, and says so for the rest;
/// [`NullBackend`] is all of them.
pub trait Backend:
    Windows + Accessibility + Values + Input + Capture + Clipboard + Apps + Send + Sync + 'static
{
}

impl<T> Backend for T where
    T: Windows
        + Accessibility
        + Values
        + Input
        + Capture
        + Clipboard
        + Apps
        + Send
        + Sync
        + 'static
{
}

/// Top-level windows and the screen they are on.
pub trait Windows: Send + Sync {
    /// Applications that own at least one window; by default, [`Windows::windows`] grouped by
    /// process.
    fn apps(&self) -> impl Future<Output = Result<Vec<AppInfo>>> + Send {
        async { Ok(AppInfo::owning(&self.windows().await?)) }
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
    /// The top-left pixel of the primary monitor, where the pointer stops deskhand. Where it
    /// cannot be read, the corner of the whole screen, 0,0: the stop must never fail open.
    fn corner(&self) -> impl Future<Output = Point> + Send {
        async { Point { x: 0, y: 0 } }
    }
    /// The monitors, primary first, then left to right and top to bottom; the whole screen as
    /// one where a platform cannot tell them apart.
    fn monitors(&self) -> impl Future<Output = Result<Vec<Monitor>>> + Send {
        async {
            Ok(vec![Monitor {
                name: "screen".to_owned(),
                bounds: self.screen().await?,
                scale: 1.0,
                primary: true,
            }])
        }
    }
    /// Which top-level windows exist, and nothing else about them: cheap enough to take before
    /// every action.
    fn window_keys(&self) -> impl Future<Output = Result<Vec<WindowKey>>> + Send {
        async { Err(unsupported("Listing windows")) }
    }
    /// Raises the window and gives it keyboard focus; an error when it did not take focus.
    fn activate(&self, _window: &WindowInfo) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Focusing a window")) }
    }
    /// Why the windows' places on the screen are unknown on this connection, when they are (GNOME
    /// on Wayland tells them only to deskhand's shell extension): then each window's `bounds`
    /// holds its size only, at 0,0, the tree carries no extents, the backend refuses what needs
    /// a screen position (the pointer), and the core refuses a window's pixels, whose place it
    /// does not know; the screen's pixels stay readable. One line, naming what would make them
    /// known.
    fn positions_unknown(&self) -> impl Future<Output = Option<String>> + Send {
        async { None }
    }
    /// Asks the window to close, as its close button would; the app may ask the user first.
    fn close(&self, _window: &WindowInfo) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Closing a window")) }
    }
    /// Asks the window manager for the change; the caller reads the window back to verify it.
    fn change_window(
        &self,
        _window: &WindowInfo,
        _change: WindowChange,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Moving or resizing a window")) }
    }
}

/// The accessibility tree and what it lets deskhand do to one element without input.
pub trait Accessibility: Send + Sync {
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
    /// What the element is now, so an action by ref can confirm it still names what was
    /// observed: toolkits that hand out objects by position (Qt's item views) let one object
    /// stand for another item once rows move. `None`: the element is gone. `Unsupported` where a
    /// platform's handles cannot come to mean another element.
    fn element_identity(
        &self,
        _window: &WindowInfo,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<Option<Identity>>> + Send {
        async { Err(unsupported("Confirming what an element is")) }
    }
    /// What the pointer at `at` (screen pixels) would reach, as the toolkit's hit test says:
    /// the element, another, or nothing. `None` where the toolkit cannot say.
    fn reaches(
        &self,
        _window: &WindowInfo,
        _element: &ElementHandle,
        _at: Point,
    ) -> impl Future<Output = Result<Option<Hit>>> + Send {
        async { Ok(None) }
    }
    /// Points of the element where it draws what it shows, best first, each with what it is
    /// (its text, a part): where a pointer click may go when the element's center does not reach it
    /// (an icon view's item whose center is empty space).
    fn element_spots(
        &self,
        _window: &WindowInfo,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<Vec<(Point, SpotKind)>>> + Send {
        async { Ok(Vec::new()) }
    }
    /// The programmatic names of the element's accessibility actions ("click", "press"), which
    /// do not change with the interface language.
    fn action_names(
        &self,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<Vec<String>>> + Send {
        async { Err(unsupported("Reading an element's actions")) }
    }
    /// Runs the element's accessibility action at `index` of [`Accessibility::action_names`].
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
    /// The focus may arrive a moment later: [`Accessibility::element_focused`] tells when it has.
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
}

/// Reading and setting an element's value through accessibility.
pub trait Values: Send + Sync {
    /// Replaces an editable text's whole content through accessibility.
    fn set_text(
        &self,
        _element: &ElementHandle,
        _text: &str,
    ) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Setting a text through accessibility")) }
    }
    /// An editable text's whole text, caret and selection, read through accessibility: what
    /// `type` reads back. Never called for a password field.
    fn text_state(
        &self,
        _element: &ElementHandle,
    ) -> impl Future<Output = Result<TextState>> + Send {
        async { Err(unsupported("Reading an element's text")) }
    }
    /// Puts long text into an editable text in one request through accessibility, in place of
    /// its selection, else at its caret, where the platform's keys are slow (an app reads one
    /// key event per character). `Ok(false)` when it declines and nothing was sent (the element takes no
    /// text this way, or keys are fast enough here): the caller types keys instead. An error
    /// whose `sent` is set may have changed the text. Never called for a password field.
    fn insert_text(
        &self,
        _element: &ElementHandle,
        _text: &str,
    ) -> impl Future<Output = Result<bool>> + Send {
        async { Ok(false) }
    }
    /// Pastes long text into the focused editable text through the clipboard, where it takes
    /// no insert through accessibility and its keys are slow (Firefox on X11), and puts the
    /// user's clipboard back as it was; or commits it through the input method where the
    /// platform has one to bind for the moment (Firefox on sway). `Ok(None)` when it declines and nothing was sent or
    /// changed: the caller types keys instead. An error whose `sent` is set may have changed
    /// the text. Never called for a password field.
    fn paste_text(
        &self,
        _element: &ElementHandle,
        _text: &str,
    ) -> impl Future<Output = Result<Option<Typed>>> + Send {
        async { Ok(None) }
    }
    /// Selects all of an element's text through accessibility, so that typed text replaces it
    /// whatever the app's keys do (ctrl+a goes to the line's start in GTK's Emacs key theme).
    fn select_all_text(&self, _element: &ElementHandle) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Selecting an element's text")) }
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

/// Where the agent is about to act, for an overlay that shows a person beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// A pointer action at this point.
    Point(Point),
    /// The element acted on, named by ref or `find`.
    Element(Rect),
    /// The element keys are typed into.
    Typing(Rect),
}

/// Synthetic pointer and keyboard input, going where the pointer or the keyboard focus is.
pub trait Input: Send + Sync {
    /// Where the pointer is now, in screen pixels: the kill switch reads it before every action.
    fn pointer(&self) -> impl Future<Output = Result<Point>> + Send {
        async { Err(unsupported("Reading the pointer")) }
    }
    /// Whether a person is using the desktop, where the platform watches for input it did not
    /// send; `None` where it does not.
    fn presence(&self) -> Option<std::sync::Arc<crate::person::Presence>> {
        None
    }
    /// Shows a person beside the agent where it is about to act, where the platform draws an
    /// overlay; never waits on the drawing.
    fn show_intent(&self, _intent: Intent) {}
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
    /// Moves the pointer to `at` and clicks `count` times there; by default through
    /// [`Input::move_pointer`] and [`Input::button`], for a platform whose own click is no better.
    fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> impl Future<Output = Result<()>> + Send {
        async move {
            self.move_pointer(at).await?;
            for _ in 0..count {
                self.button(button, true, modifiers).await?;
                self.button(button, false, modifiers).await?;
            }
            Ok(())
        }
    }
    /// Presses at the first point, moves through the others over `duration`, releases at the last;
    /// by default through [`Input::move_pointer`] and [`Input::button`]. The button is released
    /// even when a move fails, so no drag is left holding it.
    fn drag_path(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: Duration,
    ) -> impl Future<Output = Result<()>> + Send {
        async move {
            let Some((first, rest)) = points.split_first() else {
                return Ok(());
            };
            self.move_pointer(*first).await?;
            self.button(button, true, modifiers).await?;
            let step = duration / u32::try_from(rest.len().max(1)).unwrap_or(u32::MAX);
            let mut moved = Ok(());
            for point in rest {
                tokio::time::sleep(step).await;
                moved = self.move_pointer(*point).await;
                if moved.is_err() {
                    break;
                }
            }
            let released = self.button(button, false, modifiers).await;
            moved.and(released)
        }
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
    /// Presses key chords in order, to whatever has keyboard focus.
    fn press_keys(&self, _keys: &Keys) -> impl Future<Output = Result<InputOutcome>> + Send {
        async { Err(unsupported("Pressing keys")) }
    }
    /// Types text into whatever has keyboard focus.
    fn type_text(&self, _text: &str) -> impl Future<Output = Result<InputOutcome>> + Send {
        async { Err(unsupported("Typing")) }
    }
    /// Types text as [`Input::type_text`] does, saying how it went where the platform has more
    /// than one route for text; `type` calls this one.
    fn type_text_routed(&self, text: &str) -> impl Future<Output = Result<Typed>> + Send {
        async move { self.type_text(text).await.map(Typed::from) }
    }
}

/// The screen's pixels.
pub trait Capture: Send + Sync {
    /// Pixels of a screen rectangle, clipped to the screen.
    fn capture(&self, _rect: Rect) -> impl Future<Output = Result<RgbImage>> + Send {
        async { Err(unsupported("Capturing the screen")) }
    }
}

/// The clipboard's text.
pub trait Clipboard: Send + Sync {
    fn read_clipboard(&self) -> impl Future<Output = Result<ClipboardContent>> + Send {
        async { Err(unsupported("Reading the clipboard")) }
    }
    /// Owns the clipboard with `text` until another program takes it, after this call returns.
    fn write_clipboard(&self, _text: &str) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Writing the clipboard")) }
    }
}

/// Installed applications and the processes of running ones.
pub trait Apps: Send + Sync {
    /// Applications that can be started, sorted by name.
    fn installed(&self) -> impl Future<Output = Result<Vec<InstalledApp>>> + Send {
        async { Err(unsupported("Listing installed applications")) }
    }
    /// Kinds of apps `installed` could not list on this system, one sentence each saying why
    /// (Windows under Wine has no Apps folder for packaged apps); the reply says them.
    fn installed_gaps(&self) -> impl Future<Output = Vec<String>> + Send {
        async { Vec::new() }
    }
    /// Starts an installed app (by its id) detached from deskhand; returns its process id.
    fn launch(&self, _id: &str) -> impl Future<Output = Result<u32>> + Send {
        async { Err(unsupported("Launching an app")) }
    }
    /// Ends a process at once.
    fn kill(&self, _pid: u32) -> impl Future<Output = Result<()>> + Send {
        async { Err(unsupported("Ending an app")) }
    }
    /// How the process [`Apps::launch`] started as `pid` failed, once it and every process of
    /// its own have exited and it ended as a failure (a status other than 0, or a signal): one
    /// clause, `exited with status 1; the last line it wrote to stderr: "…"`. `None` while any
    /// of them runs, when it ended well (a launcher that handed its work to a running
    /// instance), or where the platform cannot tell.
    fn launch_failed(&self, _pid: u32) -> impl Future<Output = Option<String>> + Send {
        async { None }
    }
    /// Whether process `pid` is `ancestor` or was started by it (a launcher script's child).
    fn descends_from(&self, _pid: u32, _ancestor: u32) -> bool {
        _pid == _ancestor
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

impl Windows for NullBackend {}
impl Accessibility for NullBackend {}
impl Values for NullBackend {}
impl Input for NullBackend {}
impl Capture for NullBackend {}
impl Clipboard for NullBackend {}
impl Apps for NullBackend {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_goes_in_place_of_the_selection_else_at_the_caret() {
        let state = |caret, selection| TextState {
            text: "draft.txt".into(),
            caret,
            selection,
        };
        let typed = |s: TextState| s.after_typing("new");
        assert_eq!(typed(state(Some(5), None)).as_deref(), Some("draftnew.txt"));
        assert_eq!(typed(state(Some(9), None)).as_deref(), Some("draft.txtnew"));
        assert_eq!(
            typed(state(Some(5), Some((0, 5)))).as_deref(),
            Some("new.txt")
        );
        assert_eq!(state(Some(5), Some((0, 5))).selected(), 5);
        // An empty selection is the caret; a caret past the text or none says nothing.
        assert_eq!(
            typed(state(Some(0), Some((3, 3)))).as_deref(),
            Some("newdraft.txt")
        );
        assert_eq!(typed(state(Some(40), None)), None);
        assert_eq!(typed(state(None, None)), None);
        let accented = TextState {
            text: "né".into(),
            caret: Some(1),
            selection: None,
        };
        assert_eq!(accented.after_typing("a").as_deref(), Some("naé"));
    }
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
        let keys = Keys::parse("ctrl+s").unwrap();
        let pressed = NullBackend.press_keys(&keys).await.unwrap_err();
        assert_eq!(pressed.kind, ErrorKind::Unsupported);
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

    /// A platform that has only pointer moves and buttons, failing the move to `fail_at`.
    #[derive(Default)]
    struct PointerOnly {
        events: std::sync::Mutex<Vec<String>>,
        fail_at: Option<Point>,
    }

    impl Input for PointerOnly {
        async fn move_pointer(&self, to: Point) -> Result<()> {
            if self.fail_at == Some(to) {
                return Err(Error::new(ErrorKind::Platform, "the move failed"));
            }
            self.events
                .lock()
                .unwrap()
                .push(format!("move {},{}", to.x, to.y));
            Ok(())
        }

        async fn button(&self, _: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
            let what = if down { "down" } else { "up" };
            self.events
                .lock()
                .unwrap()
                .push(format!("{what} {modifiers:?}"));
            Ok(())
        }
    }

    #[tokio::test]
    async fn clicks_and_drags_are_made_of_moves_and_buttons_where_a_platform_has_only_those() {
        let pointer = PointerOnly::default();
        pointer
            .click(
                Point { x: 5, y: 6 },
                MouseButton::Left,
                2,
                &[Modifier::Ctrl],
            )
            .await
            .unwrap();
        assert_eq!(
            *pointer.events.lock().unwrap(),
            [
                "move 5,6",
                "down [Ctrl]",
                "up [Ctrl]",
                "down [Ctrl]",
                "up [Ctrl]"
            ]
        );

        let points = [
            Point { x: 1, y: 1 },
            Point { x: 2, y: 2 },
            Point { x: 3, y: 3 },
        ];
        let pointer = PointerOnly::default();
        pointer
            .drag_path(&points, MouseButton::Left, &[], Duration::from_millis(20))
            .await
            .unwrap();
        assert_eq!(
            *pointer.events.lock().unwrap(),
            ["move 1,1", "down []", "move 2,2", "move 3,3", "up []"]
        );

        let pointer = PointerOnly {
            fail_at: Some(points[1]),
            ..PointerOnly::default()
        };
        let err = pointer
            .drag_path(&points, MouseButton::Left, &[], Duration::ZERO)
            .await
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Platform);
        assert_eq!(err.message, "the move failed");
        assert_eq!(
            *pointer.events.lock().unwrap(),
            ["move 1,1", "down []", "up []"],
            "the button comes up though the drag stopped"
        );
    }
}
