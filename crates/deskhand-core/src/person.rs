//! A person using the desktop deskhand acts on. Their own mouse or keyboard input (told from
//! deskhand's by the platform's watch) pauses the agent: every action is refused as `stopped`
//! until the person has left mouse and keyboard alone for the idle time, and a `type` or drag
//! under way stops at once. The agent cannot end the pause: only the person's idleness does.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::broadcast;

use crate::audit::{AuditEntry, AuditLog, utc_timestamp};
use crate::error::{Error, ErrorKind};

/// How long the person must leave mouse and keyboard alone before actions resume, unless
/// configured otherwise.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(3);

/// The first line of the reply to the first action that succeeds after a person's takeover.
pub const RESUMED_NOTE: &str = "note: a person had taken over the desktop; actions resumed because they left mouse and keyboard alone";

/// A person's takeover that is under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Takeover {
    /// When the person's input began.
    pub since: SystemTime,
    /// How long ago that was.
    pub ago: Duration,
    /// How long until actions resume if the person stops now.
    pub resumes_in: Duration,
    /// How long the person must be idle.
    pub idle: Duration,
}

impl Takeover {
    /// Why an action was refused, and what to do next.
    pub fn sentence(&self) -> String {
        format!(
            "a person is using this desktop (their own mouse or keyboard input since {}, {:.1} s ago); nothing was done; actions resume by themselves once the person has left mouse and keyboard alone for {} (in {:.1} s at the earliest): wait, then try again, and ask the user before continuing if they keep taking over",
            clock(self.since),
            self.ago.as_secs_f64(),
            seconds(self.idle),
            self.resumes_in.as_secs_f64(),
        )
    }

    /// The refusal of an action while the person has the desktop.
    pub fn refusal(&self) -> Error {
        Error::new(ErrorKind::Stopped, self.sentence())
    }
}

/// A change of hands, as the agent hears of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handover {
    /// The person's input began at `at`.
    TookOver { at: SystemTime },
    /// Actions resumed at `at`: the person had been idle for the idle time.
    Resumed { at: SystemTime, idle: Duration },
}

impl Handover {
    /// What the agent is told, as a sentence.
    pub fn sentence(&self) -> String {
        match self {
            Handover::TookOver { at } => format!(
                "a person took over the desktop at {}: deskhand's actions are refused as `stopped` until they leave mouse and keyboard alone; wait, and ask the user before continuing",
                clock(*at)
            ),
            Handover::Resumed { at, idle } => format!(
                "actions resumed at {}: the person had left mouse and keyboard alone for {}; observe before acting, since they may have changed what is on screen",
                clock(*at),
                seconds(*idle)
            ),
        }
    }

    /// The audit line that records the handover.
    pub fn audit_entry(&self) -> AuditEntry {
        let (at, action) = match self {
            Handover::TookOver { at } => (*at, "takeover"),
            Handover::Resumed { at, .. } => (*at, "resume"),
        };
        AuditEntry {
            ts: utc_timestamp(at),
            action,
            result: "noted",
            message: Some(self.sentence()),
            ..AuditEntry::default()
        }
    }

    /// Writes the handover's audit line, naming the client session where one server serves
    /// several; a log that cannot be written is said in the sentence the agent hears.
    pub fn record(&self, audit: &AuditLog, session: Option<&str>) -> String {
        let mut entry = self.audit_entry();
        entry.session = session.map(str::to_owned);
        match audit.append(&entry) {
            Ok(()) => self.sentence(),
            Err(why) => format!(
                "{}; also, the audit log could not record it ({why}); tell the user",
                self.sentence()
            ),
        }
    }
}

/// An operator who took a private desktop over from its live view. Unlike a person at the desk,
/// whose idleness ends the pause, only the operator's hand-back resumes the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorHold {
    /// Who took over, as the server knows them: their address, and whom it was forwarded for.
    pub by: String,
    pub since: SystemTime,
}

