//! The FFI shell: each capability of `core::backend` carried over to the macOS frameworks.
//! Every call that asks another process runs on the blocking pool under a deadline, and every
//! Accessibility request has the messaging timeout, so a hung app costs a bounded time; events
//! are posted where the call runs, since posting asks no one.

mod appkit;
mod ax;
mod keyboard;
mod quartz;
mod sck;

pub use keyboard::serve_main_queue_while;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use deskhand_core::backend::{
    Accessibility, Apps, Capture, Clipboard, Input, InputOutcome, Partial, Values, Windows,
};
use deskhand_core::keys::Keys;
use deskhand_core::model::{
    ClipboardContent, ElementHandle, InstalledApp, Modifier, MouseButton, Point, Rect, RgbImage,
    ScrollDirection, Tree, WindowChange, WindowInfo, WindowKey,
};
use deskhand_core::{Error, ErrorKind, Result};
use objc2_core_foundation::{CFNumber, CFString};
use objc2_core_graphics::CGPreflightScreenCaptureAccess;

use crate::actions::{NumberPath, StepVerdict, Stepper, core_action_name, number_path};
use crate::apps::{application_dirs, installed, is_bundle_id};
use crate::attributes::{AxValue, FrameF};
use crate::capture::{AfterFailure, Plan, after_failure, plan};
use crate::display::{display_rects, screen};
use crate::ending::{GRACES, KillRefused, Processes, end};
use crate::errors::{AxError, Request, classify};
use crate::handle::{Handle, Step};
use crate::keys::{KeyEvent, Layouts, TYPE_GAP, chord_events, modifier, typing_events};
use crate::permissions::{Permission, missing};
use crate::roles::role;
use crate::tree::{Limits, NODE_BUDGET, hash_of, read_tree, to_node, web_content_pending};
use crate::windows::{
    AxWindow, CgWindow, is_app_window, match_windows, not_in_front, window_infos,
};

use ax::Element;

/// How long one observation's walk may read.
const TREE_DEADLINE: Duration = Duration::from_secs(5);
/// The bound on any one call, the walk's deadline included.
const CALL_DEADLINE: Duration = Duration::from_secs(8);
/// How long an app may take to say its windows' titles while windows are listed.
const TITLE_TIMEOUT_S: f32 = 0.25;
/// A pause between synthetic events: an app drops events that come faster than it reads them.
const EVENT_GAP: Duration = Duration::from_millis(2);

/// The macOS backend. It holds which mouse button is down, so a move while it is held is
/// posted as a drag, and the key table of each keyboard layout seen.
#[derive(Debug, Default)]
pub struct MacBackend {
    held: Mutex<Option<MouseButton>>,
    layouts: Mutex<Layouts>,
}

impl MacBackend {
    /// Checks the Accessibility permission at start, asking macOS to prompt the user once if it
    /// is missing, and sets the global messaging timeout. A missing permission does not stop
    /// the server: every call that needs it answers with the message that says how to grant it.
    /// Called on the main thread, it also reads the keyboard layout there (see `keyboard`).
    pub fn connect() -> Result<MacBackend> {
        ax::system_wide();
        if !ax::trusted(true) {
            eprintln!("deskhand: {}", missing(Permission::Accessibility));
        }
        if !CGPreflightScreenCaptureAccess() {
            eprintln!("deskhand: {}", missing(Permission::ScreenRecording));
        }
        let backend = MacBackend::default();
        keyboard::prepare(&backend.layouts);
        Ok(backend)
    }
}

/// Both permissions as this process has them now, without a prompt.
pub fn permissions() -> [crate::permissions::PermissionStatus; 2] {
    use crate::permissions::PermissionStatus;
    [
        PermissionStatus::of(Permission::Accessibility, ax::trusted(false)),
        PermissionStatus::of(
            Permission::ScreenRecording,
            CGPreflightScreenCaptureAccess(),
        ),
    ]
}

fn require(permission: Permission) -> Result<()> {
    let granted = match permission {
        Permission::Accessibility => ax::trusted(false),
        Permission::ScreenRecording => CGPreflightScreenCaptureAccess(),
    };
    if granted {
        return Ok(());
    }
    let kind = match permission {
        Permission::Accessibility => ErrorKind::NoAccessibility,
        Permission::ScreenRecording => ErrorKind::Platform,
    };
    Err(Error::new(kind, missing(permission)))
}

