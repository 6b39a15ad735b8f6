//! The display server of this session, picked once when the backend connects: every call of
//! the backend goes to it through [`on_display!`].

use std::sync::Arc;

use deskhand_core::error::{Error, ErrorKind, Result};

use super::bus::Bus;
use super::clipboard::ClipboardHolder;
use super::on_gnome::GnomeDesk;
use super::on_sway::SwayDesk;
use super::on_x11::X11Desk;
use crate::wayland::Session;

/// The display server of this session, picked once when the backend connects.
pub(super) enum Display {
    X11(X11Desk),
    Sway(SwayDesk),
    Gnome(Box<GnomeDesk>),
}

impl Display {
    /// sway or GNOME when the session is theirs on Wayland (GNOME Shell is reached on first
    /// use), else X (XWayland on another compositor).
    pub(super) fn pick(bus: Arc<Bus>, holder: Arc<ClipboardHolder>) -> Result<Self> {
        Ok(match Session::from_env() {
            Session::Sway(socket) => Display::Sway(SwayDesk::connect(socket, bus, holder)?),
            Session::Gnome => Display::Gnome(Box::new(GnomeDesk::new(bus))),
            Session::OtherWayland(_) if std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()) => {
                Display::X11(X11Desk::connect(bus, holder)?)
            }
            Session::OtherWayland(name) => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "this is a Wayland session of {name}, and deskhand drives GNOME and sway on Wayland only so far (and X11 everywhere); run it in a GNOME or sway session, under XWayland with DISPLAY set, or on a headless desktop of its own: `eval \"$(deskhand desktop start --wayland sway)\"`"
                    ),
                ));
            }
            Session::X11 => Display::X11(X11Desk::connect(bus, holder)?),
        })
    }
}

/// Runs `$body` with `$server` bound to the session's display server.
macro_rules! on_display {
    ($display:expr, $server:ident => $body:expr) => {
        match &**$display {
            $crate::backend::session::Display::X11($server) => $body,
            $crate::backend::session::Display::Sway($server) => $body,
            $crate::backend::session::Display::Gnome($server) => {
                let $server = &**$server;
                $body
            }
        }
    };
}
pub(super) use on_display;
