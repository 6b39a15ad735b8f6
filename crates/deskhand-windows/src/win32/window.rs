//! Top-level windows: the listing (visible, not cloaked, not tool windows), their geometry and
//! state, focus, closing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{Rect, WindowChange, WindowInfo, WindowKey};
use windows::Win32::Foundation::{HWND, LPARAM, POINT, RECT, WPARAM};
use windows::Win32::Graphics::Dwm::{DWMWA_CLOAKED, DwmGetWindowAttribute};
use windows::Win32::Graphics::Gdi::ClientToScreen;
use windows::Win32::System::Threading::{AttachThreadInput, GetCurrentThreadId};
use windows::Win32::UI::WindowsAndMessaging::{
    BringWindowToTop, EnumChildWindows, EnumWindows, FindWindowExW, GWL_EXSTYLE, GetClassNameW,
    GetClientRect, GetForegroundWindow, GetShellWindow, GetSystemMetrics, GetWindowLongPtrW,
    GetWindowRect, GetWindowTextLengthW, GetWindowTextW, GetWindowThreadProcessId, IsIconic,
    IsWindow, IsWindowVisible, IsZoomed, PostMessageW, SM_CXVIRTUALSCREEN, SM_CYVIRTUALSCREEN,
    SM_XVIRTUALSCREEN, SM_YVIRTUALSCREEN, SMTO_ABORTIFHUNG, SW_MAXIMIZE, SW_MINIMIZE, SW_RESTORE,
    SWP_ASYNCWINDOWPOS, SWP_NOACTIVATE, SWP_NOMOVE, SWP_NOSIZE, SWP_NOZORDER, SendMessageTimeoutW,
    SetForegroundWindow, SetWindowPos, ShowWindowAsync, WM_CLOSE, WM_GETOBJECT, WS_EX_APPWINDOW,
    WS_EX_TOOLWINDOW,
};
use windows::core::{BOOL, PCWSTR};

use super::apps::process_name;
use super::{handle_of, hwnd, wide};
use crate::packaged;

/// How long `activate` waits for the foreground to arrive, over all its tries.
const FOCUS_WAIT: Duration = Duration::from_millis(1500);
const FOCUS_TRIES: usize = 3;
const POLL: Duration = Duration::from_millis(20);

/// The windows a user sees in the task bar, top of the stack first as `EnumWindows` gives them.
fn listed_windows() -> Result<Vec<HWND>> {
    unsafe extern "system" fn collect(window: HWND, found: LPARAM) -> BOOL {
        // SAFETY: `found` is the address of the Vec below, alive for the whole EnumWindows call.
        let found = unsafe { &mut *(found.0 as *mut Vec<HWND>) };
        found.push(window);
        BOOL(1)
    }
    let mut all: Vec<HWND> = Vec::new();
    // SAFETY: the callback only pushes into `all`, which outlives the call.
    unsafe { EnumWindows(Some(collect), LPARAM(&mut all as *mut Vec<HWND> as isize)) }
        .map_err(|err| super::failed("Listing the windows", &err, "try again"))?;
    // SAFETY: plain queries on handles EnumWindows just gave; a window closed meanwhile only
    // makes them answer "no".
    let shell = unsafe { GetShellWindow() };
    Ok(all
        .into_iter()
        .filter(|&window| window != shell && is_listed(window))
        .collect())
}

/// Visible, not cloaked (a window on another virtual desktop, or a suspended store app), and
/// not a tool window unless it asks for a task-bar button.
fn is_listed(window: HWND) -> bool {
    // SAFETY: queries on a window handle; any handle is valid input to them.
    unsafe {
        if !IsWindowVisible(window).as_bool() {
            return false;
        }
        let style = GetWindowLongPtrW(window, GWL_EXSTYLE) as u32;
        if style & WS_EX_TOOLWINDOW.0 != 0 && style & WS_EX_APPWINDOW.0 == 0 {
            return false;
        }
        let mut cloaked = 0u32;
        // Without a compositor (Wine, old systems) the attribute is missing: nothing is cloaked.
        let read = DwmGetWindowAttribute(
            window,
            DWMWA_CLOAKED,
            &mut cloaked as *mut u32 as *mut _,
            size_of::<u32>() as u32,
        );
        !(read.is_ok() && cloaked != 0)
    }
}

