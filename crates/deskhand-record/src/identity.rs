//! What a call's arguments name and hold: the refs to identify, and the text a password field
//! must not have written.

use serde_json::Value;

use deskhand_core::model::Role;

use crate::format::{Acted, Redacted};

/// Every ref in a call's arguments, with where it was: `ref`, `from`, `to`, in batch steps too.
pub(crate) fn collect_refs(args: &Value, prefix: &str, out: &mut Vec<(String, String)>) {
    for field in ["ref", "from", "to"] {
        if let Some(reference) = args.get(field).and_then(Value::as_str) {
            out.push((format!("{prefix}{field}"), reference.to_owned()));
        }
    }
    // A `wait` names its element in its condition, or in each of its list.
    match args.get("until") {
        Some(Value::Array(conditions)) => {
            for (i, condition) in conditions.iter().enumerate() {
                if let Some(reference) = condition.get("ref").and_then(Value::as_str) {
                    out.push((format!("{prefix}until[{i}].ref"), reference.to_owned()));
                }
            }
        }
        Some(condition) => {
            if let Some(reference) = condition.get("ref").and_then(Value::as_str) {
                out.push((format!("{prefix}until.ref"), reference.to_owned()));
            }
        }
        None => {}
    }
    if let Some(steps) = args.get("steps").and_then(Value::as_array) {
        for (i, step) in steps.iter().enumerate() {
            collect_refs(step, &format!("{prefix}steps[{i}]."), out);
        }
    }
}

/// The object an argument path's last part is a field of: `steps[2].until[1].ref` names the
/// `ref` of the second condition of the third step.
pub(crate) fn holder_of<'a>(
    args: &'a mut Value,
    path: &'a str,
) -> Option<(&'a mut Value, &'a str)> {
    match path.split_once('.') {
        None => Some((args, path)),
        Some((head, tail)) => {
            let inner = match head.split_once('[') {
                Some((name, index)) => {
                    let index: usize = index.strip_suffix(']')?.parse().ok()?;
                    args.get_mut(name)?.get_mut(index)?
                }
                None => args.get_mut(head)?,
            };
            holder_of(inner, tail)
        }
    }
}

/// Takes out text typed or set into a password field named by ref or by a `find` of its role:
/// the step keeps the fact and the length.
pub(crate) fn redact(args: &mut Value, prefix: &str, elements: &[Acted], out: &mut Vec<Redacted>) {
    let password = Role::Password.as_str();
    let named = elements
        .iter()
        .find(|e| e.field == format!("{prefix}ref"))
        .map(|e| e.role == password);
    let found = args
        .get("find")
        .and_then(|f| f.get("role"))
        .and_then(Value::as_str)
        .map(|role| role == password);
    // Without either, the executor decides from the focused element as it types.
    let secret = named.or(found).unwrap_or(false);
    if secret && let Some(map) = args.as_object_mut() {
        for field in ["text", "value"] {
            if let Some(text) = map.get(field).and_then(Value::as_str) {
                out.push(Redacted {
                    field: format!("{prefix}{field}"),
                    characters: text.chars().count(),
                    why: "typed into a password field".into(),
                });
                map.insert(field.into(), Value::Null);
            }
        }
    }
    if let Some(steps) = args.get_mut("steps").and_then(Value::as_array_mut) {
        for (i, step) in steps.iter_mut().enumerate() {
            redact(step, &format!("{prefix}steps[{i}]."), elements, out);
        }
    }
}

/// Takes out the text of each argument the executor found went into a password field at the
/// moment of typing (`text`, `steps[1].value`), unless already taken out.
pub(crate) fn redact_marked(args: &mut Value, fields: &[String], out: &mut Vec<Redacted>) {
    for field in fields {
        if out.iter().any(|r| &r.field == field) {
            continue;
        }
        if let Some(characters) = take_text(args, field) {
            out.push(Redacted {
                field: field.clone(),
                characters,
                why: "typed into a password field".into(),
            });
        }
    }
}

/// Takes out all text of a `type`, `set_value` or `batch` that failed before anything was sent:
/// no element took it, so nothing says it was not meant for a password field.
pub(crate) fn redact_unsent(args: &mut Value, out: &mut Vec<Redacted>) {
    let action = args.get("action").and_then(Value::as_str).unwrap_or("");
    if !matches!(action, "type" | "set_value" | "batch") {
        return;
    }
    let mut fields = vec!["text".to_owned(), "value".to_owned()];
    let steps = args
        .get("steps")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    for i in 0..steps {
        fields.push(format!("steps[{i}].text"));
        fields.push(format!("steps[{i}].value"));
    }
    for field in fields {
        if let Some(characters) = take_text(args, &field) {
            out.push(Redacted {
                field,
                characters,
                why: "the call failed before typing it, so it may have been meant for a password field".into(),
            });
        }
    }
}

/// Replaces the text at an argument path with null; how many characters it had.
fn take_text(args: &mut Value, path: &str) -> Option<usize> {
    let (holder, field) = holder_of(args, path)?;
    let map = holder.as_object_mut()?;
    let characters = map.get(field)?.as_str()?.chars().count();
    map.insert(field.into(), Value::Null);
    Some(characters)
}