/// Runs `work` on the blocking pool within [`CALL_DEADLINE`]. A change that ran out of time may
/// have reached the app.
async fn blocking<T: Send + 'static>(
    what: &'static str,
    request: Request,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    match tokio::time::timeout(CALL_DEADLINE, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(Error::platform(format!(
            "{what} failed inside deskhand ({join}); try again"
        ))),
        Err(_) => {
            let error = Error::new(
                ErrorKind::Timeout,
                format!(
                    "{what} took longer than {} s: the app may be hung; wait and observe it \
                     again, or kill it if it stays unresponsive",
                    CALL_DEADLINE.as_secs()
                ),
            );
            Err(match request {
                Request::Read => error,
                Request::Change => error.after_sending(),
            })
        }
    }
}

fn gone(what: &str) -> Error {
    Error::new(
        ErrorKind::ElementGone,
        format!("{what}: the element is no longer where it was observed; call observe again"),
    )
}

fn window_gone(handle: u64) -> Error {
    Error::new(
        ErrorKind::SurfaceGone,
        format!("window {handle} is no longer on screen; call windows to see what is open"),
    )
}

/// The accessibility windows of `pid`, each with its frame and title.
fn ax_windows(pid: u32) -> std::result::Result<Vec<(Element, AxWindow)>, AxError> {
    ax_windows_of(&ax::application(pid))
}

fn ax_windows_of(app: &Element) -> std::result::Result<Vec<(Element, AxWindow)>, AxError> {
    let mut windows = Vec::new();
    for window in ax::all(app, "AXWindows")? {
        let attributes = ax::attributes(&window)?;
        if let Some(frame) = attributes.frame() {
            let title = attributes.title.clone().unwrap_or_default();
            windows.push((window, AxWindow { frame, title }));
        }
    }
    Ok(windows)
}

/// The accessibility window of the on-screen window `handle` of `pid`, and its Quartz entry.
fn window_element(handle: u64, pid: Option<u32>) -> Result<(Element, CgWindow)> {
    let cg = quartz::window_list()
        .into_iter()
        .find(|w| w.id == handle && pid.is_none_or(|pid| pid == w.pid))
        .ok_or_else(|| window_gone(handle))?;
    let windows =
        ax_windows(cg.pid).map_err(|err| classify(err, Request::Read, "Finding the window"))?;
    let frames: Vec<AxWindow> = windows.iter().map(|(_, w)| w.clone()).collect();
    let matched = match_windows(std::slice::from_ref(&cg), &frames)[0];
    match matched {
        Some(index) => Ok((windows[index].0.clone(), cg)),
        None => Err(Error::new(
            ErrorKind::NoAccessibility,
            format!(
                "window {handle} of {} has no accessibility window of its place and size: the \
                 app may draw it without the Accessibility API; use screenshot and click by \
                 point",
                cg.owner
            ),
        )),
    }
}

/// The element a handle names, checked to be the same kind and name as when it was read.
fn resolve(handle: &ElementHandle) -> Result<Element> {
    let parsed = Handle::parse(handle).ok_or_else(|| {
        Error::bad_argument(format!(
            "\"{}\" is not an element of this macOS desktop; observe again for fresh refs",
            handle.0
        ))
    })?;
    let (mut element, _) = window_element(parsed.window, Some(parsed.pid))?;
    for step in &parsed.path {
        element = ax::step(&element, *step)
            .map_err(|err| classify(err, Request::Read, "Finding the element"))?
            .ok_or_else(|| gone("Finding the element"))?;
    }
    let attributes = ax::attributes(&element)
        .map_err(|err| classify(err, Request::Read, "Reading the element"))?;
    let same_name = parsed.path.is_empty() || hash_of(&attributes) == parsed.name_hash;
    if attributes.role() != parsed.role || !same_name {
        return Err(gone("Finding the element"));
    }
    Ok(element)
}