/// The window's class name.
fn class_of(window: HWND) -> String {
    let mut buffer = [0u16; 256];
    // SAFETY: the buffer's length goes with it.
    let length = unsafe { GetClassNameW(window, &mut buffer) };
    String::from_utf16_lossy(&buffer[..length.max(0) as usize])
}

/// The frame Windows draws around a Store (UWP) app's window belongs to
/// `ApplicationFrameHost.exe`; the app itself owns the frame's `Windows.UI.Core.CoreWindow`
/// child. A suspended app's frame has none, and stays the frame host's.
const UWP_FRAME: &str = "ApplicationFrameWindow";
const UWP_CORE: &str = "Windows.UI.Core.CoreWindow";

/// The apps' pids learnt from Store app frames while their CoreWindow was inside, by frame.
static FRAME_APPS: Mutex<Vec<(isize, u32)>> = Mutex::new(Vec::new());
/// Frames remembered at most: far more than are ever open.
const FRAMES_KEPT: usize = 256;

/// The top-level CoreWindows (those of minimized Store apps), with title and pid.
fn top_level_core_windows() -> Vec<(String, u32)> {
    let class = wide(UWP_CORE);
    let mut found = Vec::new();
    let mut after: Option<HWND> = None;
    // Bounded: a desktop has a few of them; the limit only guards against a changing list.
    for _ in 0..FRAMES_KEPT {
        // SAFETY: a lookup among top-level windows by class name, after the previous match.
        let Ok(next) = (unsafe { FindWindowExW(None, after, PCWSTR(class.as_ptr()), None) }) else {
            break;
        };
        if let Some(pid) = pid_of(next) {
            found.push((title_of(next), pid));
        }
        after = Some(next);
    }
    found
}

/// The process a user knows the window as: the app inside a Store app's frame (see
/// [`packaged::frame_app_pid`]), else the window's own.
fn app_pid_of(window: HWND) -> Option<u32> {
    if class_of(window) != UWP_FRAME {
        return pid_of(window);
    }
    let core = wide(UWP_CORE);
    // SAFETY: a lookup among the window's children by class name.
    let child = unsafe { FindWindowExW(Some(window), None, PCWSTR(core.as_ptr()), None) };
    let child = child.ok().and_then(pid_of);
    let key = window.0 as isize;
    let mut frames = FRAME_APPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let remembered = frames
        .iter()
        .find(|(frame, _)| *frame == key)
        .map(|(_, pid)| *pid);
    if let Some(pid) = child.filter(|pid| Some(*pid) != remembered) {
        frames.retain(|(frame, _)| *frame != key);
        if frames.len() >= FRAMES_KEPT {
            frames.remove(0);
        }
        frames.push((key, pid));
    }
    drop(frames);
    let title = title_of(window);
    let frame = packaged::Frame {
        pid: pid_of(window),
        title: &title,
        child,
        remembered,
    };
    let cores = if child.or(remembered).is_none() {
        top_level_core_windows()
    } else {
        Vec::new()
    };
    packaged::frame_app_pid(frame, &cores)
}

/// Renderer windows already asked to turn their accessibility on.
static WOKEN: Mutex<Vec<isize>> = Mutex::new(Vec::new());

