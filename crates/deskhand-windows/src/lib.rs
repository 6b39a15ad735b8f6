//! The Windows backend of deskhand: Win32 for windows, input, pixels, the clipboard and apps;
//! UI Automation for trees and element actions.
//!
//! The translation between the core's model and Windows' (key codes, input strokes, UI
//! Automation's control types, patterns and errors) is pure and builds everywhere, so it is
//! unit-tested on Linux; the Win32 and COM calls around it exist on Windows only.

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
