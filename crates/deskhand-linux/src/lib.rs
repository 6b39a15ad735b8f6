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
/// next argument is [`clipboard::WAYLAND_HOLDER`].
pub fn serve_clipboard() -> Result<(), clipboard::ClipboardError> {
    if std::env::args_os().nth(2).as_deref()
        == Some(std::ffi::OsStr::new(clipboard::WAYLAND_HOLDER))
    {
        return wayland::selection::serve();
    }
    x11::clipboard::serve_clipboard()
}