/// Chromium and Electron build their accessibility tree only once something asks for it; a
/// `WM_GETOBJECT` to a renderer window (`Chrome_RenderWidgetHostHWND`, with Chromium's own
/// object id 1, as UIA-v2 and screen-reader helpers send it) is that question. Sends it once
/// to each renderer of `window` not asked before, and says whether any was.
pub fn wake_chromium(window: HWND) -> bool {
    unsafe extern "system" fn collect(child: HWND, found: LPARAM) -> BOOL {
        // SAFETY: `found` is the address of the Vec below, alive for the whole enumeration.
        let found = unsafe { &mut *(found.0 as *mut Vec<HWND>) };
        if class_of(child) == "Chrome_RenderWidgetHostHWND" {
            found.push(child);
        }
        BOOL(1)
    }
    let mut renderers: Vec<HWND> = Vec::new();
    // SAFETY: the callback only pushes into `renderers`, which outlives the call.
    let _ = unsafe {
        EnumChildWindows(
            Some(window),
            Some(collect),
            LPARAM(&mut renderers as *mut Vec<HWND> as isize),
        )
    };
    let mut woken = WOKEN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut any = false;
    for renderer in renderers {
        if woken.contains(&(renderer.0 as isize)) {
            continue;
        }
        // SAFETY: a message with no pointers, abandoned if the renderer is hung.
        unsafe {
            SendMessageTimeoutW(
                renderer,
                WM_GETOBJECT,
                WPARAM(0),
                LPARAM(1),
                SMTO_ABORTIFHUNG,
                500,
                None,
            )
        };
        // Handles are reused once a renderer is gone: only the recent ones are remembered.
        if woken.len() >= 256 {
            woken.remove(0);
        }
        woken.push(renderer.0 as isize);
        any = true;
    }
    any
}

fn pid_of(window: HWND) -> Option<u32> {
    let mut pid = 0u32;
    // SAFETY: writes the owner's process id into `pid`.
    unsafe { GetWindowThreadProcessId(window, Some(&mut pid)) };
    (pid != 0).then_some(pid)
}

pub fn title_of(window: HWND) -> String {
    // SAFETY: GetWindowTextW reads the text Windows keeps for the window (no message is sent to
    // another process) into a buffer of the length asked for.
    unsafe {
        let length = GetWindowTextLengthW(window);
        if length <= 0 {
            return String::new();
        }
        let mut buffer = vec![0u16; length as usize + 1];
        let copied = GetWindowTextW(window, &mut buffer);
        String::from_utf16_lossy(&buffer[..copied.max(0) as usize])
    }
}

/// The client area in screen pixels.
pub fn client_rect(window: HWND) -> Option<Rect> {
    let mut rect = RECT::default();
    let mut origin = POINT::default();
    // SAFETY: both calls write into the locals.
    unsafe {
        GetClientRect(window, &mut rect).ok()?;
        ClientToScreen(window, &mut origin).ok().ok()?;
    }
    Some(Rect::new(
        origin.x,
        origin.y,
        (rect.right - rect.left).max(0) as u32,
        (rect.bottom - rect.top).max(0) as u32,
    ))
}

fn frame_rect(window: HWND) -> Option<RECT> {
    let mut rect = RECT::default();
    // SAFETY: writes into the local.
    unsafe { GetWindowRect(window, &mut rect) }.ok()?;
    Some(rect)
}

fn info(window: HWND, foreground: HWND, names: &mut HashMap<u32, String>) -> Option<WindowInfo> {
    let pid = app_pid_of(window);
    let app_name = match pid {
        Some(pid) => names
            .entry(pid)
            .or_insert_with(|| process_name(pid).unwrap_or_default())
            .clone(),
        None => String::new(),
    };
    // SAFETY: state queries on a window handle.
    let (minimized, maximized) =
        unsafe { (IsIconic(window).as_bool(), IsZoomed(window).as_bool()) };
    Some(WindowInfo {
        handle: handle_of(window),
        title: title_of(window),
        pid,
        app_name,
        bounds: client_rect(window)?,
        focused: window == foreground,
        minimized,
        maximized,
    })
}

/// Every listed window, bottom of the stack first.
pub fn windows() -> Result<Vec<WindowInfo>> {
    // SAFETY: no arguments.
    let foreground = unsafe { GetForegroundWindow() };
    let mut names = HashMap::new();
    let mut found: Vec<WindowInfo> = listed_windows()?
        .into_iter()
        .filter_map(|window| info(window, foreground, &mut names))
        .collect();
    found.reverse();
    Ok(found)
}

