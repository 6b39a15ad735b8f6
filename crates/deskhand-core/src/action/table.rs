//! What a row of the table of actions says of its action: its name, fields, what it changes,
//! what it reaches for the policy and what the audit log keeps of it. Each action's file in
//! `actions/` holds its row; `actions::ACTIONS` gathers them.

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
