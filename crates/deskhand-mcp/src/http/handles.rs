//! Private desktops by handle. Protocol revision 2026-07-28 has no sessions: state across calls
//! travels in handles the server mints and the client passes back as ordinary arguments. A call
//! with `"desktop": "new"` starts a private desktop and its reply names the handle; every call
//! carrying the handle runs there, from any connection, so its refs, window ids and `since` are
//! the desktop's. A desktop ends with `"end_desktop": true` or after `--idle-timeout` without a
//! call, and the handle is then refused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use super::view::DeskView;
use super::worker::Worker;

/// What a handle starts with, so that a reply or a log line shows what it is.
pub(crate) const HANDLE_PREFIX: &str = "desk-";

/// The value of `desktop` that asks for a new private desktop.
pub(crate) const NEW: &str = "new";

/// The private desktops started by handle, by handle.
#[derive(Default)]
pub(crate) struct Handles {
    held: StdMutex<HashMap<String, Arc<Held>>>,
}

/// One private desktop and when a call last used it. Whoever runs a call on it holds an `Arc`,
/// so a desktop ended meanwhile stops once that call is done.
pub(crate) struct Held {
    pub(crate) worker: Worker,
    /// Its live view, and the operator holding it.
    pub(crate) view: DeskView,
    last_used: StdMutex<Instant>,
}

impl Handles {
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Held>>> {
        self.held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn insert(&self, handle: String, worker: Worker, view: DeskView) -> Arc<Held> {
        let held = Arc::new(Held {
            worker,
            view,
            last_used: StdMutex::new(Instant::now()),
        });
        self.held().insert(handle, Arc::clone(&held));
        held
    }

    /// The desktop of `handle`, marked as used now.
    pub(crate) fn get(&self, handle: &str) -> Option<Arc<Held>> {
        let held = self.held().get(handle).cloned()?;
        *held
            .last_used
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Instant::now();
        Some(held)
    }

    /// The desktop of `handle`, as its live view sees it: not a use by the agent.
    pub(crate) fn peek(&self, handle: &str) -> Option<Arc<Held>> {
        self.held().get(handle).cloned()
    }

    /// Forgets `handle`: its desktop stops once no call runs on it any more.
    pub(crate) fn end(&self, handle: &str) -> bool {
        self.held().remove(handle).is_some()
    }

    /// Ends every desktop no call has used for `idle` or longer, but for those an operator
    /// holds; returns their handles.
    pub(crate) fn end_idle(&self, idle: Duration) -> Vec<String> {
        let mut held = self.held();
        let idle_ones: Vec<String> = held
            .iter()
            .filter(|(_, desktop)| {
                !desktop.view.held()
                    && desktop
                        .last_used
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .elapsed()
                        >= idle
            })
            .map(|(handle, _)| handle.clone())
            .collect();
        for handle in &idle_ones {
            held.remove(handle);
        }
        idle_ones
    }

    /// Ends them all, at the server's stop.
    pub(crate) fn end_all(&self) {
        self.held().clear();
    }
}

/// A new handle: the host's name where it has one, and 128 random bits, so that nobody guesses
/// another client's desktop.
pub(crate) fn new_handle(host: Option<&str>) -> Result<String, String> {
    let hex = random_hex()?;
    Ok(match host {
        Some(host) => format!("{HANDLE_PREFIX}{host}-{hex}"),
        None => format!("{HANDLE_PREFIX}{hex}"),
    })
}

/// 128 random bits in hex.
pub(crate) fn random_hex() -> Result<String, String> {
    let mut bits = [0u8; 16];
    getrandom::fill(&mut bits).map_err(|err| {
        format!(
            "no random numbers for a desktop handle ({err}); nothing was done; tell the operator"
        )
    })?;
    Ok(bits.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_long_random_and_distinct() {
        let first = new_handle(None).unwrap();
        let second = new_handle(None).unwrap();
        assert_ne!(first, second);
        assert_eq!(first.len(), HANDLE_PREFIX.len() + 32);
        assert!(
            first[HANDLE_PREFIX.len()..]
                .chars()
                .all(|c| c.is_ascii_hexdigit())
        );
        let hosted = new_handle(Some("h2")).unwrap();
        assert!(hosted.starts_with("desk-h2-"), "{hosted}");
        assert_eq!(hosted.len(), "desk-h2-".len() + 32);
    }
}
