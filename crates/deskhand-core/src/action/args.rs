//! The `desktop` tool's arguments as an agent sends them, with the forms some of them take.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::{Modifier, MouseButton, ScrollDirection};

use super::table::*;

/// One end of a drag: a ref such as `"e4"`, or a point `[x, y]` 0–1000 of the surface.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Spot {
    Ref(String),
    Point([f64; 2]),
}

/// Arguments of the `desktop` tool. Which ones an action takes is checked before anything runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DesktopArgs {
    /// down/up: press/release a button; kill: end the target's process; recall/forget: read/drop memory of apps.
    pub action: Option<ActionName>,
    /// The surface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// An element ref.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// 0–1000 from the left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// 0–1000 from the top.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// zoom: [x0, y0, x1, y1].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<[f64; 4]>,
    /// type: any Unicode, newline presses Return; clipboard: text to write, none to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// type: true replaces the field's content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace: Option<bool>,
    /// read: start of a 2000-character page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// press: chords split by spaces, e.g. "ctrl+a Delete".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// scroll: which way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<ScrollDirection>,
    /// scroll: wheel clicks, 1–50 (default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<u32>,
    /// drag: start, a ref or [x, y].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Spot>,
    /// drag: end, a ref or [x, y].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<Spot>,
    /// click/drag/down/up: default left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// click: 1–3 clicks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// click/drag/down/up: keys held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Vec<Modifier>>,
    /// observe: max elements, 1–5000 (default 300).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// observe: only elements with this in name, role or value (and ancestors); recall: search words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// observe: max depth, 0–100.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// observe: true lists hidden elements too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    /// observe: true for @x,y on every line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<bool>,
    /// observe: true for changes only (+ added, - removed, ~ changed); old refs stay valid.
    #[serde(alias = "diff", skip_serializing_if = "Option::is_none")]
    pub since: Option<bool>,
    /// observe: true adds OCR text where the tree has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr: Option<bool>,
    /// Instead of ref: {name (any case, exact beats partial), role (as observe prints it)}.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub find: Option<FindArgs>,
    /// drag: up to 50 [x, y] to pass through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Vec<[f64; 2]>>,
    /// drag: 0–10000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u32>,
    /// set_value: text or number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueArg>,
    /// select: menu path, e.g. ["File", "Save As…"].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// launch: desktop-file id or name; recall/forget: app name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// launch: false keeps the focus where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
    /// apps: true lists installed apps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed: Option<bool>,
    /// window: state to set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<WindowState>,
    /// window: content's top-left [x, y] in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<[i32; 2]>,
    /// window: content's [width, height] in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<[u32; 2]>,
    /// window: move to monitor mN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monitor: Option<String>,
    /// wait: one condition or a list, all to hold: {name (exact, else part), role or ref; is: present (default), absent, enabled or focused; value (exact), value_has (part, any case) or value_not}, {title or window: part of the surface's or any window's title}, {new_window or gone: true}, {stable_ms: the tree unchanged N ms; region: its pixels}, {text: words on its pixels (OCR); is}.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<Conditions>,
    /// wait: 1–30000 (default 10000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
    /// wait: look every 50–5000 (default 200).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_ms: Option<u32>,
    /// recall: part of a window's title, or its id #3, with app.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// forget: true for everything, else give app.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all: Option<bool>,
    /// batch: 1–50 calls, checked before any runs; stops at a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<serde_json::Value>>,
    /// HTTP --desktop-per-session: "new" starts a private desktop, named in the reply; its handle runs calls there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desktop: Option<String>,
    /// true: stop that desktop, after any action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_desktop: Option<bool>,
}

/// An element named by what it shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindArgs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// A value to set: text, or a number for sliders and spin buttons.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ValueArg {
    Number(f64),
    Text(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WindowState {
    Normal,
    Minimized,
    Maximized,
}

/// What an element condition asks of the elements it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementIs {
    Present,
    Absent,
    Enabled,
    Focused,
}

