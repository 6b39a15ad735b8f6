//! Reading changed windows again between observes: once the applications' events go quiet, a
//! task reads each kept window they changed (see `atspi::live`'s `refresh`), so the agent's next
//! observe finds it current.

use std::sync::{Arc, Weak};

use super::LinuxBackend;
use super::bus::Bus;
use super::display::{DisplayServer, read_tree};
use super::session::{Display, on_display};
use crate::atspi::live::Reader;

impl LinuxBackend {
    /// Starts reading changed windows again between observes, once: with live trees, the
    /// agent's next observe then finds a window its last action changed already read. The task
    /// holds the backend only while it reads, and ends at its first wake after the backend is
    /// dropped.
    pub(super) fn start_reading_between(&self) {
        self.reading_between.get_or_init(|| {
            tokio::spawn(read_between_observes(
                Arc::downgrade(&self.display),
                Arc::downgrade(&self.bus),
            ));
        });
    }
}

/// Once events come and go quiet, reads the kept windows they changed (while the backend lives
/// and keeps live trees).
async fn read_between_observes(display: Weak<Display>, bus: Weak<Bus>) {
    let heard = match bus.upgrade() {
        Some(bus) => bus.heard().await,
        None => None,
    };
    let Some(heard) = heard else {
        return;
    };
    loop {
        heard.quiet_after_events().await;
        let (Some(display), Some(bus)) = (display.upgrade(), bus.upgrade()) else {
            return;
        };
        let handles = bus.to_read_between();
        if !handles.is_empty() {
            on_display!(&display, server => read_between(server, &bus, &handles).await);
        }
    }
}

/// Reads the kept trees of the windows `handles` names again between observes, each unless
/// an observe is reading it, with the display server's list of windows read once.
async fn read_between(server: &impl DisplayServer, bus: &Bus, handles: &[u64]) {
    let Ok(windows) = server.windows().await else {
        return;
    };
    for window in windows.iter().filter(|w| handles.contains(&w.handle)) {
        let Some(reading) = bus.reading(window) else {
            return;
        };
        let Ok(_reading) = reading.try_lock() else {
            continue;
        };
        // One that fails leaves the window to the next observe, which walks it and says why.
        let _ = read_tree(server, bus, window, Reader::Between).await;
    }
}
