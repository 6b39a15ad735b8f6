//! `batch`: a known sequence in one round trip. Every step was validated before the first ran;
//! steps run in order through the same executor as single calls and stop at the first failure.

use std::time::Instant;

use serde_json::json;

use crate::action::{Action, Call, Condition};
use crate::backend::Backend;
use crate::control::{Control, Progress};
use crate::desk::{Config, Outcome, Reply, execute_with};
use crate::error::ErrorKind;
use crate::safety::{STOPPED_MESSAGE, in_corner};
use crate::session::Session;

pub(crate) async fn batch<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    steps: Vec<Call>,
    control: &Control,
) -> Reply {
    let started = Instant::now();
    let total = steps.len();
    let mut text = String::new();
    let mut listed = Vec::with_capacity(total);
    let mut failed_index = None;
    let mut changed_something = false;
    let mut last_outcome = Outcome::Observed;
    let mut image = None;
    let opens_window: Vec<bool> = steps
        .iter()
        .map(|step| match &step.action {
            Action::Wait(spec) => spec.conditions.contains(&Condition::NewWindow),
            _ => false,
        })
        .collect();
    for (index, step) in steps.into_iter().enumerate() {
        let name = step.name();
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
                _ => Box::pin(execute_with(backend, session, config, step, control)).await,
            }
        };
        match result {
            Ok(reply) => {
                let failed = reply.outcome == Outcome::Failed;
                changed_something |= actuates;
                last_outcome = reply.outcome;
                if reply.image.is_some() {
                    image = reply.image;
                }
                text.push_str(&format!("[{index}] {}", indent(&reply.text)));
                listed.push(json!({
                    "index": index, "action": name, "ok": !failed,
                    "outcome": reply.outcome, "text": reply.text, "data": reply.data,
                }));
                if failed {
                    failed_index = Some(index);
                    break;
                }
            }
            Err(err) => {
                let cancelled = err.kind == ErrorKind::Cancelled;
                text.push_str(&format!("[{index}] {}", err.reply_text()));
                listed.push(json!({
                    "index": index, "action": name, "ok": false,
                    "error": err.kind, "message": err.message,
                }));
                failed_index = Some(index);
                if cancelled {
                    text.push_str("the client cancelled the batch\n");
                }
                break;
            }
        }
        if started.elapsed().as_secs() >= 1 {
            control.report(Progress {
                done: index as u32 + 1,
                total: Some(total as u32),
                message: format!("batch: step {index} ({name}) done"),
            });
        }
    }
    session.windows_before_step = None;
    let completed = match failed_index {
        Some(index) => index,
        None => total,
    };
    let header = match failed_index {
        None => format!("batch · {completed} of {total} steps completed\n"),
        Some(index) => format!(
            "batch · {completed} of {total} steps completed · stopped at step {index}{}\n",
            if changed_something {
                "; the steps before it took effect: check before running them again"
            } else {
                "; nothing was changed"
            }
        ),
    };
    let outcome = match failed_index {
        Some(_) if changed_something => Outcome::Unconfirmed,
        Some(_) => Outcome::Failed,
        None if changed_something => Outcome::Done,
        None => last_outcome,
    };
    Reply {
        text: format!("{header}{text}"),
        outcome,
        image,
        data: json!({
            "steps": listed, "completed": completed, "failed_index": failed_index,
        }),
    }
}

/// A step's reply under its `[i]` marker, its later lines indented.
fn indent(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                line.to_owned()
            } else {
                format!("    {line}")
            }
        })
        .collect();
    lines.join("\n") + "\n"
}
