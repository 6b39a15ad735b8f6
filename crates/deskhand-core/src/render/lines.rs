//! What every step of rendering shares: a listed `Line`, a `Found` element with its place in
//! the tree, and the [`Rendered`] result with its refs and counts.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::{Node, Role, Tree, WindowKey};
use crate::session::{RefEntry, Seen};
use crate::text::{around, cut, escape, plural, thousands};

/// How much of an element's name a ref keeps: enough to tell it apart from its neighbours when
/// an action confirms the ref still names it.
pub const REF_NAME_CHARS: usize = 80;
pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_VALUE_CHARS: usize = 120;
/// The old name or value of a changed element shows at most this many characters.
pub const MAX_WAS_CHARS: usize = 40;

/// Every state a line can show.
pub(super) const STATE_NAMES: [&str; 11] = [
    "disabled",
    "focused",
    "checked",
    "unchecked",
    "pressed",
    "selected",
    "expanded",
    "collapsed",
    "modal",
    "hidden",
    "ocr",
];

/// One window's tree as it goes into an observation.
pub struct WindowTree<'a> {
    pub tree: &'a Tree,
    pub window: WindowKey,
    /// Shown on the window's root line when an observation covers several windows.
    pub label: Option<String>,
    /// The window's title as the observation's header shows it: a root line whose name only
    /// repeats it leaves the name out.
    pub title: Option<String>,
}

/// An element as the structured (JSON) form of an observation lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedElement {
    /// `None` only for a removed element that was never listed.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    pub depth: usize,
    pub role: &'static str,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<&'static str>,
    /// Center, 0–1000 of the surface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was: Option<Was>,
}

#[derive(Debug, Default)]
pub struct Rendered {
    /// The element lines, without the header.
    pub body: String,
    /// The refs this observation issued: the listed elements, or with `since` the whole tree.
    pub refs: BTreeMap<u32, RefEntry>,
    /// One per line of the body.
    pub elements: Vec<ListedElement>,
    pub names_cut: usize,
    pub values_cut: usize,
    /// Hidden elements not listed: exactly what `hidden: true` would add.
    pub hidden: usize,
    pub nodes: usize,
    /// Elements that had a ref issued: listed, or with `since` the whole tree.
    pub issued: usize,
    /// Lines there were before `limit` cut them.
    pub total: usize,
    pub limit: usize,
    pub max_depth: Option<usize>,
    /// Elements (with a query, matches; with `since`, changes) deeper than `max_depth`.
    pub below_depth: usize,
    /// The query as given and how many elements it matched.
    pub query: Option<(String, usize)>,
    /// `since`: `Some(None)` when there was no earlier observe of the surface to compare with.
    pub since: Option<Option<Changes>>,
    /// `since`: how long before this one the compared observation was made, in milliseconds.
    pub compared_ms: Option<u64>,
    /// The whole tree as this observation saw it, for the next `since`.
    pub seen: Vec<Seen>,
}

impl Rendered {
    /// How long ago the observation a `since` compares with was made, as the header says it.
    pub(super) fn compared_age(&self) -> String {
        match self.compared_ms {
            None => String::new(),
            Some(ms) if ms < 10_000 => " (under 10 s ago)".to_string(),
            Some(ms) if ms < 60_000 => format!(" ({} s ago)", ms / 1000),
            Some(ms) if ms < 3_600_000 => format!(" ({} min ago)", ms / 60_000),
            Some(ms) => format!(" ({} h ago)", ms / 3_600_000),
        }
    }