/// The pid of the frontmost application.
fn frontmost_pid() -> Option<u32> {
    let system = ax::system_wide();
    let app = ax::copy(&system, "AXFocusedApplication").ok()??;
    let app = app
        .downcast::<objc2_application_services::AXUIElement>()
        .ok()?;
    ax::pid(&app).ok()
}

fn list_windows() -> Vec<WindowInfo> {
    let cg = quartz::window_list();
    let displays = display_rects(&quartz::displays());
    let frontmost = frontmost_pid();
    let by_pid: RefCell<HashMap<u32, Vec<AxWindow>>> = RefCell::default();
    // Quartz withholds other apps' titles without Screen Recording; Accessibility has them. It
    // is asked only then, and briefly: a hung app must not hold up the list of windows.
    let withheld = !CGPreflightScreenCaptureAccess();
    let ax_title = |window: &CgWindow| -> Option<String> {
        if !withheld {
            return None;
        }
        let mut by_pid = by_pid.borrow_mut();
        let frames = by_pid.entry(window.pid).or_insert_with(|| {
            let app = ax::application(window.pid);
            // SAFETY: a plain setter on a valid element.
            let _ = unsafe { app.set_messaging_timeout(TITLE_TIMEOUT_S) };
            ax_windows_of(&app)
                .map(|windows| windows.into_iter().map(|(_, w)| w).collect())
                .unwrap_or_default()
        });
        let found = match_windows(std::slice::from_ref(window), frames)[0]?;
        Some(frames[found].title.clone())
    };
    window_infos(&cg, &ax_title, frontmost, &displays)
}

/// Lists the application's menu bar first in its window's tree, as a window on Linux holds
/// its own: menus are chosen by path from there. The bar lies outside the window, so what it
/// shows is judged against the screen. Closed menus are not read (see the walk).
fn with_menu_bar(tree: &mut Tree, window: &Handle, limits: Limits) {
    let Ok(Some(bar)) = ax::menu_bar(window.pid) else {
        return;
    };
    let Ok(attributes) = ax::attributes(&bar) else {
        return;
    };
    let Some(screen) = screen(&quartz::displays()) else {
        return;
    };
    let handle = window.child(Step::MenuBar, attributes.role(), hash_of(&attributes));
    let limits = Limits {
        nodes: limits.nodes.saturating_sub(tree.root.count()),
        ..limits
    };
    let bar = read_tree(&ax::Reader, &bar, attributes, handle, screen, limits);
    tree.partial = match (tree.partial.take(), bar.partial) {
        (Some(window), Some(bar)) => Some(format!("{window}; the menu bar: {bar}")),
        (Some(window), None) => Some(window),
        (None, Some(bar)) => Some(format!("the menu bar: {bar}")),
        (None, None) => None,
    };
    tree.root.children.insert(0, bar.root);
}

/// The apps whose web accessibility was switched on, by pid.
static SWITCHED_ON: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// How often, and how far apart, a page found empty just after the switch is read again.
const WEB_LOOKS: usize = 4;
const WEB_LOOK_GAP: Duration = Duration::from_millis(250);

/// Chromium and Electron apps (Chrome, VS Code, Slack) build their accessibility tree only
/// when an assistive client asks: `AXManualAccessibility` on the application element is that
/// request (other apps answer that they have no such attribute). Done once an app, as Cua
/// Driver does; says whether this was the first time.
fn switch_on_web_accessibility(pid: u32) -> bool {
    let mut switched = SWITCHED_ON
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if switched.contains(&pid) {
        return false;
    }
    // Pids are reused once an app is gone: only recent ones are remembered.
    if switched.len() >= 256 {
        switched.remove(0);
    }
    switched.push(pid);
    let _ = ax::set_bool(&ax::application(pid), "AXManualAccessibility", true);
    true
}

/// The element's node as an observation shows it, children aside.
fn node_of(element: &Element) -> std::result::Result<deskhand_core::model::Node, AxError> {
    let mut attributes = ax::attributes(element)?;
    let role = role(attributes.role(), attributes.subrole.as_deref());
    if role != deskhand_core::model::Role::Password {
        attributes.value = ax::value_of(element, "AXValue")?;
    }
    let bounds = attributes.frame().map(FrameF::to_rect);
    Ok(to_node(
        &attributes,
        role,
        ElementHandle(String::new()),
        bounds,
        true,
    ))
}

