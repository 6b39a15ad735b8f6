//! A thread of its own for a long-lived connection to the display server (the overlay's drawing,
//! the watch for a person's input), whose setup has a deadline like every other request to it:
//! connecting and the first requests wait on the server, and a wedged server must cost the
//! caller the deadline, never a hung start.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// As long as one round trip may take on a live server (the backend's deadline for X).
pub(crate) const SETUP_DEADLINE: Duration = Duration::from_secs(5);

/// Why a thread of its own did not start.
#[derive(Debug)]
pub(crate) enum Unstarted<E> {
    /// Its setup failed.
    Failed(E),
    /// The server did not finish answering its setup within this long.
    NoAnswer(Duration),
    /// The thread could not be started.
    NoThread(std::io::Error),
}

enum Handshake<E> {
    Waiting,
    Finished(Result<(), E>),
    /// The starter stopped waiting: what the setup made is dropped, not run.
    Abandoned,
}

/// Runs `set_up` on a new thread named `name`, then `run` on that thread with what it made.
/// Returns once the setup is done, or after `deadline` at the latest: a setup still waiting on
/// the server then finishes on its own, and what it made (its connection, and with it whatever
/// it created on the server) is dropped instead of run.
pub(crate) fn start<S, E>(
    name: &str,
    deadline: Duration,
    set_up: impl FnOnce() -> Result<S, E> + Send + 'static,
    run: impl FnOnce(S) + Send + 'static,
) -> Result<(), Unstarted<E>>
where
    E: Send + 'static,
{
    let shared = Arc::new((Mutex::new(Handshake::Waiting), Condvar::new()));
    let theirs = Arc::clone(&shared);
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let made = set_up();
            let (state, changed) = &*theirs;
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            if matches!(*state, Handshake::Abandoned) {
                return;
            }
            match made {
                Ok(made) => {
                    *state = Handshake::Finished(Ok(()));
                    drop(state);
                    changed.notify_all();
                    run(made);
                }
                Err(err) => {
                    *state = Handshake::Finished(Err(err));
                    changed.notify_all();
                }
            }
        })
        .map_err(Unstarted::NoThread)?;
    let (state, changed) = &*shared;
    let state = state.lock().unwrap_or_else(PoisonError::into_inner);
    let (mut state, _) = changed
        .wait_timeout_while(state, deadline, |s| matches!(s, Handshake::Waiting))
        .unwrap_or_else(PoisonError::into_inner);
    match std::mem::replace(&mut *state, Handshake::Abandoned) {
        Handshake::Finished(Ok(())) => Ok(()),
        Handshake::Finished(Err(err)) => Err(Unstarted::Failed(err)),
        Handshake::Waiting | Handshake::Abandoned => Err(Unstarted::NoAnswer(deadline)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    #[test]
    fn a_setup_past_its_deadline_is_given_up_and_never_run() {
        let ran = Arc::new(AtomicBool::new(false));
        let ran_there = Arc::clone(&ran);
        let began = Instant::now();
        let started = start::<(), ()>(
            "slow-setup",
            Duration::from_millis(100),
            || {
                std::thread::sleep(Duration::from_millis(400));
                Ok(())
            },
            move |()| ran_there.store(true, Ordering::SeqCst),
        );
        assert!(matches!(started, Err(Unstarted::NoAnswer(_))));
        assert!(began.elapsed() < Duration::from_millis(300));
        std::thread::sleep(Duration::from_millis(600));
        assert!(!ran.load(Ordering::SeqCst), "an abandoned setup ran");
    }

    #[test]
    fn a_setup_in_time_runs_and_a_failed_one_says_why() {
        let (sent, received) = std::sync::mpsc::channel();
        let started = start::<u8, ()>(
            "quick-setup",
            SETUP_DEADLINE,
            || Ok(7),
            move |made| {
                let _ = sent.send(made);
            },
        );
        assert!(started.is_ok());
        assert_eq!(received.recv_timeout(SETUP_DEADLINE), Ok(7));
        let failed = start::<(), &str>("failed-setup", SETUP_DEADLINE, || Err("no"), |()| {});
        assert!(matches!(failed, Err(Unstarted::Failed("no"))));
    }
}
