//! A person's input on sway, as far as a client can tell it. wlroots tells no client about
//! another client's input, but its idle notices (`org_kde_kwin_idle`) say when the seat has had
//! no input for a moment and when input comes again, whoever sent it. Input that comes after
//! such a pause when deskhand has sent none moments before is the person's, and they keep the
//! desktop until the seat is quiet again.

use std::sync::Arc;
use std::time::Duration;

use deskhand_core::person::Presence;
use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_seat::WlSeat;
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, delegate_dispatch};
use wayland_protocols_plasma::idle::client::org_kde_kwin_idle::OrgKdeKwinIdle;
use wayland_protocols_plasma::idle::client::org_kde_kwin_idle_timeout::{
    self, OrgKdeKwinIdleTimeout,
};

use super::WaylandError;
use super::registry::{Globals, bind, connect_with_globals, read_events};
use crate::own_thread::{self, Unstarted};

/// The seat counts as quiet after this long without input: a person's input after such a
/// pause is told.
pub const QUIET: Duration = Duration::from_millis(100);

/// Input the compositor tells of this soon after deskhand sent some is taken for deskhand's.
const OURS_WITHIN: Duration = Duration::from_millis(250);

/// How often the presence is told that the person's input goes on, or that time passed.
const SAMPLE: Duration = Duration::from_millis(40);

#[derive(Default)]
struct Seat {
    /// The compositor said input came after a quiet spell, not yet looked at.
    came: bool,
    /// The seat has been quiet since the last notice.
    quiet: bool,
}

delegate_dispatch!(Seat: [WlRegistry: GlobalListContents] => Globals);

impl Dispatch<WlSeat, ()> for Seat {
    fn event(
        _: &mut Self,
        _: &WlSeat,
        _: wayland_client::protocol::wl_seat::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<OrgKdeKwinIdle, ()> for Seat {
    fn event(
        _: &mut Self,
        _: &OrgKdeKwinIdle,
        _: wayland_protocols_plasma::idle::client::org_kde_kwin_idle::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<OrgKdeKwinIdleTimeout, ()> for Seat {
    fn event(
        seat: &mut Self,
        _: &OrgKdeKwinIdleTimeout,
        event: org_kde_kwin_idle_timeout::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            org_kde_kwin_idle_timeout::Event::Idle => seat.quiet = true,
            org_kde_kwin_idle_timeout::Event::Resumed => {
                seat.quiet = false;
                seat.came = true;
            }
            _ => {}
        }
    }
}

/// Why a person's input cannot be watched on this compositor.
#[derive(Debug, thiserror::Error)]
pub enum IdleWatchError {
    #[error(transparent)]
    Wayland(#[from] WaylandError),
    #[error(
        "the compositor did not answer the watch's setup within {} s, so a person's input is not watched; check that it is alive, then restart deskhand",
        .0.as_secs()
    )]
    NoAnswer(Duration),
    #[error("the watch's thread could not start ({0})")]
    Thread(std::io::Error),
}

/// Starts the watch on a thread and a connection of its own; a person's input is told to
/// `presence`. Connecting waits on the compositor: one that does not answer costs the setup
/// deadline.
pub fn watch(presence: Arc<Presence>) -> Result<(), IdleWatchError> {
    own_thread::start(
        "deskhand-person-watch",
        own_thread::SETUP_DEADLINE,
        set_up,
        move |(queue, seat)| run(queue, seat, &presence),
    )
    .map_err(|unstarted| match unstarted {
        Unstarted::Failed(err) => IdleWatchError::Wayland(err),
        Unstarted::NoAnswer(waited) => IdleWatchError::NoAnswer(waited),
        Unstarted::NoThread(err) => IdleWatchError::Thread(err),
    })
}

type Watched = (EventQueue<Seat>, Seat);

fn set_up() -> Result<Watched, WaylandError> {
    let (_connection, globals, mut queue) = connect_with_globals::<Seat>()?;
    let handle = queue.handle();
    let wl_seat: WlSeat = bind(&globals, &handle, 1..=1, "wl_seat")?;
    let idle: OrgKdeKwinIdle = bind(&globals, &handle, 1..=1, "org_kde_kwin_idle")?;
    idle.get_idle_timeout(&wl_seat, QUIET.as_millis() as u32, &handle, ());
    let mut seat = Seat::default();
    queue
        .roundtrip(&mut seat)
        .map_err(|err| WaylandError::Lost {
            operation: "asking for the seat's idle notices",
            cause: err.to_string(),
        })?;
    Ok((queue, seat))
}

/// Runs until the connection breaks (the compositor is gone, and so is anything to watch).
fn run(mut queue: EventQueue<Seat>, mut seat: Seat, presence: &Presence) {
    let mut persons = false;
    loop {
        if read_events(
            &mut queue,
            &mut seat,
            SAMPLE,
            "watching the seat's idle notices",
        )
        .is_err()
        {
            return;
        }
        if seat.came {
            seat.came = false;
            persons = !crate::person::sent_within(OURS_WITHIN);
        }
        if seat.quiet {
            persons = false;
        }
        // Until the seat is quiet again the input goes on, and it is theirs.
        if persons {
            presence.noticed();
        }
        presence.tick();
    }
}