fn flags(modifiers: &[Modifier]) -> u64 {
    modifiers
        .iter()
        .map(|m| modifier((*m).into()).1)
        .fold(0, |all, flag| all | flag)
}

fn input_error(reason: &str) -> Error {
    Error::platform(format!(
        "{reason}; check that deskhand has the Accessibility permission and try again"
    ))
}

impl Windows for MacBackend {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        blocking("Listing windows", Request::Read, || Ok(list_windows())).await
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        let windows = self.windows().await?;
        Ok(windows.into_iter().find(|w| w.handle == handle))
    }

    async fn screen(&self) -> Result<Rect> {
        blocking("Reading the screen size", Request::Read, || {
            screen(&quartz::displays())
                .ok_or_else(|| Error::new(ErrorKind::NoDisplay, "no active display was found"))
        })
        .await
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        blocking("Listing windows", Request::Read, || {
            Ok(quartz::window_list()
                .iter()
                .filter(|w| is_app_window(w))
                .map(|w| WindowKey {
                    handle: w.id,
                    pid: Some(w.pid),
                })
                .collect())
        })
        .await
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        require(Permission::Accessibility)?;
        let (handle, pid) = (window.handle, window.pid);
        blocking("Focusing the window", Request::Change, move || {
            let (element, cg) = window_element(handle, pid)?;
            // Every way is tried, and the result checked: each one alone fails somewhere.
            let app = ax::application(cg.pid);
            let steps = [
                (
                    "app activation",
                    libc::pid_t::try_from(cg.pid).is_ok_and(appkit::activate),
                ),
                ("AXRaise", ax::perform(&element, "AXRaise").is_ok()),
                ("AXMain", ax::set_bool(&element, "AXMain", true).is_ok()),
                (
                    "AXFrontmost",
                    ax::set_bool(&app, "AXFrontmost", true).is_ok(),
                ),
            ];
            let until = Instant::now() + Duration::from_secs(1);
            while Instant::now() < until {
                if frontmost_pid() == Some(cg.pid) {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(Error::platform(not_in_front(&cg.owner, &steps)).after_sending())
        })
        .await
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        require(Permission::Accessibility)?;
        let (handle, pid) = (window.handle, window.pid);
        blocking("Closing the window", Request::Change, move || {
            let (element, _) = window_element(handle, pid)?;
            let button = ax::copy(&element, "AXCloseButton")
                .map_err(|err| classify(err, Request::Read, "Closing the window"))?
                .and_then(|b| b.downcast::<objc2_application_services::AXUIElement>().ok())
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Unsupported,
                        "the window has no close button; press cmd+w with it focused instead",
                    )
                })?;
            ax::perform(&button, "AXPress")
                .map_err(|err| classify(err, Request::Change, "Closing the window"))
        })
        .await
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        require(Permission::Accessibility)?;
        let (handle, pid) = (window.handle, window.pid);
        blocking("Changing the window", Request::Change, move || {
            let (element, _) = window_element(handle, pid)?;
            let failed = |err| classify(err, Request::Change, "Changing the window");
            match change {
                WindowChange::Move { x, y } => {
                    ax::set_point(&element, "AXPosition", f64::from(x), f64::from(y))
                }
                WindowChange::Resize { width, height } => {
                    ax::set_size(&element, "AXSize", f64::from(width), f64::from(height))
                }
                WindowChange::Minimize => ax::set_bool(&element, "AXMinimized", true),
                WindowChange::Restore => {
                    ax::set_bool(&element, "AXMinimized", false).and_then(|()| {
                        match ax::value_of(&element, "AXFullScreen") {
                            Ok(Some(AxValue::Bool(true))) => {
                                ax::set_bool(&element, "AXFullScreen", false)
                            }
                            _ => Ok(()),
                        }
                    })
                }
                // The zoom button fills the screen without entering a full-screen space.
                WindowChange::Maximize => ax::copy(&element, "AXZoomButton").and_then(|zoom| {
                    let zoom = zoom
                        .and_then(|b| b.downcast::<objc2_application_services::AXUIElement>().ok())
                        .ok_or(AxError::ATTRIBUTE_UNSUPPORTED)?;
                    ax::perform(&zoom, "AXPress")
                }),
            }
            .map_err(failed)
        })
        .await
    }
}

