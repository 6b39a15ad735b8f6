//! Whether work that ran out of its deadline had sent anything yet. Finding an element again
//! may take seconds before its action is requested; a deadline that ends the wait then has
//! sent nothing, and must say so (a timeout) rather than report the action applied but
//! unconfirmed. The work marks the moment its request goes out; the waiting side reads it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use deskhand_core::error::Error;

/// Shared by the work on its thread and the caller waiting on it.
#[derive(Debug, Clone, Default)]
pub struct Outgoing(Arc<AtomicBool>);

impl Outgoing {
    /// Called right before the first request that may act on the app.
    pub fn mark(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn went_out(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The error for work that did not finish within its deadline: applied but unconfirmed only
/// once its request had gone out.
pub fn overdue(error: Error, outgoing: &Outgoing) -> Error {
    if outgoing.went_out() {
        error.after_sending()
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskhand_core::error::ErrorKind;

    #[test]
    fn a_deadline_before_the_request_went_out_is_a_timeout_and_after_it_unconfirmed() {
        let outgoing = Outgoing::default();
        let late = || Error::new(ErrorKind::Timeout, "Running the action did not finish");
        let before = overdue(late(), &outgoing);
        assert!(
            !before.sent,
            "still searching for the element: nothing was sent"
        );
        let worker = outgoing.clone();
        std::thread::spawn(move || worker.mark()).join().unwrap();
        assert!(overdue(late(), &outgoing).sent);
    }
}
