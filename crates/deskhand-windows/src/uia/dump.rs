//! What `deskhand doctor --dump-tree` writes for a Windows window: the elements exactly as the
//! walk read them through UI Automation, in the format the reader tests replay
//! (`uia/recorded/*.json`), so a person on a real machine can attach what their app answered
//! to a bug report. Nothing typed or secret goes in: the value of every field that takes text
//! (and a password's, which is never read at all) is left out; names, types, places, states
//! and patterns stay.

use super::Element;

/// Said in place of a left-out value, so a reader of the dump sees that one was there.
pub const LEFT_OUT: &str = "(left out of the dump)";

/// The field every dump starts with, saying where it came from; hand-written data say so in
/// the same field.
pub const SOURCE_FIELD: &str = "_source";

/// The element and its subtree with every typed or secret value left out.
pub fn redacted(element: &Element) -> Element {
    let mut element = element.clone();
    redact(&mut element);
    element
}

fn redact(element: &mut Element) {
    let password = element.password;
    if let Some(value) = &mut element.patterns.value
        && (password || !value.read_only)
        && !value.value.is_empty()
    {
        value.value = LEFT_OUT.to_owned();
    }
    element.children.iter_mut().for_each(redact);
}

/// The dump as the reader tests read it: the root element with its subtree, every typed or
/// secret value left out, `source` saying where it came from and `left_out` what the walk did
/// not read.
pub fn to_json(root: &Element, source: &str, left_out: Option<&str>) -> String {
    let mut json = serde_json::to_value(redacted(root)).unwrap_or_default();
    if let Some(object) = json.as_object_mut() {
        object.insert(SOURCE_FIELD.to_owned(), source.into());
        if let Some(left_out) = left_out {
            object.insert("_left_out".to_owned(), left_out.into());
        }
    }
    serde_json::to_string_pretty(&json).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uia::{Pruned, node};

    fn recorded(json: &str) -> Element {
        serde_json::from_str(json).expect("recorded element data")
    }

    /// The values of fields that take text (not read-only), and of passwords.
    fn values(element: &Element, found: &mut Vec<String>) {
        if let Some(value) = &element.patterns.value
            && (element.password || !value.read_only)
        {
            found.push(value.value.clone());
        }
        element
            .children
            .iter()
            .for_each(|child| values(child, found));
    }

    #[test]
    fn a_dump_replays_as_the_window_did_with_nothing_typed_or_secret_in_it() {
        for json in [
            include_str!("recorded/notepad.json"),
            include_str!("recorded/browser_form.json"),
        ] {
            // Until real dumps replace them, the recorded data say they are hand-written.
            assert!(json.contains("\"_source\": \"hand-written"));
            let read = recorded(json);
            let dumped = to_json(&read, "a test", Some("nothing"));
            assert!(dumped.contains("\"_source\": \"a test\""));
            assert!(!dumped.contains("hello from notepad"), "typed text");
            assert!(!dumped.contains("hunter2"), "a password");
            // Read back as the tests read recorded data, it is the same tree but for values.
            let replayed = recorded(&dumped);
            let (mut before, mut after) = (Pruned::default(), Pruned::default());
            let (a, b) = (node(1, &read, &mut before), node(1, &replayed, &mut after));
            fn shape(node: &deskhand_core::model::Node, out: &mut Vec<String>) {
                out.push(format!(
                    "{} {:?} {:?}",
                    node.handle.0, node.role, node.bounds
                ));
                node.children.iter().for_each(|c| shape(c, out));
            }
            let (mut shape_a, mut shape_b) = (Vec::new(), Vec::new());
            shape(&a, &mut shape_a);
            shape(&b, &mut shape_b);
            assert_eq!(shape_a, shape_b);
            // A read-only value (a combo box showing its choice) is not typed: it stays.
            let mut kept = Vec::new();
            values(&replayed, &mut kept);
            assert!(
                kept.iter()
                    .all(|v| v.is_empty() || v == LEFT_OUT || v == "Norway"),
                "{kept:?}"
            );
        }
    }
}
