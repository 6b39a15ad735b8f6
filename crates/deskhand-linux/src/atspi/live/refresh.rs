//! Reading changed windows between observes: once an application's events go quiet, each kept
//! window they changed is read again (patched or walked, as an observe would), so the agent's
//! next observe, which comes after its model's turn, finds the tree current. The reading itself
//! needs the display server (the window's place, its popups), so the backend does it; this
//! module says when, and which windows.
//!
//! It is bounded by what the agent does: only windows an agent observed in the last
//! [`WANTED_FOR`] are read, and each at most [`MAX_UNOBSERVED_READS`] times between two of its
//! observes, so an app that changes without end (a clock, a log scrolling) costs a few reads per
//! observe, not a read per change.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::events::Stamps;
use super::{Atspi, Kept, LiveTrees};

/// Events are taken as quiet after this long without one: a click's or a key's effects come
/// in a burst.
const QUIET: Duration = Duration::from_millis(40);
/// An app that never goes quiet has its windows read this long after its first event anyway.
const MOST_DELAYED: Duration = Duration::from_millis(400);
/// A window no agent observed for this long is not read between observes.
const WANTED_FOR: Duration = Duration::from_secs(300);
/// Reads of a window between two observes of it.
pub(super) const MAX_UNOBSERVED_READS: u32 = 3;

/// Who reads a window's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// An observe, for an agent.
    Agent,
    /// The reading between observes.
    Between,
}

/// The applications' events, heard without holding the live trees.
pub struct Heard(Arc<Stamps>);

impl Heard {
    /// Returns once events came and then went quiet (`QUIET` without one), or kept coming for
    /// `MOST_DELAYED`.
    pub async fn quiet_after_events(&self) {
        self.0.heard.notified().await;
        let first = Instant::now();
        loop {
            let before = self.0.next.load(Ordering::SeqCst);
            tokio::time::sleep(QUIET).await;
            if self.0.next.load(Ordering::SeqCst) == before || first.elapsed() >= MOST_DELAYED {
                return;
            }
        }
    }
}

impl LiveTrees {
    /// The applications' events, once listening started; `None` when it cannot.
    pub async fn heard(&self, atspi: &Atspi) -> Option<Heard> {
        self.events(atspi)
            .await
            .map(|events| Heard(events.stamps()))
    }

    /// The kept windows to read again now: an agent observed them within `WANTED_FOR`, they
    /// were not read `MAX_UNOBSERVED_READS` times since, and their applications sent an event
    /// that makes their tree stale. Each is counted as read.
    pub fn to_read_between(&self) -> Vec<u64> {
        let Some(Some(events)) = self.events.get() else {
            return Vec::new();
        };
        let stamps = events.stamps();
        let mut kept = self.kept.lock().expect("not poisoned");
        kept.iter_mut()
            .filter(|(_, entry)| wanted_between(entry, &stamps))
            .map(|(handle, entry)| {
                entry.reads_unobserved += 1;
                *handle
            })
            .collect()
    }

    /// The lock a reading of `window` holds: an observe waits for a reading under way between
    /// observes instead of reading the same again, and that reading gives way to an observe.
    pub fn reading(&self, window: u64) -> Arc<tokio::sync::Mutex<()>> {
        let mut readings = self.readings.lock().expect("not poisoned");
        if readings.len() > 2 * super::MAX_WINDOWS {
            readings.retain(|_, lock| Arc::strong_count(lock) > 1);
        }
        Arc::clone(readings.entry(window).or_default())
    }
}

/// Whether `kept` is to be read between observes: an agent observed it lately, it was not read
/// [`MAX_UNOBSERVED_READS`] times since, and its applications sent an event that makes it stale
/// (for a patched tree, one that changes what it shows; else any).
fn wanted_between(kept: &Kept, stamps: &Stamps) -> bool {
    kept.observed.elapsed() < WANTED_FOR
        && kept.reads_unobserved < MAX_UNOBSERVED_READS
        && stamps.sent_since(&kept.buses, kept.mark.0, kept.patched)
}

#[cfg(test)]
mod tests;
