//! The `desktop` tool's arguments, and their validation into one typed [`Action`].
//!
//! Validation is complete before anything runs: a call that fails here changed nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::coords::check_unit;
use crate::error::{Error, Result};
use crate::keys::Keys;
use crate::memory::Recall;
use crate::model::{Modifier, MouseButton, Role, ScrollDirection};

/// Typed text longer than this is refused: an agent that means more should send it in parts.
pub const MAX_TEXT_CHARS: usize = 10_000;
pub const MAX_SCROLL: u32 = 50;
pub const MAX_CLICKS: u32 = 3;
/// `observe` lists at most this many elements unless `limit` says otherwise.
pub const DEFAULT_LIMIT: u32 = 300;
pub const MAX_LIMIT: u32 = 5_000;
pub const MAX_DEPTH: u32 = 100;
pub const MAX_QUERY_CHARS: usize = 200;
pub const MAX_VIA: usize = 50;
pub const MAX_DRAG_MS: u32 = 10_000;
pub const MAX_MENU_DEPTH: usize = 8;
pub const MAX_WINDOW_PIXELS: u32 = 16_384;
pub const MAX_CLIPBOARD_CHARS: usize = 1_000_000;
pub const MAX_CONDITIONS: usize = 10;
pub const DEFAULT_WAIT_MS: u32 = 10_000;
pub const MAX_WAIT_MS: u32 = 30_000;
pub const DEFAULT_INTERVAL_MS: u32 = 200;
pub const MIN_INTERVAL_MS: u32 = 50;
pub const MAX_INTERVAL_MS: u32 = 5_000;
pub const MAX_STEPS: usize = 50;
pub const MAX_STABLE_MS: u32 = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionName {
    Apps,
    Windows,
    Observe,
    Read,
    Click,
    Type,
    Press,
    Scroll,
    Drag,
    Screenshot,
    Zoom,
    Hover,
    Down,
    Up,
    Wait,
    Batch,
    SetValue,
    Select,
    Launch,
    Focus,
    Close,
    Kill,
    Window,
    Clipboard,
    Recall,
    Forget,
}

/// What an action changes, for the policy's `read_only` and the audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changes {
    /// A read: the desktop is as it was (`forget` changes only deskhand's own memory).
    Nothing,
    /// Input, a window or an app: the desktop changes.
    Desktop,
    /// `clipboard`: writing changes what the next paste gives, reading changes nothing.
    WhenWriting,
    /// `batch`: each step is judged by its own action.
    StepByStep,
}

/// What an action acts on: the applications the policy checks before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaches {
    /// No application: reads, the clipboard, memory; a batch's steps are checked one by one.
    Nothing,
    /// The element or point the call names (a drag: both ends).
    Place,
    /// The place named; without one, the focused element of the `target`, else the focus.
    PlaceOrFocus,
    /// The place named; without one, whatever is under the pointer.
    PlaceOrPointer,
    /// The surface the call names.
    Surface,
    /// The focused window.
    Focus,
    /// The application it starts.
    Started,
}

/// What the audit log keeps of an action's arguments, besides the action, its surface and app,
/// and how it ended. An action that changes nothing is not audited and keeps nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The element named (its ref, role and name, never a password field's name), the point,
    /// or the `find`; without one, where the action went: `focused` or `pointer`.
    Place,
    /// Both ends of a drag, each a ref or a point; the first one's element as for `Place`.
    Ends,
    Button,
    Count,
    Modifiers,
    /// How many characters were typed or set, never which: they may be a secret.
    Characters,
    /// The chords, with every one that types a character shown as `<char>`.
    Keys,
    Direction,
    Amount,
    /// What else names the action: `replace`, a menu path, the app started, a window change.
    Detail,
}

/// One action of the contract: its name, every field it takes, what it changes, what it acts
/// on and what the audit log keeps of it.
#[derive(Debug, Clone, Copy)]
pub struct ActionSpec {
    pub name: ActionName,
    pub text: &'static str,
    pub fields: &'static [&'static str],
    pub changes: Changes,
    pub reaches: Reaches,
    /// In the order the audit entry is filled: a later item may name more precisely what an
    /// earlier one said (a `find` in `Place` over `replace` in `Detail`).
    pub keeps: &'static [Kept],
}

/// Every action once, in the order of [`ActionName`]; validation, the policy, the audit log and
/// the CLI all read it from here.
pub const ACTIONS: [ActionSpec; 26] = {
    use ActionName as A;
    use Changes::{Desktop, Nothing, StepByStep, WhenWriting};
    use Kept::{
        Amount, Button, Characters, Count, Detail, Direction, Ends, Keys, Modifiers, Place as Named,
    };
    use Reaches::{Focus, Place, PlaceOrFocus, PlaceOrPointer, Started, Surface};
    const fn spec(
        name: ActionName,
        text: &'static str,
        fields: &'static [&'static str],
        (changes, reaches, keeps): (Changes, Reaches, &'static [Kept]),
    ) -> ActionSpec {
        ActionSpec {
            name,
            text,
            fields,
            changes,
            reaches,
            keeps,
        }
    }
    const READ: (Changes, Reaches, &[Kept]) = (Nothing, Reaches::Nothing, &[]);
    [
        spec(A::Apps, "apps", &["installed"], READ),
        spec(A::Windows, "windows", &[], READ),
        spec(
            A::Observe,
            "observe",
            &[
                "target",
                "limit",
                "query",
                "max_depth",
                "hidden",
                "points",
                "since",
                "ocr",
            ],
            READ,
        ),
        spec(A::Read, "read", &["target", "ref", "find", "offset"], READ),
        spec(
            A::Click,
            "click",
            &[
                "target",
                "ref",
                "find",
                "x",
                "y",
                "button",
                "count",
                "modifiers",
            ],
            (Desktop, Place, &[Named, Button, Count, Modifiers]),
        ),
        spec(
            A::Type,
            "type",
            &["target", "ref", "find", "text", "replace"],
            (Desktop, PlaceOrFocus, &[Characters, Detail, Named]),
        ),
        spec(
            A::Press,
            "press",
            &["keys"],
            (Desktop, Focus, &[Keys, Named]),
        ),
        spec(
            A::Scroll,
            "scroll",
            &["target", "ref", "find", "x", "y", "direction", "amount"],
            (Desktop, PlaceOrPointer, &[Named, Direction, Amount]),
        ),
        spec(
            A::Drag,
            "drag",
            &[
                "target",
                "from",
                "to",
                "via",
                "duration_ms",
                "button",
                "modifiers",
            ],
            (Desktop, Place, &[Ends, Button, Modifiers]),
        ),
        spec(A::Screenshot, "screenshot", &["target"], READ),
        spec(A::Zoom, "zoom", &["target", "region"], READ),
        spec(
            A::Hover,
            "hover",
            &["target", "ref", "find", "x", "y"],
            (Desktop, Place, &[Named]),
        ),
        spec(
            A::Down,
            "down",
            &["target", "ref", "find", "x", "y", "button", "modifiers"],
            (Desktop, PlaceOrPointer, &[Named, Button, Modifiers]),
        ),
        spec(
            A::Up,
            "up",
            &["target", "ref", "find", "x", "y", "button", "modifiers"],
            (Desktop, PlaceOrPointer, &[Named, Button, Modifiers]),
        ),
        spec(
            A::Wait,
            "wait",
            &["target", "until", "timeout_ms", "interval_ms"],
            READ,
        ),
        spec(
            A::Batch,
            "batch",
            &["steps"],
            (StepByStep, Reaches::Nothing, &[]),
        ),
        spec(
            A::SetValue,
            "set_value",
            &["target", "ref", "find", "value"],
            (Desktop, Place, &[Named, Characters]),
        ),
        spec(
            A::Select,
            "select",
            &["target", "path"],
            (Desktop, Surface, &[Detail]),
        ),
        spec(
            A::Launch,
            "launch",
            &["app", "focus"],
            (Desktop, Started, &[Detail]),
        ),
        spec(A::Focus, "focus", &["target"], (Desktop, Surface, &[])),
        spec(A::Close, "close", &["target"], (Desktop, Surface, &[])),
        spec(A::Kill, "kill", &["target"], (Desktop, Surface, &[])),
        spec(
            A::Window,
            "window",
            &["target", "state", "position", "size"],
            (Desktop, Surface, &[Detail]),
        ),
        spec(
            A::Clipboard,
            "clipboard",
            &["text"],
            (WhenWriting, Reaches::Nothing, &[Characters]),
        ),
        spec(A::Recall, "recall", &["app", "window", "query"], READ),
        spec(A::Forget, "forget", &["app", "all"], READ),
    ]
};

