//! What `deskhand doctor --dump-tree` writes for a macOS window: each element's attributes as
//! the reader answered them, in the format the walk's tests replay (`tests/data/*.json`), so a
//! person on a real Mac can attach what their app answered to a bug report. Nothing typed or
//! secret goes in: a password's value is never read, and the value of every field that takes
//! text is left out; names, roles, places, states, rows and children stay.

use std::time::Instant;

use deskhand_core::model::Role;
use serde_json::{Map, Value, json};

use crate::attributes::{Attributes, AxValue, COUNTED};
use crate::roles::{role, shows_value};

use super::{AxReader, Children, Limits, MAX_CHILDREN, MAX_DEPTH, rows_only};

/// Said in place of a left-out value, so a reader of the dump sees that one was there.
pub const LEFT_OUT: &str = "(left out of the dump)";

/// The field every dump starts with, saying where it came from; hand-written data say so in
/// the same field.
pub const SOURCE_FIELD: &str = "_source";

struct Dump<'r, R: AxReader> {
    reader: &'r R,
    limits: Limits,
    read: usize,
    /// Why the dump stopped early, if it did.
    cut: Option<&'static str>,
}

/// The window `root` of `pid`, as the tests' recorded reader replays it.
pub fn dump<R: AxReader>(
    reader: &R,
    root: &R::Element,
    pid: u32,
    window: u64,
    source: &str,
    limits: Limits,
) -> Value {
    let mut dump = Dump {
        reader,
        limits,
        read: 0,
        cut: None,
    };
    let root = dump.element(root, 0);
    let mut top = Map::new();
    top.insert(SOURCE_FIELD.into(), source.into());
    if let Some(cut) = dump.cut {
        top.insert("_left_out".into(), cut.into());
    }
    top.insert("pid".into(), pid.into());
    top.insert("window".into(), window.into());
    top.insert("root".into(), root);
    Value::Object(top)
}

fn value_json(value: &AxValue) -> Value {
    match value {
        AxValue::Text(text) => text.as_str().into(),
        AxValue::Number(n) => json!(n),
        AxValue::Bool(b) => (*b).into(),
        AxValue::Point { x, y } => json!({"x": x, "y": y}),
        AxValue::Size { width, height } => json!({"w": width, "h": height}),
        AxValue::Count(_) | AxValue::Other => Value::Null,
    }
}

fn attributes_json(attributes: &Attributes) -> Map<String, Value> {
    let mut object = Map::new();
    let mut put = |name: &str, value: Option<Value>| {
        if let Some(value) = value {
            object.insert(name.into(), value);
        }
    };
    put("AXRole", attributes.role.clone().map(Value::from));
    put("AXSubrole", attributes.subrole.clone().map(Value::from));
    put("AXTitle", attributes.title.clone().map(Value::from));
    put(
        "AXDescription",
        attributes.description.clone().map(Value::from),
    );
    put(
        "AXPosition",
        attributes.position.map(|(x, y)| json!({"x": x, "y": y})),
    );
    put(
        "AXSize",
        attributes.size.map(|(w, h)| json!({"w": w, "h": h})),
    );
    put("AXEnabled", attributes.enabled.map(Value::from));
    put("AXFocused", attributes.focused.map(Value::from));
    put("AXSelected", attributes.selected.map(Value::from));
    put("AXExpanded", attributes.expanded.map(Value::from));
    put("AXIndex", attributes.index.map(Value::from));
    object
}

impl<R: AxReader> Dump<'_, R> {
    fn stopped(&mut self) -> bool {
        if self.read >= self.limits.nodes {
            self.cut = Some("the element budget ran out");
        } else if Instant::now() >= self.limits.deadline {
            self.cut = Some("the time ran out");
        }
        self.cut.is_some()
    }

    fn element(&mut self, element: &R::Element, depth: usize) -> Value {
        self.read += 1;
        let Ok(attributes) = self.reader.attributes(element) else {
            return json!({"_unreadable": true});
        };
        let mut object = attributes_json(&attributes);
        let ax_role = attributes.role().to_owned();
        let kind = role(&ax_role, attributes.subrole.as_deref());
        // A password's value is never asked for; a field's is typed text.
        if shows_value(kind) && kind != Role::Password {
            let value = if kind == Role::Text {
                Some(Value::from(LEFT_OUT))
            } else {
                self.reader
                    .value(element)
                    .ok()
                    .flatten()
                    .map(|value| value_json(&value))
                    .filter(|value| !value.is_null())
            };
            if let Some(value) = value {
                object.insert("AXValue".into(), value);
            }
        }
        if kind == Role::Image
            && let Ok(names) = self.reader.action_names(element)
        {
            object.insert("AXActionNames".into(), names.into());
        }
        let rows = rows_only(&ax_role, kind);
        let total = attributes.children.unwrap_or(0);
        if (rows || total > 0) && depth < MAX_DEPTH && !self.stopped() {
            let (key, which) = if rows {
                ("AXVisibleRows", Children::VisibleRows)
            } else {
                (
                    COUNTED,
                    Children::All {
                        max: MAX_CHILDREN.min(total),
                    },
                )
            };
            let children = self.reader.children(element, which).unwrap_or_default();
            let mut dumped = Vec::with_capacity(children.len());
            for child in &children {
                if self.stopped() {
                    break;
                }
                dumped.push(self.element(child, depth + 1));
            }
            object.insert(key.into(), dumped.into());
        }
        Value::Object(object)
    }
}
