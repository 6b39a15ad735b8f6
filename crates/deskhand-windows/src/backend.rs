//! The Windows [`Backend`](deskhand_core::backend::Backend): Win32 for windows, input, pixels,
//! the clipboard and apps; UI Automation for trees, element actions and values.
//!
//! Win32 calls block, and a few wait on another process (the clipboard's owner rendering its
//! data, a window's thread), so each runs on the blocking pool under a deadline: no call can
//! hang the server on one unresponsive application.

use std::time::Duration;

use deskhand_core::backend::{
    Accessibility, Apps, Capture, Clipboard, Input, InputOutcome, Values, Windows,
};
use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::keys::Keys;
use deskhand_core::model::{
    ClipboardContent, ElementHandle, InstalledApp, Modifier, MouseButton, Point, Rect, RgbImage,
    ScrollDirection, Tree, WindowChange, WindowInfo, WindowKey,
};
use windows::Win32::UI::HiDpi::{
    DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2, SetProcessDpiAwarenessContext,
};

use crate::outgoing::{Outgoing, overdue};
use crate::uia::com as uia;
use crate::win32::{self, apps, capture, clipboard, input};

/// Far longer than any of these calls takes on a live desktop.
const DEADLINE: Duration = Duration::from_secs(5);

/// Activation waits up to 1.5 s for the foreground itself.
const ACTIVATE_DEADLINE: Duration = Duration::from_secs(3);

/// A launch may wait on the shell starting the program.
const LAUNCH_DEADLINE: Duration = Duration::from_secs(15);

#[derive(Debug)]
pub struct WindowsBackend {
    _private: (),
}

impl WindowsBackend {
    /// Makes the process aware of each monitor's scale (per-monitor v2), so every pixel it reads
    /// or sends is a physical one: windows, pointer and captures then agree on every monitor.
    pub fn connect() -> Result<Self> {
        become_dpi_aware();
        Ok(Self { _private: () })
    }
}

/// Asks for per-monitor (v2) DPI awareness. It fails when a manifest or an earlier call set
/// the awareness already, which leaves that one, or on Windows before 10 1703; whether the
/// process is per-monitor v2 is what `deskhand doctor` checks.
pub(crate) fn become_dpi_aware() {
    // SAFETY: a process-wide setting with no pointers.
    let _ = unsafe { SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) };
}

/// Runs blocking Win32 work on the blocking pool under a deadline.
async fn blocking<T, F>(what: &'static str, deadline: Duration, work: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    match tokio::time::timeout(deadline, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(Error::platform(format!(
            "{what} failed inside deskhand ({join}); try again"
        ))),
        Err(_) => Err(Error::new(
            ErrorKind::Timeout,
            format!(
                "{what} did not finish within {} s: the application it waits on does not \
                 answer; try again, or close that application",
                deadline.as_secs()
            ),
        )),
    }
}

/// Work that acts on an app: one that ran out of time after its request went out (`work`
/// marks the moment) is applied but unconfirmed; one still finding its element is a timeout.
async fn acted<T, F>(what: &'static str, deadline: Duration, work: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&Outgoing) -> Result<T> + Send + 'static,
{
    let outgoing = Outgoing::default();
    let marks = outgoing.clone();
    blocking(what, deadline, move || work(&marks))
        .await
        .map_err(|err| {
            if err.kind == ErrorKind::Timeout {
                overdue(err, &outgoing)
            } else {
                err
            }
        })
}

/// Input, which goes out as the work starts.
async fn sent<T, F>(what: &'static str, work: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    acted(what, DEADLINE, move |outgoing| {
        outgoing.mark();
        work()
    })
    .await
}

/// An element call finds its element first (the search's time, one request that may take UI
/// Automation's whole transaction timeout), then waits on its action: all of it within this.
const ELEMENT_DEADLINE: Duration = Duration::from_secs(10);
const _: () = assert!(
    uia::SEARCH_TIME.as_millis()
        + uia::TRANSACTION_TIMEOUT.as_millis()
        + uia::ACTION_WAIT.as_millis()
        < ELEMENT_DEADLINE.as_millis()
);

impl Windows for WindowsBackend {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        blocking("Listing the windows", DEADLINE, win32::window::windows).await
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        blocking("Reading a window", DEADLINE, move || {
            Ok(win32::window::window(handle))
        })
        .await
    }

    async fn screen(&self) -> Result<Rect> {
        Ok(win32::window::screen())
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        blocking("Listing the windows", DEADLINE, win32::window::window_keys).await
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        let window = window.clone();
        blocking("Focusing the window", ACTIVATE_DEADLINE, move || {
            win32::window::activate(&window)
        })
        .await
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        let window = window.clone();
        blocking("Closing the window", DEADLINE, move || {
            win32::window::close(&window)
        })
        .await
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        let window = window.clone();
        blocking("Changing the window", DEADLINE, move || {
            win32::window::change(&window, change)
        })
        .await
    }
}

/// The walk stops at its own time, with what it read; one request begun just before may take
/// UI Automation's whole transaction timeout. Both fit, so a big window answers partial
/// rather than failing whole (8 s did not: 5 s of walk and a 4 s request outran it).
const TREE_DEADLINE: Duration = Duration::from_secs(10);
const _: () = assert!(
    uia::WALK_TIME.as_millis() + uia::TRANSACTION_TIMEOUT.as_millis() < TREE_DEADLINE.as_millis()
);

