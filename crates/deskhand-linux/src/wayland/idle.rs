//! A person's input on sway, as far as a client can tell it. wlroots tells no client about
//! another client's input, but its idle notices (`ext_idle_notify_v1` where the compositor
//! offers it, else `org_kde_kwin_idle`) say when the seat has had no input for a moment and when
//! input comes again, whoever sent it. Against the times deskhand sent its own input, two things
//! tell a person's: input that comes after such a pause when deskhand has sent nothing since the
//! pause began, and input that keeps the seat busy well past deskhand's own last input. The
//! person then keeps the desktop until the seat is quiet again.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deskhand_core::person::Presence;
use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_seat::WlSeat;
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle, delegate_dispatch};
use wayland_protocols::ext::idle_notify::v1::client::ext_idle_notification_v1::{
    self, ExtIdleNotificationV1,
};
use wayland_protocols::ext::idle_notify::v1::client::ext_idle_notifier_v1::ExtIdleNotifierV1;
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

/// How much later than the seat went quiet this watch may hear of it: deskhand's input sent
/// this little before the notice was read may still have come after the pause began. Less than
/// [`QUIET`], so input deskhand sent before the pause never counts.
const HEARD_LATE: Duration = Duration::from_millis(60);

/// How long past [`QUIET`] the compositor may take to say the seat is quiet after deskhand's
/// last input, on a loaded machine; input that keeps the seat busy longer is someone else's.
const QUIET_LATE: Duration = Duration::from_millis(200);

/// The seat must have gone quiet this recently for its staying busy to count: an app that
/// inhibits idleness (a video played full screen) keeps sway from ever saying so.
const NOTICES_TRUSTED_FOR: Duration = Duration::from_secs(10);

/// How often the presence is told that the person's input goes on, or that time passed.
const SAMPLE: Duration = Duration::from_millis(40);

/// Whose the seat's input is, from its idle notices and when deskhand last sent input.
#[derive(Debug, Default)]
struct Judge {
    /// When this watch heard the seat go quiet last.
    quiet_at: Option<Instant>,
    /// The seat has been quiet since.
    quiet: bool,
    /// The input going on is a person's.
    persons: bool,
}

impl Judge {
    fn went_quiet(&mut self, at: Instant) {
        self.quiet_at = Some(at);
        self.quiet = true;
        self.persons = false;
    }

    /// Input came after the seat was quiet: deskhand's only if it sent some since the pause
    /// began.
    fn input_came(&mut self, last_sent: Option<Instant>) {
        self.quiet = false;
        self.persons = match (self.quiet_at, last_sent) {
            (Some(quiet_at), Some(sent)) => sent + HEARD_LATE < quiet_at,
            (_, None) => true,
            // Resumed with no pause heard of: taken for deskhand's, since nothing says otherwise.
            (None, Some(_)) => false,
        };
    }

    /// Input that goes on well past deskhand's own without the seat going quiet is someone
    /// else's, when the seat's notices are known to come.
    fn look(&mut self, now: Instant, last_sent: Option<Instant>) {
        let (Some(sent), Some(quiet_at)) = (last_sent, self.quiet_at) else {
            return;
        };
        let busy_since_ours = !self.quiet && quiet_at <= sent;
        let overdue = now.saturating_duration_since(sent) >= QUIET + QUIET_LATE;
        let trusted = now.saturating_duration_since(quiet_at) <= NOTICES_TRUSTED_FOR;
        if busy_since_ours && overdue && trusted {
            self.persons = true;
        }
    }
}

#[derive(Default)]
struct Seat {
    judge: Judge,
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
            org_kde_kwin_idle_timeout::Event::Idle => seat.judge.went_quiet(Instant::now()),
            org_kde_kwin_idle_timeout::Event::Resumed => {
                seat.judge.input_came(crate::person::last_sent());
            }
            _ => {}
        }
    }
}

