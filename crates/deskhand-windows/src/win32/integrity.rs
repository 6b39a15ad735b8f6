//! Integrity levels of deskhand and of the process behind a window, for the UIPI check
//! (`crate::uipi`).

use windows::Win32::Foundation::{E_ACCESSDENIED, HANDLE, HWND};
use windows::Win32::Security::{
    GetSidSubAuthority, GetSidSubAuthorityCount, GetTokenInformation, TOKEN_MANDATORY_LABEL,
    TOKEN_QUERY, TokenIntegrityLevel,
};
use windows::Win32::System::Threading::{
    GetCurrentProcess, OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION,
};
use windows::Win32::UI::WindowsAndMessaging::GetWindowThreadProcessId;

use super::apps::Handle;
use crate::uipi::Target;

/// The integrity level of the process `process`'s token; `Err(true)` when Windows denied
/// access to it, `Err(false)` when it could not be read for another reason.
fn level_of(process: HANDLE) -> Result<u32, bool> {
    let mut token = HANDLE::default();
    // SAFETY: the token handle is written into the local and closed by `Handle`; the label is
    // read from a buffer of the size Windows asked for, aligned for the structure it holds.
    unsafe {
        OpenProcessToken(process, TOKEN_QUERY, &mut token)
            .map_err(|err| err.code() == E_ACCESSDENIED)?;
        let token = Handle(token);
        let mut needed = 0u32;
        let _ = GetTokenInformation(token.0, TokenIntegrityLevel, None, 0, &mut needed);
        if needed == 0 {
            return Err(false);
        }
        let mut buffer = vec![0u64; (needed as usize).div_ceil(8)];
        GetTokenInformation(
            token.0,
            TokenIntegrityLevel,
            Some(buffer.as_mut_ptr().cast()),
            needed,
            &mut needed,
        )
        .map_err(|_| false)?;
        let label = &*(buffer.as_ptr() as *const TOKEN_MANDATORY_LABEL);
        let sid = label.Label.Sid;
        let count = *GetSidSubAuthorityCount(sid);
        if count == 0 {
            return Err(false);
        }
        Ok(*GetSidSubAuthority(sid, u32::from(count) - 1))
    }
}

/// deskhand's own level; `None` where it cannot be read.
pub fn own() -> Option<u32> {
    // SAFETY: the pseudo handle of this process needs no closing.
    level_of(unsafe { GetCurrentProcess() }).ok()
}

/// The level of the process that owns `window`.
pub fn of_window(window: HWND) -> Target {
    if window.is_invalid() {
        return Target::Unknown;
    }
    let mut pid = 0u32;
    // SAFETY: writes the owner's process id into the local; the process handle is closed by
    // `Handle`.
    unsafe {
        GetWindowThreadProcessId(window, Some(&mut pid));
        if pid == 0 {
            return Target::Unknown;
        }
        let Ok(process) = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) else {
            return Target::Unknown;
        };
        let process = Handle(process);
        match level_of(process.0) {
            Ok(level) => Target::Level(level),
            Err(true) => Target::Denied,
            Err(false) => Target::Unknown,
        }
    }
}