pub fn window(handle: u64) -> Option<WindowInfo> {
    let window = hwnd(handle);
    // SAFETY: IsWindow accepts any value.
    if !unsafe { IsWindow(Some(window)) }.as_bool() || !is_listed(window) {
        return None;
    }
    // SAFETY: no arguments.
    let foreground = unsafe { GetForegroundWindow() };
    info(window, foreground, &mut HashMap::new())
}

pub fn window_keys() -> Result<Vec<WindowKey>> {
    let mut keys: Vec<WindowKey> = listed_windows()?
        .into_iter()
        .map(|window| WindowKey {
            handle: handle_of(window),
            pid: app_pid_of(window),
        })
        .collect();
    keys.reverse();
    Ok(keys)
}

/// The virtual screen: every monitor's pixels, in the coordinates input and capture use.
pub fn screen() -> Rect {
    // SAFETY: plain metrics.
    unsafe {
        Rect::new(
            GetSystemMetrics(SM_XVIRTUALSCREEN),
            GetSystemMetrics(SM_YVIRTUALSCREEN),
            GetSystemMetrics(SM_CXVIRTUALSCREEN).max(0) as u32,
            GetSystemMetrics(SM_CYVIRTUALSCREEN).max(0) as u32,
        )
    }
}

fn gone(window: &WindowInfo) -> Error {
    Error::new(
        ErrorKind::SurfaceGone,
        format!(
            "the window \"{}\" is gone; call windows to see what is open now",
            window.title
        ),
    )
}

fn existing(window: &WindowInfo) -> Result<HWND> {
    let handle = hwnd(window.handle);
    // SAFETY: IsWindow accepts any value.
    if unsafe { IsWindow(Some(handle)) }.as_bool() && app_pid_of(handle) == window.pid {
        Ok(handle)
    } else {
        Err(gone(window))
    }
}

/// Brings the window to the foreground. Windows lets only the foreground process hand the
/// foreground on; attaching to the foreground thread's input for the call makes deskhand part
/// of it, and the window is then asked in turn. What Windows still refuses is said, not hidden.
pub fn activate(window: &WindowInfo) -> Result<()> {
    let handle = existing(window)?;
    // SAFETY: calls on a live window handle.
    unsafe {
        if IsIconic(handle).as_bool() {
            let _ = ShowWindowAsync(handle, SW_RESTORE);
        }
    }
    let mut granted = false;
    // The foreground lock refuses a process that did not send the last input: the tries after
    // the first press a key nothing binds first, as peers do.
    for attempt in 0..FOCUS_TRIES {
        if attempt > 0 {
            super::input::nudge();
        }
        granted |= ask_foreground(handle);
        let deadline = Instant::now() + FOCUS_WAIT / FOCUS_TRIES as u32;
        loop {
            // SAFETY: no arguments.
            if unsafe { GetForegroundWindow() } == handle {
                return Ok(());
            }
            if Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(POLL);
        }
    }
    Err(focus_refused(&window.title, granted))
}

/// One request for the foreground, with this thread's input attached to the foreground
/// window's meanwhile; says whether `SetForegroundWindow` accepted it.
fn ask_foreground(handle: HWND) -> bool {
    // SAFETY: calls on a live window handle and thread ids Windows just gave.
    unsafe {
        let foreground = GetForegroundWindow();
        let foreground_thread = GetWindowThreadProcessId(foreground, None);
        let own_thread = GetCurrentThreadId();
        let attached = foreground_thread != 0
            && foreground_thread != own_thread
            && AttachThreadInput(own_thread, foreground_thread, true).as_bool();
        let _ = BringWindowToTop(handle);
        let granted = SetForegroundWindow(handle).as_bool();
        if attached {
            let _ = AttachThreadInput(own_thread, foreground_thread, false);
        }
        granted
    }
}

/// The window did not become the foreground within the wait. `granted`: what
/// `SetForegroundWindow` answered; either way nothing was typed or clicked yet.
fn focus_refused(title: &str, granted: bool) -> Error {
    let why = if granted {
        "Windows accepted the request but the window did not become the foreground"
    } else {
        "Windows refused to give it the focus (its foreground lock lets only the app the user \
         works in hand the focus on)"
    };
    Error::platform(format!(
        "the window \"{title}\" did not take the keyboard focus: {why}; nothing was sent to it. \
         Click into the window to focus it, or ask the user to bring it to the front"
    ))
}