impl Accessibility for MacBackend {
    async fn tree(&self, window: &WindowInfo) -> Result<Tree> {
        require(Permission::Accessibility)?;
        let (handle, pid, bounds) = (window.handle, window.pid, window.bounds);
        blocking("Reading the accessibility tree", Request::Read, move || {
            let (root, cg) = window_element(handle, pid)?;
            let attributes = ax::attributes(&root)
                .map_err(|err| classify(err, Request::Read, "Reading the accessibility tree"))?;
            let root_handle = Handle {
                pid: cg.pid,
                window: handle,
                path: Vec::new(),
                role: attributes.role().to_owned(),
                name_hash: hash_of(&attributes),
            };
            let clip = attributes.frame().map_or(bounds, FrameF::to_rect);
            let started = Instant::now();
            let limits = Limits {
                nodes: NODE_BUDGET,
                deadline: started + TREE_DEADLINE,
            };
            let first_look = switch_on_web_accessibility(cg.pid);
            let mut looks = 0;
            let mut tree = loop {
                let tree = read_tree(
                    &ax::Reader,
                    &root,
                    attributes.clone(),
                    root_handle.clone(),
                    clip,
                    limits,
                );
                looks += 1;
                if !(first_look && looks < WEB_LOOKS && web_content_pending(&tree.root)) {
                    break tree;
                }
                if looks == 1 {
                    // Some Chromium builds answer only the older switch.
                    let _ = ax::set_bool(&ax::application(cg.pid), "AXEnhancedUserInterface", true);
                }
                std::thread::sleep(WEB_LOOK_GAP);
            };
            with_menu_bar(&mut tree, &root_handle, limits);
            Ok(tree)
        })
        .await
    }

    async fn element_bounds(
        &self,
        _window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Rect>> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's place", Request::Read, move || {
            let found = match resolve(&element) {
                Ok(found) => found,
                Err(err) if err.kind == ErrorKind::ElementGone => return Ok(None),
                Err(err) => return Err(err),
            };
            let attributes = ax::attributes(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's place"))?;
            Ok(attributes
                .frame()
                .map(FrameF::to_rect)
                .filter(|r| !r.is_empty()))
        })
        .await
    }

    async fn action_names(&self, element: &ElementHandle) -> Result<Vec<String>> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's actions", Request::Read, move || {
            let found = resolve(&element)?;
            let names = ax::action_names(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's actions"))?;
            Ok(names.iter().map(|n| core_action_name(n)).collect())
        })
        .await
    }

    async fn do_action(&self, element: &ElementHandle, index: usize) -> Result<()> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Running the element's action", Request::Change, move || {
            let found = resolve(&element)?;
            let names = ax::action_names(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's actions"))?;
            let action = names
                .get(index)
                .ok_or_else(|| gone("Running the element's action"))?;
            ax::perform(&found, action).map_err(|err| {
                classify(
                    err,
                    Request::Change,
                    &format!("Running {action} on the element"),
                )
            })
        })
        .await
    }

    async fn answers(&self, window: &WindowInfo) -> bool {
        let Some(pid) = window.pid else {
            return false;
        };
        blocking("Asking the app", Request::Read, move || {
            let app = ax::application(pid);
            // SAFETY: a plain setter on a valid element; a probe waits less than a request.
            let _ = unsafe { app.set_messaging_timeout(0.3) };
            Ok(ax::copy(&app, "AXRole").is_ok())
        })
        .await
        .unwrap_or(false)
    }

    async fn focus_element(&self, element: &ElementHandle) -> Result<()> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Focusing the element", Request::Change, move || {
            let found = resolve(&element)?;
            ax::set_bool(&found, "AXFocused", true)
                .map_err(|err| classify(err, Request::Change, "Focusing the element"))
        })
        .await
    }

    async fn element_focused(&self, element: &ElementHandle) -> Result<bool> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's focus", Request::Read, move || {
            let found = resolve(&element)?;
            let focused = ax::value_of(&found, "AXFocused")
                .map_err(|err| classify(err, Request::Read, "Reading the element's focus"))?;
            Ok(focused == Some(AxValue::Bool(true)))
        })
        .await
    }
}