impl ActionName {
    pub const ALL: [ActionName; 26] = {
        let mut all = [ActionName::Apps; 26];
        let mut i = 0;
        while i < all.len() {
            all[i] = ACTIONS[i].name;
            i += 1;
        }
        all
    };

    pub fn spec(self) -> &'static ActionSpec {
        &ACTIONS[self as usize]
    }

    /// The arguments this action takes besides `action`: anything else is refused, not ignored.
    pub fn fields(self) -> &'static [&'static str] {
        self.spec().fields
    }

    pub fn as_str(self) -> &'static str {
        self.spec().text
    }
}

/// One end of a drag: a ref such as `"e4"`, or a point `[x, y]` 0–1000 of the surface.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Spot {
    Ref(String),
    Point([f64; 2]),
}

/// Arguments of the `desktop` tool. Which ones an action takes is checked before anything runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DesktopArgs {
    /// `down`/`up` press and release a button; `kill` ends the target's process; `recall`/`forget` read/drop what is remembered of apps.
    pub action: Option<ActionName>,
    /// The surface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// An element ref.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// Point across, 0–1000 from the left edge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Point down, 0–1000 from the top edge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// zoom: [x0, y0, x1, y1].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<[f64; 4]>,
    /// type: any Unicode, newlines press Return; clipboard: the text to write (none: read it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// type: true to select all first, so the text replaces the field's content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace: Option<bool>,
    /// read: the first character; a page is 2,000 and says where the next starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// press: space-separated key chords, e.g. "ctrl+a Delete", "Return".
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
    /// click: 1 (default), 2 double, 3 triple.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// click/drag/down/up: keys held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Vec<Modifier>>,
    /// observe: at most 1–5000 elements (default 300).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// observe: only elements whose name, role or value contains this (any case), with ancestors; recall: search memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// observe: at most this deep, 0–100 (0: the window alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// observe: true to list hidden elements too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    /// observe: true for @x,y on every line, not only where needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<bool>,
    /// observe: true for only the changes since the surface's last observe (+ added, - removed, ~ changed); unchanged refs stay valid.
    #[serde(alias = "diff", skip_serializing_if = "Option::is_none")]
    pub since: Option<bool>,
    /// observe: true to add OCR text where the tree has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr: Option<bool>,
    /// Instead of `ref`: the element by what it shows, found at call time; exact names beat partial ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub find: Option<FindArgs>,
    /// drag: up to 50 points [x, y] passed between `from` and `to`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Vec<[f64; 2]>>,
    /// drag: 0–10000 ms (default: as fast as the app follows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u32>,
    /// set_value: the text or number to set (read back before `done`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueArg>,
    /// select: menu items from the bar down, e.g. ["File", "Save As…"].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// launch: a desktop-file id or name from apps {"installed": true}; recall/forget: an app's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// launch: false to keep the focus where it is (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
    /// apps: true for installed apps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed: Option<bool>,
    /// window: the state to set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<WindowState>,
    /// window: the content's top-left [x, y], screen pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<[i32; 2]>,
    /// window: the content's [width, height], screen pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<[u32; 2]>,
    /// wait: one condition or a list, all to hold: an element by "name" (exact, else in part), "role" or "ref", with "is" (default present), "value" (exact), "value_has" (in part, any case) or "value_not"; "title" or "window": part of the surface's or any window's title; "new_window" or "gone" (the surface closed): true; "stable_ms": the tree unchanged N ms, with "region" the pixels there; "text": words on its pixels (OCR), with "is".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<Conditions>,
    /// wait: give up after 1–30000 ms (default 10000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
    /// wait: look every 50–5000 ms (default 200).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_ms: Option<u32>,
    /// recall: a piece of a remembered window's title, or its id "#3", with `app`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// forget: true for everything, else give `app`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all: Option<bool>,
    /// batch: 1–50 calls' arguments, all checked before any runs; stops at the first failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<serde_json::Value>>,
}

/// An element named by what it shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindArgs {
    /// Any case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// As observe prints it, e.g. "button".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// A value to set: text, or a number for sliders and spin buttons.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ElementIs {
    Present,
    Absent,
    Enabled,
    Focused,
}

/// One `wait` condition as given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Conditions {
    One(Box<ConditionArgs>),
    All(Vec<ConditionArgs>),
}

// The arguments that take more than one form are read by hand: serde's untagged enums answer
// "data did not match any variant of untagged enum Spot", which names neither the forms an
// agent may give nor, for a condition, the key inside it that was wrong.

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
    crate::render::plural(n, "item", "items")
}

/// A validated reference to an element, `eN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RefId(pub u32);

impl RefId {
    pub fn parse(text: &str) -> Result<Self> {
        text.strip_prefix('e')
            .and_then(|digits| {
                (!digits.starts_with('0') || digits == "0")
                    .then(|| digits.parse::<u32>().ok())
                    .flatten()
            })
            .filter(|n| *n > 0)
            .map(RefId)
            .ok_or_else(|| {
                Error::bad_argument(format!(
                    "`ref` {text:?} is not an element ref; refs look like \"e4\" and come from the latest observe"
                ))
            })
    }
}

impl std::fmt::Display for RefId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "e{}", self.0)
    }
}

/// A surface as named in a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TargetId {
    Screen,
    Window(u32),
    App(u32),
}

impl TargetId {
    pub fn parse(text: &str) -> Result<Self> {
        if text == "screen" {
            return Ok(TargetId::Screen);
        }
        let number = |rest: &str| rest.parse::<u32>().ok().filter(|n| *n > 0);
        let parsed = match text.split_at_checked(1) {
            Some(("w", rest)) => number(rest).map(TargetId::Window),
            Some(("a", rest)) => number(rest).map(TargetId::App),
            _ => None,
        };
        parsed.ok_or_else(|| {
            Error::bad_argument(format!(
                "`target` {text:?} is not a surface; use \"screen\", a window id like \"w3\" from `windows`, or an app id like \"a2\" from `apps`"
            ))
        })
    }
}

