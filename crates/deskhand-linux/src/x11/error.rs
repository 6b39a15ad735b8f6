use x11rb::errors::{ConnectError, ConnectionError};

use super::windows::XRect;

const START_DESKTOP: &str = "eval \"$(deskhand desktop start)\"";

/// A failure talking to the X server.
///
/// Low-level causes are part of the message (and kept as typed fields) rather than exposed as
/// `source()`, so that printing the error once says everything.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum X11Error {
    #[error(
        "DISPLAY is not set, so there is no X server to talk to; start the headless desktop \
         with `{START_DESKTOP}` or export DISPLAY for a running X server"
    )]
    NoDisplay,

    #[error(
        "could not connect to the X server on display {display:?} ({cause}); check that it is \
         running and that XAUTHORITY names its cookie file, or start the headless desktop with \
         `{START_DESKTOP}`"
    )]
    Connect {
        display: String,
        cause: ConnectError,
    },

    #[error(
        "the X server on display {display:?} lacks the XTEST extension, so no input can be \
         synthesized; restart it with XTEST enabled (for Xvfb: `+extension XTEST`)"
    )]
    NoXtest { display: String },

    #[error(
        "the X server on display {display:?} lacks the XKEYBOARD extension, which typing needs \
         to put characters missing from the keyboard map on spare keys; use an X server with \
         XKB (Xvfb and Xorg have it unless started with `-kb`)"
    )]
    NoXkb { display: String },

    #[error(
        "the connection to the X server failed while {operation} ({cause}); the server has \
         probably exited: check the desktop, restart it with `{START_DESKTOP}` if needed, and \
         reconnect"
    )]
    Connection {
        operation: &'static str,
        cause: ConnectionError,
    },

    #[error(
        "the X server refused a request while {operation} ({kind:?} error in {request}); a \
         window may have vanished meanwhile, so retry, and restart the desktop if it keeps \
         happening",
        kind = cause.error_kind,
        request = cause.request_name.unwrap_or("an unknown request")
    )]
    Request {
        operation: &'static str,
        cause: x11rb::x11_utils::X11Error,
    },

    #[error(
        "the root window has neither _NET_CLIENT_LIST_STACKING nor _NET_CLIENT_LIST, so no \
         EWMH window manager is running and top-level windows cannot be listed; start one \
         (for example `openbox &`) or use `{START_DESKTOP}`"
    )]
    NoWindowManager,

    #[error(
        "the capture region {}x{} at ({}, {}) lies entirely outside the {}x{} screen; pass a \
         region that overlaps the screen",
        rect.width, rect.height, rect.x, rect.y, screen.0, screen.1
    )]
    CaptureOutsideScreen { rect: XRect, screen: (u32, u32) },

    #[error(
        "the screen's pixel format (depth {depth}, {bits_per_pixel} bits per pixel) cannot be \
         decoded: capture needs 8-bit red, green and blue channels in 24 or 32 bits per pixel; \
         run the X server at depth 24, e.g. `Xvfb :99 -screen 0 1920x1080x24`"
    )]
    UnsupportedPixelFormat { depth: u8, bits_per_pixel: u8 },

    #[error(
        "the X server returned {received} bytes of image data where the capture needs \
         {expected}; retry, and restart the desktop if it keeps happening"
    )]
    MalformedImage { expected: usize, received: usize },

    #[error(
        "the X server had not delivered the {} of mouse button {button} after {waited:?}: the \
         pointer is frozen by another client's grab, usually the window manager's \
         click-to-focus grab while it is busy or hung, or an open menu's; retry in a moment, \
         press Escape, or restart the window manager",
        if *press { "press" } else { "release" }
    )]
    PointerFrozen {
        button: u8,
        press: bool,
        waited: std::time::Duration,
    },

    #[error(
        "the focused window {window:#x} did not answer a _NET_WM_PING within {waited:?} after \
         keys were sent to it, so it is busy or hung and has not yet read all of them; \
         characters typed through remapped keycodes may come out wrong, so check the text once \
         the application responds again"
    )]
    ClientNotResponding {
        window: u32,
        waited: std::time::Duration,
    },

    #[error(
        "keysym {keysym:#x} is not on the keyboard map and there is no spare keycode to put \
         it on (every keycode carries symbols, or the server did not describe its XKB keymap), \
         so that key cannot be pressed; free a keycode (e.g. `xmodmap -e 'keycode 8 ='`) or \
         enter the text through the accessibility API instead"
    )]
    NoSpareKeycode { keysym: u32 },

    #[error(
        "modifier keysym {keysym:#x} is on no key of the keyboard map, so it cannot be held from \
         a button press until its release; hold it within one click or drag instead, or put it \
         on a key (e.g. `xmodmap -e 'keycode 133 = Super_L'`)"
    )]
    ModifierNotOnKeyboard { keysym: u32 },

    #[error(
        "window {window:#x} is no longer managed by the window manager (it was closed or \
         withdrawn); list the windows again to see what is open"
    )]
    WindowGone { window: u32 },

    #[error(
        "window {window:#x} cannot be asked to close: the window manager lacks \
         _NET_CLOSE_WINDOW and the window does not take WM_DELETE_WINDOW; end its process \
         instead"
    )]
    CannotClose { window: u32 },

    #[error(
        "a person started using the desktop with their own mouse or keyboard, so deskhand \
         stopped at once: the rest was not sent, and any button or key it held was released"
    )]
    PersonTookOver,
}

/// Typing failed part-way; `sent` characters reached the X server before the failure.
#[derive(Debug, thiserror::Error)]
#[error("typing failed after {sent} of {total} characters were sent: {cause}")]
#[non_exhaustive]
pub struct TypeError {
    pub sent: usize,
    pub total: usize,
    pub cause: X11Error,
}
