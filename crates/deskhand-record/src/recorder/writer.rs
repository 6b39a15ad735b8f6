//! The recorder's writer thread: it appends each step as one line once its "after" capture is
//! known, off the calls' path.

use std::fs::OpenOptions;
use std::io::Write as _;

use tokio::sync::oneshot;

use super::{AFTER_REPLY, Inner};
use crate::format::{STEPS, Step};

/// What the writer thread is handed.
pub(super) enum Job {
    /// A step, and how its "after" capture went, once known.
    Step(Box<Step>, Option<oneshot::Receiver<After>>),
    /// Answered once every step handed before it is on disk.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// How a step's "after" capture went: when its pixels were grabbed, or why there are none.
pub(super) enum After {
    Taken { taken_ms: u64, cut_short: bool },
    Missing(String),
}

/// The writer thread: appends each step as one line, in the order calls finished, until the
/// recorder is dropped.
pub(super) fn write_steps(inner: &std::sync::Weak<Inner>, jobs: &std::sync::mpsc::Receiver<Job>) {
    while let Ok(job) = jobs.recv() {
        let job = match job {
            Job::Step(mut step, taken) => {
                // A capture an action cut short answers as that action begins.
                if let Some(taken) = taken {
                    settle_after(&mut step, taken.blocking_recv());
                }
                // Two cores are shared with the call whose reply is still on its way, or
                // with the action that has just begun.
                std::thread::sleep(AFTER_REPLY);
                Job::Step(step, None)
            }
            job => job,
        };
        let Some(inner) = inner.upgrade() else { return };
        match job {
            Job::Step(step, _) => {
                let mut line = serde_json::to_string(&step).expect("a step serializes");
                line.push('\n');
                let written = OpenOptions::new()
                    .append(true)
                    .open(inner.dir.join(STEPS))
                    .and_then(|mut file| file.write_all(line.as_bytes()));
                let mut state = inner.state.lock().expect("recorder state");
                match written {
                    Ok(()) => state.used += line.len() as u64,
                    Err(err) => state.failed = Some(err.to_string()),
                }
            }
            Job::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// Sets down in the step how its "after" capture went.
fn settle_after(step: &mut Step, after: Result<After, oneshot::error::RecvError>) {
    match after {
        Ok(After::Taken {
            taken_ms,
            cut_short,
        }) => {
            if let Some(shot) = &mut step.after {
                shot.taken_ms = Some(taken_ms);
                shot.cut_short = cut_short;
            }
        }
        Ok(After::Missing(why)) => {
            step.after = None;
            step.no_after = Some(why);
        }
        Err(_) => {
            step.after = None;
            step.no_after = Some("the recording ended before the window was looked at".into());
        }
    }
}
