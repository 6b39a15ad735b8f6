//! The X11 side of the backend: window list, synthetic input (XTEST) and screen capture.
//!
//! Everything here is blocking and synchronous on one pure-Rust connection; callers that live on
//! an async runtime are expected to wrap calls in `spawn_blocking`.

mod capture;
mod client;
pub mod clipboard;
mod error;
mod input;
mod keyboard;
mod keys;
mod monitors;
pub mod paste;
mod windows;
mod wm;

use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use deskhand_core::person::Presence;

use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::cookie::VoidCookie;
use x11rb::errors::{ConnectionError, ReplyError, ReplyOrIdError};
use x11rb::protocol::xkb::{self, ConnectionExt as _, EventType, MapPart, SelectEventsAux};
use x11rb::protocol::xproto::{
    self, ConnectionExt as _, CreateWindowAux, EventMask, Window, WindowClass,
};
use x11rb::protocol::xtest::{self, ConnectionExt as _};
use x11rb::rust_connection::RustConnection;

pub use capture::RgbImage;
pub use error::{TypeError, X11Error};
pub use input::{Button, ScrollDirection};
pub use keys::{Chord, chords, keysym_for_char, modifier_keysym};
pub use windows::{XRect, XWindow};

x11rb::atom_manager! {
    Atoms: AtomsCookie {
        _NET_CLIENT_LIST_STACKING,
        _NET_CLIENT_LIST,
        _NET_SUPPORTING_WM_CHECK,
        _NET_ACTIVE_WINDOW,
        _NET_WM_NAME,
        _NET_WM_PID,
        _NET_FRAME_EXTENTS,
        _GTK_FRAME_EXTENTS,
        _NET_WM_STATE,
        _NET_WM_STATE_HIDDEN,
        _NET_WM_STATE_MAXIMIZED_VERT,
        _NET_WM_STATE_MAXIMIZED_HORZ,
        _NET_WM_PING,
        _NET_SUPPORTED,
        _NET_CLOSE_WINDOW,
        _NET_MOVERESIZE_WINDOW,
        _NET_WM_WINDOW_TYPE,
        _NET_WM_WINDOW_TYPE_SPLASH,
        WM_PROTOCOLS,
        WM_DELETE_WINDOW,
        WM_CHANGE_STATE,
        UTF8_STRING,
        _DESKHAND_TIME,
    }
}

/// A connection to one X display.
///
/// Queries may run concurrently from several threads; input (pointer and keyboard) is
/// serialized so that two callers never interleave their key strokes.
pub struct X11 {
    conn: RustConnection,
    root: Window,
    /// Fallback for `screen_size` if asking the server fails.
    setup_size: (u32, u32),
    atoms: Atoms,
    /// An unmapped window of ours whose property changes tell the server's current time.
    time_window: Window,
    input: Mutex<keyboard::InputState>,
    /// Serial number of the next `_NET_WM_PING` we send.
    pings: AtomicU32,
    /// A MappingNotify was taken off the event queue while waiting for something else.
    mapping_notified: AtomicBool,
    /// Where captures come through, one at a time.
    shared: Mutex<capture::SharedMemory>,
    /// The person at the desk, where their input is watched: typing and drags stop at once
    /// when they take over.
    presence: OnceLock<Arc<Presence>>,
}

impl X11 {
    /// Connects to the display named by `$DISPLAY`.
    pub fn connect() -> Result<X11, X11Error> {
        let display = std::env::var("DISPLAY").unwrap_or_default();
        if display.is_empty() {
            return Err(X11Error::NoDisplay);
        }
        Self::connect_to(&display)
    }

    /// Connects to an explicitly named display such as `":99"`, independent of `$DISPLAY`.
    pub fn connect_to(display: &str) -> Result<X11, X11Error> {
        let (conn, screen_num) =
            RustConnection::connect(Some(display)).map_err(|cause| X11Error::Connect {
                display: display.to_owned(),
                cause,
            })?;
        let screen = &conn.setup().roots[screen_num];
        let root = screen.root;
        let setup_size = (
            u32::from(screen.width_in_pixels),
            u32::from(screen.height_in_pixels),
        );
        let has_xtest = conn
            .extension_information(xtest::X11_EXTENSION_NAME)
            .during("checking for the XTEST extension")?
            .is_some();
        if !has_xtest {
            return Err(X11Error::NoXtest {
                display: display.to_owned(),
            });
        }
        // Keys not on the keyboard map are typed by changing the map through XKB.
        let xkb = conn
            .xkb_use_extension(1, 0)
            .during("initializing the XKEYBOARD extension")?
            .reply()
            .during("initializing the XKEYBOARD extension")?;
        if !xkb.supported {
            return Err(X11Error::NoXkb {
                display: display.to_owned(),
            });
        }
        // Once XKB is in use the server sends map changes only to those who select them; the
        // keyboard map cache depends on hearing of every change.
        let map_parts = MapPart::KEY_TYPES | MapPart::KEY_SYMS | MapPart::MODIFIER_MAP;
        conn.xkb_select_events(
            xkb::ID::USE_CORE_KBD.into(),
            EventType::default(),
            EventType::MAP_NOTIFY,
            map_parts,
            map_parts,
            &SelectEventsAux::default(),
        )
        .during("initializing the XKEYBOARD extension")?
        .check()
        .during("initializing the XKEYBOARD extension")?;
        let atoms = Atoms::new(&conn)
            .during("interning atoms")?
            .reply()
            .during("interning atoms")?;
        let time_window = conn.generate_id().during("creating a helper window")?;
        conn.create_window(
            0,
            time_window,
            root,
            -1,
            -1,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            x11rb::COPY_FROM_PARENT,
            &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )
        .during("creating a helper window")?;
        Ok(X11 {
            conn,
            root,
            setup_size,
            atoms,
            time_window,
            input: Mutex::new(keyboard::InputState::default()),
            pings: AtomicU32::new(1),
            mapping_notified: AtomicBool::new(false),
            shared: Mutex::default(),
            presence: OnceLock::new(),
        })
    }