pub fn close(window: &WindowInfo) -> Result<()> {
    let handle = existing(window)?;
    // SAFETY: posting does not wait for the window's thread, so a hung app cannot block us.
    unsafe { PostMessageW(Some(handle), WM_CLOSE, WPARAM(0), LPARAM(0)) }.map_err(|err| {
        super::failed(
            &format!("Asking \"{}\" to close", window.title),
            &err,
            "kill the app if it no longer answers",
        )
    })
}

/// Asks for the change without waiting on the window's thread (`SWP_ASYNCWINDOWPOS`,
/// `ShowWindowAsync`): a hung app keeps its place and the caller's read-back says so.
pub fn change(window: &WindowInfo, change: WindowChange) -> Result<()> {
    let handle = existing(window)?;
    let show = |command| {
        // SAFETY: an asynchronous request on a live window.
        let _ = unsafe { ShowWindowAsync(handle, command) };
        Ok(())
    };
    let (frame, client) = match (frame_rect(handle), client_rect(handle)) {
        (Some(frame), Some(client)) => (frame, client),
        _ => return Err(gone(window)),
    };
    // The frame (title bar, borders) around the client area, which the core's pixels name.
    let (left, top) = (client.x - frame.left, client.y - frame.top);
    let (extra_width, extra_height) = (
        (frame.right - frame.left) - client.width as i32,
        (frame.bottom - frame.top) - client.height as i32,
    );
    let (x, y, width, height, keep) = match change {
        WindowChange::Minimize => return show(SW_MINIMIZE),
        WindowChange::Maximize => return show(SW_MAXIMIZE),
        WindowChange::Restore => return show(SW_RESTORE),
        WindowChange::Move { x, y } => (x - left, y - top, 0, 0, SWP_NOSIZE),
        WindowChange::Resize { width, height } => (
            0,
            0,
            width as i32 + extra_width,
            height as i32 + extra_height,
            SWP_NOMOVE,
        ),
    };
    // SAFETY: an asynchronous request on a live window.
    unsafe {
        SetWindowPos(
            handle,
            None,
            x,
            y,
            width,
            height,
            keep | SWP_NOZORDER | SWP_NOACTIVATE | SWP_ASYNCWINDOWPOS,
        )
    }
    .map_err(|err| {
        super::failed(
            &format!("Moving or resizing \"{}\"", window.title),
            &err,
            "restore the window first if it is maximized or minimized",
        )
    })
}

/// The listed window whose client area is exactly `rect` when another listed window covers part
/// of it: a capture of it must come from the window itself, not from the screen.
pub fn covered_window(rect: Rect) -> Option<HWND> {
    let mut above: Vec<Rect> = Vec::new();
    for window in listed_windows().ok()? {
        // SAFETY: a state query on a window handle.
        if unsafe { IsIconic(window) }.as_bool() {
            continue;
        }
        if client_rect(window) == Some(rect) {
            return above
                .iter()
                .any(|other| other.intersect(&rect).is_some())
                .then_some(window);
        }
        if let Some(frame) = frame_rect(window) {
            above.push(Rect::new(
                frame.left,
                frame.top,
                (frame.right - frame.left).max(0) as u32,
                (frame.bottom - frame.top).max(0) as u32,
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_focus_says_whether_windows_refused_or_the_window_stayed_behind() {
        let refused = focus_refused("Notes", false);
        assert_eq!(refused.kind, ErrorKind::Platform);
        assert!(
            !refused.sent,
            "no input went out before the focus was refused"
        );
        assert!(
            refused
                .message
                .contains("\"Notes\" did not take the keyboard focus")
                && refused
                    .message
                    .contains("Windows refused to give it the focus")
                && refused.message.contains("nothing was sent"),
            "{}",
            refused.message
        );
        let behind = focus_refused("Notes", true);
        assert!(behind.message.contains("did not become the foreground"));
    }
}
