//! Requests to the window manager, made the way a pager or a window's own title bar makes them:
//! EWMH client messages to the root window, and ICCCM ones where the manager lacks EWMH support.
//!
//! These only ask; the window manager decides. Callers read the window back to see the result.

use std::sync::atomic::Ordering;

use x11rb::connection::Connection as _;
use x11rb::errors::ReplyError;
use x11rb::properties::WmSizeHints;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask, Gravity,
    PropMode, Window,
};
use x11rb::protocol::{ErrorKind, Event};

use super::{During as _, X11, X11Error, XWindow};

/// The source indication of a pager or other tool acting for the user: window managers honour
/// such requests without their focus-stealing prevention.
const SOURCE_USER: u32 = 2;
/// ICCCM `WM_CHANGE_STATE`: the client asks to be iconified.
const ICONIC_STATE: u32 = 3;
const STATE_REMOVE: u32 = 0;
const STATE_ADD: u32 = 1;
/// `_NET_MOVERESIZE_WINDOW` flags saying which of x, y, width and height are given.
const MOVE_XY: u32 = (1 << 8) | (1 << 9);
const RESIZE_WH: u32 = (1 << 10) | (1 << 11);

impl X11 {
    /// Asks the window manager to raise, un-minimize and focus `window`; whether it did shows
    /// in [`X11::active_window`].
    pub fn activate(&self, window: Window) -> Result<(), X11Error> {
        const OPERATION: &str = "asking the window manager to activate a window";
        self.ensure_managed(window)?;
        let time = self.server_time()?;
        let current = self.active_window()?.unwrap_or(x11rb::NONE);
        self.tell_wm(
            window,
            self.atoms._NET_ACTIVE_WINDOW,
            [SOURCE_USER, time, current, 0, 0],
            OPERATION,
        )
    }

    /// Whether the keyboard focus is in `window` or one of its children: where typed keys go.
    /// The window manager names the active window before the server has moved the focus.
    pub fn holds_input_focus(&self, window: Window) -> Result<bool, X11Error> {
        const OPERATION: &str = "reading the keyboard focus";
        let mut focus = self
            .conn
            .get_input_focus()
            .during(OPERATION)?
            .reply()
            .during(OPERATION)?
            .focus;
        // Nesting deeper than this is no application's window.
        for _ in 0..64 {
            if focus == window {
                return Ok(true);
            }
            // None, PointerRoot, or the root itself: the focus is in no client.
            if focus == x11rb::NONE || focus == 1 || focus == self.root {
                return Ok(false);
            }
            let tree = match self.conn.query_tree(focus).during(OPERATION)?.reply() {
                Ok(tree) => tree,
                Err(ReplyError::X11Error(e)) if e.error_kind == ErrorKind::Window => {
                    return Ok(false);
                }
                Err(e) => return Err(e).during(OPERATION),
            };
            focus = tree.parent;
        }
        Ok(false)
    }

    /// Asks `window` to close, as its close button would: the application may ask the user
    /// first, or refuse.
    pub fn close(&self, window: Window) -> Result<(), X11Error> {
        const OPERATION: &str = "asking a window to close";
        self.ensure_managed(window)?;
        let time = self.server_time()?;
        if self.wm_supports(self.atoms._NET_CLOSE_WINDOW)? {
            return self.tell_wm(
                window,
                self.atoms._NET_CLOSE_WINDOW,
                [time, SOURCE_USER, 0, 0, 0],
                OPERATION,
            );
        }
        match self.has_protocol(window, self.atoms.WM_DELETE_WINDOW) {
            Ok(true) => {}
            Ok(false) => return Err(X11Error::CannotClose { window }),
            Err(ReplyError::X11Error(e)) if e.error_kind == ErrorKind::Window => {
                return Err(X11Error::WindowGone { window });
            }
            Err(e) => return Err(e).during(OPERATION),
        }
        let message = ClientMessageEvent::new(
            32,
            window,
            self.atoms.WM_PROTOCOLS,
            [self.atoms.WM_DELETE_WINDOW, time, 0, 0, 0],
        );
        let cookie = self
            .conn
            .send_event(false, window, EventMask::NO_EVENT, message)
            .during(OPERATION)?;
        X11::check_all([cookie], OPERATION)
    }

