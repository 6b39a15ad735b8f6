//! Ending an app: first asked to quit as its Quit menu item would (`NSRunningApplication
//! terminate`, which lets it save state and close its windows), and only when it is still there
//! after a grace, killed. The order and the waits are decided here, over a narrow trait, so they
//! are tested without a Mac; the shell only sends the requests.

use std::time::{Duration, Instant};

use deskhand_core::{Error, ErrorKind, Result};

/// Why a kill signal was not delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KillRefused {
    /// No process has the pid (`ESRCH`).
    NotRunning,
    /// Any other reason, as the system says it (another user's process, say).
    Other(String),
}

/// What ending an app asks of the system.
pub trait Processes {
    /// Asks the app with process `pid` to quit; false when no app has that pid or it declined
    /// the request at once.
    fn ask_to_quit(&self, pid: u32) -> bool;
    /// Sends the signal that cannot be ignored.
    fn kill(&self, pid: u32) -> std::result::Result<(), KillRefused>;
    /// Whether process `pid` still exists.
    fn running(&self, pid: u32) -> bool;
}

/// How long each stage waits for the process to go away, and how often it looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Graces {
    /// After the request to quit; an app that shows a dialog there (unsaved changes) is killed
    /// once it runs out, as the contract's `kill` promises.
    pub quit: Duration,
    /// After the kill signal, for the system to tear the process down.
    pub kill: Duration,
    pub poll: Duration,
}

/// The graces the backend uses; together well under one call's deadline.
pub const GRACES: Graces = Graces {
    quit: Duration::from_secs(3),
    kill: Duration::from_secs(2),
    poll: Duration::from_millis(50),
};

/// How the process went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It quit when asked.
    Quit,
    /// It was still there after the quit grace (or no app had the pid) and was killed.
    Killed,
}

/// Refuses the pids deskhand never ends, before anything is sent.
fn check(pid: u32, own: u32) -> Result<()> {
    let refuse = |why: &str| {
        Err(Error::bad_argument(format!(
            "process {pid} is {why} and is never ended; pass the pid of an application (see \
             `apps`)"
        )))
    };
    match pid {
        0 => refuse("not a process"),
        1 => refuse("launchd"),
        _ if pid == own => refuse("deskhand itself"),
        _ if i32::try_from(pid).is_err() => refuse("not a valid process id"),
        _ => Ok(()),
    }
}

fn gone_within(processes: &impl Processes, pid: u32, grace: Duration, poll: Duration) -> bool {
    let until = Instant::now() + grace;
    loop {
        if !processes.running(pid) {
            return true;
        }
        let now = Instant::now();
        if now >= until {
            return false;
        }
        std::thread::sleep(poll.min(until - now));
    }
}

/// Ends process `pid`: asks it to quit, waits, kills it if it is still there, waits again. A
/// process still there after both is reported as applied but unconfirmed, since the requests
/// went out.
pub fn end(processes: &impl Processes, pid: u32, graces: Graces) -> Result<Ended> {
    check(pid, std::process::id())?;
    if !processes.running(pid) {
        return Err(not_running(pid));
    }
    if processes.ask_to_quit(pid) && gone_within(processes, pid, graces.quit, graces.poll) {
        return Ok(Ended::Quit);
    }
    match processes.kill(pid) {
        Ok(()) => {}
        // It quit between the last look and the signal.
        Err(KillRefused::NotRunning) => return Ok(Ended::Quit),
        Err(KillRefused::Other(reason)) => {
            return Err(Error::platform(format!(
                "process {pid} was asked to quit, is still running, and could not be killed \
                 ({reason}); it may belong to another user or be protected by the system"
            ))
            .after_sending());
        }
    }
    if gone_within(processes, pid, graces.kill, graces.poll) {
        return Ok(Ended::Killed);
    }
    Err(Error::new(
        ErrorKind::Timeout,
        format!(
            "process {pid} was asked to quit and then killed, and is still there {} s later; \
             the system may still be tearing it down: call `apps` in a moment to see whether \
             it is gone",
            graces.kill.as_secs()
        ),
    )
    .after_sending())
}

