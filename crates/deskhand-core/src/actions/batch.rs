//! `batch`: a known sequence in one round trip. Every step was validated before the first ran;
//! steps run in order through the same executor as single calls (which hands itself in as
//! `run_step`) and stop at the first failure.

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use crate::action::{Action, Call, Condition};
use crate::backend::{Input, Windows};
use crate::control::{Control, Progress};
use crate::desk::answer::{Batched, Step};
use crate::desk::reply::{Outcome, Reply};
use crate::error::{ErrorKind, Result};
use crate::safety::{STOPPED_MESSAGE, in_corner};
use crate::session::Session;

/// How a batch runs one of its steps: through the executor, as a single call runs.
pub(crate) trait RunStep: Sync {
    /// Boxed and type-erased: a step may itself run the executor's whole future, batch
    /// included.
    fn run<'a>(
        &'a self,
        session: &'a mut Session,
        step: Call,
    ) -> Pin<Box<dyn Future<Output = Result<Reply>> + Send + 'a>>;
}

pub(crate) async fn batch<B: Windows + Input>(
    backend: &B,
    session: &mut Session,
    steps: Vec<Call>,
    control: &Control,
    run_step: &(impl RunStep + ?Sized),
) -> Reply {
    let started = Instant::now();
    let total = steps.len();
    let mut ran = Vec::with_capacity(total);
    let mut changed_something = false;
    let mut last_outcome = Outcome::Observed;
    let opens_window: Vec<bool> = steps
        .iter()
        .map(|step| match &step.action {
            Action::Wait(spec) => spec.conditions.contains(&Condition::NewWindow),
            _ => false,
        })
        .collect();
    for (index, step) in steps.into_iter().enumerate() {
        let action = step.name();
        if opens_window.get(index + 1).copied().unwrap_or(false) {
            session.windows_before_step = backend.window_keys().await.ok();
        }
        let actuates = step.actuates();
        let result = if control.is_cancelled() {
            Err(crate::Error::new(
                ErrorKind::Cancelled,
                match index {
                    0 => "the batch was cancelled before its first step; nothing ran".to_string(),
                    _ => format!(
                        "the batch was cancelled before step {index}; steps 0–{} ran",
                        index - 1
                    ),
                },
            ))
        } else {
            // Reads cannot be stopped by the guard that actions pass, so the kill switch is
            // checked before every step.
            match backend.pointer().await {
                Ok(pointer) if in_corner(pointer) => {
                    session.stopped = true;
                    Err(crate::Error::new(ErrorKind::Stopped, STOPPED_MESSAGE))
                }
                _ => run_step.run(session, step).await,
            }
        };
        let stop = match &result {
            Ok(reply) => {
                changed_something |= actuates;
                last_outcome = reply.outcome;
                reply.outcome == Outcome::Failed
            }
            Err(_) => true,
        };
        ran.push(Step {
            index,
            action,
            result,
        });
        if stop {
            break;
        }
        if started.elapsed().as_secs() >= 1 {
            control.report(Progress {
                done: index as u32 + 1,
                total: Some(total as u32),
                message: format!("batch: step {index} ({action}) done"),
            });
        }
    }
    session.windows_before_step = None;
    Batched {
        steps: ran,
        total,
        changed_something,
        last_outcome,
    }
    .into()
}
