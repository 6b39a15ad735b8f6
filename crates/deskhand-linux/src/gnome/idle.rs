//! A person's input on GNOME, as far as a client can tell it. Mutter's idle monitor
//! (`org.gnome.Mutter.IdleMonitor`) says how long ago the seat last had input, whoever sent it:
//! deskhand's remote-desktop pointer and keys as much as a person's hands. Input that arrives
//! when deskhand sent none moments before is the person's, and they keep the desktop until they
//! leave it alone for the idle time.

use std::sync::Arc;
use std::time::Duration;

use deskhand_core::person::Presence;

use super::{GnomeError, call, session_bus};
use crate::own_thread::{self, Unstarted};

const IDLE_MONITOR: &str = "org.gnome.Mutter.IdleMonitor";
const CORE: &str = "/org/gnome/Mutter/IdleMonitor/Core";

/// How often the idle time is read, and the presence told that time passed.
const SAMPLE: Duration = Duration::from_millis(40);

/// Input that arrived this soon after deskhand sent some is taken for deskhand's: Mutter hands
/// a remote-desktop event to its main loop, where the idle time is reset, a moment after the
/// call that sent it has answered.
const OURS_WITHIN: Duration = Duration::from_millis(250);

/// After this long without input the person's input has stopped, and the next input is judged
/// afresh.
const QUIET: Duration = Duration::from_millis(100);

/// One read of the idle time never takes this long while the shell is alive.
const CALL_TIMEOUT: Duration = Duration::from_secs(1);

/// Why a person's input cannot be watched on this GNOME.
#[derive(Debug, thiserror::Error)]
pub enum IdleWatchError {
    #[error(
        "GNOME's idle monitor (org.gnome.Mutter.IdleMonitor) cannot be read ({0}), so a person's input cannot be told from deskhand's: only the top-left corner stops deskhand here"
    )]
    NoIdleMonitor(GnomeError),
    #[error("the watch's async runtime could not start ({0})")]
    Runtime(std::io::Error),
    #[error(
        "GNOME Shell did not answer the watch's setup within {} s, so a person's input is not watched; check that it is alive, then restart deskhand",
        .0.as_secs()
    )]
    NoAnswer(Duration),
    #[error("the watch's thread could not start ({0})")]
    Thread(std::io::Error),
}

/// Starts the watch on a thread and a session-bus connection of its own; a person's input is
/// told to `presence`. Its setup reads the idle time once, under the setup deadline.
pub fn watch(presence: Arc<Presence>) -> Result<(), IdleWatchError> {
    own_thread::start(
        "deskhand-person-watch",
        own_thread::SETUP_DEADLINE,
        set_up,
        move |(runtime, bus, first)| run(&runtime, &bus, first, &presence),
    )
    .map_err(|unstarted| match unstarted {
        Unstarted::Failed(err) => err,
        Unstarted::NoAnswer(waited) => IdleWatchError::NoAnswer(waited),
        Unstarted::NoThread(err) => IdleWatchError::Thread(err),
    })
}

type Watched = (tokio::runtime::Runtime, zbus::Connection, Duration);

fn set_up() -> Result<Watched, IdleWatchError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(IdleWatchError::Runtime)?;
    let (bus, first) = runtime
        .block_on(async {
            let bus = session_bus(CALL_TIMEOUT).await?;
            let first = idle_time(&bus).await?;
            Ok((bus, first))
        })
        .map_err(IdleWatchError::NoIdleMonitor)?;
    Ok((runtime, bus, first))
}

/// Whether Mutter's idle monitor answers on the session bus, as the watch needs it.
pub async fn readable() -> bool {
    match session_bus(CALL_TIMEOUT).await {
        Ok(bus) => idle_time(&bus).await.is_ok(),
        Err(_) => false,
    }
}

/// How long ago the seat last had input.
async fn idle_time(bus: &zbus::Connection) -> Result<Duration, GnomeError> {
    let (millis,): (u64,) = call(
        bus,
        IDLE_MONITOR,
        CORE,
        IDLE_MONITOR,
        "GetIdletime",
        &(),
        CALL_TIMEOUT,
    )
    .await?;
    Ok(Duration::from_millis(millis))
}

/// What the watch makes of one reading of the idle time.
#[derive(Debug, Default)]
struct Judge {
    /// The idle time read last.
    before: Option<Duration>,
    /// The input going on is the person's.
    persons: bool,
}

impl Judge {
    /// Whether the person gave input since the last reading, given the idle time now and
    /// whether deskhand sent input within a span before now.
    fn read(&mut self, idle: Duration, sent_within: impl Fn(Duration) -> bool) -> bool {
        // The idle time only ever grows, until input resets it.
        let came = self.before.is_some_and(|before| idle < before);
        self.before = Some(idle);
        if came && !self.persons {
            self.persons = !sent_within(idle + OURS_WITHIN);
        }
        let persons = came && self.persons;
        if idle >= QUIET {
            self.persons = false;
        }
        persons
    }
}

/// Runs until the bus is gone (and with it the session there was to watch).
fn run(
    runtime: &tokio::runtime::Runtime,
    bus: &zbus::Connection,
    first: Duration,
    presence: &Presence,
) {
    let mut judge = Judge {
        before: Some(first),
        persons: false,
    };
    loop {
        std::thread::sleep(SAMPLE);
        match runtime.block_on(idle_time(bus)) {
            Ok(idle) => {
                if judge.read(idle, |window| {
                    crate::person::last_sent().is_some_and(|at| at.elapsed() <= window)
                }) {
                    presence.noticed();
                }
            }
            // A busy shell answers late: the next reading says what happened meanwhile.
            Err(GnomeError::Timeout { .. }) => {}
            Err(_) => return,
        }
        presence.tick();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn input_is_the_persons_only_when_deskhand_sent_none_just_before() {
        let mut judge = Judge {
            before: Some(MS(5000)),
            persons: false,
        };
        // Idle grows: no input.
        assert!(!judge.read(MS(5040), |_| false));
        // Input 10 ms ago, deskhand sent some just before it: deskhand's.
        assert!(!judge.read(MS(10), |within| within >= MS(260)));
        assert!(!judge.read(MS(50), |_| false));
        assert!(!judge.read(MS(300), |_| false));
        // Input again, deskhand sent nothing: the person's, and so is the input that follows
        // without a pause, whatever deskhand sends meanwhile.
        assert!(judge.read(MS(20), |_| false));
        assert!(judge.read(MS(15), |_| true));
        assert!(!judge.read(MS(55), |_| true));
        // Quiet for a while, then input just after deskhand's: deskhand's.
        assert!(!judge.read(MS(400), |_| false));
        assert!(!judge.read(MS(5), |_| true));
    }
}
