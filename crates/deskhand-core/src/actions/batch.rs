//! `batch`: a known sequence in one round trip. Every step was validated before the first ran;
//! steps run in order through the same executor as single calls (which hands itself in as
//! `run_step`) and stop at the first failure.

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use crate::action::{
    Action, ActionName, ActionSpec, Call, Changes, Condition, Given, MAX_STEPS, Reaches,
};
use crate::backend::{Input, Windows};
use crate::control::{Control, Progress};
use crate::desk::answer::{Batched, Step};
use crate::desk::reply::{Outcome, Reply};
use crate::error::{Error, ErrorKind, Result};
use crate::safety::{STOPPED_MESSAGE, in_corner_at};
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Batch,
    text: "batch",
    fields: &["steps"],
    changes: Changes::StepByStep,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks a step's JSON, found at `at` in the call, into its call.
pub(crate) type ParseStep = fn(serde_json::Value, &str) -> Result<Call>;

/// Checks the call's arguments into the typed action. Every step is checked, by `parse_step`,
/// before any runs: one bad step and nothing runs.
pub(crate) fn parse(given: &Given, parse_step: ParseStep) -> Result<Action> {
    let steps = given.args.steps.clone().unwrap_or_default();
    if steps.is_empty() || steps.len() > MAX_STEPS {
        return Err(Error::bad_argument(format!(
            "`steps` has {} steps; give 1–{MAX_STEPS}, each the arguments of one action",
            steps.len()
        )));
    }
    let steps = steps
        .into_iter()
        .enumerate()
        .map(|(i, step)| {
            let call = parse_step(step, &format!("steps[{i}].")).map_err(|err| {
                Error::bad_argument(format!(
                    "step {i} is not valid, so no step ran: {}",
                    err.message
                ))
            })?;
            if matches!(call.action, Action::Batch(_)) {
                return Err(Error::bad_argument(format!(
                    "step {i} is a batch, so no step ran; a batch cannot contain a batch: list its steps instead"
                )));
            }
            Ok(call)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Action::Batch(steps))
}

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
            let corner = backend.corner().await;
            match backend.pointer().await {
                Ok(pointer) if in_corner_at(pointer, corner) => {
                    session.stopped = true;
                    Err(crate::Error::new(ErrorKind::Stopped, STOPPED_MESSAGE))
                }
                _ => match crate::safety::person_at_desk(backend) {
                    Some(takeover) => {
                        session.taken_over = true;
                        Err(takeover.refusal())
                    }
                    None => {
                        let marks = session.secret_marks();
                        let result = run_step.run(session, step).await;
                        session.secrets_of_step(marks, index);
                        result
                    }
                },
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