impl std::fmt::Display for TargetId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetId::Screen => f.write_str("screen"),
            TargetId::Window(n) => write!(f, "w{n}"),
            TargetId::App(n) => write!(f, "a{n}"),
        }
    }
}

/// Where a pointer action lands.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    Ref(RefId),
    Point { x: f64, y: f64 },
    Find(Find),
}

/// An element named by its name and role, looked up when the call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Find {
    pub name: Option<String>,
    pub role: Option<Role>,
}

impl std::fmt::Display for Find {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.role, &self.name) {
            (Some(role), Some(name)) => {
                write!(f, "{} \"{}\"", role.as_str(), crate::render::escape(name))
            }
            (Some(role), None) => f.write_str(role.as_str()),
            (None, Some(name)) => write!(f, "\"{}\"", crate::render::escape(name)),
            (None, None) => f.write_str("any element"),
        }
    }
}

/// Which elements an element condition is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElementMatch {
    Ref(RefId),
    Find(Find),
}

/// What must be true of the matched elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Present,
    Absent,
    Enabled,
    Focused,
    ValueEquals(String),
    ValueNot(String),
    /// The value contains this text, in any case.
    ValueHas(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Element {
        which: ElementMatch,
        check: Check,
    },
    TitleContains(String),
    /// A window whose title contains the text is open, on any surface.
    WindowOpen(String),
    NewWindow,
    Gone,
    TreeStable {
        ms: u32,
    },
    PixelsStable {
        region: [f64; 4],
        ms: u32,
    },
    /// Text read from the surface's pixels contains this (any case), or with `absent` does not.
    TextShown {
        text: String,
        absent: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct WaitSpec {
    pub conditions: Vec<Condition>,
    pub timeout_ms: u32,
    pub interval_ms: u32,
}

/// What `window` changes, in the order it is applied.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowSpec {
    pub state: Option<WindowState>,
    pub position: Option<[i32; 2]>,
    pub size: Option<[u32; 2]>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClickSpec {
    pub button: MouseButton,
    pub count: u32,
    pub modifiers: Vec<Modifier>,
}

impl ClickSpec {
    /// A plain click is what an element's own accessibility action stands for.
    pub fn is_plain(&self) -> bool {
        self.button == MouseButton::Left && self.count == 1 && self.modifiers.is_empty()
    }
}

/// What an `observe` lists, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct ObserveSpec {
    /// At most this many lines.
    pub limit: usize,
    /// Text an element's name, role or value must contain, in any case; ancestors come along.
    pub query: Option<String>,
    pub max_depth: Option<usize>,
    /// List hidden elements too.
    pub hidden: bool,
    /// Every line shows its point, not only those its words do not tell apart.
    pub points: bool,
    /// Print only the changes since the last observe of the same surface.
    pub since: bool,
    /// Add the text read from the surface's pixels where no listed element shows text.
    pub ocr: bool,
}

impl Default for ObserveSpec {
    fn default() -> Self {
        Self {
            limit: DEFAULT_LIMIT as usize,
            query: None,
            max_depth: None,
            hidden: false,
            points: false,
            since: false,
            ocr: false,
        }
    }
}

/// A fully validated call.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Apps,
    Windows,
    Observe(ObserveSpec),
    Click {
        place: Place,
        click: ClickSpec,
    },
    /// Typed where `place` is, else into the target's focused element, else the focus; with
    /// `replace`, over everything the field held.
    Type {
        text: String,
        place: Option<Place>,
        replace: bool,
    },
    /// A page of an element's whole text, from character `offset`.
    Read {
        place: Place,
        offset: usize,
    },
    Press {
        keys: Keys,
    },
    Scroll {
        place: Option<Place>,
        direction: ScrollDirection,
        amount: u32,
    },
    Drag {
        from: Place,
        to: Place,
        via: Vec<[f64; 2]>,
        duration_ms: u32,
        button: MouseButton,
        modifiers: Vec<Modifier>,
    },
    Screenshot,
    Zoom {
        region: [f64; 4],
    },
    Hover {
        place: Place,
    },
    /// `down: false` releases.
    Button {
        down: bool,
        place: Option<Place>,
        button: MouseButton,
        modifiers: Vec<Modifier>,
    },
    Wait(WaitSpec),
    Batch(Vec<Call>),
    SetValue {
        place: Place,
        value: ValueArg,
    },
    Select {
        path: Vec<String>,
    },
    Installed,
    Launch {
        app: String,
        focus: bool,
    },
    Focus,
    Close,
    Kill,
    Window(WindowSpec),
    ReadClipboard,
    WriteClipboard {
        text: String,
    },
    Recall(Recall),
    /// `None`: everything.
    Forget {
        app: Option<String>,
    },
}

/// A validated call: the action and the surface it names, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: ActionName,
    pub action: Action,
    pub target: Option<TargetId>,
}

impl Action {
    /// The elements and points the action names; what it does without one is its
    /// [`Reaches`].
    pub fn places(&self) -> Vec<&Place> {
        match self {
            Action::Click { place, .. }
            | Action::Hover { place }
            | Action::SetValue { place, .. }
            | Action::Read { place, .. } => vec![place],
            Action::Type { place, .. }
            | Action::Button { place, .. }
            | Action::Scroll { place, .. } => place.iter().collect(),
            Action::Drag { from, to, .. } => vec![from, to],
            _ => Vec::new(),
        }
    }
}

impl Call {
    pub fn name(&self) -> &'static str {
        self.name.as_str()
    }

    /// Whether the call changes anything on the desktop. A batch is judged step by step.
    pub fn actuates(&self) -> bool {
        match self.name.spec().changes {
            Changes::Nothing | Changes::StepByStep => false,
            Changes::Desktop => true,
            Changes::WhenWriting => matches!(self.action, Action::WriteClipboard { .. }),
        }
    }
}

/// Text to type: not empty, not enormous, no control characters but newline and tab.
fn checked_text(text: String) -> Result<String> {
    if text.is_empty() {
        return Err(Error::bad_argument(
            "`type` needs a non-empty `text`; to press keys such as Return use `press`",
        ));
    }
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(Error::bad_argument(format!(
            "`text` has {chars} characters, more than {MAX_TEXT_CHARS}; type it in parts"
        )));
    }
    if let Some(bad) = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t'))
    {
        return Err(Error::bad_argument(format!(
            "`text` contains the control character U+{:04X}; only newline and tab can be typed, use `press` for other keys",
            bad as u32
        )));
    }
    Ok(text)
}

/// A role as observe prints it.
fn parse_role(text: &str) -> Result<Role> {
    serde_json::from_value(serde_json::Value::String(text.trim().to_lowercase())).map_err(|_| {
        Error::bad_argument(format!(
            "`role` {text:?} is not a role; give one as observe prints it, e.g. button, text, check, menuitem, combobox, slider, label"
        ))
    })
}