    /// Asks for `window`'s client area (not its frame) to start at (`x`, `y`).
    pub fn move_window(&self, window: Window, x: i32, y: i32) -> Result<(), X11Error> {
        let current = self
            .window(window)?
            .ok_or(X11Error::WindowGone { window })?;
        self.configure(window, &current, (x, y), None)
    }

    /// Asks for `window`'s client area to be `width` × `height`, its top-left corner staying.
    pub fn resize_window(&self, window: Window, width: u32, height: u32) -> Result<(), X11Error> {
        let current = self
            .window(window)?
            .ok_or(X11Error::WindowGone { window })?;
        let at = (current.rect.x, current.rect.y);
        self.configure(window, &current, at, Some((width, height)))
    }

    /// Asks for the client area of `window` (now `current`) to start at `at`, with `size`.
    ///
    /// The position goes in the window's own gravity, as a ConfigureRequest's would. A request
    /// in another gravity (static, say) would do as well at first, but openbox keeps a window's
    /// place in the gravity of the request that set it and later reads it in the window's own:
    /// after the next maximize and restore, the window would be off by its frame.
    fn configure(
        &self,
        window: Window,
        current: &XWindow,
        at: (i32, i32),
        size: Option<(u32, u32)>,
    ) -> Result<(), X11Error> {
        const OPERATION: &str = "asking the window manager to move or resize a window";
        let gravity = WmSizeHints::get_normal_hints(&self.conn, window)
            .during(OPERATION)?
            .reply()
            .during(OPERATION)?
            .and_then(|hints| hints.win_gravity)
            .unwrap_or(Gravity::NORTH_WEST);
        let (x, y) = configure_position(gravity, at, current.frame_extents.unwrap_or_default());
        if self.wm_supports(self.atoms._NET_MOVERESIZE_WINDOW)? {
            // Gravity 0 in the flags: the window's own. Negative positions travel as their
            // two's-complement bits, as EWMH expects.
            let resize = if size.is_some() { RESIZE_WH } else { 0 };
            let (width, height) = size.unwrap_or_default();
            return self.tell_wm(
                window,
                self.atoms._NET_MOVERESIZE_WINDOW,
                [
                    MOVE_XY | resize | (SOURCE_USER << 12),
                    x as u32,
                    y as u32,
                    width,
                    height,
                ],
                OPERATION,
            );
        }
        let mut changes = ConfigureWindowAux::new().x(x).y(y);
        if let Some((width, height)) = size {
            changes = changes.width(width).height(height);
        }
        let cookie = self
            .conn
            .configure_window(window, &changes)
            .during(OPERATION)?;
        X11::check_all([cookie], OPERATION)
    }

    pub fn minimize(&self, window: Window) -> Result<(), X11Error> {
        const OPERATION: &str = "asking the window manager to minimize a window";
        self.ensure_managed(window)?;
        self.tell_wm(
            window,
            self.atoms.WM_CHANGE_STATE,
            [ICONIC_STATE, 0, 0, 0, 0],
            OPERATION,
        )
    }

    /// Asks for `window` to be maximized both ways, or for both maximizations to be undone.
    pub fn set_maximized(&self, window: Window, maximized: bool) -> Result<(), X11Error> {
        const OPERATION: &str = "asking the window manager to change a window's maximization";
        self.ensure_managed(window)?;
        let action = if maximized { STATE_ADD } else { STATE_REMOVE };
        self.tell_wm(
            window,
            self.atoms._NET_WM_STATE,
            [
                action,
                self.atoms._NET_WM_STATE_MAXIMIZED_VERT,
                self.atoms._NET_WM_STATE_MAXIMIZED_HORZ,
                SOURCE_USER,
                0,
            ],
            OPERATION,
        )
    }

    fn ensure_managed(&self, window: Window) -> Result<(), X11Error> {
        if self.client_list()?.contains(&window) {
            Ok(())
        } else {
            Err(X11Error::WindowGone { window })
        }
    }