/// One `wait` condition as given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionArgs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is: Option<ElementIs>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_not: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_has: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_window: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gone: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stable_ms: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<[f64; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One condition, or several that must all hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Conditions {
    One(Box<ConditionArgs>),
    All(Vec<ConditionArgs>),
}

// The arguments that are objects or take more than one form are described by their types alone:
// the field's description says what the object or list holds, and a schema of its keys would
// repeat it in every model request (a wait condition's fourteen keys cost 180 tokens more than
// their words).

/// A `JsonSchema` that gives the JSON types of an argument and nothing of its keys or forms.
macro_rules! schema_of_types_only {
    ($($argument:ident: $types:tt;)+) => {$(
        impl JsonSchema for $argument {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> Cow<'static, str> {
                stringify!($argument).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({"type": $types})
            }
        }
    )+};
}

schema_of_types_only! {
    FindArgs: "object";
    Spot: ["string", "array"];
    ValueArg: ["string", "number"];
    Conditions: ["object", "array"];
}

// They are read by hand too: serde's untagged enums answer "data did not match any variant of
// untagged enum Spot", which names neither the forms an agent may give nor, for a condition, the
// key inside it that was wrong.

impl<'de> Deserialize<'de> for Spot {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(text) => Ok(Spot::Ref(text)),
            serde_json::Value::Array(items) => match items.as_slice() {
                [x, y] => match (x.as_f64(), y.as_f64()) {
                    (Some(x), Some(y)) => Ok(Spot::Point([x, y])),
                    _ => Err(D::Error::custom(
                        "a point's x and y are numbers 0–1000, e.g. [500, 250]",
                    )),
                },
                _ => Err(D::Error::custom(format!(
                    "a point is two numbers [x, y] 0–1000, not {}",
                    plural_items(items.len())
                ))),
            },
            other => Err(D::Error::custom(format!(
                "expected a ref such as \"e4\" or a point [x, y] 0–1000 of the surface, not {}",
                json_kind(&other)
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for ValueArg {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(text) => Ok(ValueArg::Text(text)),
            serde_json::Value::Number(number) => number
                .as_f64()
                .map(ValueArg::Number)
                .ok_or_else(|| D::Error::custom("the number is out of range")),
            other => Err(D::Error::custom(format!(
                "expected a text or a number, not {}",
                json_kind(&other)
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for Conditions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        // The inner path is kept, so a bad key reads `until[1].txt`, not just `until`.
        let inner = |err: serde_path_to_error::Error<serde_json::Error>| {
            let path = err.path().to_string();
            match path.as_str() {
                "." => D::Error::custom(err.into_inner()),
                path => D::Error::custom(format!("`{path}`: {}", err.into_inner())),
            }
        };
        match serde_json::Value::deserialize(deserializer)? {
            value @ serde_json::Value::Object(_) => serde_path_to_error::deserialize(value)
                .map(|one| Conditions::One(Box::new(one)))
                .map_err(inner),
            value @ serde_json::Value::Array(_) => serde_path_to_error::deserialize(value)
                .map(Conditions::All)
                .map_err(inner),
            other => Err(D::Error::custom(format!(
                "expected one condition as an object, e.g. {{\"name\": \"Saved\"}}, or a list of them, not {}",
                json_kind(&other)
            ))),
        }
    }
}

/// What kind of JSON value an argument was, as an error names it.
fn json_kind(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "null".into(),
        serde_json::Value::Bool(b) => format!("the boolean {b}"),
        serde_json::Value::Number(n) => format!("the number {n}"),
        serde_json::Value::String(_) => "a text".into(),
        serde_json::Value::Array(items) => format!("a list of {}", plural_items(items.len())),
        serde_json::Value::Object(_) => "an object".into(),
    }
}

fn plural_items(n: usize) -> String {
    crate::text::plural(n, "item", "items")
}