impl Dispatch<ExtIdleNotifierV1, ()> for Seat {
    fn event(
        _: &mut Self,
        _: &ExtIdleNotifierV1,
        _: wayland_protocols::ext::idle_notify::v1::client::ext_idle_notifier_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<ExtIdleNotificationV1, ()> for Seat {
    fn event(
        seat: &mut Self,
        _: &ExtIdleNotificationV1,
        event: ext_idle_notification_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            ext_idle_notification_v1::Event::Idled => seat.judge.went_quiet(Instant::now()),
            ext_idle_notification_v1::Event::Resumed => {
                seat.judge.input_came(crate::person::last_sent());
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
/// `presence`, and `let_go` releases what deskhand holds when they take over. Connecting waits
/// on the compositor: one that does not answer costs the setup deadline.
pub fn watch(
    presence: Arc<Presence>,
    let_go: impl Fn() + Send + 'static,
) -> Result<(), IdleWatchError> {
    own_thread::start(
        "deskhand-person-watch",
        own_thread::SETUP_DEADLINE,
        set_up,
        move |(queue, seat)| run(queue, seat, &presence, &let_go),
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
    let quiet_ms = QUIET.as_millis() as u32;
    if let Ok(notifier) = globals.bind::<ExtIdleNotifierV1, _, _>(&handle, 1..=2, ()) {
        // Version 2's input notices hold whatever app inhibits idleness (a video playing).
        if notifier.version() >= 2 {
            notifier.get_input_idle_notification(quiet_ms, &wl_seat, &handle, ());
        } else {
            notifier.get_idle_notification(quiet_ms, &wl_seat, &handle, ());
        }
    } else {
        let idle: OrgKdeKwinIdle = bind(
            &globals,
            &handle,
            1..=1,
            "idle notices (ext_idle_notify_v1 or org_kde_kwin_idle)",
        )?;
        idle.get_idle_timeout(&wl_seat, quiet_ms, &handle, ());
    }
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
fn run(mut queue: EventQueue<Seat>, mut seat: Seat, presence: &Presence, let_go: &dyn Fn()) {
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
        seat.judge.look(Instant::now(), crate::person::last_sent());
        // Until the seat is quiet again the input goes on, and it is theirs.
        if seat.judge.persons {
            let took_over = !presence.taken_over();
            presence.noticed();
            if took_over {
                let_go();
            }
        }
        presence.tick();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn input_after_a_pause_is_deskhands_only_if_it_sent_some_since_the_pause_began() {
        let start = Instant::now();
        let mut judge = Judge::default();
        // deskhand clicked, the seat went quiet 100 ms later, and 50 ms after that input came
        // that deskhand did not send.
        judge.went_quiet(start + ms(100));
        judge.input_came(Some(start));
        assert!(judge.persons);
        // The same pause, ended by deskhand's next input, sent as the notice was on its way.
        judge.went_quiet(start + ms(300));
        judge.input_came(Some(start + ms(290)));
        assert!(!judge.persons);
    }

    #[test]
    fn input_that_keeps_the_seat_busy_well_past_deskhands_own_is_someone_elses() {
        let start = Instant::now();
        let mut judge = Judge::default();
        judge.went_quiet(start);
        judge.input_came(Some(start + ms(10)));
        let sent = Some(start + ms(500));
        // Still typing or dragging: nothing to say.
        judge.look(start + ms(550), sent);
        assert!(!judge.persons);
        // The seat went quiet after deskhand's last input: its own.
        judge.look(start + ms(500) + QUIET + QUIET_LATE, sent);
        assert!(judge.persons, "busy {QUIET_LATE:?} past the quiet it owed");

        let mut calm = Judge::default();
        calm.went_quiet(start);
        calm.input_came(Some(start + ms(10)));
        calm.went_quiet(start + ms(600));
        calm.look(start + ms(900), sent);
        assert!(!calm.persons);
    }

    #[test]
    fn a_seat_that_has_not_gone_quiet_for_long_is_not_taken_for_a_persons() {
        let start = Instant::now();
        let mut judge = Judge::default();
        judge.went_quiet(start);
        judge.input_came(Some(start + ms(10)));
        let sent = start + NOTICES_TRUSTED_FOR + ms(100);
        judge.look(sent + QUIET + QUIET_LATE, Some(sent));
        assert!(!judge.persons, "an app may inhibit idleness");
    }
}
