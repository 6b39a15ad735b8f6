//! `recall`: reads the store and writes the answer, widening in steps (nothing, an app, one
//! of its windows) or searching (`query`). Every answer says what memory does not know.
//!
//! Here are the answers, one per kind of question, built from what `queries` reads from the
//! store, the routes `routing` finds, and the pieces of text and JSON in `text`.

mod queries;
mod routing;
mod text;

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use deskhand_core::memory::{Recall, Recalled};
use deskhand_core::render::{FENCE, plural, thousands};
use deskhand_core::{Error, Result};
use rusqlite::Connection;
use serde_json::{Value, json};

use crate::failure;
use crate::store::key;
use crate::time::{ago, iso, utc, when};
use routing::Reach;
use text::{act_text, answer, name_windows, path_text, quote, route_steps, route_text};

/// Query hits written out in full; the rest are counted.
const HITS_SHOWN: usize = 10;

pub(crate) fn recall(
    conn: &Connection,
    request: &Recall,
    now: i64,
    place: &str,
) -> Result<Recalled> {
    let given = |value: &Option<String>, what: &str| -> Result<Option<String>> {
        match value.as_deref().map(str::trim) {
            None => Ok(None),
            Some("") => Err(Error::bad_argument(format!(
                "recall's `{what}` is empty; give some text or leave it out."
            ))),
            Some(text) => Ok(Some(text.to_owned())),
        }
    };
    let app = given(&request.app, "app")?;
    let window = given(&request.window, "window")?;
    let query = given(&request.query, "query")?;
    if window.is_some() && app.is_none() {
        return Err(Error::bad_argument(
            "recall's `window` needs `app`: a window is looked for among one app's windows. \
             Run recall without arguments to list the apps.",
        ));
    }
    let reader = Reader { conn, now };
    let answer = match (app, window, query) {
        (app, window, Some(query)) => reader.query(&query, app.as_deref(), window.as_deref()),
        (None, _, None) => reader.overview(),
        (Some(app), None, None) => reader.app(&app),
        (Some(app), Some(window), None) => reader.window(&app, &window),
    };
    answer.map_err(|err| failure(place, "be read", &err))
}

struct App {
    id: i64,
    name: String,
    first_seen: i64,
    last_seen: i64,
    windows: usize,
}

struct Win {
    id: i64,
    app_id: i64,
    app: String,
    title: String,
    first_seen: i64,
    last_seen: i64,
    times_seen: i64,
    controls: usize,
    used: usize,
    acted_in: bool,
    way_in: bool,
}

#[derive(Clone)]
enum Act {
    Click { role: String, name: String },
    Select(Vec<String>),
}

#[derive(Clone)]
struct Edge {
    id: i64,
    from: (i64, String),
    act: Act,
    to: Option<(i64, String)>,
    shows: Vec<(String, String)>,
    count: i64,
    last_seen: i64,
}

struct Coverage {
    windows: usize,
    never_acted_in: usize,
    seen_once: usize,
    no_way_in: usize,
    controls: usize,
    controls_used: usize,
    transitions: usize,
}

enum Found {
    Control {
        id: i64,
        role: String,
        name: String,
        sighted: bool,
        used: i64,
    },
    Window,
    Menu {
        path: Vec<String>,
        edge: Edge,
    },
}

struct Hit {
    found: Found,
    exact: bool,
    window: (i64, String),
    app_id: i64,
    app: String,
    last_seen: i64,
}

struct Reader<'c> {
    conn: &'c Connection,
    now: i64,
}

