//! Waiting until the application that receives our key events has handled them.
//!
//! An X client translates a key event with the keyboard map it fetches when it gets to that
//! event, which can be long after the event was sent (GTK reads its X queue only as fast as it
//! handles events). The X server cannot tell us how far a client has got, but the client can:
//! a `_NET_WM_PING` sent after the key events is answered only once the client has read
//! everything before it, since events reach a client in order.

use std::sync::atomic::Ordering;
use std::thread::sleep;
use std::time::{Duration, Instant};

use x11rb::connection::Connection as _;
use x11rb::errors::ReplyError;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _, EventMask,
    InputFocus, Window,
};
use x11rb::protocol::{ErrorKind, Event};

use super::{During as _, X11, X11Error};

/// How long a client may take to answer a ping before it counts as not responding.
const PONG_TIMEOUT: Duration = Duration::from_secs(5);
/// For clients that do not answer pings: an allowance, not a guarantee.
const BLIND_SETTLE: Duration = Duration::from_millis(100);

const OPERATION: &str = "waiting for the focused window to handle the keys";

impl X11 {
    /// Returns once the client owning the keyboard focus has read every event sent to it so
    /// far, or after a fixed allowance if it does not support `_NET_WM_PING`.
    pub fn wait_for_focused_client(&self) -> Result<(), X11Error> {
        match self.pingable_focus()? {
            Some(window) => self.ping(window),
            None => {
                sleep(BLIND_SETTLE);
                Ok(())
            }
        }
    }

    /// The focus window or its nearest ancestor that advertises `_NET_WM_PING`; toolkits focus
    /// a child of the toplevel (GTK3 a hidden focus window) but answer pings on the toplevel.
    fn pingable_focus(&self) -> Result<Option<Window>, X11Error> {
        let focus = self
            .conn
            .get_input_focus()
            .during(OPERATION)?
            .reply()
            .during(OPERATION)?
            .focus;
        let mut window = if focus == x11rb::NONE || focus == u32::from(InputFocus::POINTER_ROOT) {
            match self.active_window()? {
                Some(active) => active,
                None => return Ok(None),
            }
        } else {
            focus
        };
        while window != self.root && window != x11rb::NONE {
            match self.has_protocol(window, self.atoms._NET_WM_PING) {
                Ok(true) => return Ok(Some(window)),
                Ok(false) => {}
                Err(ReplyError::X11Error(e)) if e.error_kind == ErrorKind::Window => {
                    return Ok(None);
                }
                Err(e) => return Err(e).during(OPERATION),
            }
            window = match self.conn.query_tree(window).during(OPERATION)?.reply() {
                Ok(tree) => tree.parent,
                Err(ReplyError::X11Error(e)) if e.error_kind == ErrorKind::Window => {
                    return Ok(None);
                }
                Err(e) => return Err(e).during(OPERATION),
            };
        }
        Ok(None)
    }

    fn window_destroyed(&self, window: Window) -> Result<bool, X11Error> {
        match self
            .conn
            .get_window_attributes(window)
            .during(OPERATION)?
            .reply()
        {
            Ok(_) => Ok(false),
            Err(ReplyError::X11Error(e)) if e.error_kind == ErrorKind::Window => Ok(true),
            Err(e) => Err(e).during(OPERATION),
        }
    }

    /// Whether the window lists `protocol` in its WM_PROTOCOLS.
    pub(super) fn has_protocol(&self, window: Window, protocol: u32) -> Result<bool, ReplyError> {
        let protocols = self
            .conn
            .get_property(
                false,
                window,
                self.atoms.WM_PROTOCOLS,
                AtomEnum::ATOM,
                0,
                64,
            )?
            .reply()?;
        Ok(protocols
            .value32()
            .is_some_and(|mut atoms| atoms.any(|a| a == protocol)))
    }

    fn ping(&self, window: Window) -> Result<(), X11Error> {
        // Unique per ping so that a late answer to an earlier ping is not mistaken for this one;
        // the window manager ignores answers to pings it did not send.
        let serial = self.pings.fetch_add(1, Ordering::Relaxed);
        let ping = ClientMessageEvent::new(
            32,
            window,
            self.atoms.WM_PROTOCOLS,
            [self.atoms._NET_WM_PING, serial, window, 0, 0],
        );
        // The answer is sent to the root window for clients selecting substructure events
        // (GTK) or structure events (Qt 5); select both only for as long as we wait, so they do
        // not pile up unread.
        let listen = self
            .conn
            .change_window_attributes(
                self.root,
                &ChangeWindowAttributesAux::new()
                    .event_mask(EventMask::SUBSTRUCTURE_NOTIFY | EventMask::STRUCTURE_NOTIFY),
            )
            .during(OPERATION)?;
        let sent = self
            .conn
            .send_event(false, window, EventMask::NO_EVENT, ping)
            .during(OPERATION)?;
        let answered = X11::check_all([listen, sent], OPERATION).and_then(|()| {
            self.conn.flush().during(OPERATION)?;
            self.wait_for_pong(window, serial)
        });
        let stop = self
            .conn
            .change_window_attributes(
                self.root,
                &ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT),
            )
            .during(OPERATION)
            .and_then(|cookie| X11::check_all([cookie], OPERATION));
        answered.and(stop)
    }

    fn wait_for_pong(&self, window: Window, serial: u32) -> Result<(), X11Error> {
        let deadline = Instant::now() + PONG_TIMEOUT;
        let mut polls = 0u32;
        loop {
            // Keys that close the window (Escape in a dialog) destroy it before the client
            // gets to the ping, which is then never answered: a client that destroyed the
            // window has read the keys before the ping.
            polls += 1;
            if polls.is_multiple_of(20) && self.window_destroyed(window)? {
                return Ok(());
            }
            while let Some(event) = self.conn.poll_for_event().during(OPERATION)? {
                match event {
                    Event::ClientMessage(message)
                        if message.type_ == self.atoms.WM_PROTOCOLS
                            && message.data.as_data32()[..2]
                                == [self.atoms._NET_WM_PING, serial] =>
                    {
                        return Ok(());
                    }
                    // The keyboard map cache looks for these in the same queue.
                    Event::MappingNotify(_) | Event::XkbMapNotify(_) => {
                        self.mapping_notified.store(true, Ordering::Relaxed);
                    }
                    _ => {}
                }
            }
            if Instant::now() >= deadline {
                return Err(X11Error::ClientNotResponding {
                    window,
                    waited: PONG_TIMEOUT,
                });
            }
            sleep(Duration::from_millis(1));
        }
    }
}