    /// Makes input stop at once, between two keys or two steps of a drag, when a person takes
    /// over.
    pub fn heed(&self, presence: Arc<Presence>) {
        let _ = self.presence.set(presence);
    }

    /// A person's takeover began: what is being sent must stop.
    fn person_took_over(&self) -> Result<(), X11Error> {
        match self.presence.get() {
            Some(presence) if presence.taken_over() => Err(X11Error::PersonTookOver),
            _ => Ok(()),
        }
    }

    /// The current size of the root window in pixels (follows RandR resizes).
    pub fn screen_size(&self) -> (u32, u32) {
        let geometry = self
            .conn
            .get_geometry(self.root)
            .ok()
            .and_then(|cookie| cookie.reply().ok());
        match geometry {
            Some(g) => (u32::from(g.width), u32::from(g.height)),
            None => self.setup_size,
        }
    }

    fn lock_input(&self) -> MutexGuard<'_, keyboard::InputState> {
        // A panic while typing leaves nothing half-updated that later calls rely on: the
        // keyboard map is re-read whenever it may have changed.
        self.input.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One synthetic XTEST event; `detail` is a keycode or button number.
    fn fake(
        &self,
        kind: u8,
        detail: u8,
        (x, y): (i16, i16),
        operation: &'static str,
    ) -> Result<VoidCookie<'_, RustConnection>, X11Error> {
        use crate::person::{Sent, sending};
        match kind {
            xproto::KEY_PRESS_EVENT => sending(Sent::Key(detail)),
            xproto::BUTTON_PRESS_EVENT => sending(Sent::Button(detail)),
            xproto::MOTION_NOTIFY_EVENT => sending(Sent::Motion(x.into(), y.into())),
            _ => {}
        }
        self.conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, self.root, x, y, 0)
            .during(operation)
    }

    /// Waits until the server has processed every request sent so far and reports the first
    /// error among `cookies`.
    fn check_all<'c>(
        cookies: impl IntoIterator<Item = VoidCookie<'c, RustConnection>>,
        operation: &'static str,
    ) -> Result<(), X11Error> {
        cookies
            .into_iter()
            .try_for_each(|cookie| cookie.check().during(operation))
    }
}

/// Attaches the operation being attempted to low-level x11rb errors.
trait During<T> {
    fn during(self, operation: &'static str) -> Result<T, X11Error>;
}

impl<T> During<T> for Result<T, ConnectionError> {
    fn during(self, operation: &'static str) -> Result<T, X11Error> {
        self.map_err(|cause| X11Error::Connection { operation, cause })
    }
}

impl<T> During<T> for Result<T, ReplyError> {
    fn during(self, operation: &'static str) -> Result<T, X11Error> {
        self.map_err(|err| match err {
            ReplyError::ConnectionError(cause) => X11Error::Connection { operation, cause },
            ReplyError::X11Error(cause) => X11Error::Request { operation, cause },
        })
    }
}

impl<T> During<T> for Result<T, ReplyOrIdError> {
    fn during(self, operation: &'static str) -> Result<T, X11Error> {
        self.map_err(|err| match err {
            ReplyOrIdError::ConnectionError(cause) => X11Error::Connection { operation, cause },
            ReplyOrIdError::X11Error(cause) => X11Error::Request { operation, cause },
            // Only a long-lived connection can run out of ids; treat it as a broken one.
            ReplyOrIdError::IdsExhausted => X11Error::Connection {
                operation,
                cause: ConnectionError::UnknownError,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{X11, X11Error};

    #[test]
    fn x11_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<X11>();
    }

    #[test]
    fn connection_errors_say_how_to_start_a_desktop() {
        let start = "eval \"$(deskhand desktop start)\"";
        assert!(X11Error::NoDisplay.to_string().contains(start));
        // No server listens this high (and x11rb overflows its TCP port above :59535).
        let Err(error) = X11::connect_to(":59000") else {
            panic!("connected to :59000");
        };
        let message = error.to_string();
        assert!(
            message.contains("\":59000\"") && message.contains(start),
            "{message}"
        );
    }
}