impl Values for MacBackend {
    async fn set_text(&self, element: &ElementHandle, text: &str) -> Result<()> {
        require(Permission::Accessibility)?;
        let (element, text) = (element.clone(), text.to_owned());
        blocking("Setting the text", Request::Change, move || {
            let found = resolve(&element)?;
            let settable = ax::settable(&found, "AXValue")
                .map_err(|err| classify(err, Request::Read, "Setting the text"))?;
            if !settable {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "the element's text cannot be set through accessibility; type into it                      instead",
                ));
            }
            ax::set(&found, "AXValue", &CFString::from_str(&text))
                .map_err(|err| classify(err, Request::Change, "Setting the text"))
        })
        .await
    }

    async fn set_number(&self, element: &ElementHandle, value: f64) -> Result<()> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Setting the number", Request::Change, move || {
            let found = resolve(&element)?;
            let read = |what| move |err| classify(err, Request::Read, what);
            let changed = |err| classify(err, Request::Change, "Setting the number");
            let number = |found: &Element| -> Result<Option<f64>> {
                Ok(
                    match ax::value_of(found, "AXValue").map_err(read("Reading the number"))? {
                        Some(AxValue::Number(n)) => Some(n),
                        _ => None,
                    },
                )
            };
            let current = number(&found)?;
            let settable = ax::settable(&found, "AXValue").map_err(read("Setting the number"))?;
            let actions = ax::action_names(&found).map_err(read("Reading the actions"))?;
            match number_path(settable, current, value, &actions)? {
                NumberPath::Nothing => Ok(()),
                NumberPath::SetValue => {
                    ax::set(&found, "AXValue", &CFNumber::new_f64(value)).map_err(changed)
                }
                NumberPath::Step(action) => {
                    let mut stepper = Stepper::new(current.unwrap_or_default(), value);
                    loop {
                        ax::perform(&found, action).map_err(changed)?;
                        let now = number(&found)
                            .map_err(Error::after_sending)?
                            .ok_or_else(|| gone("Setting the number").after_sending())?;
                        if stepper.after_step(now)? == StepVerdict::Arrived {
                            return Ok(());
                        }
                    }
                }
            }
        })
        .await
    }

    async fn element_value(&self, element: &ElementHandle) -> Result<Option<String>> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's value", Request::Read, move || {
            let found = resolve(&element)?;
            let node = node_of(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's value"))?;
            Ok(node.value)
        })
        .await
    }

    async fn element_text(&self, element: &ElementHandle) -> Result<String> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's text", Request::Read, move || {
            let found = resolve(&element)?;
            let node = node_of(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's text"))?;
            if node.role == deskhand_core::model::Role::Password {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "a password field's content is never read; observe shows the field without it",
                ));
            }
            Ok(node.value.unwrap_or(node.name))
        })
        .await
    }
}