impl Accessibility for WindowsBackend {
    async fn tree(&self, window: &WindowInfo) -> Result<Tree> {
        let handle = window.handle;
        blocking("Reading the accessibility tree", TREE_DEADLINE, move || {
            uia::tree(handle)
        })
        .await
    }

    async fn element_bounds(
        &self,
        _window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Rect>> {
        let element = element.clone();
        blocking("Reading the element's place", ELEMENT_DEADLINE, move || {
            uia::element_bounds(&element)
        })
        .await
    }

    async fn action_names(&self, element: &ElementHandle) -> Result<Vec<String>> {
        let element = element.clone();
        blocking(
            "Reading the element's actions",
            ELEMENT_DEADLINE,
            move || uia::action_names(&element),
        )
        .await
    }

    async fn do_action(&self, element: &ElementHandle, index: usize) -> Result<()> {
        let element = element.clone();
        acted(
            "Running the element's action",
            ELEMENT_DEADLINE,
            move |outgoing| uia::do_action(&element, index, outgoing),
        )
        .await
    }

    async fn focus_element(&self, element: &ElementHandle) -> Result<()> {
        let element = element.clone();
        acted("Focusing the element", ELEMENT_DEADLINE, move |outgoing| {
            uia::focus_element(&element, outgoing)
        })
        .await
    }

    async fn element_focused(&self, element: &ElementHandle) -> Result<bool> {
        let element = element.clone();
        blocking("Reading the element's focus", ELEMENT_DEADLINE, move || {
            uia::element_focused(&element)
        })
        .await
    }
}

impl Values for WindowsBackend {
    async fn set_text(&self, element: &ElementHandle, text: &str) -> Result<()> {
        let (element, text) = (element.clone(), text.to_owned());
        acted("Setting the text", ELEMENT_DEADLINE, move |outgoing| {
            uia::set_text(&element, &text, outgoing)
        })
        .await
    }

    async fn set_number(&self, element: &ElementHandle, value: f64) -> Result<()> {
        let element = element.clone();
        acted("Setting the number", ELEMENT_DEADLINE, move |outgoing| {
            uia::set_number(&element, value, outgoing)
        })
        .await
    }

    async fn element_value(&self, element: &ElementHandle) -> Result<Option<String>> {
        let element = element.clone();
        blocking("Reading the element's value", ELEMENT_DEADLINE, move || {
            uia::element_value(&element)
        })
        .await
    }

    async fn element_text(&self, element: &ElementHandle) -> Result<String> {
        let element = element.clone();
        blocking("Reading the element's text", ELEMENT_DEADLINE, move || {
            uia::element_text(&element)
        })
        .await
    }
}

impl Input for WindowsBackend {
    async fn pointer(&self) -> Result<Point> {
        blocking("Reading the pointer", DEADLINE, input::pointer).await
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        sent("Moving the pointer", move || input::move_pointer(to)).await
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        let modifiers = modifiers.to_vec();
        sent("Pressing a mouse button", move || {
            input::button(button, down, &modifiers)
        })
        .await
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        sent("Scrolling", move || input::scroll(at, direction, amount)).await
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        let keys = keys.clone();
        sent("Pressing keys", move || input::press_keys(&keys)).await
    }

    async fn type_text(&self, text: &str) -> Result<InputOutcome> {
        let text = text.to_owned();
        sent("Typing", move || input::type_text(&text)).await
    }
}

impl Capture for WindowsBackend {
    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        blocking("Capturing the screen", DEADLINE, move || {
            // A window that cannot paint itself into deskhand's bitmap (Wine, some
            // GPU-drawn apps) leaves it black: the screen then shows what is there.
            let own = win32::window::covered_window(rect)
                .map(|window| capture::capture_window(window, rect));
            match own {
                Some(Ok(image)) if image.data.iter().any(|&byte| byte != 0) => Ok(image),
                _ => capture::capture(rect, win32::window::screen()),
            }
        })
        .await
    }
}

impl Clipboard for WindowsBackend {
    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        blocking("Reading the clipboard", DEADLINE, clipboard::read).await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        let text = text.to_owned();
        blocking("Writing the clipboard", DEADLINE, move || {
            clipboard::write(&text)
        })
        .await
    }
}

impl Apps for WindowsBackend {
    async fn installed(&self) -> Result<Vec<InstalledApp>> {
        blocking("Listing the installed apps", DEADLINE, apps::installed).await
    }

    async fn installed_gaps(&self) -> Vec<String> {
        blocking("Reading the Apps folder", DEADLINE, || {
            Ok(apps::installed_gaps())
        })
        .await
        .unwrap_or_else(|err| vec![err.message])
    }

    async fn launch(&self, id: &str) -> Result<u32> {
        let id = id.to_owned();
        blocking("Launching the app", LAUNCH_DEADLINE, move || {
            apps::launch(&id)
        })
        .await
        .map_err(|err| {
            if err.kind == ErrorKind::Timeout {
                err.after_sending()
            } else {
                err
            }
        })
    }

    async fn kill(&self, pid: u32) -> Result<()> {
        blocking("Ending the app", DEADLINE, move || apps::kill(pid)).await
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        pid == ancestor || apps::descends_from(pid, ancestor)
    }
}
