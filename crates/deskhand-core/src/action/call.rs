//! A call once validated: the typed [`Action`] and what it names.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::keys::Keys;
use crate::memory::Recall;
use crate::model::{Modifier, MouseButton, Role, ScrollDirection};

use super::args::*;
use super::limits::*;
use super::table::*;

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
    /// A monitor, `m2`: its pixels, points 0–1000 of it.
    Monitor(u32),
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
            Some(("m", rest)) => number(rest).map(TargetId::Monitor),
            _ => None,
        };
        parsed.ok_or_else(|| {
            Error::bad_argument(format!(
                "`target` {text:?} is not a surface; use \"screen\", a window id like \"w3\" from `windows`, an app id like \"a2\" from `apps`, or a monitor id like \"m2\" from `windows`"
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
            TargetId::Monitor(n) => write!(f, "m{n}"),
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
                write!(f, "{} \"{}\"", role.as_str(), crate::text::escape(name))
            }
            (Some(role), None) => f.write_str(role.as_str()),
            (None, Some(name)) => write!(f, "\"{}\"", crate::text::escape(name)),
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
    /// The monitor's session id: `m2` is 2.
    pub monitor: Option<u32>,
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
