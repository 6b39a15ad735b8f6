//! A person beside the agent: telling their mouse and keyboard from deskhand's own input, so
//! that their input pauses the agent (the core's [`deskhand_core::person::Presence`]).
//!
//! Other clients' XTEST input comes from the same virtual devices as deskhand's, so the device
//! cannot tell them apart: every event deskhand sends is written here first, and the watch
//! takes an input event for deskhand's only when it matches one (same key or button, or a
//! pointer position deskhand moved to) sent moments before.

pub mod x11;

/// How the takeover is told on sway, and where it is not.
pub const TOLD_ON_SWAY: &str = "sway's idle notices (ext_idle_notify_v1, or org_kde_kwin_idle where it lacks that) tell when input comes after a tenth of a second without any, and when the seat goes quiet, not whose: input after such a pause that deskhand did not send, or input that keeps the seat busy 0.3 s past deskhand's own, is a person's and pauses the agent until the seat is quiet for the idle time; a key or click of theirs within deskhand's own burst of input, or a tenth of a second after it, is not told";

/// Why the takeover cannot be told on a sway without idle notices.
pub const CANNOT_TELL_ON_SWAY: &str = "this sway offers no idle notices (ext_idle_notify_v1 or org_kde_kwin_idle), and wlroots tells no client about another client's input, so a person's input cannot be told from deskhand's: only the top-left corner stops deskhand there";

/// How the takeover is told on GNOME, and where it is not.
pub const TOLD_ON_GNOME: &str = "GNOME's idle monitor (org.gnome.Mutter.IdleMonitor) tells when the seat last had input, not whose: input that comes when deskhand sent none in the quarter second before is a person's, and pauses the agent until the person leaves mouse and keyboard alone for the idle time; a person's input while deskhand sends keys or moves the pointer, or just after its own, is not told";

/// Why the takeover cannot be told on a GNOME whose idle monitor does not answer.
pub const CANNOT_TELL_ON_GNOME: &str = "GNOME's idle monitor (org.gnome.Mutter.IdleMonitor) does not answer, so a person's input cannot be told from deskhand's: only the top-left corner stops deskhand there";

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often a wait between two steps of an action looks whether a person took over.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// Waits `duration` (a drag's pause between two points), looking all along whether a person
/// took over: `took_over` fails then, and so does the wait, at once.
pub(crate) async fn wait_unless_taken_over<E>(
    duration: Duration,
    took_over: impl Fn() -> Result<(), E>,
) -> Result<(), E> {
    let until = tokio::time::Instant::now() + duration;
    loop {
        took_over()?;
        let left = until.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        tokio::time::sleep(left.min(LOOK_EVERY)).await;
    }
}

/// An event deskhand sent, as the watch sees it arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// A key press, by keycode.
    Key(u8),
    /// A button press, by number (4–7 are wheel steps).
    Button(u8),
    /// A move of the pointer to this root position.
    Motion(i32, i32),
}

/// An event sent longer ago than this is no longer waited for: the server delivers within
/// milliseconds, and a stale entry could otherwise pass a person's input as deskhand's.
const SENT_KEPT: Duration = Duration::from_secs(2);

/// At most this many events are remembered; a long `type` sends a few per character.
const SENT_CAP: usize = 4096;

/// What this process sent lately, over all its connections.
static SENT: Mutex<VecDeque<(Sent, Instant)>> = Mutex::new(VecDeque::new());

/// Notes an event deskhand is about to send.
pub(crate) fn sending(event: Sent) {
    let mut sent = SENT.lock().unwrap_or_else(PoisonError::into_inner);
    let now = Instant::now();
    forget_stale(&mut sent, now);
    if sent.len() >= SENT_CAP {
        sent.pop_front();
    }
    sent.push_back((event, now));
}

/// Whether `event` is one deskhand sent: a key or button press is matched once, since each
/// press arrives once; a position stays deskhand's for as long as it is kept, since the pointer
/// is seen there again and again.
pub(crate) fn ours(event: Sent) -> bool {
    let mut sent = SENT.lock().unwrap_or_else(PoisonError::into_inner);
    forget_stale(&mut sent, Instant::now());
    match event {
        Sent::Motion(..) => sent.iter().any(|(e, _)| *e == event),
        _ => match sent.iter().position(|(e, _)| *e == event) {
            Some(at) => {
                sent.remove(at);
                true
            }
            None => false,
        },
    }
}

/// When this process last sent input on a display server that says only that input came, not
/// whose (sway).
static LAST_SENT: Mutex<Option<Instant>> = Mutex::new(None);

/// Notes that deskhand sends input now, before it goes and again once the compositor has it:
/// the compositor may tell of it to the watch before the sending call returns.
pub(crate) fn sending_now() {
    *LAST_SENT.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
}

/// When deskhand last sent input, on a display server that says only that input came.
pub(crate) fn last_sent() -> Option<Instant> {
    *LAST_SENT.lock().unwrap_or_else(PoisonError::into_inner)
}

fn forget_stale(sent: &mut VecDeque<(Sent, Instant)>, now: Instant) {
    while sent
        .front()
        .is_some_and(|(_, at)| now.saturating_duration_since(*at) > SENT_KEPT)
    {
        sent.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_press_deskhand_sent_is_its_own_once_and_a_position_while_kept() {
        sending(Sent::Key(201));
        assert!(ours(Sent::Key(201)));
        assert!(!ours(Sent::Key(201)), "the second press is someone else's");
        assert!(!ours(Sent::Button(9)));
        sending(Sent::Motion(4321, 17));
        assert!(ours(Sent::Motion(4321, 17)));
        assert!(ours(Sent::Motion(4321, 17)));
        assert!(!ours(Sent::Motion(4321, 18)));
    }
}
