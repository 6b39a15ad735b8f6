//! Linux backend: X11, sway or GNOME Shell (Wayland) for windows, input and pixels; AT-SPI2
//! for accessibility.
#![cfg(target_os = "linux")]
pub mod atspi;
pub mod backend;
pub mod clipboard;
pub mod desktop;
pub mod doctor;
pub mod gnome;
pub mod launch;
pub mod overlay;
pub mod own_desktop;
mod own_thread;
pub mod person;
mod process;
pub mod translate;
pub mod wayland;
pub mod x11;

pub use backend::LinuxBackend;
pub use clipboard::HOLDER_ARG as CLIPBOARD_HOLDER_ARG;

/// The clipboard holder's side, in the binary run with [`CLIPBOARD_HOLDER_ARG`]: it holds the
/// text it reads from standard input on the X server, or on the Wayland compositor when its
/// next argument is [`clipboard::WAYLAND_HOLDER`], or serves an X clipboard saved before a
/// paste again when it is [`clipboard::RESTORING_HOLDER`].
pub fn serve_clipboard() -> Result<(), clipboard::ClipboardError> {
    let mode = std::env::args_os().nth(2);
    if mode.as_deref() == Some(std::ffi::OsStr::new(clipboard::WAYLAND_HOLDER)) {
        return wayland::selection::serve();
    }
    x11::clipboard::serve_clipboard(
        mode.as_deref() == Some(std::ffi::OsStr::new(clipboard::RESTORING_HOLDER)),
    )
}