fn not_running(pid: u32) -> Error {
    Error::new(
        ErrorKind::SurfaceGone,
        format!("process {pid} is not running; call apps to see what is"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};

    /// A process that goes away after a number of looks once a request reaches it.
    struct Scripted {
        is_app: bool,
        quits_when_asked: bool,
        dies_when_killed: bool,
        kill_answer: std::result::Result<(), KillRefused>,
        /// Looks still answering "running" after the request that ends it.
        lingers: Cell<u32>,
        ending: Cell<bool>,
        sent: RefCell<Vec<&'static str>>,
    }

    impl Scripted {
        fn new(quits_when_asked: bool, dies_when_killed: bool) -> Scripted {
            Scripted {
                is_app: true,
                quits_when_asked,
                dies_when_killed,
                kill_answer: Ok(()),
                lingers: Cell::new(2),
                ending: Cell::new(false),
                sent: RefCell::default(),
            }
        }

        /// The requests sent, without the looks.
        fn requests(&self) -> Vec<&'static str> {
            let sent = self.sent.borrow();
            sent.iter().copied().filter(|s| *s != "look").collect()
        }
    }

    impl Processes for Scripted {
        fn ask_to_quit(&self, _pid: u32) -> bool {
            self.sent.borrow_mut().push("quit");
            if self.quits_when_asked {
                self.ending.set(true);
            }
            self.is_app
        }
        fn kill(&self, _pid: u32) -> std::result::Result<(), KillRefused> {
            self.sent.borrow_mut().push("kill");
            if self.dies_when_killed {
                self.ending.set(true);
            }
            self.kill_answer.clone()
        }
        fn running(&self, _pid: u32) -> bool {
            self.sent.borrow_mut().push("look");
            if !self.ending.get() {
                return true;
            }
            let left = self.lingers.get();
            self.lingers.set(left.saturating_sub(1));
            left > 0
        }
    }

    const QUICK: Graces = Graces {
        quit: Duration::from_millis(60),
        kill: Duration::from_millis(60),
        poll: Duration::from_millis(5),
    };

    #[test]
    fn an_app_that_quits_when_asked_is_never_killed() {
        let app = Scripted::new(true, true);
        assert_eq!(end(&app, 4242, QUICK), Ok(Ended::Quit));
        assert_eq!(app.requests(), ["quit"]);
    }

    #[test]
    fn an_app_still_there_after_the_grace_is_killed() {
        let app = Scripted::new(false, true);
        assert_eq!(end(&app, 4242, QUICK), Ok(Ended::Killed));
        assert_eq!(app.requests(), ["quit", "kill"]);
    }

    #[test]
    fn a_process_that_is_no_app_is_killed_without_waiting_for_it_to_quit() {
        let mut helper = Scripted::new(false, true);
        helper.is_app = false;
        assert_eq!(end(&helper, 4242, GRACES), Ok(Ended::Killed));
        assert_eq!(
            helper.sent.borrow()[..3],
            ["look", "quit", "kill"],
            "no look for a quit that was never coming"
        );
    }

    #[test]
    fn a_process_that_outlives_the_kill_is_applied_but_unconfirmed() {
        let app = Scripted::new(false, false);
        let err = end(&app, 4242, QUICK).unwrap_err();
        assert!(err.sent, "the requests went out: {err}");
        assert_eq!(err.kind, ErrorKind::Timeout);
        assert!(err.message.contains("call `apps`"), "{err}");
        assert_eq!(app.requests(), ["quit", "kill"]);
    }

    #[test]
    fn a_kill_the_system_refuses_is_applied_but_unconfirmed_and_says_why() {
        let mut app = Scripted::new(false, false);
        app.kill_answer = Err(KillRefused::Other("Operation not permitted".into()));
        let err = end(&app, 4242, QUICK).unwrap_err();
        assert!(err.sent, "the request to quit went out: {err}");
        assert!(err.message.contains("Operation not permitted"), "{err}");
    }

    #[test]
    fn a_process_that_quit_just_before_the_signal_has_quit() {
        let mut app = Scripted::new(false, false);
        app.kill_answer = Err(KillRefused::NotRunning);
        assert_eq!(end(&app, 4242, QUICK), Ok(Ended::Quit));
    }

    #[test]
    fn pids_never_ended_and_gone_processes_change_nothing() {
        for pid in [0, 1, std::process::id(), u32::MAX] {
            let app = Scripted::new(true, true);
            let err = end(&app, pid, QUICK).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{pid}: {err}");
            assert!(app.requests().is_empty(), "{pid}");
        }
        let gone = Scripted::new(true, true);
        gone.ending.set(true);
        gone.lingers.set(0);
        let err = end(&gone, 4242, QUICK).unwrap_err();
        assert_eq!(err.kind, ErrorKind::SurfaceGone, "{err}");
        assert!(!err.sent);
        assert!(gone.requests().is_empty());
    }
}