impl Reader<'_> {
    fn overview(&self) -> rusqlite::Result<Recalled> {
        let apps = self.apps()?;
        let coverage = self.coverage(None)?;
        let mut text = vec![format!(
            "memory · now {} · {}, {}",
            utc(self.now),
            plural(apps.len(), "app", "apps"),
            plural(coverage.windows, "window", "windows")
        )];
        if apps.is_empty() {
            text.push(
                "never seen any window yet: memory fills as actions observe windows".to_owned(),
            );
        } else {
            text.push(FENCE.to_owned());
            for app in &apps {
                text.push(format!(
                    "{} · {} · last seen {}",
                    quote(&app.name),
                    plural(app.windows, "window", "windows"),
                    when(app.last_seen, self.now)
                ));
            }
            text.push(coverage.line());
        }
        let data = json!({
            "now": iso(self.now),
            "apps": apps.iter().map(|app| self.app_json(app)).collect::<Vec<_>>(),
            "coverage": coverage.json(),
        });
        Ok(answer(text, data))
    }

    fn app(&self, wanted: &str) -> rusqlite::Result<Recalled> {
        let app = match self.find_app(wanted)? {
            Ok(app) => app,
            Err(miss) => return Ok(miss),
        };
        let windows = self.windows_of(app.id)?;
        let coverage = self.coverage(Some(app.id))?;
        let mut text = vec![
            format!("memory of {} · now {}", quote(&app.name), utc(self.now)),
            FENCE.to_owned(),
            format!(
                "{} · first seen {} · last seen {}",
                plural(windows.len(), "window", "windows"),
                when(app.first_seen, self.now),
                when(app.last_seen, self.now)
            ),
        ];
        for window in &windows {
            let mut line = format!(
                "#{} {} · {}",
                window.id,
                quote(&window.title),
                plural(window.controls, "control", "controls")
            );
            if window.used > 0 {
                line.push_str(&format!(", {} used", thousands(window.used)));
            }
            line.push_str(&format!(" · {}", when(window.last_seen, self.now)));
            if !window.acted_in {
                line.push_str(" · never acted in");
            }
            text.push(line);
        }
        let mut data = json!({
            "now": iso(self.now),
            "app": self.app_json(&app),
            "windows": windows.iter().map(|w| self.window_json(w)).collect::<Vec<_>>(),
            "coverage": coverage.json(),
        });
        if let Some(current) = windows.first() {
            let out = self.edges_from(current.id)?;
            if out.is_empty() {
                text.push(format!(
                    "nothing recorded out of #{} {}, where it was last seen: never acted in",
                    current.id,
                    quote(&current.title)
                ));
            } else {
                text.push(format!(
                    "out of #{} {}, where it was last seen:",
                    current.id,
                    quote(&current.title)
                ));
                text.extend(out.iter().map(|edge| format!("  {}", self.edge_line(edge))));
            }
            data["last_seen_in"] = json!({ "id": current.id, "title": current.title });
            data["out"] = out.iter().map(|edge| self.edge_json(edge)).collect();
        }
        text.push(coverage.line());
        Ok(answer(text, data))
    }

    fn window(&self, wanted_app: &str, wanted: &str) -> rusqlite::Result<Recalled> {
        let app = match self.find_app(wanted_app)? {
            Ok(app) => app,
            Err(miss) => return Ok(miss),
        };
        let matches = self.find_windows(&app, wanted)?;
        let Some(window) = matches.first() else {
            return self.window_miss(&app, wanted);
        };
        let controls = self.controls_of(window.id)?;
        let out = self.edges_from(window.id)?;
        let into = self.edges_into(window.id)?;
        // The one reply an agent reads instead of observing the window: every line counts, so
        // the age stands alone (the structured form has the time).
        let mut text = vec![
            format!(
                "#{} {} of {} · seen {}×, last {}",
                window.id,
                quote(&window.title),
                quote(&window.app),
                window.times_seen,
                ago(window.last_seen, self.now)
            ),
            FENCE.to_owned(),
        ];
        if matches.len() > 1 {
            text.push(format!(
                "also matching {}: {}",
                quote(wanted),
                name_windows(matches[1..].iter().map(|w| (w.id, w.title.as_str())))
            ));
        }
        text.push(if window.used == 0 {
            format!("controls, {}, none used yet:", thousands(window.controls))
        } else {
            format!(
                "controls, {} of {} ever used (*):",
                thousands(window.used),
                thousands(window.controls)
            )
        });
        let mut role_line: Option<(String, Vec<String>)> = None;
        for (role, name, used) in &controls {
            let shown = format!("{}{}", quote(name), if *used > 0 { "*" } else { "" });
            match &mut role_line {
                Some((current, names)) if current == role => names.push(shown),
                _ => {
                    if let Some((role, names)) = role_line.take() {
                        text.push(format!("  {role} {}", names.join(" ")));
                    }
                    role_line = Some((role.clone(), vec![shown]));
                }
            }
        }
        if let Some((role, names)) = role_line {
            text.push(format!("  {role} {}", names.join(" ")));
        }
        if out.is_empty() && into.is_empty() {
            text.push("out and in: nothing recorded, never acted in".to_owned());
        } else {
            if out.is_empty() {
                text.push("out: nothing recorded, never acted in".to_owned());
            } else {
                text.push("out:".to_owned());
                text.extend(out.iter().map(|edge| format!("  {}", self.edge_line(edge))));
            }
            if into.is_empty() {
                text.push("in: no recorded way in".to_owned());
            } else {
                text.push("in:".to_owned());
                text.extend(into.iter().map(|edge| {
                    format!(
                        "  from #{} {}: {} · {}× · {}",
                        edge.from.0,
                        quote(&edge.from.1),
                        act_text(&edge.act),
                        edge.count,
                        ago(edge.last_seen, self.now)
                    )
                }));
            }
        }
        let data = json!({
            "now": iso(self.now),
            "window": self.window_json(window),
            "also_matching": matches[1..]
                .iter()
                .map(|w| json!({ "id": w.id, "title": w.title }))
                .collect::<Vec<_>>(),
            "controls": controls
                .iter()
                .map(|(role, name, used)| json!({ "role": role, "name": name, "used": used }))
                .collect::<Vec<_>>(),
            "out": out.iter().map(|edge| self.edge_json(edge)).collect::<Vec<_>>(),
            "in": into.iter().map(|edge| self.edge_json(edge)).collect::<Vec<_>>(),
        });
        Ok(answer(text, data))
    }

    fn query(
        &self,
        query: &str,
        wanted_app: Option<&str>,
        wanted_window: Option<&str>,
    ) -> rusqlite::Result<Recalled> {
        let app = match wanted_app {
            None => None,
            Some(wanted) => match self.find_app(wanted)? {
                Ok(app) => Some(app),
                Err(miss) => return Ok(miss),
            },
        };
        let window = match (&app, wanted_window) {
            (Some(app), Some(wanted)) => match self.find_windows(app, wanted)?.into_iter().next() {
                Some(window) => Some(window.id),
                None => return self.window_miss(app, wanted),
            },
            _ => None,
        };
        let needle = key(query);
        let (mut hits, total) = self.search(&needle, app.as_ref().map(|app| app.id), window)?;
        hits.sort_by(|a, b| b.exact.cmp(&a.exact).then(b.last_seen.cmp(&a.last_seen)));
        hits.truncate(HITS_SHOWN);
        let coverage = self.coverage(app.as_ref().map(|app| app.id))?;
        let scope = match &app {
            Some(app) => format!(" in {}", quote(&app.name)),
            None => String::new(),
        };
        let mut text = vec![format!(
            "memory · now {} · {}{scope}: {}",
            utc(self.now),
            quote(query),
            if total > hits.len() {
                format!(
                    "{} of {} hits shown (exact first, then newest); name an app or more of the text to narrow",
                    hits.len(),
                    thousands(total)
                )
            } else {
                plural(total, "hit", "hits")
            }
        )];
        text.push(FENCE.to_owned());
        if hits.is_empty() {
            text.push(format!(
                "never seen {} in {} controls, window titles or menu paths{scope}: memory holds \
                 only what was observed, so it may still be there; observe to look",
                quote(query),
                thousands(coverage.controls)
            ));
        }
        // Routes start where each app was last seen, one search of its steps per app.
        let mut reaches: HashMap<i64, Reach> = HashMap::new();
        for hit in &hits {
            if let Entry::Vacant(slot) = reaches.entry(hit.app_id) {
                slot.insert(self.reach(hit.app_id)?);
            }
        }
        let mut found = Vec::with_capacity(hits.len());
        for hit in &hits {
            let reveal = match &hit.found {
                Found::Control {
                    id, sighted: false, ..
                } => self.revealing(*id, hit.window.0)?,
                _ => None,
            };
            let route = self.route(&reaches[&hit.app_id], hit, reveal)?;
            // Within one app's answer the app goes without saying.
            let app_part = if app.is_some() {
                String::new()
            } else {
                format!(" of {}", quote(&hit.app))
            };
            let what = match &hit.found {
                Found::Control {
                    role, name, used, ..
                } => {
                    let used = if *used > 0 {
                        format!(" · used {used}×")
                    } else {
                        String::new()
                    };
                    format!(
                        "{role} {} in #{} {}{app_part}{used}",
                        quote(name),
                        hit.window.0,
                        quote(&hit.window.1)
                    )
                }
                Found::Window => format!(
                    "window #{} {}{app_part}",
                    hit.window.0,
                    quote(&hit.window.1)
                ),
                Found::Menu { path, .. } => format!(
                    "menu {} in #{} {}{app_part}",
                    path_text(path),
                    hit.window.0,
                    quote(&hit.window.1)
                ),
            };
            text.push(format!("{what} · {}", when(hit.last_seen, self.now)));
            let mut entry = json!({
                "app": hit.app,
                "window": { "id": hit.window.0, "title": hit.window.1 },
                "last_seen": iso(hit.last_seen),
                "exact": hit.exact,
            });
            match &hit.found {
                Found::Control {
                    role, name, used, ..
                } => {
                    entry["kind"] = json!("control");
                    entry["role"] = json!(role);
                    entry["name"] = json!(name);
                    entry["used"] = json!(used);
                }
                Found::Window => entry["kind"] = json!("window"),
                Found::Menu { path, .. } => {
                    entry["kind"] = json!("menu");
                    entry["path"] = json!(path);
                }
            }
            match route {
                Ok(route) => {
                    text.push(format!("  route: {}", route_text(&route, &hit.app)));
                    entry["route"] = json!({
                        "from": { "id": route.start.0, "title": route.start.1 },
                        "text": route_text(&route, &hit.app),
                        "steps": route_steps(&route),
                    });
                }
                Err(missing) => {
                    text.push(format!("  no route: {missing}"));
                    entry["route"] = Value::Null;
                    entry["missing"] = json!(missing);
                }
            }
            found.push(entry);
        }
        text.push(coverage.line());
        let data = json!({
            "now": iso(self.now),
            "query": query,
            "hits_total": total,
            "hits": found,
            "coverage": coverage.json(),
        });
        Ok(answer(text, data))
    }

    /// The app `wanted` names: exactly (any case) first, then as a piece of the name. When it
    /// names none or several, the answer that says so.
    fn find_app(&self, wanted: &str) -> rusqlite::Result<Result<App, Recalled>> {
        let mut apps = self.apps()?;
        let key_wanted = key(wanted);
        if let Some(at) = apps.iter().position(|app| key(&app.name) == key_wanted) {
            return Ok(Ok(apps.swap_remove(at)));
        }
        let (mut matching, others): (Vec<_>, Vec<_>) = apps
            .into_iter()
            .partition(|app| key(&app.name).contains(&key_wanted));
        let (line, listed, apps) = match matching.len() {
            1 => return Ok(Ok(matching.remove(0))),
            0 => (
                format!("never seen an app named {}", quote(wanted)),
                "apps seen",
                others,
            ),
            _ => (
                format!("several apps match {}; name one of them", quote(wanted)),
                "matching",
                matching,
            ),
        };
        let mut text = vec![
            format!("memory · now {}", utc(self.now)),
            FENCE.to_owned(),
            line,
        ];
        if apps.is_empty() {
            text.push(
                "never seen any window yet: memory fills as actions observe windows".to_owned(),
            );
        } else {
            text.push(format!(
                "{listed}: {}",
                apps.iter()
                    .map(|app| quote(&app.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let data = json!({
            "now": iso(self.now),
            "app": Value::Null,
            "asked": wanted,
            "apps": apps.iter().map(|app| self.app_json(app)).collect::<Vec<_>>(),
        });
        Ok(Err(answer(text, data)))
    }

    fn window_miss(&self, app: &App, wanted: &str) -> rusqlite::Result<Recalled> {
        let windows = self.windows_of(app.id)?;
        let text = vec![
            format!("memory of {} · now {}", quote(&app.name), utc(self.now)),
            FENCE.to_owned(),
            format!(
                "never seen a window of {} matching {} (a piece of its title, or #id)",
                quote(&app.name),
                quote(wanted)
            ),
            format!(
                "its {}: {}",
                plural(windows.len(), "window", "windows"),
                windows
                    .iter()
                    .map(|w| format!("#{} {}", w.id, quote(&w.title)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ];
        let data = json!({
            "now": iso(self.now),
            "app": self.app_json(app),
            "window": Value::Null,
            "asked": wanted,
            "windows": windows.iter().map(|w| self.window_json(w)).collect::<Vec<_>>(),
        });
        Ok(answer(text, data))
    }
}