    /// Sends a client message about `window` to the window manager, which listens on the root.
    fn tell_wm(
        &self,
        window: Window,
        kind: Atom,
        data: [u32; 5],
        operation: &'static str,
    ) -> Result<(), X11Error> {
        let message = ClientMessageEvent::new(32, window, kind, data);
        let cookie = self
            .conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                message,
            )
            .during(operation)?;
        X11::check_all([cookie], operation)
    }

    /// Whether the window manager lists `hint` in `_NET_SUPPORTED`.
    fn wm_supports(&self, hint: Atom) -> Result<bool, X11Error> {
        const OPERATION: &str = "reading what the window manager supports";
        let reply = self
            .conn
            .get_property(
                false,
                self.root,
                self.atoms._NET_SUPPORTED,
                AtomEnum::ATOM,
                0,
                4096,
            )
            .during(OPERATION)?
            .reply()
            .during(OPERATION)?;
        Ok(reply
            .value32()
            .is_some_and(|mut atoms| atoms.any(|a| a == hint)))
    }

    /// The X server's current time, which window managers compare with the time of the last
    /// user input to tell a user's request from a background one.
    ///
    /// The server stamps the PropertyNotify of a change to our own window with it. Only the
    /// holder of the input lock takes events off the queue (`client.rs` waits for its pongs
    /// there), so this holds it too.
    fn server_time(&self) -> Result<u32, X11Error> {
        const OPERATION: &str = "reading the X server's time";
        let _input = self.lock_input();
        self.conn
            .change_property(
                PropMode::APPEND,
                self.time_window,
                self.atoms._DESKHAND_TIME,
                AtomEnum::STRING,
                8,
                0,
                &[],
            )
            .during(OPERATION)?;
        // The server sends the events a request causes before the reply to a later request.
        self.conn
            .get_input_focus()
            .during(OPERATION)?
            .reply()
            .during(OPERATION)?;
        let mut time = x11rb::CURRENT_TIME;
        while let Some(event) = self.conn.poll_for_event().during(OPERATION)? {
            match event {
                Event::PropertyNotify(e) if e.window == self.time_window => time = e.time,
                // The keyboard map cache looks for these in the same queue.
                Event::MappingNotify(_) | Event::XkbMapNotify(_) => {
                    self.mapping_notified.store(true, Ordering::Relaxed);
                }
                _ => {}
            }
        }
        Ok(time)
    }
}

/// Where a ConfigureRequest must place a window of `gravity` with frame `extents` (left, right,
/// top, bottom) for its client area to land at `client`: the window manager puts the frame's
/// reference point, which the gravity names, where the request puts the client's (ICCCM 4.1.5).
fn configure_position(
    gravity: Gravity,
    (x, y): (i32, i32),
    [left, right, top, bottom]: [u32; 4],
) -> (i32, i32) {
    let [left, right, top, bottom] = [left, right, top, bottom].map(|e| e as i32);
    let dx = match gravity {
        Gravity::STATIC => 0,
        Gravity::NORTH | Gravity::CENTER | Gravity::SOUTH => (right - left) / 2,
        Gravity::NORTH_EAST | Gravity::EAST | Gravity::SOUTH_EAST => right,
        _ => -left,
    };
    let dy = match gravity {
        Gravity::STATIC => 0,
        Gravity::WEST | Gravity::CENTER | Gravity::EAST => (bottom - top) / 2,
        Gravity::SOUTH_WEST | Gravity::SOUTH | Gravity::SOUTH_EAST => bottom,
        _ => -top,
    };
    (x + dx, y + dy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Openbox's frame: 1 px sides, a 20 px title bar, a 5 px bottom handle.
    const FRAME: [u32; 4] = [1, 1, 20, 5];

    #[test]
    fn static_gravity_positions_the_client_area_itself() {
        assert_eq!(
            configure_position(Gravity::STATIC, (100, 50), FRAME),
            (100, 50)
        );
    }

    #[test]
    fn north_west_gravity_positions_the_frame() {
        assert_eq!(
            configure_position(Gravity::NORTH_WEST, (100, 50), FRAME),
            (99, 30)
        );
        // An unset or invalid gravity means north-west (ICCCM).
        assert_eq!(
            configure_position(Gravity::BIT_FORGET, (100, 50), FRAME),
            (99, 30)
        );
    }

    #[test]
    fn other_gravities_shift_by_the_opposite_and_centred_edges() {
        let frame = [2, 6, 20, 4];
        assert_eq!(
            configure_position(Gravity::SOUTH_EAST, (100, 50), frame),
            (106, 54)
        );
        assert_eq!(
            configure_position(Gravity::CENTER, (100, 50), frame),
            (102, 42)
        );
        assert_eq!(
            configure_position(Gravity::NORTH, (100, 50), frame),
            (102, 30)
        );
    }
}