    /// The header's counts, e.g. `41 elements · 1 value cut to 120 chars · 12 hidden not
    /// listed`; `surface` names the surface as the header does (`w3`, `screen`).
    pub fn summary(&self, surface: &str) -> String {
        let mut parts = Vec::new();
        if let Some((query, matches)) = &self.query {
            parts.push(format!(
                "query \"{}\": {}",
                escape(query),
                plural(*matches, "match", "matches")
            ));
        }
        let changes = self.since.flatten();
        if changes.is_none() && self.total > self.elements.len() {
            parts.push(format!(
                "{} of {} elements listed (limit {}; pass limit or query to see more)",
                thousands(self.elements.len()),
                thousands(self.total),
                thousands(self.limit)
            ));
        } else {
            parts.push(plural(self.issued, "element", "elements"));
        }
        match self.since {
            Some(Some(changes)) if changes.total() == 0 => {
                parts.push(format!(
                    "no changes since the last observe of {surface}{}",
                    self.compared_age()
                ));
            }
            Some(Some(changes)) => {
                let mut text = format!(
                    "changes since the last observe of {surface}{}: {} added, {} removed, {} changed",
                    self.compared_age(),
                    changes.added,
                    changes.removed,
                    changes.changed
                );
                if self.total > self.elements.len() {
                    text.push_str(&format!(
                        "; first {} listed (limit {})",
                        thousands(self.elements.len()),
                        thousands(self.limit)
                    ));
                }
                parts.push(text);
            }
            Some(None) => parts.push(format!("no earlier observe of {surface} to compare with")),
            None => {}
        }
        if let (Some(depth), true) = (self.max_depth, self.below_depth > 0) {
            parts.push(format!(
                "{} below depth {depth} not listed",
                thousands(self.below_depth)
            ));
        }
        if self.names_cut > 0 {
            parts.push(format!(
                "{} cut to {MAX_NAME_CHARS} chars",
                plural(self.names_cut, "name", "names")
            ));
        }
        if self.values_cut > 0 {
            parts.push(format!(
                "{} cut to {MAX_VALUE_CHARS} chars",
                plural(self.values_cut, "value", "values")
            ));
        }
        if self.hidden > 0 {
            parts.push(format!("{} hidden not listed", thousands(self.hidden)));
        }
        parts.join(" · ")
    }
}

/// What a line shows of one element, whether found now or seen by an earlier observe.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Line {
    pub(super) key: String,
    pub(super) depth: usize,
    pub(super) role: Role,
    pub(super) name: String,
    pub(super) value: Option<String>,
    pub(super) states: Vec<&'static str>,
    pub(super) label: Option<String>,
    pub(super) point: Option<[u32; 2]>,
    /// Whether the text line shows `point`: the structured form always carries it.
    pub(super) point_shown: bool,
    /// The header shows the name (the window's title), so the text line leaves it out; the
    /// structured form keeps it.
    pub(super) name_in_header: bool,
}

impl Line {
    pub(super) fn hidden(&self) -> bool {
        self.states.contains(&"hidden")
    }

    pub(super) fn from_seen(seen: &Seen) -> Self {
        Line {
            key: seen.key.clone(),
            depth: seen.depth,
            role: seen.role,
            name: seen.name.clone(),
            value: seen.value.clone(),
            states: seen
                .states
                .iter()
                .filter_map(|s| STATE_NAMES.iter().find(|n| *n == s).copied())
                .collect(),
            label: seen.label.clone(),
            point: None,
            point_shown: false,
            name_in_header: false,
        }
    }

    pub(super) fn to_seen(&self) -> Seen {
        Seen {
            key: self.key.clone(),
            depth: self.depth,
            role: self.role,
            name: self.name.clone(),
            value: self.value.clone(),
            states: self.states.iter().map(|s| s.to_string()).collect(),
            label: self.label.clone(),
        }
    }

    /// Whether the query (lowercase) is in what the line shows.
    pub(super) fn shows(&self, query: &str) -> bool {
        self.role.as_str().contains(query)
            || self.name.to_lowercase().contains(query)
            || self
                .value
                .as_deref()
                .is_some_and(|v| v.to_lowercase().contains(query))
    }

    /// What changed from `old`, if anything a line shows did; old text is cut short, the line
    /// itself shows what is there now.
    pub(super) fn changed_from(&self, old: &Line) -> Option<Was> {
        let was = Was {
            name: (self.name != old.name).then(|| cut(&old.name, MAX_WAS_CHARS).0),
            value: (self.value != old.value)
                .then(|| old.value.as_deref().map(|v| cut(v, MAX_WAS_CHARS).0)),
            states: (self.states != old.states).then(|| old.states.clone()),
        };
        (was != Was::default()).then_some(was)
    }

