//! The `desktop` tool's arguments, and their validation into one typed [`Action`].
//!
//! Validation is complete before anything runs: a call that fails here changed nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::coords::check_unit;
use crate::error::{Error, Result};
use crate::model::{Modifier, MouseButton, ScrollDirection};

/// Typed text longer than this is refused: an agent that means more should send it in parts.
pub const MAX_TEXT_CHARS: usize = 10_000;
pub const MAX_SCROLL: u32 = 50;
pub const MAX_CLICKS: u32 = 3;
/// `observe` lists at most this many elements unless `limit` says otherwise.
pub const DEFAULT_LIMIT: u32 = 300;
pub const MAX_LIMIT: u32 = 5_000;
pub const MAX_DEPTH: u32 = 100;
pub const MAX_QUERY_CHARS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ActionName {
    Apps,
    Windows,
    Observe,
    Click,
    Type,
    Press,
    Scroll,
    Drag,
    Screenshot,
    Zoom,
}

impl ActionName {
    pub const ALL: [ActionName; 10] = [
        ActionName::Apps,
        ActionName::Windows,
        ActionName::Observe,
        ActionName::Click,
        ActionName::Type,
        ActionName::Press,
        ActionName::Scroll,
        ActionName::Drag,
        ActionName::Screenshot,
        ActionName::Zoom,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActionName::Apps => "apps",
            ActionName::Windows => "windows",
            ActionName::Observe => "observe",
            ActionName::Click => "click",
            ActionName::Type => "type",
            ActionName::Press => "press",
            ActionName::Scroll => "scroll",
            ActionName::Drag => "drag",
            ActionName::Screenshot => "screenshot",
            ActionName::Zoom => "zoom",
        }
    }
}

/// One end of a drag: a ref such as `"e4"`, or a point `[x, y]` 0–1000 of the surface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Spot {
    Ref(String),
    Point([f64; 2]),
}

/// Arguments of the `desktop` tool. Which ones an action takes is checked before anything runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DesktopArgs {
    /// What to do: apps, windows, observe, click, type, press, scroll, drag, screenshot, zoom.
    pub action: Option<ActionName>,
    /// Surface: "screen", a window id "w3" or an app id "a2". Omit to use the current surface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Element ref from the latest observe, e.g. "e4".
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// Horizontal point, 0–1000 of the surface (0 left, 1000 right).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Vertical point, 0–1000 of the surface (0 top, 1000 bottom).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// zoom: [x0, y0, x1, y1], 0–1000 of the surface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<[f64; 4]>,
    /// type: the text to type (any Unicode; newlines press Return).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// press: key chords, space-separated, e.g. "ctrl+s", "Return", "ctrl+a Delete".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// scroll: up, down, left or right.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<ScrollDirection>,
    /// scroll: wheel clicks, 1–50 (default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<u32>,
    /// drag: start, a ref "eN" or a point [x, y].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Spot>,
    /// drag: end, a ref "eN" or a point [x, y].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<Spot>,
    /// click/drag: mouse button, left (default), middle or right.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    /// click: 1 (default), 2 for a double click, 3 for a triple click.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// click/drag: keys held during the action: shift, ctrl, alt, super.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Vec<Modifier>>,
    /// observe: list at most this many elements, 1–5000 (default 300).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// observe: list only elements whose name, role or value contains this text (any case), with their ancestors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// observe: list elements at most this deep, 0–100 (0: only the window).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u32>,
    /// observe: true to list hidden elements too, marked hidden.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    /// observe: true to print only what changed since the last observe of the same surface (+ added, - removed, ~ changed); refs of unchanged elements stay valid.
    #[serde(alias = "diff", skip_serializing_if = "Option::is_none")]
    pub since: Option<bool>,
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
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Place {
    Ref(RefId),
    Point { x: f64, y: f64 },
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
    /// Print only the changes since the last observe of the same surface.
    pub since: bool,
}

impl Default for ObserveSpec {
    fn default() -> Self {
        Self {
            limit: DEFAULT_LIMIT as usize,
            query: None,
            max_depth: None,
            hidden: false,
            since: false,
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
    Type {
        text: String,
        element: Option<RefId>,
    },
    Press {
        keys: String,
    },
    Scroll {
        place: Option<Place>,
        direction: ScrollDirection,
        amount: u32,
    },
    Drag {
        from: Place,
        to: Place,
        button: MouseButton,
        modifiers: Vec<Modifier>,
    },
    Screenshot,
    Zoom {
        region: [f64; 4],
    },
}

/// A validated call: the action and the surface it names, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub action: Action,
    pub target: Option<TargetId>,
}

impl Call {
    pub fn name(&self) -> &'static str {
        match self.action {
            Action::Apps => "apps",
            Action::Windows => "windows",
            Action::Observe(_) => "observe",
            Action::Click { .. } => "click",
            Action::Type { .. } => "type",
            Action::Press { .. } => "press",
            Action::Scroll { .. } => "scroll",
            Action::Drag { .. } => "drag",
            Action::Screenshot => "screenshot",
            Action::Zoom { .. } => "zoom",
        }
    }

    /// Whether the call changes anything on the desktop.
    pub fn actuates(&self) -> bool {
        matches!(
            self.action,
            Action::Click { .. }
                | Action::Type { .. }
                | Action::Press { .. }
                | Action::Scroll { .. }
                | Action::Drag { .. }
        )
    }
}