impl FindArgs {
    pub fn validate(&self) -> Result<Find> {
        let name = self
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        if name
            .as_ref()
            .is_some_and(|n| n.chars().count() > MAX_QUERY_CHARS)
        {
            return Err(Error::bad_argument(format!(
                "`find` name is longer than {MAX_QUERY_CHARS} characters; give a shorter part of it"
            )));
        }
        let role = self.role.as_deref().map(parse_role).transpose()?;
        if name.is_none() && role.is_none() {
            return Err(Error::bad_argument(
                "`find` needs a non-empty `name`, a `role`, or both, e.g. {\"name\": \"Save\", \"role\": \"button\"}",
            ));
        }
        Ok(Find { name, role })
    }
}

impl ConditionArgs {
    fn validate(&self) -> Result<Condition> {
        let element = self.name.is_some() || self.role.is_some() || self.element.is_some();
        let kinds = [
            element,
            self.title.is_some(),
            self.window.is_some(),
            self.new_window.is_some(),
            self.gone.is_some(),
            self.stable_ms.is_some(),
            self.text.is_some(),
        ];
        let element_only = self.is.is_some()
            || self.value.is_some()
            || self.value_not.is_some()
            || self.value_has.is_some();
        let kinds_given = kinds.iter().filter(|k| **k).count();
        if element_only && !element && self.text.is_none() && kinds_given <= 1 {
            return Err(Error::bad_argument(
                "`is`, `value`, `value_has` and `value_not` need the element they are about: `name`, `role` or `ref`",
            ));
        }
        if kinds_given != 1 {
            return Err(Error::bad_argument(
                "give exactly one kind of condition: an element (`name`, `role` or `ref`), `title`, `window`, `new_window`, `gone`, `stable_ms` or `text`; list several conditions to combine them",
            ));
        }
        if let Some(text) = &self.text {
            if text.trim().is_empty() {
                return Err(Error::bad_argument(
                    "`text` is empty; give the words the surface's pixels will show",
                ));
            }
            if self.value.is_some() || self.value_not.is_some() || self.value_has.is_some() {
                return Err(Error::bad_argument(
                    "`text` goes with `is` \"present\" or \"absent\" only: text read from pixels has no value",
                ));
            }
            let absent = match self.is {
                None | Some(ElementIs::Present) => false,
                Some(ElementIs::Absent) => true,
                Some(_) => {
                    return Err(Error::bad_argument(
                        "`text` goes with `is` \"present\" or \"absent\" only: text read from pixels cannot be enabled or focused",
                    ));
                }
            };
            return Ok(Condition::TextShown {
                text: text.trim().to_owned(),
                absent,
            });
        }
        if self.region.is_some() && self.stable_ms.is_none() {
            return Err(Error::bad_argument(
                "`region` goes with `stable_ms`: the pixels there must stay the same that long",
            ));
        }
        if element {
            let which = match &self.element {
                Some(_) if self.name.is_some() || self.role.is_some() => {
                    return Err(Error::bad_argument(
                        "give either `ref` or `name`/`role`, not both",
                    ));
                }
                Some(text) => ElementMatch::Ref(RefId::parse(text)?),
                None => ElementMatch::Find(
                    FindArgs {
                        name: self.name.clone(),
                        role: self.role.clone(),
                    }
                    .validate()?,
                ),
            };
            let given = [
                self.is.is_some_and(|is| is != ElementIs::Present),
                self.value.is_some(),
                self.value_not.is_some(),
                self.value_has.is_some(),
            ];
            if given.iter().filter(|g| **g).count() > 1 {
                return Err(Error::bad_argument(
                    "give one of `is`, `value`, `value_has` or `value_not` per condition; list several conditions to combine them",
                ));
            }
            let check = match (&self.is, &self.value, &self.value_not) {
                (_, Some(value), _) => Check::ValueEquals(value.clone()),
                (_, _, Some(value)) => Check::ValueNot(value.clone()),
                _ if self
                    .value_has
                    .as_deref()
                    .is_some_and(|v| v.trim().is_empty()) =>
                {
                    return Err(Error::bad_argument(
                        "`value_has` is empty; give the text the value will contain",
                    ));
                }
                _ if self.value_has.is_some() => {
                    Check::ValueHas(self.value_has.clone().unwrap_or_default())
                }
                (Some(ElementIs::Absent), _, _) => Check::Absent,
                (Some(ElementIs::Enabled), _, _) => Check::Enabled,
                (Some(ElementIs::Focused), _, _) => Check::Focused,
                _ => Check::Present,
            };
            return Ok(Condition::Element { which, check });
        }
        if let Some(title) = &self.title {
            if title.is_empty() {
                return Err(Error::bad_argument(
                    "`title` is empty; give text the window's title will contain",
                ));
            }
            return Ok(Condition::TitleContains(title.clone()));
        }
        if let Some(title) = &self.window {
            if title.trim().is_empty() {
                return Err(Error::bad_argument(
                    "`window` is empty; give text the window's title will contain",
                ));
            }
            return Ok(Condition::WindowOpen(title.trim().to_owned()));
        }
        if let Some(flag) = self.new_window {
            return match flag {
                true => Ok(Condition::NewWindow),
                false => Err(Error::bad_argument(
                    "`new_window` can only be true; leave it out otherwise",
                )),
            };
        }
        if let Some(flag) = self.gone {
            return match flag {
                true => Ok(Condition::Gone),
                false => Err(Error::bad_argument(
                    "`gone` can only be true; to wait while a window is open, wait on one of its elements",
                )),
            };
        }
        let ms = self.stable_ms.unwrap_or_default();
        if !(1..=MAX_STABLE_MS).contains(&ms) {
            return Err(Error::bad_argument(format!(
                "`stable_ms` is {ms}; give 1–{MAX_STABLE_MS}"
            )));
        }
        match self.region {
            Some(region) => {
                crate::coords::check_region(region)?;
                Ok(Condition::PixelsStable { region, ms })
            }
            None => Ok(Condition::TreeStable { ms }),
        }
    }
}

/// Parses raw JSON arguments: unknown keys and wrong types are bad arguments, not protocol errors.
pub fn parse_call(arguments: serde_json::Value) -> Result<Call> {
    args_at(arguments, "")?.validate()
}

/// The arguments as typed; `at` is where they sit in the call (`steps[2].` in a batch), so the
/// error names the bad key by its whole path, as an agent would write it.
fn args_at(arguments: serde_json::Value, at: &str) -> Result<DesktopArgs> {
    serde_path_to_error::deserialize(arguments).map_err(|err| {
        let mut path = err.path().to_string();
        let mut why = err.into_inner().to_string();
        // A condition read by hand names the path inside it (`[1].txt`, `txt`): one path,
        // `until[1].txt`, `until.txt`.
        if let Some((inner, rest)) = why.strip_prefix('`').and_then(|why| why.split_once("`: ")) {
            let joint = if inner.starts_with('[') { "" } else { "." };
            (path, why) = (format!("{path}{joint}{inner}"), rest.to_owned());
        }
        // An empty path (".") is the arguments as a whole: not an object.
        let key = match (at, path.as_str()) {
            ("", ".") => String::new(),
            (at, ".") => format!("`{}`: ", at.trim_end_matches('.')),
            (at, path) => format!("`{at}{path}`: "),
        };
        Error::bad_argument(format!(
            "the arguments do not fit the desktop tool: {key}{why}; see the tool's input schema"
        ))
    })
}

