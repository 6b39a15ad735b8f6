//! Win32 calls, each a plain blocking function: the backend runs them on the blocking pool under
//! a deadline. Failures come back as the core's errors, worded for the agent.

pub mod apps;
pub mod capture;
pub mod clipboard;
pub mod input;
pub mod integrity;
pub mod shell;
pub mod window;

use deskhand_core::error::Error;
use windows::Win32::Foundation::HWND;

/// A window handle as the core keeps it; window handles are 32-bit values even in 64-bit
/// processes, so the round trip through `u64` loses nothing.
pub fn hwnd(handle: u64) -> HWND {
    HWND(handle as isize as *mut core::ffi::c_void)
}

pub fn handle_of(window: HWND) -> u64 {
    window.0 as isize as u64
}

/// A NUL-terminated UTF-16 string for a `PCWSTR` argument.
pub fn wide(text: &str) -> Vec<u16> {
    text.encode_utf16().chain(std::iter::once(0)).collect()
}

/// A Win32 failure, with what was being done and what to try next.
pub fn failed(what: &str, err: &windows::core::Error, next: &str) -> Error {
    Error::platform(format!(
        "{what} failed: Windows answered {} (0x{:08X}); {next}",
        err.message().trim_end_matches(['\r', '\n', '.']),
        err.code().0
    ))
}

/// What `deskhand doctor` reads of this process (see `crate::health`).
pub fn health_facts() -> crate::health::Facts {
    use windows::Win32::UI::HiDpi::{
        AreDpiAwarenessContextsEqual, DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2,
        GetThreadDpiAwarenessContext,
    };
    use windows::Win32::UI::WindowsAndMessaging::{
        SPI_GETFOREGROUNDLOCKTIMEOUT, SYSTEM_PARAMETERS_INFO_UPDATE_FLAGS, SystemParametersInfoW,
    };
    // SAFETY: plain queries; the timeout is written into the local.
    unsafe {
        let per_monitor_v2 = AreDpiAwarenessContextsEqual(
            GetThreadDpiAwarenessContext(),
            DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2,
        )
        .as_bool();
        let mut lock = 0u32;
        let foreground_lock_ms = SystemParametersInfoW(
            SPI_GETFOREGROUNDLOCKTIMEOUT,
            0,
            Some((&raw mut lock).cast()),
            SYSTEM_PARAMETERS_INFO_UPDATE_FLAGS(0),
        )
        .is_ok()
        .then_some(lock);
        crate::health::Facts {
            integrity: integrity::own(),
            per_monitor_v2: Some(per_monitor_v2),
            foreground_lock_ms,
        }
    }
}
