//! macOS backend of deskhand: the Accessibility API for the tree and its actions, Quartz for
//! input, window lists and pixels, AppKit for applications and the pasteboard.
//!
//! Everything that decides something is pure and platform-independent, so it builds and is
//! unit-tested on any machine: how attribute values become the core's nodes, role mapping,
//! matching Quartz windows to accessibility windows, points and pixels, which action a request
//! runs, what an `AXError` means, the permission messages and the key codes. The FFI shell that
//! only moves values across the boundary is macOS's alone (`backend/`).

pub mod actions;
pub mod apps;
pub mod attributes;
#[cfg(target_os = "macos")]
mod backend;
pub mod capture;
pub mod display;
pub mod enablement;
pub mod ending;
pub mod errors;
pub mod handle;
pub mod keys;
pub mod paths;
pub mod permissions;
pub mod roles;
pub mod tree;
pub mod windows;

#[cfg(target_os = "macos")]
pub use backend::{MacBackend, dump_tree, serve_main_queue_while};

/// The Accessibility and Screen Recording permissions as this process has them now, each with
/// the sentence that says how to grant it when it is missing; asks macOS without prompting the
/// user. For `deskhand doctor`.
#[cfg(target_os = "macos")]
pub fn permissions() -> [permissions::PermissionStatus; 2] {
    backend::permissions()
}
