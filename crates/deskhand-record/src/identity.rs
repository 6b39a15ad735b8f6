//! What a call's arguments name and hold: the refs to identify, and the text a password field
//! must not have written.

use serde_json::Value;

use deskhand_core::Session;
use deskhand_core::model::Role;

use crate::format::{Acted, Redacted};

/// Every ref in a call's arguments, with where it was: `ref`, `from`, `to`, in batch steps too.
pub(crate) fn collect_refs(args: &Value, prefix: &str, out: &mut Vec<(String, String)>) {
    for field in ["ref", "from", "to"] {
        if let Some(reference) = args.get(field).and_then(Value::as_str) {
            out.push((format!("{prefix}{field}"), reference.to_owned()));
        }
    }
    if let Some(steps) = args.get("steps").and_then(Value::as_array) {
        for (i, step) in steps.iter().enumerate() {
            collect_refs(step, &format!("{prefix}steps[{i}]."), out);
        }
    }
}

/// Takes out text typed or set into a password field: the step keeps the fact and the length.
/// Without a ref, the field is the focused element of the latest observation.
pub(crate) fn redact(
    args: &mut Value,
    prefix: &str,
    session: &Session,
    elements: &[Acted],
    out: &mut Vec<Redacted>,
) {
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
    let secret = named.or(found).unwrap_or_else(|| focused_password(session));
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
            redact(
                step,
                &format!("{prefix}steps[{i}]."),
                session,
                elements,
                out,
            );
        }
    }
}

fn focused_password(session: &Session) -> bool {
    let Some(latest) = &session.latest else {
        return false;
    };
    session.seen(latest.surface).is_some_and(|seen| {
        seen.iter()
            .any(|s| s.role == Role::Password && s.states.iter().any(|st| st == "focused"))
    })
}
