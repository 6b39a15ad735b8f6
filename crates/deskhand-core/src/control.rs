//! What a long call (wait, batch) hears from its caller while it runs: cancellation, and where
//! its progress reports go.

use std::sync::Arc;
use std::time::Duration;

pub use tokio_util::sync::CancellationToken;

/// A progress report: `done` of `total` (when known), and what is happening.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub done: u32,
    pub total: Option<u32>,
    pub message: String,
}

type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// Cancellation and progress for one call. The default is never cancelled and reports nowhere.
#[derive(Clone, Default)]
pub struct Control {
    cancel: CancellationToken,
    progress: Option<ProgressSink>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("cancelled", &self.cancel.is_cancelled())
            .field("reports_progress", &self.progress.is_some())
            .finish()
    }
}

impl Control {
    pub fn new(cancel: CancellationToken) -> Self {
        Self {
            cancel,
            progress: None,
        }
    }

    pub fn with_progress(mut self, sink: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Sleeps, or returns `false` at once when the call is cancelled.
    pub async fn sleep(&self, duration: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(duration) => true,
            _ = self.cancel.cancelled() => false,
        }
    }

    pub fn report(&self, progress: Progress) {
        if let Some(sink) = &self.progress {
            sink(progress);
        }
    }
}
