//! `ACTIONS`, the one table of actions: each one's name, fields, what it changes, what it
//! reaches for the policy and what the audit log keeps of it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
