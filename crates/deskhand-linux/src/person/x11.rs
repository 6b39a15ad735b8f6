//! The watch on X11: XInput2 raw key and button presses on the root window (delivered whatever
//! grabs are active), and the pointer's position sampled against where deskhand moved it.
//! Input deskhand did not send is the person's.

use std::os::fd::AsRawFd as _;
use std::sync::Arc;
use std::time::Duration;

use deskhand_core::person::Presence;
use x11rb::connection::Connection as _;
use x11rb::protocol::Event;
use x11rb::protocol::xinput::{self, ConnectionExt as _, XIEventMask};
use x11rb::protocol::xproto::{ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

use super::{Sent, ours};
use crate::own_thread::{self, Unstarted};
use crate::x11::X11;

/// How often the pointer's position is sampled, and the presence told that time passed.
const SAMPLE: Duration = Duration::from_millis(40);

/// The XInput2 device id meaning every master device.
const ALL_MASTER_DEVICES: u16 = 1;

/// Why the person's input cannot be watched on this display.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("the X display {display} cannot be reached for the watch ({cause})")]
    Connect {
        display: String,
        cause: x11rb::errors::ConnectError,
    },
    #[error("the X server has no XInput 2.2 ({0}), so a person's keys and buttons cannot be told")]
    NoXinput(String),
    #[error(
        "the X server on {display} did not answer the watch's setup within {} s, so a person's input is not watched; check that the display is alive, then restart deskhand",
        waited.as_secs()
    )]
    NoAnswer { display: String, waited: Duration },
    #[error("the watch's thread could not start ({0})")]
    Thread(std::io::Error),
}

/// Starts the watch on `display` on a thread of its own, with a connection of its own; a
/// person's input is told to `presence`, and whatever deskhand holds down on `x11` (a button,
/// keys from `down`) is let go of as soon as a takeover begins. Connecting and selecting the
/// events wait on the server: a server that does not answer costs the setup deadline.
pub fn start(display: &str, presence: Arc<Presence>, x11: Arc<X11>) -> Result<(), WatchError> {
    let name = display.to_owned();
    own_thread::start(
        "deskhand-person-watch",
        own_thread::SETUP_DEADLINE,
        move || set_up(&name),
        move |(conn, root)| watch(&conn, root, &presence, &x11),
    )
    .map_err(|unstarted| match unstarted {
        Unstarted::Failed(err) => err,
        Unstarted::NoAnswer(waited) => WatchError::NoAnswer {
            display: display.to_owned(),
            waited,
        },
        Unstarted::NoThread(err) => WatchError::Thread(err),
    })
}

/// Connects, and selects raw key and button presses on the root window.
fn set_up(display: &str) -> Result<(RustConnection, Window), WatchError> {
    let (conn, screen) =
        RustConnection::connect(Some(display)).map_err(|cause| WatchError::Connect {
            display: display.to_owned(),
            cause,
        })?;
    let root = conn.setup().roots[screen].root;
    let no_xinput = |why: String| WatchError::NoXinput(why);
    let version = conn
        .xinput_xi_query_version(2, 2)
        .map_err(|e| no_xinput(e.to_string()))?
        .reply()
        .map_err(|e| no_xinput(e.to_string()))?;
    if (version.major_version, version.minor_version) < (2, 2) {
        return Err(no_xinput(format!(
            "it has {}.{}",
            version.major_version, version.minor_version
        )));
    }
    conn.xinput_xi_select_events(
        root,
        &[xinput::EventMask {
            deviceid: ALL_MASTER_DEVICES,
            mask: vec![XIEventMask::RAW_KEY_PRESS | XIEventMask::RAW_BUTTON_PRESS],
        }],
    )
    .map_err(|e| no_xinput(e.to_string()))?
    .check()
    .map_err(|e| no_xinput(e.to_string()))?;
    Ok((conn, root))
}

/// Runs until the connection breaks (the display is gone, and so is anything to watch).
fn watch(conn: &RustConnection, root: Window, presence: &Presence, x11: &X11) {
    let mut seen = pointer(conn, root);
    loop {
        let mut persons = false;
        loop {
            match conn.poll_for_event() {
                Ok(Some(Event::XinputRawKeyPress(press))) => {
                    persons |= !ours(Sent::Key(press.detail as u8));
                }
                Ok(Some(Event::XinputRawButtonPress(press))) => {
                    persons |= !ours(Sent::Button(press.detail as u8));
                }
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(_) => return,
            }
        }
        let Some(now) = pointer(conn, root) else {
            return;
        };
        if Some(now) != seen {
            persons |= !ours(Sent::Motion(now.0, now.1));
            seen = Some(now);
        }
        if persons {
            let began = !presence.taken_over();
            presence.noticed();
            if began {
                x11.let_go();
            }
        }
        presence.tick();
        wait_readable(conn, SAMPLE);
    }
}

fn pointer(conn: &RustConnection, root: Window) -> Option<(i32, i32)> {
    let reply = conn.query_pointer(root).ok()?.reply().ok()?;
    Some((i32::from(reply.root_x), i32::from(reply.root_y)))
}

/// Sleeps until the server sends something or `limit` passes.
fn wait_readable(conn: &RustConnection, limit: Duration) {
    let mut fd = libc::pollfd {
        fd: conn.stream().as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let timeout = i32::try_from(limit.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one valid pollfd that outlives the call. An interrupted or failed poll only ends
    // this wait early; the next read of the connection says whether it broke.
    unsafe {
        libc::poll(&mut fd, 1, timeout);
    }
}