impl MacBackend {
    fn held(&self) -> Option<MouseButton> {
        *self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn set_held(&self, button: Option<MouseButton>) {
        *self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = button;
    }
}

/// Posts key events on the blocking pool, one gap apart; fails before sending anything when the
/// permission is missing, since macOS drops the events of an untrusted process in silence.
/// `gap` follows each key's release, [`EVENT_GAP`] each press.
async fn post_keys(
    what: &'static str,
    events: Vec<KeyEvent>,
    gap: Duration,
    total: usize,
    unit: &'static str,
) -> Result<InputOutcome> {
    require(Permission::Accessibility)?;
    blocking(what, Request::Change, move || {
        let before = frontmost_pid();
        for event in &events {
            quartz::key(event).map_err(|reason| {
                Error::platform(format!("{what} stopped: {reason}")).after_sending()
            })?;
            std::thread::sleep(if event.down { EVENT_GAP } else { gap });
        }
        if frontmost_pid() != before {
            return Ok(InputOutcome::Partial(Partial {
                sent: total,
                total,
                unit,
                reason: "the frontmost app changed while they were sent, so some may have gone to                          another app"
                    .into(),
            }));
        }
        Ok(InputOutcome::Done)
    })
    .await
}

impl Input for MacBackend {
    async fn pointer(&self) -> Result<Point> {
        quartz::pointer().ok_or_else(|| input_error("the pointer's place could not be read"))
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        require(Permission::Accessibility)?;
        quartz::move_pointer(to, self.held()).map_err(input_error)
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        require(Permission::Accessibility)?;
        let at = self.pointer().await?;
        quartz::button(at, button, down, flags(modifiers), 1).map_err(input_error)?;
        self.set_held(down.then_some(button));
        Ok(())
    }

    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<()> {
        require(Permission::Accessibility)?;
        quartz::move_pointer(at, None).map_err(input_error)?;
        let flags = flags(modifiers);
        // The n-th click of a double or triple click says so in its click state.
        for click in 1..=i64::from(count) {
            quartz::button(at, button, true, flags, click).map_err(input_error)?;
            quartz::button(at, button, false, flags, click).map_err(input_error)?;
        }
        Ok(())
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        require(Permission::Accessibility)?;
        if let Some(at) = at {
            quartz::move_pointer(at, None).map_err(input_error)?;
        }
        let lines = i32::try_from(amount).unwrap_or(i32::MAX);
        let (vertical, horizontal) = match direction {
            ScrollDirection::Up => (lines, 0),
            ScrollDirection::Down => (-lines, 0),
            ScrollDirection::Left => (0, lines),
            ScrollDirection::Right => (0, -lines),
        };
        quartz::scroll(vertical, horizontal).map_err(input_error)
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        let layout = keyboard::key_table(&self.layouts);
        let mut events = Vec::new();
        for (written, chord) in keys.written() {
            let chord_events = chord_events(chord, &layout).map_err(|err| {
                Error::bad_argument(format!("\"{written}\" cannot be pressed: {err}"))
            })?;
            events.extend(chord_events);
        }
        let chords = keys.chords().len();
        post_keys("Pressing keys", events, EVENT_GAP, chords, "key chords").await
    }

    async fn type_text(&self, text: &str) -> Result<InputOutcome> {
        let layout = keyboard::key_table(&self.layouts);
        let events = typing_events(text, &layout);
        post_keys(
            "Typing",
            events,
            TYPE_GAP,
            text.chars().count(),
            "characters",
        )
        .await
    }
}

/// The pixels of `rect` (global points): ScreenCaptureKit where it takes screenshots, else or
/// after it failed for a reason other than the permission, the window list.
fn capture(rect: Rect) -> Result<RgbImage> {
    // Asking Quartz for the displays first also opens the window server connection, which
    // ScreenCaptureKit expects a process without an NSApplication to have.
    let displays = quartz::displays();
    let outside = || {
        Error::bad_argument(format!(
            "the region {rect:?} lies outside every display; give one on screen"
        ))
    };
    let on_screen = screen(&displays)
        .and_then(|screen| rect.intersect(&screen))
        .ok_or_else(outside)?;
    let screenshots = objc2::available!(macos = 14.0);
    if let Plan::Screenshots {
        width,
        height,
        pieces,
    } = plan(on_screen, &displays, screenshots).ok_or_else(outside)?
    {
        match sck::capture(width, height, &pieces) {
            Ok(image) => return Ok(image),
            Err(sck::Failed(code)) => match after_failure(code) {
                AfterFailure::AskForPermission => {
                    return Err(Error::platform(missing(Permission::ScreenRecording)));
                }
                AfterFailure::UseWindowList => {}
            },
        }
    }
    quartz::capture(on_screen).ok_or_else(|| {
        Error::platform(format!(
            "the screen could not be captured (Quartz gave no image); if it worked before, \
             macOS may be asking again for permission: {}",
            missing(Permission::ScreenRecording)
        ))
    })
}

impl Capture for MacBackend {
    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        require(Permission::ScreenRecording)?;
        blocking("Capturing the screen", Request::Read, move || capture(rect)).await
    }
}