    /// Writes `e4 button "Save" value="…" focused @50,10` after `prefix`, the point where
    /// `point_shown`.
    pub(super) fn write(&self, text: &mut String, prefix: &str, number: Option<u32>) {
        text.push_str(prefix);
        if let Some(number) = number {
            text.push_str(&format!("e{number} "));
        }
        text.push_str(self.role.as_str());
        if !self.name.is_empty() && !self.name_in_header {
            text.push_str(&format!(" \"{}\"", escape(&self.name)));
        }
        if let Some(label) = &self.label {
            text.push_str(&format!(" [{label}]"));
        }
        if self.role == Role::Password {
            text.push_str(" value=<hidden>");
        } else if let Some(value) = &self.value {
            // A number cannot be read as a line or an instruction, so it goes without the
            // quotes that fence the app's words (a slider's `value=50`).
            if is_plain_number(value) {
                text.push_str(&format!(" value={value}"));
            } else {
                text.push_str(&format!(" value=\"{}\"", escape(value)));
            }
        }
        // A check box, radio button or toggle is checked or not, so its role already says
        // what "unchecked" would: it shows only "checked". An item that may or may not be
        // checkable (a menu item) still says both.
        let checkable_by_role = matches!(self.role, Role::Check | Role::Radio | Role::Toggle);
        for state in &self.states {
            if checkable_by_role && *state == "unchecked" {
                continue;
            }
            text.push(' ');
            text.push_str(state);
        }
        if let Some([x, y]) = self.point.filter(|_| self.point_shown) {
            text.push_str(&format!(" @{x},{y}"));
        }
    }

    pub(super) fn listed(
        &self,
        number: Option<u32>,
        change: Option<Change>,
        was: Option<Was>,
    ) -> ListedElement {
        ListedElement {
            reference: number.map(|n| format!("e{n}")),
            change,
            depth: self.depth,
            role: self.role.as_str(),
            name: self.name.clone(),
            value: self.value.clone(),
            states: self.states.clone(),
            point: self.point,
            was,
        }
    }
}

/// `50`, `-3`, `0.25`: digits, at most one point between them, and a leading minus.
fn is_plain_number(value: &str) -> bool {
    let digits = value.strip_prefix('-').unwrap_or(value);
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    match digits.split_once('.') {
        Some((whole, fraction)) => all_digits(whole) && all_digits(fraction),
        None => all_digits(digits),
    }
}

/// An element found in the current trees.
pub(super) struct Found<'a> {
    pub(super) node: &'a Node,
    pub(super) window: WindowKey,
    pub(super) line: Line,
    pub(super) name_cut: bool,
    pub(super) value_cut: bool,
}

impl Found<'_> {
    /// Whether the query (lowercase) is in the element's full name, role or value; a
    /// password's value is never looked at.
    pub(super) fn matches(&self, query: &str) -> bool {
        let node = self.node;
        node.role.as_str().contains(query)
            || node.name.to_lowercase().contains(query)
            || (node.role != Role::Password
                && node
                    .value
                    .as_deref()
                    .is_some_and(|v| v.to_lowercase().contains(query)))
    }

    /// The line as a query shows it: where the query is in a long value past what the line
    /// shows, the value shows the part around it.
    pub(super) fn line_for(&self, query: &str) -> Cow<'_, Line> {
        let shown = self
            .line
            .value
            .as_deref()
            .is_some_and(|v| v.to_lowercase().contains(query));
        let around = match (&self.node.value, self.node.role) {
            (_, Role::Password) => None,
            (Some(full), _) if self.value_cut && !shown => around(full, query, MAX_VALUE_CHARS),
            _ => None,
        };
        match around {
            Some(value) => Cow::Owned(Line {
                value: Some(value),
                ..self.line.clone()
            }),
            None => Cow::Borrowed(&self.line),
        }
    }

    pub(super) fn entry(&self) -> RefEntry {
        let node = self.node;
        RefEntry {
            handle: node.handle.clone(),
            window: self.window,
            role: node.role,
            name: cut(&node.name, REF_NAME_CHARS).0,
            bounds: node.bounds,
        }
    }
}

pub(super) fn issue(out: &mut Rendered, found: &Found<'_>, number: u32) {
    out.refs.insert(number, found.entry());
}

pub(super) fn count_cuts(out: &mut Rendered, found: &Found<'_>) {
    out.names_cut += found.name_cut as usize;
    out.values_cut += found.value_cut as usize;
}

/// How an element changed since the last observe of its surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

impl Change {
    pub(super) fn prefix(self) -> &'static str {
        match self {
            Change::Added => "+ ",
            Change::Removed => "- ",
            Change::Changed => "~ ",
        }
    }
}

/// What a changed element showed before, field by field; only the fields that changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Was {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `Some(None)`: it had no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<Vec<&'static str>>,
}

/// The counts of a `since` observation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Changes {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
}

impl Changes {
    pub(super) fn total(&self) -> usize {
        self.added + self.removed + self.changed
    }
}