impl OperatorHold {
    /// Why an action was refused, and what to do next.
    pub fn sentence(&self) -> String {
        format!(
            "an operator ({}) took this desktop over from its live view at {} and is using it; nothing was done; actions resume once they hand it back: wait, then try again, and observe first, since they may have changed what is on screen",
            self.by,
            clock(self.since)
        )
    }

    /// The refusal of an action while the operator has the desktop.
    pub fn refusal(&self) -> Error {
        Error::new(ErrorKind::Stopped, self.sentence())
    }

    /// The audit line of the takeover (`handed_back` none) or of the hand-back at that time,
    /// naming the desktop in `session`.
    pub fn audit_entry(&self, desktop: &str, handed_back: Option<SystemTime>) -> AuditEntry {
        let (at, action, message) = match handed_back {
            None => (
                self.since,
                "operator-takeover",
                format!(
                    "an operator ({}) took the desktop over from its live view; the agent's actions are refused as `stopped` until they hand it back",
                    self.by
                ),
            ),
            Some(at) => (
                at,
                "operator-handback",
                format!(
                    "the operator ({}) handed the desktop back after holding it since {}; the agent's actions resume",
                    self.by,
                    clock(self.since)
                ),
            ),
        };
        AuditEntry {
            ts: utc_timestamp(at),
            action,
            result: "noted",
            session: Some(desktop.to_owned()),
            message: Some(message),
            ..AuditEntry::default()
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// When the current takeover began, on both clocks.
    since: Option<(SystemTime, Instant)>,
    /// The person's latest input.
    last: Option<Instant>,
}

/// Whether a person is using the desktop, fed by the platform's watch of input deskhand did
/// not send.
#[derive(Debug)]
pub struct Presence {
    idle: Duration,
    state: Mutex<State>,
    /// Read without the lock by input loops that check between keys.
    active: AtomicBool,
    handovers: broadcast::Sender<Handover>,
}

impl Presence {
    pub fn new(idle: Duration) -> Presence {
        Presence {
            idle,
            state: Mutex::default(),
            active: AtomicBool::new(false),
            handovers: broadcast::channel(16).0,
        }
    }

    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// The person's input arrived now.
    pub fn noticed(&self) {
        self.noticed_at(Instant::now(), SystemTime::now());
    }

    fn noticed_at(&self, now: Instant, wall: SystemTime) {
        let mut state = self.lock();
        self.expire(&mut state, now);
        if state.since.is_none() {
            state.since = Some((wall, now));
            self.active.store(true, Ordering::SeqCst);
            let _ = self.handovers.send(Handover::TookOver { at: wall });
        }
        state.last = Some(now);
    }

    /// Ends the takeover once the person has been idle long enough; the watch calls it
    /// regularly so the agent hears of the resume without asking.
    pub fn tick(&self) {
        let mut state = self.lock();
        self.expire(&mut state, Instant::now());
    }

    /// The takeover under way, if any.
    pub fn current(&self) -> Option<Takeover> {
        self.current_at(Instant::now())
    }

    fn current_at(&self, now: Instant) -> Option<Takeover> {
        let mut state = self.lock();
        self.expire(&mut state, now);
        let (since, began) = state.since?;
        let last = state.last.unwrap_or(began);
        Some(Takeover {
            since,
            ago: now.saturating_duration_since(began),
            resumes_in: (last + self.idle).saturating_duration_since(now),
            idle: self.idle,
        })
    }

    /// Whether a takeover is under way, as of the latest input or tick: cheap enough to ask
    /// between two keys.
    pub fn taken_over(&self) -> bool {
        self.active.load(Ordering::SeqCst)
    }

    /// Hears of every takeover and resume from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Handover> {
        self.handovers.subscribe()
    }

    fn expire(&self, state: &mut State, now: Instant) {
        let Some(last) = state.last else { return };
        if state.since.is_some() && now.saturating_duration_since(last) >= self.idle {
            state.since = None;
            self.active.store(false, Ordering::SeqCst);
            let wall = SystemTime::now()
                .checked_sub(now.saturating_duration_since(last + self.idle))
                .unwrap_or_else(SystemTime::now);
            let _ = self.handovers.send(Handover::Resumed {
                at: wall,
                idle: self.idle,
            });
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A time of day in UTC, to the second: `09:30:07 UTC`.
fn clock(at: SystemTime) -> String {
    let stamp = utc_timestamp(at);
    match stamp.split_once('T') {
        Some((_, time)) => format!("{} UTC", &time[..time.len().min(8)]),
        None => stamp,
    }
}

fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_takes_over_until_the_person_is_idle_for_the_idle_time() {
        let presence = Presence::new(Duration::from_secs(3));
        let mut heard = presence.subscribe();
        let start = Instant::now();
        assert_eq!(presence.current_at(start), None);
        presence.noticed_at(start, SystemTime::now());
        assert!(presence.taken_over());
        assert!(matches!(heard.try_recv(), Ok(Handover::TookOver { .. })));
        // More input keeps the takeover going, and is not a second takeover.
        presence.noticed_at(start + Duration::from_secs(2), SystemTime::now());
        let going = presence
            .current_at(start + Duration::from_secs(4))
            .expect("still taken over 2 s after the last input");
        assert_eq!(going.ago, Duration::from_secs(4));
        assert_eq!(going.resumes_in, Duration::from_secs(1));
        assert!(heard.try_recv().is_err());
        assert_eq!(presence.current_at(start + Duration::from_secs(5)), None);
        assert!(!presence.taken_over());
        assert!(matches!(
            heard.try_recv(),
            Ok(Handover::Resumed { idle, .. }) if idle == Duration::from_secs(3)
        ));
    }

    #[test]
    fn the_refusal_says_since_when_and_when_actions_resume() {
        let takeover = Takeover {
            since: SystemTime::UNIX_EPOCH + Duration::from_secs(9 * 3600 + 30 * 60 + 7),
            ago: Duration::from_millis(2300),
            resumes_in: Duration::from_millis(2100),
            idle: Duration::from_secs(3),
        };
        let refusal = takeover.refusal();
        assert_eq!(refusal.kind, ErrorKind::Stopped);
        assert_eq!(
            refusal.message,
            "a person is using this desktop (their own mouse or keyboard input since 09:30:07 UTC, 2.3 s ago); nothing was done; actions resume by themselves once the person has left mouse and keyboard alone for 3 s (in 2.1 s at the earliest): wait, then try again, and ask the user before continuing if they keep taking over"
        );
    }

    #[test]
    fn an_operators_hold_refuses_as_stopped_and_is_audited_with_who_and_when() {
        let since = SystemTime::UNIX_EPOCH + Duration::from_secs(9 * 3600 + 30 * 60 + 7);
        let hold = OperatorHold {
            by: "127.0.0.1:40312".into(),
            since,
        };
        let refusal = hold.refusal();
        assert_eq!(refusal.kind, ErrorKind::Stopped);
        assert!(
            refusal
                .message
                .starts_with("an operator (127.0.0.1:40312) took this desktop over from its live view at 09:30:07 UTC"),
            "{}",
            refusal.message
        );
        let taken = hold.audit_entry("desk-1", None);
        assert_eq!(
            (taken.action, taken.ts.as_str()),
            ("operator-takeover", "1970-01-01T09:30:07.000Z")
        );
        assert_eq!(taken.session.as_deref(), Some("desk-1"));
        let back = hold.audit_entry("desk-1", Some(since + Duration::from_secs(60)));
        assert_eq!(
            (back.action, back.ts.as_str()),
            ("operator-handback", "1970-01-01T09:31:07.000Z")
        );
        assert!(back.message.unwrap().contains("since 09:30:07 UTC"));
    }

    #[test]
    fn a_handover_leaves_an_audit_line_with_its_time() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        let entry = Handover::TookOver { at }.audit_entry();
        assert_eq!(entry.action, "takeover");
        assert_eq!(entry.ts, "2023-11-14T22:13:20.123Z");
        let resumed = Handover::Resumed {
            at,
            idle: Duration::from_millis(1500),
        };
        assert_eq!(resumed.audit_entry().action, "resume");
        assert!(resumed.sentence().contains("for 1.5 s"));
    }
}