impl Clipboard for MacBackend {
    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        blocking("Reading the clipboard", Request::Read, || {
            let (text, types) = appkit::read_pasteboard();
            Ok(ClipboardContent { text, types })
        })
        .await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        let text = text.to_owned();
        blocking("Writing the clipboard", Request::Change, move || {
            if appkit::write_pasteboard(&text) {
                Ok(())
            } else {
                Err(Error::platform(
                    "the pasteboard refused the text; try again, or type the text instead",
                ))
            }
        })
        .await
    }
}

/// How long a launched app has to show up among the running ones.
const LAUNCH_DEADLINE: Duration = Duration::from_secs(10);

fn launch(id: &str) -> Result<u32> {
    let before = appkit::running(id);
    // `open -g` starts the app in the background, so the agent's window keeps the focus; a
    // running app is only asked to open, and keeps its process.
    let mut child = std::process::Command::new("/usr/bin/open")
        .args(["-g", "-b", id])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|err| Error::platform(format!("/usr/bin/open could not start ({err})")))?;
    let until = Instant::now() + LAUNCH_DEADLINE;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) | Err(_) => {
                let _ = child.kill();
                return Err(Error::new(
                    ErrorKind::Timeout,
                    format!(
                        "launching {id} did not finish within {} s; call windows to see \
                         whether it opened",
                        LAUNCH_DEADLINE.as_secs()
                    ),
                )
                .after_sending());
            }
        }
    };
    if !status.success() {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("no application has the bundle id {id}; call apps to list the installed ones"),
        ));
    }
    loop {
        let now = appkit::running(id);
        if let Some(pid) = now.iter().find(|pid| !before.contains(pid)).or(now.first()) {
            return Ok(*pid);
        }
        if Instant::now() >= until {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "{id} was asked to open but is not running after {} s; call windows to see \
                     whether it appeared",
                    LAUNCH_DEADLINE.as_secs()
                ),
            )
            .after_sending());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Apps for MacBackend {
    async fn installed(&self) -> Result<Vec<InstalledApp>> {
        blocking("Listing installed applications", Request::Read, || {
            let home = std::env::var_os("HOME").unwrap_or_default();
            let bundles = application_dirs(Path::new(&home))
                .iter()
                .flat_map(|dir| appkit::bundles_in(dir))
                .collect();
            Ok(installed(bundles))
        })
        .await
    }

    async fn launch(&self, id: &str) -> Result<u32> {
        if !is_bundle_id(id) {
            return Err(Error::bad_argument(format!(
                "\"{id}\" is not a bundle id; launch takes the id apps lists, such as \
                 com.apple.TextEdit"
            )));
        }
        let id = id.to_owned();
        // `open` and the wait for the process have deadlines of their own, longer than a call's.
        match tokio::task::spawn_blocking(move || launch(&id)).await {
            Ok(result) => result,
            Err(join) => Err(Error::platform(format!(
                "launching failed inside deskhand ({join}); call windows to see whether it opened"
            ))),
        }
    }

    async fn kill(&self, pid: u32) -> Result<()> {
        blocking("Ending the app", Request::Change, move || {
            end(&System, pid, GRACES).map(|_| ())
        })
        .await
    }
}

/// The processes of this Mac, as ending an app asks them.
struct System;

impl Processes for System {
    fn ask_to_quit(&self, pid: u32) -> bool {
        libc::pid_t::try_from(pid).is_ok_and(appkit::ask_to_quit)
    }

    fn kill(&self, pid: u32) -> std::result::Result<(), KillRefused> {
        let target = libc::pid_t::try_from(pid)
            .map_err(|_| KillRefused::Other(format!("{pid} is not a process id")))?;
        // SAFETY: sends a signal; no memory is involved. `target` is positive (checked before),
        // so it names one process, never a group.
        if unsafe { libc::kill(target, libc::SIGKILL) } == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        Err(match err.raw_os_error() {
            Some(libc::ESRCH) => KillRefused::NotRunning,
            _ => KillRefused::Other(err.to_string()),
        })
    }

    fn running(&self, pid: u32) -> bool {
        let Ok(target) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only asks whether the process exists; no memory is involved.
        // NSRunningApplication's own `terminated` is not used: it changes only while the main
        // run loop runs, which deskhand's main thread does not.
        let answered = unsafe { libc::kill(target, 0) };
        answered == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
}
