//! Linux backend: X11 or sway (Wayland) for windows, input and pixels; AT-SPI2 for
//! accessibility.
#![cfg(target_os = "linux")]
pub mod atspi;
pub mod backend;
pub mod desktop;
pub mod gnome;
pub mod launch;
mod process;
pub mod translate;
pub mod wayland;
pub mod x11;

pub use backend::LinuxBackend;
pub use x11::clipboard::{HOLDER_ARG as CLIPBOARD_HOLDER_ARG, serve_clipboard};
