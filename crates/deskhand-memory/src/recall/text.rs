//! The pieces answers are made of: app text quoted as `observe` shows it, steps, routes and
//! coverage as lines, and their structured (JSON) forms.

use deskhand_core::memory::Recalled;
use deskhand_core::render::{MAX_NAME_CHARS, cut, escape, plural, thousands};
use serde_json::{Value, json};

use super::routing::Route;
use super::{Act, App, Coverage, Edge, Reader, Win};
use crate::time::{ago, iso};

/// Controls named on a line about what a step made appear.
const SHOWS_NAMED: usize = 4;
/// Windows named when listing where a window is entered from or which windows match.
const WINDOWS_NAMED: usize = 3;

impl Reader<'_> {
    pub(super) fn edge_line(&self, edge: &Edge) -> String {
        format!(
            "{} -> {} · {}× · {}",
            act_text(&edge.act),
            effect_text(edge, true),
            edge.count,
            ago(edge.last_seen, self.now)
        )
    }

    pub(super) fn edge_json(&self, edge: &Edge) -> Value {
        let mut value = json!({
            "from": { "id": edge.from.0, "title": edge.from.1 },
            "step": act_json(&edge.act),
            "count": edge.count,
            "last_seen": iso(edge.last_seen),
        });
        match &edge.to {
            Some((id, title)) => value["to"] = json!({ "id": id, "title": title }),
            None => {
                value["shows"] = edge
                    .shows
                    .iter()
                    .map(|(role, name)| json!({ "role": role, "name": name }))
                    .collect();
            }
        }
        value
    }

    pub(super) fn app_json(&self, app: &App) -> Value {
        json!({
            "name": app.name,
            "windows": app.windows,
            "first_seen": iso(app.first_seen),
            "last_seen": iso(app.last_seen),
        })
    }

    pub(super) fn window_json(&self, window: &Win) -> Value {
        json!({
            "id": window.id,
            "app": window.app,
            "title": window.title,
            "first_seen": iso(window.first_seen),
            "last_seen": iso(window.last_seen),
            "times_seen": window.times_seen,
            "controls": window.controls,
            "controls_used": window.used,
            "acted_in": window.acted_in,
            "way_in": window.way_in,
        })
    }
}

impl Coverage {
    pub(super) fn line(&self) -> String {
        format!(
            "coverage: {} of {} known controls ever used · {} of {} never acted in · {} with no \
             recorded way in · {} seen once · {} recorded",
            thousands(self.controls_used),
            thousands(self.controls),
            thousands(self.never_acted_in),
            plural(self.windows, "window", "windows"),
            thousands(self.no_way_in),
            thousands(self.seen_once),
            plural(self.transitions, "step", "steps")
        )
    }

    pub(super) fn json(&self) -> Value {
        json!({
            "windows": self.windows,
            "windows_never_acted_in": self.never_acted_in,
            "windows_seen_once": self.seen_once,
            "windows_without_way_in": self.no_way_in,
            "controls": self.controls,
            "controls_used": self.controls_used,
            "transitions": self.transitions,
        })
    }
}

pub(super) fn answer(lines: Vec<String>, data: Value) -> Recalled {
    let mut text = lines.join("\n");
    text.push('\n');
    Recalled { text, data }
}

/// App text in quotes, escaped and cut like `observe` shows it: it can never pass for structure.
pub(super) fn quote(text: &str) -> String {
    format!("\"{}\"", escape(&cut(text, MAX_NAME_CHARS).0))
}

pub(super) fn path_text(path: &[String]) -> String {
    format!(
        "[{}]",
        path.iter()
            .map(|item| quote(item))
            .collect::<Vec<_>>()
            .join(",")
    )
}

pub(super) fn act_text(act: &Act) -> String {
    match act {
        Act::Click { role, name } => format!("click {role} {}", quote(name)),
        Act::Select(path) => format!("select {}", path_text(path)),
    }
}

fn act_json(act: &Act) -> Value {
    match act {
        Act::Click { role, name } => {
            json!({ "action": "click", "find": { "name": name, "role": role } })
        }
        Act::Select(path) => json!({ "action": "select", "path": path }),
    }
}

/// `#4 "Preferences"` (with its id where windows are listed), or what appeared.
fn effect_text(edge: &Edge, with_id: bool) -> String {
    match &edge.to {
        Some((id, title)) if with_id => format!("#{id} {}", quote(title)),
        Some((_, title)) => quote(title),
        None if edge.shows.is_empty() => "nothing new".to_owned(),
        None => {
            let mut named: Vec<String> = edge
                .shows
                .iter()
                .take(SHOWS_NAMED)
                .map(|(role, name)| format!("{role} {}", quote(name)))
                .collect();
            if edge.shows.len() > SHOWS_NAMED {
                named.push(format!("{} more", edge.shows.len() - SHOWS_NAMED));
            }
            format!("shows {}", named.join(", "))
        }
    }
}

pub(super) fn name_windows<'a>(windows: impl Iterator<Item = (i64, &'a str)>) -> String {
    let windows: Vec<_> = windows.collect();
    let mut named: Vec<String> = windows
        .iter()
        .take(WINDOWS_NAMED)
        .map(|(id, title)| format!("#{id} {}", quote(title)))
        .collect();
    if windows.len() > WINDOWS_NAMED {
        named.push(format!("{} more", windows.len() - WINDOWS_NAMED));
    }
    named.join(", ")
}

/// `in "Untitled 1 - Mousepad": select ["Edit","Preferences…"] -> "Mousepad Preferences"`.
pub(super) fn route_text(route: &Route, app: &str) -> String {
    if route.steps.is_empty() {
        return format!(
            "none needed: it is in #{} {}, where {} was last seen",
            route.start.0,
            quote(&route.start.1),
            quote(app)
        );
    }
    let steps: Vec<String> = route
        .steps
        .iter()
        .map(|edge| format!("{} -> {}", act_text(&edge.act), effect_text(edge, false)))
        .collect();
    format!("in {}: {}", quote(&route.start.1), steps.join("; "))
}

/// The route as `batch` steps: each step, then a wait for the window it leads to (which also
/// makes that window the surface the next step works in), or for the control it shows.
pub(super) fn route_steps(route: &Route) -> Vec<Value> {
    let mut steps = Vec::with_capacity(route.steps.len() * 2);
    for (i, edge) in route.steps.iter().enumerate() {
        steps.push(act_json(&edge.act));
        match (&edge.to, &route.appears) {
            (Some((_, title)), _) => {
                steps.push(json!({ "action": "wait", "until": { "window": title } }));
            }
            (None, Some((role, name))) if i + 1 == route.steps.len() => {
                steps.push(json!({ "action": "wait", "until": { "name": name, "role": role } }));
            }
            (None, _) => {}
        }
    }
    steps
}
