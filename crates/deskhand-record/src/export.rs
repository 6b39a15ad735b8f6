//! A recording as one `batch` call an agent can paste on another desktop: what `deskhand
//! replay --as-batch` prints.

use serde_json::{Value, json};

use deskhand_core::parse_call;

use crate::format::{Acted, Recording, Step, WindowSeen};
use crate::replay::{PACE_CAP, READS};

/// The shortest pause after typing that a batch keeps, as a wait for the window to hold still:
/// a shorter one is a script's, not a pause the app needed.
const KEPT_PAUSE_MS: u64 = 300;

/// A recording as one `batch` call, and the steps it had to leave out, each said as a sentence.
#[derive(Debug, Clone)]
pub struct Batch {
    pub call: Value,
    pub left_out: Vec<String>,
}

/// The recording as one `batch` call an agent can paste: each element named by `find` (role
/// and name) instead of a ref, on the whole screen, with a wait for each window the task moves
/// to. An unnamed field the agent typed into while it had the keyboard focus is typed into as
/// the focused element. Reads and observes are dropped; a step the batch cannot express (it
/// failed when recorded, names a window by id, or an element with no name to find it by) is left
/// out and said so. The batch passes deskhand's own check of a call, or none is given.
pub fn as_batch(recording: &Recording) -> Result<Batch, String> {
    let mut steps = Vec::new();
    let mut left_out = Vec::new();
    let mut window = InWindow::Unknown;
    // When the latest step kept was a `type`, when it ended.
    let mut typed_until: Option<u64> = None;
    for step in &recording.steps {
        let action = step.action.as_str();
        let reads_clipboard = action == "clipboard" && step.args.get("text").is_none();
        if action == "observe" || READS.contains(&action) || reads_clipboard {
            continue;
        }
        let n = step.index;
        if step.failed() {
            left_out.push(format!(
                "step {n} ({action}) is left out: it failed when recorded"
            ));
            continue;
        }
        if let Some(redacted) = step.redacted.first() {
            return Err(format!(
                "step {n} typed {} characters into a password field, which the recording does not keep; it cannot be part of a batch",
                redacted.characters
            ));
        }
        let inner: Vec<(Value, String)> = match step.args.get("steps").and_then(Value::as_array) {
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(i, s)| (s.clone(), format!("steps[{i}].")))
                .collect(),
            None => vec![(step.args.clone(), String::new())],
        };
        let mut these = Vec::new();
        let mut why_not = None;
        for (args, prefix) in inner {
            match batch_step(step, args, &prefix, &mut window) {
                Ok(mut added) => these.append(&mut added),
                Err(why) => {
                    why_not = Some(why);
                    break;
                }
            }
        }
        match why_not {
            Some(why) => left_out.push(format!("step {n} ({action}) is left out: {why}")),
            None => {
                // What was typed may still be at work in the app (a file chooser completing
                // a path lets a Return that comes at once go by): the batch waits for the
                // window to hold still as long as the recording paused, up to 1 s.
                let paused = typed_until.map(|end| step.at_ms.saturating_sub(end));
                if let Some(paused) = paused.filter(|p| *p >= KEPT_PAUSE_MS) {
                    let still = paused.min(PACE_CAP.as_millis() as u64);
                    steps.push(json!({"action": "wait", "until": {"stable_ms": still}}));
                }
                typed_until = (action == "type").then_some(step.at_ms + step.ms);
                if action == "launch" {
                    window = InWindow::Launched;
                }
                steps.extend(these);
            }
        }
    }
    if steps.is_empty() {
        return Err("the recording has no step a batch can make; there is nothing to batch".into());
    }
    if steps.len() > 50 {
        return Err(format!(
            "the recording makes {} steps, and a batch takes at most 50; replay it with `deskhand replay` instead",
            steps.len()
        ));
    }
    let call = json!({"action": "batch", "steps": steps});
    parse_call(call.clone()).map_err(|err| {
        format!(
            "the batch the recording makes is not one deskhand takes ({}); replay it with `deskhand replay` instead",
            err.message
        )
    })?;
    Ok(Batch { call, left_out })
}