impl DesktopArgs {
    /// Checks that the action has what it needs and nothing it would ignore.
    pub fn validate(self) -> Result<Call> {
        let Some(name) = self.action else {
            return Err(Error::bad_argument(format!(
                "`action` is missing; give one of {}",
                ActionName::ALL.map(ActionName::as_str).join(", ")
            )));
        };
        let action_name = name.as_str();
        let present = self.present_fields();
        let allowed = name.fields();
        if let Some(extra) = present.iter().find(|field| !allowed.contains(field)) {
            let takes = if allowed.is_empty() {
                "no other arguments".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(Error::bad_argument(format!(
                "`{action_name}` does not take `{extra}`; it takes {takes}"
            )));
        }
        // Scrolling without a place goes where the pointer is, whatever the target.
        let placed =
            self.element.is_some() || self.find.is_some() || self.x.is_some() || self.y.is_some();
        if self.target.is_some() && name == ActionName::Scroll && !placed {
            return Err(Error::bad_argument(
                "`scroll` takes `target` only together with `ref`, `find` or `x`/`y`; without them it goes where the pointer is",
            ));
        }
        let target = self.target.as_deref().map(TargetId::parse).transpose()?;
        let element = self.element.as_deref().map(RefId::parse).transpose()?;
        let find = self.find.as_ref().map(FindArgs::validate).transpose()?;
        let place = |required: bool| -> Result<Option<Place>> {
            let point = self.x.is_some() || self.y.is_some();
            if [element.is_some(), find.is_some(), point]
                .iter()
                .filter(|given| **given)
                .count()
                > 1
            {
                return Err(Error::bad_argument(format!(
                    "`{action_name}` takes one of `ref`, `find` or `x`/`y`, not several"
                )));
            }
            match (element, &find, self.x, self.y) {
                (Some(r), _, _, _) => Ok(Some(Place::Ref(r))),
                (_, Some(find), _, _) => Ok(Some(Place::Find(find.clone()))),
                (None, None, Some(x), Some(y)) => Ok(Some(Place::Point {
                    x: check_unit("x", x)?,
                    y: check_unit("y", y)?,
                })),
                (None, None, Some(_), None) | (None, None, None, Some(_)) => {
                    Err(Error::bad_argument(format!(
                        "`{action_name}` needs both `x` and `y` (0–1000 of the surface)"
                    )))
                }
                (None, None, None, None) if required => Err(Error::bad_argument(format!(
                    "`{action_name}` needs a `ref` from observe, a `find` {{\"name\", \"role\"}}, or `x` and `y` (0–1000 of the surface)"
                ))),
                (None, None, None, None) => Ok(None),
            }
        };
        let modifiers = self.modifiers.clone().unwrap_or_default();
        let action = match name {
            ActionName::Apps if self.installed == Some(true) => Action::Installed,
            ActionName::Apps => Action::Apps,
            ActionName::Windows => Action::Windows,
            ActionName::Observe => Action::Observe(self.observe_spec()?),
            ActionName::Screenshot => Action::Screenshot,
            ActionName::Click => {
                let count = self.count.unwrap_or(1);
                if !(1..=MAX_CLICKS).contains(&count) {
                    return Err(Error::bad_argument(format!(
                        "`count` is {count}; give 1, 2 (double click) or 3 (triple click)"
                    )));
                }
                Action::Click {
                    place: place(true)?.expect("required place"),
                    click: ClickSpec {
                        button: self.button.unwrap_or(MouseButton::Left),
                        count,
                        modifiers,
                    },
                }
            }
            ActionName::Type => Action::Type {
                text: checked_text(self.text.clone().unwrap_or_default())?,
                place: place(false)?,
                replace: self.replace.unwrap_or(false),
            },
            ActionName::Read => {
                if element.is_none() && find.is_none() {
                    return Err(Error::bad_argument(
                        "`read` needs the element: a `ref` from observe, or a `find` {\"name\", \"role\"}",
                    ));
                }
                Action::Read {
                    place: place(true)?.expect("required place"),
                    offset: self.offset.unwrap_or(0) as usize,
                }
            }
            ActionName::Press => {
                let keys = self.keys.clone().unwrap_or_default();
                if keys.trim().is_empty() {
                    return Err(Error::bad_argument(
                        "`press` needs `keys`, e.g. \"ctrl+s\", \"Return\" or \"ctrl+a Delete\"",
                    ));
                }
                Action::Press {
                    keys: Keys::parse(&keys).map_err(|err| Error::bad_argument(err.to_string()))?,
                }
            }
            ActionName::Scroll => {
                let direction = self.direction.ok_or_else(|| {
                    Error::bad_argument("`scroll` needs `direction`: up, down, left or right")
                })?;
                let amount = self.amount.unwrap_or(3);
                if !(1..=MAX_SCROLL).contains(&amount) {
                    return Err(Error::bad_argument(format!(
                        "`amount` is {amount}; give 1–{MAX_SCROLL} wheel clicks"
                    )));
                }
                Action::Scroll {
                    place: place(false)?,
                    direction,
                    amount,
                }
            }
            ActionName::Drag => {
                let spot = |name: &str, spot: &Option<Spot>| -> Result<Place> {
                    match spot {
                        None => Err(Error::bad_argument(format!(
                            "`drag` needs `{name}`: a ref \"eN\" or a point [x, y] 0–1000 of the surface"
                        ))),
                        Some(Spot::Ref(text)) => RefId::parse(text).map(Place::Ref),
                        Some(Spot::Point([x, y])) => Ok(Place::Point {
                            x: check_unit(&format!("{name}[0]"), *x)?,
                            y: check_unit(&format!("{name}[1]"), *y)?,
                        }),
                    }
                };
                let via = self.via.clone().unwrap_or_default();
                if via.len() > MAX_VIA {
                    return Err(Error::bad_argument(format!(
                        "`via` has {} points, more than {MAX_VIA}; give fewer points along the path",
                        via.len()
                    )));
                }
                for (i, [x, y]) in via.iter().enumerate() {
                    check_unit(&format!("via[{i}][0]"), *x)?;
                    check_unit(&format!("via[{i}][1]"), *y)?;
                }
                let duration_ms = self.duration_ms.unwrap_or(0);
                if duration_ms > MAX_DRAG_MS {
                    return Err(Error::bad_argument(format!(
                        "`duration_ms` is {duration_ms}; give 0–{MAX_DRAG_MS}"
                    )));
                }
                Action::Drag {
                    from: spot("from", &self.from)?,
                    to: spot("to", &self.to)?,
                    via,
                    duration_ms,
                    button: self.button.unwrap_or(MouseButton::Left),
                    modifiers,
                }
            }
            ActionName::Zoom => {
                let region = self.region.ok_or_else(|| {
                    Error::bad_argument(
                        "`zoom` needs `region`: [x0, y0, x1, y1], 0–1000 of the surface",
                    )
                })?;
                Action::Zoom { region }
            }
            ActionName::Hover => Action::Hover {
                place: place(true)?.expect("required place"),
            },
            ActionName::Down | ActionName::Up => Action::Button {
                down: name == ActionName::Down,
                place: place(false)?,
                button: self.button.unwrap_or(MouseButton::Left),
                modifiers,
            },
            ActionName::Wait => Action::Wait(self.wait_spec(target)?),
            ActionName::Batch => Action::Batch(self.batch_steps()?),
            ActionName::SetValue => {
                let value = self.value.clone().ok_or_else(|| {
                    Error::bad_argument(
                        "`set_value` needs `value`: text for a text field or combo box, a number for a slider or spin button",
                    )
                })?;
                // `x`/`y` are refused above: a value is set on an element, never at a point.
                if element.is_none() && find.is_none() {
                    return Err(Error::bad_argument(
                        "`set_value` needs the element: a `ref` from observe, or a `find` {\"name\", \"role\"}",
                    ));
                }
                let place = place(true)?.expect("required place");
                if let ValueArg::Text(text) = &value
                    && text.chars().count() > MAX_TEXT_CHARS
                {
                    return Err(Error::bad_argument(format!(
                        "`value` has more than {MAX_TEXT_CHARS} characters; set a shorter text"
                    )));
                }
                Action::SetValue { place, value }
            }
            ActionName::Select => {
                let path = self.path.clone().unwrap_or_default();
                if path.is_empty() || path.len() > MAX_MENU_DEPTH {
                    return Err(Error::bad_argument(format!(
                        "`select` needs `path`: 1–{MAX_MENU_DEPTH} menu item names from the menu bar down, e.g. [\"File\", \"Save As…\"]"
                    )));
                }
                if let Some(i) = path.iter().position(|p| p.trim().is_empty()) {
                    return Err(Error::bad_argument(format!(
                        "`path[{i}]` is empty; give each menu item's name as observe shows it"
                    )));
                }
                Action::Select { path }
            }
            ActionName::Launch => {
                let app = self.app.clone().unwrap_or_default();
                if app.trim().is_empty() {
                    return Err(Error::bad_argument(
                        "`launch` needs `app`: a desktop-file id or a name from apps {\"installed\": true}",
                    ));
                }
                Action::Launch {
                    app: app.trim().to_owned(),
                    focus: self.focus.unwrap_or(true),
                }
            }
            ActionName::Focus => Action::Focus,
            ActionName::Close => Action::Close,
            ActionName::Kill => Action::Kill,
            ActionName::Window => {
                if self.state.is_none() && self.position.is_none() && self.size.is_none() {
                    return Err(Error::bad_argument(
                        "`window` needs `state` (normal, minimized, maximized), `position` [x, y] or `size` [width, height]",
                    ));
                }
                if let Some([w, h]) = self.size
                    && (w == 0 || h == 0 || w > MAX_WINDOW_PIXELS || h > MAX_WINDOW_PIXELS)
                {
                    return Err(Error::bad_argument(format!(
                        "`size` is [{w}, {h}]; give a width and height of 1–{MAX_WINDOW_PIXELS} pixels"
                    )));
                }
                if self.state == Some(WindowState::Minimized)
                    && (self.position.is_some() || self.size.is_some())
                {
                    return Err(Error::bad_argument(
                        "a minimized window cannot be moved or resized; give `state` \"normal\" with `position` or `size`",
                    ));
                }
                Action::Window(WindowSpec {
                    state: self.state,
                    position: self.position,
                    size: self.size,
                })
            }
            ActionName::Recall => {
                let clean = |field: &str, text: &Option<String>| -> Result<Option<String>> {
                    match text.as_deref().map(str::trim) {
                        None => Ok(None),
                        Some("") => Err(Error::bad_argument(format!(
                            "`{field}` is empty; leave it out to recall more widely"
                        ))),
                        Some(t) if t.chars().count() > MAX_QUERY_CHARS => Err(Error::bad_argument(
                            format!("`{field}` is longer than {MAX_QUERY_CHARS} characters"),
                        )),
                        Some(t) => Ok(Some(t.to_owned())),
                    }
                };
                let recall = Recall {
                    app: clean("app", &self.app)?,
                    window: clean("window", &self.window)?,
                    query: clean("query", &self.query)?,
                };
                if recall.window.is_some() && recall.app.is_none() {
                    return Err(Error::bad_argument(
                        "`window` goes with `app`: recall {\"app\": \"Mousepad\", \"window\": \"Preferences\"}",
                    ));
                }
                Action::Recall(recall)
            }
            ActionName::Forget => match (self.app.as_deref().map(str::trim), self.all) {
                (Some(app), None) if !app.is_empty() => Action::Forget {
                    app: Some(app.to_owned()),
                },
                (None, Some(true)) => Action::Forget { app: None },
                _ => {
                    return Err(Error::bad_argument(
                        "`forget` needs either `app` (an app's name as recall lists it) or `all: true`, not both",
                    ));
                }
            },
            ActionName::Clipboard => match self.text.clone() {
                None => Action::ReadClipboard,
                Some(text) => {
                    if text.chars().count() > MAX_CLIPBOARD_CHARS {
                        return Err(Error::bad_argument(format!(
                            "`text` has more than {MAX_CLIPBOARD_CHARS} characters; put less on the clipboard"
                        )));
                    }
                    Action::WriteClipboard { text }
                }
            },
        };
        let needs_window = matches!(
            action,
            Action::Focus | Action::Close | Action::Kill | Action::Window(_)
        );
        if needs_window && !matches!(target, Some(TargetId::Window(_) | TargetId::App(_))) {
            return Err(Error::bad_argument(format!(
                "`{action_name}` needs `target`: a window id \"wN\" from `windows` or an app id \"aN\" from `apps`"
            )));
        }
        Ok(Call {
            name,
            action,
            target,
        })
    }

    fn wait_spec(&self, target: Option<TargetId>) -> Result<WaitSpec> {
        let conditions = match self.until.clone() {
            None => {
                return Err(Error::bad_argument(
                    "`wait` needs `until`: e.g. {\"name\": \"Save\", \"role\": \"button\"}, {\"title\": \"Done\"}, {\"new_window\": true} or {\"stable_ms\": 500}",
                ));
            }
            Some(Conditions::One(one)) => vec![*one],
            Some(Conditions::All(all)) => all,
        };
        if conditions.is_empty() || conditions.len() > MAX_CONDITIONS {
            return Err(Error::bad_argument(format!(
                "`until` has {} conditions; give 1–{MAX_CONDITIONS}",
                conditions.len()
            )));
        }
        let conditions = conditions
            .iter()
            .enumerate()
            .map(|(i, c)| {
                c.validate().map_err(|err| {
                    Error::bad_argument(format!("`until` condition {}: {}", i + 1, err.message))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if target == Some(TargetId::Screen)
            && conditions
                .iter()
                .any(|c| matches!(c, Condition::TitleContains(_) | Condition::Gone))
        {
            return Err(Error::bad_argument(
                "the screen has no title and cannot close; wait on a window (`target` \"wN\")",
            ));
        }
        let timeout_ms = self.timeout_ms.unwrap_or(DEFAULT_WAIT_MS);
        if !(1..=MAX_WAIT_MS).contains(&timeout_ms) {
            return Err(Error::bad_argument(format!(
                "`timeout_ms` is {timeout_ms}; give 1–{MAX_WAIT_MS} (default {DEFAULT_WAIT_MS}); for longer, wait again"
            )));
        }
        let interval_ms = self.interval_ms.unwrap_or(DEFAULT_INTERVAL_MS);
        if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&interval_ms) {
            return Err(Error::bad_argument(format!(
                "`interval_ms` is {interval_ms}; give {MIN_INTERVAL_MS}–{MAX_INTERVAL_MS} (default {DEFAULT_INTERVAL_MS})"
            )));
        }
        Ok(WaitSpec {
            conditions,
            timeout_ms,
            interval_ms,
        })
    }

    /// Every step is parsed before any runs: one bad step and nothing runs.
    fn batch_steps(&self) -> Result<Vec<Call>> {
        let steps = self.steps.clone().unwrap_or_default();
        if steps.is_empty() || steps.len() > MAX_STEPS {
            return Err(Error::bad_argument(format!(
                "`steps` has {} steps; give 1–{MAX_STEPS}, each the arguments of one action",
                steps.len()
            )));
        }
        steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| {
                let call = args_at(step, &format!("steps[{i}]."))
                    .and_then(DesktopArgs::validate)
                    .map_err(|err| {
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
            .collect()
    }

    fn observe_spec(&self) -> Result<ObserveSpec> {
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(Error::bad_argument(format!(
                "`limit` is {limit}; give 1–{MAX_LIMIT} elements (default {DEFAULT_LIMIT}), or a `query` to list only what you look for"
            )));
        }
        if let Some(depth) = self.max_depth.filter(|d| *d > MAX_DEPTH) {
            return Err(Error::bad_argument(format!(
                "`max_depth` is {depth}; give 0–{MAX_DEPTH} (0 lists only the window itself), or leave it out to list every depth"
            )));
        }
        let query = match self.query.as_deref().map(str::trim) {
            None => None,
            Some("") => {
                return Err(Error::bad_argument(
                    "`query` is empty; give text to find in element names, roles or values, or leave it out to list everything",
                ));
            }
            Some(text) => {
                let chars = text.chars().count();
                if chars > MAX_QUERY_CHARS {
                    return Err(Error::bad_argument(format!(
                        "`query` has {chars} characters, more than {MAX_QUERY_CHARS}; give a shorter part of the text you look for"
                    )));
                }
                Some(text.to_string())
            }
        };
        Ok(ObserveSpec {
            limit: limit as usize,
            query,
            max_depth: self.max_depth.map(|d| d as usize),
            hidden: self.hidden.unwrap_or(false),
            points: self.points.unwrap_or(false),
            since: self.since.unwrap_or(false),
            ocr: self.ocr.unwrap_or(false),
        })
    }

    fn present_fields(&self) -> Vec<&'static str> {
        [
            ("target", self.target.is_some()),
            ("ref", self.element.is_some()),
            ("x", self.x.is_some()),
            ("y", self.y.is_some()),
            ("region", self.region.is_some()),
            ("text", self.text.is_some()),
            ("replace", self.replace.is_some()),
            ("offset", self.offset.is_some()),
            ("keys", self.keys.is_some()),
            ("direction", self.direction.is_some()),
            ("amount", self.amount.is_some()),
            ("from", self.from.is_some()),
            ("to", self.to.is_some()),
            ("button", self.button.is_some()),
            ("count", self.count.is_some()),
            ("modifiers", self.modifiers.is_some()),
            ("limit", self.limit.is_some()),
            ("query", self.query.is_some()),
            ("max_depth", self.max_depth.is_some()),
            ("hidden", self.hidden.is_some()),
            ("points", self.points.is_some()),
            ("since", self.since.is_some()),
            ("ocr", self.ocr.is_some()),
            ("find", self.find.is_some()),
            ("via", self.via.is_some()),
            ("duration_ms", self.duration_ms.is_some()),
            ("value", self.value.is_some()),
            ("path", self.path.is_some()),
            ("app", self.app.is_some()),
            ("focus", self.focus.is_some()),
            ("installed", self.installed.is_some()),
            ("state", self.state.is_some()),
            ("position", self.position.is_some()),
            ("size", self.size.is_some()),
            ("until", self.until.is_some()),
            ("timeout_ms", self.timeout_ms.is_some()),
            ("interval_ms", self.interval_ms.is_some()),
            ("steps", self.steps.is_some()),
            ("window", self.window.is_some()),
            ("all", self.all.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, present)| present.then_some(name))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use serde_json::json;

    fn parse(v: serde_json::Value) -> Result<Call> {
        parse_call(v)
    }

    #[test]
    fn the_action_table_lists_every_action_once_in_its_own_order_under_its_serde_name() {
        for (index, spec) in ACTIONS.iter().enumerate() {
            assert_eq!(spec.name as usize, index, "{} is out of order", spec.text);
            assert_eq!(
                serde_json::to_value(spec.name).unwrap(),
                json!(spec.text),
                "the table's name is the one agents send"
            );
            let call = parse(json!({"action": spec.text})).map(|call| call.name());
            if let Ok(name) = call {
                assert_eq!(name, spec.text);
            }
        }
        let schema = serde_json::to_value(schemars::schema_for!(DesktopArgs)).unwrap();
        let properties = schema["properties"].as_object().expect("properties");
        for spec in &ACTIONS {
            for field in spec.fields {
                assert!(
                    properties.contains_key(*field),
                    "{} takes `{field}`, which the arguments do not have",
                    spec.text
                );
            }
        }
    }

    /// The policy checks an action against what the table says it reaches: an action that
    /// changes the desktop and reached nothing would pass every `deny` rule.
    #[test]
    fn every_action_that_changes_the_desktop_reaches_what_its_fields_name() {
        for spec in &ACTIONS {
            let names_a_place = ["ref", "find", "x", "from"]
                .iter()
                .any(|field| spec.fields.contains(field));
            match spec.changes {
                Changes::Desktop => {
                    assert_ne!(spec.reaches, Reaches::Nothing, "{}", spec.text);
                    let by_place = matches!(
                        spec.reaches,
                        Reaches::Place | Reaches::PlaceOrFocus | Reaches::PlaceOrPointer
                    );
                    assert_eq!(by_place, names_a_place, "{}", spec.text);
                }
                _ => assert_eq!(spec.reaches, Reaches::Nothing, "{}", spec.text),
            }
        }
    }

    #[test]
    fn a_batch_with_a_key_no_keyboard_has_is_refused_whole() {
        let err = parse(json!({"action": "batch", "steps": [
            {"action": "press", "keys": "ctrl+s"},
            {"action": "press", "keys": "ctrl+nosuchkey"},
        ]}))
        .unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument);
        assert!(
            err.message
                .starts_with("step 1 is not valid, so no step ran: unknown key \"nosuchkey\""),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_text_condition_waits_for_words_on_the_pixels_present_or_absent_only() {
        let wait = |until: serde_json::Value| {
            parse(json!({"action": "wait", "until": until})).map(|call| match call.action {
                Action::Wait(spec) => spec.conditions,
                other => panic!("not a wait: {other:?}"),
            })
        };
        assert_eq!(
            wait(json!({"text": " Saved "})).unwrap(),
            [Condition::TextShown {
                text: "Saved".into(),
                absent: false
            }]
        );
        assert_eq!(
            wait(json!({"text": "Saved", "is": "absent"})).unwrap(),
            [Condition::TextShown {
                text: "Saved".into(),
                absent: true
            }]
        );
        for bad in [
            json!({"text": ""}),
            json!({"text": "Saved", "is": "enabled"}),
            json!({"text": "Saved", "value": "x"}),
            json!({"text": "Saved", "name": "Save"}),
        ] {
            let err = wait(bad.clone()).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}: {}", err.message);
        }
        let observe = parse(json!({"action": "observe", "ocr": true})).unwrap();
        assert!(matches!(observe.action, Action::Observe(spec) if spec.ocr));
    }

    #[test]
    fn refs_and_targets_parse_strictly() {
        assert_eq!(RefId::parse("e12").unwrap(), RefId(12));
        for bad in ["e0", "e", "E1", "e01", "12", "e-1", "e1x"] {
            let err = RefId::parse(bad).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
            assert!(
                err.message.contains("is not an element ref"),
                "{bad}: {}",
                err.message
            );
        }
        assert_eq!(TargetId::parse("w3").unwrap(), TargetId::Window(3));
        assert_eq!(TargetId::parse("a2").unwrap(), TargetId::App(2));
        assert_eq!(TargetId::parse("screen").unwrap(), TargetId::Screen);
        for bad in ["w0", "x3", "", "Screen", "w", "a-1"] {
            let err = TargetId::parse(bad).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
            assert!(
                err.message.contains("is not a surface"),
                "{bad}: {}",
                err.message
            );
        }
    }

    #[test]
    fn click_needs_exactly_one_place() {
        let ok = parse(json!({"action": "click", "ref": "e3"})).unwrap();
        assert!(matches!(
            ok.action,
            Action::Click {
                place: Place::Ref(RefId(3)),
                ..
            }
        ));
        for bad in [
            json!({"action": "click"}),
            json!({"action": "click", "ref": "e3", "x": 5}),
            json!({"action": "click", "x": 5}),
            json!({"action": "click", "x": 5, "y": 1001}),
            json!({"action": "click", "ref": "e3", "count": 4}),
        ] {
            let err = parse(bad.clone()).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
        }
    }

    #[test]
    fn unknown_and_ignored_arguments_are_refused() {
        let err = parse(json!({"action": "observe", "bogus": 1})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument);
        assert!(err.message.contains("bogus"), "{}", err.message);
        let err = parse(json!({"action": "press", "keys": "a", "text": "x"})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument);
        assert!(
            err.message.contains("does not take `text`"),
            "{}",
            err.message
        );
        let err = parse(json!({"action": "fly"})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument);
        let err = parse(json!({"action": "click", "x": "5", "y": 5})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument);
    }

    #[test]
    fn an_argument_of_several_forms_names_the_forms_and_the_key_inside_it() {
        let message = |v| parse(v).unwrap_err().message;
        let drag = message(json!({"action": "drag", "from": {"x": 3}, "to": "e2"}));
        assert!(
            drag.contains("`from`: expected a ref such as \"e4\" or a point [x, y] 0–1000 of the surface, not an object"),
            "{drag}"
        );
        assert!(!drag.contains("untagged"), "{drag}");
        let short = message(json!({"action": "drag", "from": [3], "to": "e2"}));
        assert!(
            short.contains("a point is two numbers [x, y] 0–1000, not 1 item"),
            "{short}"
        );
        let value = message(json!({"action": "set_value", "ref": "e1", "value": true}));
        assert!(
            value.contains("`value`: expected a text or a number, not the boolean true"),
            "{value}"
        );
        let until = message(json!({"action": "wait", "until": [{"name": "a"}, {"txt": "b"}]}));
        assert!(
            until.contains("`until[1].txt`: unknown field `txt`"),
            "{until}"
        );
        let inside = message(json!({"action": "wait", "until": {"txt": "b"}}));
        assert!(
            inside.contains("`until.txt`: unknown field `txt`"),
            "{inside}"
        );
        let one = message(json!({"action": "wait", "until": "Saved"}));
        assert!(one.contains("expected one condition as an object"), "{one}");
        assert!(parse(json!({"action": "drag", "from": [1, 2], "to": "e2"})).is_ok());
        assert!(parse(json!({"action": "set_value", "ref": "e1", "value": 4.5})).is_ok());
        assert!(parse(json!({"action": "wait", "until": {"name": "Saved"}})).is_ok());
    }

    #[test]
    fn a_bad_key_is_named_by_its_path() {
        let message = |v| parse(v).unwrap_err().message;
        assert_eq!(
            message(json!({"action": "click", "ref": 4})),
            "the arguments do not fit the desktop tool: `ref`: invalid type: integer `4`, expected a string; see the tool's input schema"
        );
        let nested = message(json!({"action": "click", "find": {"name": "Save", "rol": "button"}}));
        assert!(
            nested.contains("`find.rol`: unknown field `rol`"),
            "{nested}"
        );
        let step = message(json!({"action": "batch", "steps": [
            {"action": "apps"},
            {"action": "press", "keys": "a"},
            {"action": "click", "ref": ["e4"]},
        ]}));
        assert!(
            step.starts_with("step 2 is not valid, so no step ran: the arguments do not fit the desktop tool: `steps[2].ref`: invalid type: sequence"),
            "{step}"
        );
        let unknown =
            message(json!({"action": "batch", "steps": [{"action": "apps", "bogus": 1}]}));
        assert!(
            unknown.contains("`steps[0].bogus`: unknown field `bogus`"),
            "{unknown}"
        );
        let whole = message(json!({"action": "batch", "steps": ["apps"]}));
        assert!(
            whole.contains("`steps[0]`: invalid type: string \"apps\""),
            "{whole}"
        );
        assert!(
            message(json!("observe"))
                .starts_with("the arguments do not fit the desktop tool: invalid type: string")
        );
    }

    #[test]
    fn text_is_bounded_and_never_empty() {
        let refused = |text: String, why: &str| {
            let err = parse(json!({"action": "type", "text": text})).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{text:?}");
            assert!(err.message.contains(why), "{text:?}: {}", err.message);
        };
        refused(String::new(), "needs a non-empty `text`");
        refused("a".repeat(MAX_TEXT_CHARS + 1), "more than 10000");
        refused("a\u{7}b".into(), "the control character U+0007");
        assert!(parse(json!({"action": "type", "text": "héllo\nwörld"})).is_ok());
    }

    #[test]
    fn drag_takes_refs_or_points() {
        let call = parse(json!({"action": "drag", "from": "e2", "to": [10, 990]})).unwrap();
        assert_eq!(
            call.action,
            Action::Drag {
                from: Place::Ref(RefId(2)),
                to: Place::Point { x: 10.0, y: 990.0 },
                via: vec![],
                duration_ms: 0,
                button: MouseButton::Left,
                modifiers: vec![],
            }
        );
        for (bad, why) in [
            (json!({"action": "drag", "from": "e2"}), "`drag` needs `to`"),
            (
                json!({"action": "drag", "from": "x", "to": "e1"}),
                "\"x\" is not an element ref",
            ),
        ] {
            let err = parse(bad.clone()).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
            assert!(err.message.contains(why), "{bad}: {}", err.message);
        }
    }
}
