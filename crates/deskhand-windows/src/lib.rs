//! The Windows backend of deskhand: Win32 for windows, input, pixels, the clipboard and apps;
//! UI Automation for trees and element actions.
//!
//! The translation between the core's model and Windows' (key codes, input strokes, UI
//! Automation's control types, patterns and errors) is pure and builds everywhere, so it is
//! unit-tested on Linux; the Win32 and COM calls around it exist on Windows only.

pub mod health;
pub mod keymap;
pub mod outgoing;
pub mod packaged;
pub mod uia;
pub mod uipi;

#[cfg(windows)]
mod backend;
#[cfg(windows)]
mod win32;

#[cfg(windows)]
pub use backend::WindowsBackend;

/// `deskhand doctor --dump-tree`: the window `which` (its handle as `windows` lists it, or a
/// part of its title) read through UI Automation as the reader tests replay it, nothing typed
/// or secret in it (see [`uia::dump`]), as pretty JSON.
#[cfg(windows)]
pub fn dump_tree(which: &str) -> deskhand_core::Result<String> {
    let windows = win32::window::windows()?;
    let window = pick_window(&windows, which)?;
    let (root, left_out) = uia::com::read_for_dump(window.handle)?;
    Ok(uia::dump::to_json(
        &root,
        &format!(
            "deskhand doctor --dump-tree {} of \"{}\" ({})",
            env!("CARGO_PKG_VERSION"),
            window.title,
            window.app_name
        ),
        left_out.as_deref(),
    ))
}

/// The window a person named: its handle, or the one window whose title holds the words.
pub fn pick_window<'w>(
    windows: &'w [deskhand_core::model::WindowInfo],
    which: &str,
) -> deskhand_core::Result<&'w deskhand_core::model::WindowInfo> {
    use deskhand_core::error::Error;
    if let Ok(handle) = which.parse::<u64>()
        && let Some(window) = windows.iter().find(|w| w.handle == handle)
    {
        return Ok(window);
    }
    let words = which.to_lowercase();
    let titled: Vec<_> = windows
        .iter()
        .filter(|w| w.title.to_lowercase().contains(&words))
        .collect();
    match titled.as_slice() {
        [window] => Ok(window),
        [] => Err(Error::bad_argument(format!(
            "no window has the handle or a title with \"{which}\"; run `deskhand windows` to \
             list them"
        ))),
        _ => Err(Error::bad_argument(format!(
            "{} windows have \"{which}\" in their title; give the handle `deskhand windows` \
             lists instead",
            titled.len()
        ))),
    }
}

/// The process's integrity level, DPI awareness (after the same set-up the backend does) and
/// the foreground lock, for `deskhand doctor`.
#[cfg(windows)]
pub fn health() -> Vec<health::Finding> {
    backend::become_dpi_aware();
    health::findings(&win32::health_facts())
}

/// Whether UI Automation can be used here, for `deskhand doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiAutomation {
    Available,
    /// It cannot: `fix` says why and what to do instead, as a sentence.
    Unavailable {
        fix: String,
    },
}

/// Makes deskhand's UI Automation client (as `observe` does) and says whether that worked.
#[cfg(windows)]
pub fn ui_automation_available() -> UiAutomation {
    match uia::com::available() {
        Ok(()) => UiAutomation::Available,
        Err(fix) => UiAutomation::Unavailable { fix },
    }
}