/// One call of a step as batch steps: a wait for its element's window when the task moved to
/// another, then the call with each ref replaced by a `find` of the element; or why it cannot be.
fn batch_step(
    step: &Step,
    mut args: Value,
    prefix: &str,
    window: &mut InWindow,
) -> Result<Vec<Value>, String> {
    let named = |field: &str| {
        step.elements
            .iter()
            .find(|e| e.field == format!("{prefix}{field}"))
    };
    if named("from").is_some() || named("to").is_some() {
        return Err(
            "it drags from or to an element, which a batch can only name by ref; replay it with `deskhand replay`".into(),
        );
    }
    let mut out = Vec::new();
    let unnamed = |acted: &Acted| {
        format!(
            "its {} has no name to find it by; replay it with `deskhand replay`",
            acted.role
        )
    };
    let map = args
        .as_object_mut()
        .ok_or("its arguments are not an object")?;
    let target = map.remove("target");
    let keyboard = matches!(
        map.get("action").and_then(Value::as_str),
        Some("type" | "press")
    );
    if let Some(acted) = named("ref") {
        map.remove("ref");
        if !acted.name.trim().is_empty() {
            map.insert(
                "find".into(),
                json!({"role": acted.role, "name": acted.name}),
            );
            map.insert("target".into(), json!("screen"));
        } else if !(keyboard && acted.focused) {
            return Err(unnamed(acted));
        }
        // An unnamed field the agent saw holding the keyboard focus is typed into as the
        // focused element of its window, once that window is there.
        if let Some(seen) = &acted.window {
            wait_for_window(seen, window, &mut out);
        }
    } else if let Some(target) = target.as_ref().and_then(Value::as_str)
        && target != "screen"
    {
        // A `find` or a `wait` looks on the whole screen as well, once the window is there; a
        // point, a close or a key press belong to that one window.
        let looks = map.contains_key("find") || map.get("action") == Some(&json!("wait"));
        let seen = step.window.as_ref().filter(|_| looks && prefix.is_empty());
        let Some(seen) = seen else {
            return Err(format!(
                "it acts on window {target}, which a batch made elsewhere cannot name; do it by hand, or replay with `deskhand replay`"
            ));
        };
        map.insert("target".into(), json!("screen"));
        wait_for_window(seen, window, &mut out);
    }
    let conditions: Vec<(String, usize)> = match map.get("until") {
        Some(Value::Array(list)) => (0..list.len())
            .map(|i| (format!("until[{i}].ref"), i))
            .collect(),
        Some(_) => vec![("until.ref".to_owned(), 0)],
        None => Vec::new(),
    };
    for (field, i) in conditions {
        let Some(acted) = named(&field) else { continue };
        if acted.name.trim().is_empty() {
            return Err(unnamed(acted));
        }
        let condition = match map.get_mut("until") {
            Some(Value::Array(list)) => list.get_mut(i),
            other => other,
        };
        if let Some(condition) = condition.and_then(Value::as_object_mut) {
            condition.remove("ref");
            condition.insert("role".into(), json!(acted.role));
            condition.insert("name".into(), json!(acted.name));
        }
        if let Some(seen) = &acted.window {
            wait_for_window(seen, window, &mut out);
        }
    }
    out.push(args);
    Ok(out)
}

/// The window the batch's steps are in, as far as it knows.
#[derive(PartialEq)]
enum InWindow {
    Unknown,
    /// A launch just waited for its app's window: the next window named is that one, whatever
    /// title it had when recorded (FeatherPad's first window is "FeatherPad", then "Untitled").
    Launched,
    Seen(String, String),
}

/// A wait for `seen` to be there, unless the task is in that window already.
fn wait_for_window(seen: &WindowSeen, current: &mut InWindow, out: &mut Vec<Value>) {
    let now = InWindow::Seen(seen.app.clone(), seen.title.clone());
    if *current != now && *current != InWindow::Launched {
        out.push(json!({"action": "wait", "until": {"window": seen.title}}));
    }
    *current = now;
}