/// Parses raw JSON arguments: unknown keys and wrong types are bad arguments, not protocol errors.
pub fn parse_call(arguments: serde_json::Value) -> Result<Call> {
    let args: DesktopArgs = match serde_json::from_value(arguments.clone()) {
        Ok(args) => args,
        Err(err) => {
            // serde does not say which key was wrong; every key alone tells.
            let key = arguments.as_object().and_then(|map| {
                map.iter()
                    .find(|(key, value)| {
                        let alone = serde_json::json!({ key.as_str(): value });
                        serde_json::from_value::<DesktopArgs>(alone).is_err()
                    })
                    .map(|(key, _)| format!("`{key}`: "))
            });
            return Err(Error::bad_argument(format!(
                "the arguments do not fit the desktop tool: {}{err}; see the tool's input schema",
                key.unwrap_or_default()
            )));
        }
    };
    args.validate()
}

impl DesktopArgs {
    /// Checks that the action has what it needs and nothing it would ignore.
    pub fn validate(self) -> Result<Call> {
        let Some(name) = self.action else {
            return Err(Error::bad_argument(
                "`action` is missing; give one of apps, windows, observe, click, type, press, scroll, drag, screenshot, zoom",
            ));
        };
        let action_name = name.as_str();
        let present = self.present_fields();
        let allowed: &[&str] = match name {
            ActionName::Apps | ActionName::Windows => &[],
            ActionName::Observe => &["target", "limit", "query", "max_depth", "hidden", "since"],
            ActionName::Screenshot => &["target"],
            ActionName::Click => &["target", "ref", "x", "y", "button", "count", "modifiers"],
            ActionName::Type => &["target", "ref", "text"],
            ActionName::Press => &["keys"],
            ActionName::Scroll => &["target", "ref", "x", "y", "direction", "amount"],
            ActionName::Drag => &["target", "from", "to", "button", "modifiers"],
            ActionName::Zoom => &["target", "region"],
        };
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
        // A target only means something where the call acts at a place on it: typing and
        // scrolling without one go to the focus and the pointer, whatever the target.
        let placed = self.element.is_some() || self.x.is_some() || self.y.is_some();
        if self.target.is_some() && matches!(name, ActionName::Type | ActionName::Scroll) && !placed
        {
            return Err(Error::bad_argument(format!(
                "`{action_name}` takes `target` only together with `ref`{}; without them it goes to {}",
                if name == ActionName::Scroll {
                    " or `x`/`y`"
                } else {
                    ""
                },
                if name == ActionName::Scroll {
                    "where the pointer is"
                } else {
                    "the focused element"
                }
            )));
        }
        let target = self.target.as_deref().map(TargetId::parse).transpose()?;
        let element = self.element.as_deref().map(RefId::parse).transpose()?;
        let place = |required: bool| -> Result<Option<Place>> {
            match (element, self.x, self.y) {
                (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(Error::bad_argument(format!(
                    "`{action_name}` takes either `ref` or `x`/`y`, not both"
                ))),
                (Some(r), None, None) => Ok(Some(Place::Ref(r))),
                (None, Some(x), Some(y)) => Ok(Some(Place::Point {
                    x: check_unit("x", x)?,
                    y: check_unit("y", y)?,
                })),
                (None, Some(_), None) | (None, None, Some(_)) => Err(Error::bad_argument(format!(
                    "`{action_name}` needs both `x` and `y` (0–1000 of the surface)"
                ))),
                (None, None, None) if required => Err(Error::bad_argument(format!(
                    "`{action_name}` needs a `ref` from observe, or `x` and `y` (0–1000 of the surface)"
                ))),
                (None, None, None) => Ok(None),
            }
        };
        let modifiers = self.modifiers.clone().unwrap_or_default();
        let action = match name {
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
            ActionName::Type => {
                let text = self.text.clone().unwrap_or_default();
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
                Action::Type { text, element }
            }
            ActionName::Press => {
                let keys = self.keys.clone().unwrap_or_default();
                if keys.trim().is_empty() {
                    return Err(Error::bad_argument(
                        "`press` needs `keys`, e.g. \"ctrl+s\", \"Return\" or \"ctrl+a Delete\"",
                    ));
                }
                Action::Press { keys }
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
                Action::Drag {
                    from: spot("from", &self.from)?,
                    to: spot("to", &self.to)?,
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
        };
        Ok(Call { action, target })
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
            since: self.since.unwrap_or(false),
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
            ("since", self.since.is_some()),
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
    fn refs_and_targets_parse_strictly() {
        assert_eq!(RefId::parse("e12").unwrap(), RefId(12));
        for bad in ["e0", "e", "E1", "e01", "12", "e-1", "e1x"] {
            assert!(RefId::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(TargetId::parse("w3").unwrap(), TargetId::Window(3));
        assert_eq!(TargetId::parse("a2").unwrap(), TargetId::App(2));
        assert_eq!(TargetId::parse("screen").unwrap(), TargetId::Screen);
        for bad in ["w0", "x3", "", "Screen", "w", "a-1"] {
            assert!(TargetId::parse(bad).is_err(), "{bad}");
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
        assert!(err.message.contains("bogus"), "{}", err.message);
        let err = parse(json!({"action": "press", "keys": "a", "text": "x"})).unwrap_err();
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
    fn text_is_bounded_and_never_empty() {
        assert!(parse(json!({"action": "type", "text": ""})).is_err());
        let long = "a".repeat(MAX_TEXT_CHARS + 1);
        assert!(parse(json!({"action": "type", "text": long})).is_err());
        assert!(parse(json!({"action": "type", "text": "a\u{7}b"})).is_err());
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
                button: MouseButton::Left,
                modifiers: vec![],
            }
        );
        assert!(parse(json!({"action": "drag", "from": "e2"})).is_err());
        assert!(parse(json!({"action": "drag", "from": "x", "to": "e1"})).is_err());
    }
}
