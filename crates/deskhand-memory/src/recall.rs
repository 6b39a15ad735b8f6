//! `recall`: reads the store and writes the answer, widening in steps (nothing, an app, one
//! of its windows) or searching (`query`). Every answer says what memory does not know.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};

use deskhand_core::memory::{Recall, Recalled};
use deskhand_core::render::{FENCE, MAX_NAME_CHARS, cut, escape, plural, thousands};
use deskhand_core::{Error, Result};
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Value, json};

use crate::failure;
use crate::store::key;
use crate::time::{ago, iso, utc, when};

/// Query hits written out in full; the rest are counted.
const HITS_SHOWN: usize = 10;
/// Controls named on a line about what a step made appear.
const SHOWS_NAMED: usize = 4;
/// Windows named when listing where a window is entered from or which windows match.
const WINDOWS_NAMED: usize = 3;

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

/// A way from where an app was last seen to a hit: the steps in order, the last of which may
/// stay in its window (a tab that shows the control, a menu item).
struct Route {
    start: (i64, String),
    steps: Vec<Edge>,
    /// A control the last step makes appear, to wait for.
    appears: Option<(String, String)>,
}

/// Windows reached from one start, each with the window and step that first reached it
/// (breadth first: fewest steps; among equals, the step taken most often, then most recently).
struct Reach {
    start: (i64, String),
    parents: HashMap<i64, (i64, i64)>,
}

struct Reader<'c> {
    conn: &'c Connection,
    now: i64,
}

macro_rules! window_sql {
    ($tail:literal) => {
        concat!(
            "SELECT w.id, w.app_id, a.name, w.title, w.first_seen, w.last_seen, w.times_seen,
                 w.controls, w.controls_used, w.steps_out > 0, w.ways_in > 0
             FROM windows w JOIN apps a ON a.id = w.app_id ",
            $tail
        )
    };
}

macro_rules! edge_sql {
    ($tail:literal) => {
        concat!(
            "SELECT t.id, t.from_window, f.title, c.role, c.name, t.path, t.to_window, w.title,
                 t.count, t.last_seen, f.app_id, fa.name
             FROM transitions t
                 JOIN windows f ON f.id = t.from_window
                 JOIN apps fa ON fa.id = f.app_id
                 LEFT JOIN controls c ON c.id = t.control_id
                 LEFT JOIN windows w ON w.id = t.to_window ",
            $tail
        )
    };
}

/// Control hits: `$matching` picks ids (with `exact`, `last_seen` and `total`); the best
/// `?4` of them are read with their window and app.
macro_rules! controls_sql {
    ($matching:literal) => {
        concat!(
            "SELECT c.id, c.role, c.name, m.exact, c.sighted, c.times_used, c.last_seen,
                 w.id, w.title, w.app_id, a.name, m.total
             FROM (",
            $matching,
            " ORDER BY exact DESC, last_seen DESC, id LIMIT ?4) m
                 JOIN controls c ON c.id = m.id
                 JOIN windows w ON w.id = c.window_id
                 JOIN apps a ON a.id = w.app_id"
        )
    };
}

macro_rules! coverage_sql {
    ($tail:literal) => {
        concat!(
            "SELECT count(*), coalesce(sum(times_seen = 1), 0), coalesce(sum(steps_out = 0), 0),
                 coalesce(sum(ways_in = 0), 0), coalesce(sum(controls), 0),
                 coalesce(sum(controls_used), 0), coalesce(sum(steps_out), 0)
             FROM windows ",
            $tail
        )
    };
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

    fn search(
        &self,
        needle: &str,
        app: Option<i64>,
        window: Option<i64>,
    ) -> rusqlite::Result<(Vec<Hit>, usize)> {
        let mut hits = Vec::new();
        // Only the controls that can be shown are read in full: the best HITS_SHOWN by the
        // order hits are shown in (exact first, then newest), and how many matched. Within
        // one app only its windows' controls are read.
        let sql = match app {
            None => controls_sql!(
                "SELECT c.id AS id, c.name_key = ?1 AS exact, c.last_seen AS last_seen,
                     count(*) OVER () AS total
                 FROM controls c
                 WHERE instr(c.name_key, ?1) > 0"
            ),
            Some(_) => controls_sql!(
                "SELECT c.id AS id, c.name_key = ?1 AS exact, c.last_seen AS last_seen,
                     count(*) OVER () AS total
                 FROM windows w JOIN controls c ON c.window_id = w.id
                 WHERE w.app_id = ?2 AND (?3 IS NULL OR w.id = ?3) AND instr(c.name_key, ?1) > 0"
            ),
        };
        let mut controls = self.conn.prepare_cached(sql)?;
        let mut total = 0;
        let rows = controls.query_map(params![needle, app, window, HITS_SHOWN], |row| {
            total = row.get(11)?;
            Ok(Hit {
                found: Found::Control {
                    id: row.get(0)?,
                    role: row.get(1)?,
                    name: row.get(2)?,
                    sighted: row.get(4)?,
                    used: row.get(5)?,
                },
                exact: row.get(3)?,
                last_seen: row.get(6)?,
                window: (row.get(7)?, row.get(8)?),
                app_id: row.get(9)?,
                app: row.get(10)?,
            })
        })?;
        for hit in rows {
            hits.push(hit?);
        }
        let shown_controls = hits.len();
        let mut windows = self.conn.prepare_cached(
            "SELECT w.id, w.title, w.title_key = ?1, w.last_seen, w.app_id, a.name
             FROM windows w JOIN apps a ON a.id = w.app_id
             WHERE instr(w.title_key, ?1) > 0
                 AND (?2 IS NULL OR w.app_id = ?2) AND (?3 IS NULL OR w.id = ?3)",
        )?;
        let rows = windows.query_map(params![needle, app, window], |row| {
            Ok(Hit {
                found: Found::Window,
                exact: row.get(2)?,
                window: (row.get(0)?, row.get(1)?),
                last_seen: row.get(3)?,
                app_id: row.get(4)?,
                app: row.get(5)?,
            })
        })?;
        for hit in rows {
            hits.push(hit?);
        }
        let mut menus = self.conn.prepare_cached(edge_sql!(
            "WHERE t.path_key IS NOT NULL AND instr(t.path_key, ?1) > 0
                 AND (?2 IS NULL OR f.app_id = ?2) AND (?3 IS NULL OR f.id = ?3)
             ORDER BY t.count DESC, t.last_seen DESC, t.id"
        ))?;
        let rows = menus.query_map(params![needle, app, window], |row| {
            Ok((
                self.edge(row)?,
                row.get::<_, i64>(10)?,
                row.get::<_, String>(11)?,
            ))
        })?;
        // One hit per menu path and window: the path's most taken transition stands for it.
        let mut seen_paths = HashSet::new();
        for row in rows {
            let (edge, app_id, app) = row?;
            let Act::Select(path) = &edge.act else {
                continue;
            };
            let path = path.clone();
            if !seen_paths.insert((edge.from.0, path.clone())) {
                continue;
            }
            hits.push(Hit {
                // `Preferences…` is what "preferences" names exactly.
                exact: path.last().is_some_and(|item| {
                    key(item).trim_end_matches("...") == needle.trim_end_matches("...")
                }),
                window: edge.from.clone(),
                app_id,
                app,
                last_seen: edge.last_seen,
                found: Found::Menu { path, edge },
            });
        }
        let total = total + hits.len() - shown_controls;
        Ok((hits, total))
    }

    /// The route from where the hit's app was last seen, or what memory lacks for one.
    fn route(
        &self,
        reach: &Reach,
        hit: &Hit,
        reveal: Option<Edge>,
    ) -> rusqlite::Result<Result<Route, String>> {
        let mut ids = Vec::new();
        let mut at = hit.window.0;
        while at != reach.start.0 {
            let Some(&(from, step)) = reach.parents.get(&at) else {
                return Ok(Err(self.missing(reach, &hit.window)?));
            };
            ids.push(step);
            at = from;
        }
        let mut by_id = self.conn.prepare_cached(edge_sql!("WHERE t.id = ?1"))?;
        let mut steps = ids
            .iter()
            .rev()
            .map(|id| by_id.query_row([id], |row| self.edge(row)))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut appears = None;
        match &hit.found {
            Found::Control { role, name, .. } => {
                if let Some(reveal) = reveal {
                    steps.push(reveal);
                    appears = Some((role.clone(), name.clone()));
                }
            }
            Found::Menu { edge, .. } => steps.push(edge.clone()),
            Found::Window => {}
        }
        Ok(Ok(Route {
            start: reach.start.clone(),
            steps,
            appears,
        }))
    }

    /// Why there is no route into `target`: which windows lead into it (and whether those were
    /// ever entered), and what the start window knows.
    fn missing(&self, reach: &Reach, target: &(i64, String)) -> rusqlite::Result<String> {
        let into = self.edges_into(target.0)?;
        let mut sources: Vec<(i64, String)> = Vec::new();
        for edge in &into {
            if !sources.iter().any(|(id, _)| *id == edge.from.0) {
                sources.push(edge.from.clone());
            }
        }
        let mut text = if sources.is_empty() {
            format!(
                "nothing recorded leads into #{} {}",
                target.0,
                quote(&target.1)
            )
        } else {
            let mut entered = 0;
            for (id, _) in &sources {
                if !self.edges_into(*id)?.is_empty() {
                    entered += 1;
                }
            }
            let itself = match (sources.len(), entered) {
                (1, 0) => ", itself never entered by a recorded step",
                (_, 0) => ", none of them entered by a recorded step",
                _ => ", not reached from the start",
            };
            format!(
                "#{} {} is entered only from {}{itself}",
                target.0,
                quote(&target.1),
                name_windows(sources.iter().map(|(id, title)| (*id, title.as_str())))
            )
        };
        let start = format!("#{} {}", reach.start.0, quote(&reach.start.1));
        if self.edges_from(reach.start.0)?.is_empty() {
            text.push_str(&format!(
                "; the start {start}, where the app was last seen, was never acted in"
            ));
        } else {
            text.push_str(&format!(
                "; from the start {start}, where the app was last seen, {} reached",
                plural(reach.parents.len(), "window is", "windows are")
            ));
        }
        Ok(text)
    }

    fn reach(&self, app: i64) -> rusqlite::Result<Reach> {
        let start: (i64, String) = self
            .conn
            .prepare_cached(
                "SELECT id, title FROM windows WHERE app_id = ?1
                 ORDER BY last_seen DESC, touched DESC LIMIT 1",
            )?
            .query_row([app], |row| Ok((row.get(0)?, row.get(1)?)))?;
        // An app's steps come in one read, as ids only; a step into another app's window
        // brings that app's steps in too.
        let mut hops = self.conn.prepare_cached(
            "SELECT t.from_window, t.to_window, t.id, w.app_id
             FROM windows f
                 JOIN transitions t ON t.from_window = f.id
                 JOIN windows w ON w.id = t.to_window
             WHERE f.app_id = ?1 AND t.to_window <> t.from_window
             ORDER BY t.count DESC, t.last_seen DESC, t.id",
        )?;
        let mut out: HashMap<i64, Vec<(i64, i64, i64)>> = HashMap::new();
        let mut load = |app: i64, out: &mut HashMap<i64, Vec<(i64, i64, i64)>>| {
            let rows = hops.query_map([app], |row| {
                Ok((row.get(0)?, (row.get(1)?, row.get(2)?, row.get(3)?)))
            })?;
            for row in rows {
                let (from, hop) = row?;
                out.entry(from).or_default().push(hop);
            }
            rusqlite::Result::<()>::Ok(())
        };
        let mut loaded = HashSet::from([app]);
        load(app, &mut out)?;
        let mut parents = HashMap::new();
        let mut queue = VecDeque::from([start.0]);
        while let Some(at) = queue.pop_front() {
            for (to, step, to_app) in out.remove(&at).unwrap_or_default() {
                if to == start.0 || parents.contains_key(&to) {
                    continue;
                }
                if loaded.insert(to_app) {
                    load(to_app, &mut out)?;
                }
                parents.insert(to, (at, step));
                queue.push_back(to);
            }
        }
        Ok(Reach { start, parents })
    }

    /// The step in `window` that made `control` appear, if one was recorded.
    fn revealing(&self, control: i64, window: i64) -> rusqlite::Result<Option<Edge>> {
        let mut statement = self.conn.prepare_cached(edge_sql!(
            "JOIN reveals r ON r.transition_id = t.id
             WHERE r.control_id = ?1 AND t.from_window = ?2
             ORDER BY t.count DESC, t.last_seen DESC, t.id LIMIT 1"
        ))?;
        let edge = statement
            .query_row(params![control, window], |row| self.edge(row))
            .optional()?;
        edge.map(|edge| self.with_shows(edge)).transpose()
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

    /// Windows of `app` that `wanted` names: `#id`, or a piece of the title (any case), the
    /// whole title first, then the most recently seen.
    fn find_windows(&self, app: &App, wanted: &str) -> rusqlite::Result<Vec<Win>> {
        if let Some(id) = wanted
            .strip_prefix('#')
            .and_then(|id| id.trim().parse::<i64>().ok())
        {
            let window = self
                .conn
                .prepare_cached(window_sql!("WHERE w.id = ?1"))?
                .query_row([id], |row| self.win(row))
                .optional()?;
            return Ok(window.into_iter().filter(|w| w.app_id == app.id).collect());
        }
        let wanted = key(wanted);
        let mut windows: Vec<Win> = self
            .windows_of(app.id)?
            .into_iter()
            .filter(|w| key(&w.title).contains(&wanted))
            .collect();
        // Stable: equal titles keep the most recently seen first.
        windows.sort_by_key(|w| key(&w.title) != wanted);
        Ok(windows)
    }

    fn apps(&self) -> rusqlite::Result<Vec<App>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT a.id, a.name, a.first_seen, a.last_seen,
                 (SELECT count(*) FROM windows w WHERE w.app_id = a.id)
             FROM apps a ORDER BY a.last_seen DESC, a.name",
        )?;
        statement
            .query_map([], |row| {
                Ok(App {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    first_seen: row.get(2)?,
                    last_seen: row.get(3)?,
                    windows: row.get(4)?,
                })
            })?
            .collect()
    }

    /// An app's windows, the one it was last seen in first.
    fn windows_of(&self, app: i64) -> rusqlite::Result<Vec<Win>> {
        let mut statement = self.conn.prepare_cached(window_sql!(
            "WHERE w.app_id = ?1 ORDER BY w.last_seen DESC, w.touched DESC"
        ))?;
        statement.query_map([app], |row| self.win(row))?.collect()
    }

    fn win(&self, row: &Row<'_>) -> rusqlite::Result<Win> {
        Ok(Win {
            id: row.get(0)?,
            app_id: row.get(1)?,
            app: row.get(2)?,
            title: row.get(3)?,
            first_seen: row.get(4)?,
            last_seen: row.get(5)?,
            times_seen: row.get(6)?,
            controls: row.get(7)?,
            used: row.get(8)?,
            acted_in: row.get(9)?,
            way_in: row.get(10)?,
        })
    }

    /// Role, name and times used of a window's controls, by role then name.
    fn controls_of(&self, window: i64) -> rusqlite::Result<Vec<(String, String, i64)>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT role, name, times_used FROM controls WHERE window_id = ?1 ORDER BY role, name",
        )?;
        statement
            .query_map([window], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect()
    }

    fn edges_from(&self, window: i64) -> rusqlite::Result<Vec<Edge>> {
        let mut statement = self.conn.prepare_cached(edge_sql!(
            "WHERE t.from_window = ?1 ORDER BY t.count DESC, t.last_seen DESC, t.id"
        ))?;
        let edges = statement
            .query_map([window], |row| self.edge(row))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        edges
            .into_iter()
            .map(|edge| self.with_shows(edge))
            .collect()
    }

    /// Steps from other windows that led into `window`.
    fn edges_into(&self, window: i64) -> rusqlite::Result<Vec<Edge>> {
        let mut statement = self.conn.prepare_cached(edge_sql!(
            "WHERE t.to_window = ?1 AND t.from_window <> ?1
             ORDER BY t.count DESC, t.last_seen DESC, t.id"
        ))?;
        statement
            .query_map([window], |row| self.edge(row))?
            .collect()
    }

    fn edge(&self, row: &Row<'_>) -> rusqlite::Result<Edge> {
        let act = match row.get::<_, Option<String>>(5)? {
            Some(path) => Act::Select(serde_json::from_str(&path).map_err(|err| {
                rusqlite::Error::FromSqlConversionFailure(
                    5,
                    rusqlite::types::Type::Text,
                    Box::new(err),
                )
            })?),
            None => Act::Click {
                role: row.get(3)?,
                name: row.get(4)?,
            },
        };
        let to = match row.get::<_, Option<i64>>(6)? {
            Some(id) => Some((id, row.get(7)?)),
            None => None,
        };
        Ok(Edge {
            id: row.get(0)?,
            from: (row.get(1)?, row.get(2)?),
            act,
            to,
            shows: Vec::new(),
            count: row.get(8)?,
            last_seen: row.get(9)?,
        })
    }

    fn with_shows(&self, mut edge: Edge) -> rusqlite::Result<Edge> {
        if edge.to.is_none() {
            let mut statement = self.conn.prepare_cached(
                "SELECT c.role, c.name FROM reveals r JOIN controls c ON c.id = r.control_id
                 WHERE r.transition_id = ?1 ORDER BY c.role, c.name",
            )?;
            edge.shows = statement
                .query_map([edge.id], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
        }
        Ok(edge)
    }

    fn coverage(&self, app: Option<i64>) -> rusqlite::Result<Coverage> {
        let row = |row: &Row<'_>| {
            Ok(Coverage {
                windows: row.get(0)?,
                seen_once: row.get(1)?,
                never_acted_in: row.get(2)?,
                no_way_in: row.get(3)?,
                controls: row.get(4)?,
                controls_used: row.get(5)?,
                transitions: row.get(6)?,
            })
        };
        match app {
            None => self
                .conn
                .prepare_cached(coverage_sql!(""))?
                .query_row([], row),
            Some(app) => self
                .conn
                .prepare_cached(coverage_sql!("WHERE app_id = ?1"))?
                .query_row([app], row),
        }
    }

    fn edge_line(&self, edge: &Edge) -> String {
        format!(
            "{} -> {} · {}× · {}",
            act_text(&edge.act),
            effect_text(edge, true),
            edge.count,
            ago(edge.last_seen, self.now)
        )
    }

    fn edge_json(&self, edge: &Edge) -> Value {
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

    fn app_json(&self, app: &App) -> Value {
        json!({
            "name": app.name,
            "windows": app.windows,
            "first_seen": iso(app.first_seen),
            "last_seen": iso(app.last_seen),
        })
    }

    fn window_json(&self, window: &Win) -> Value {
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
    fn line(&self) -> String {
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

    fn json(&self) -> Value {
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

fn answer(lines: Vec<String>, data: Value) -> Recalled {
    let mut text = lines.join("\n");
    text.push('\n');
    Recalled { text, data }
}

/// App text in quotes, escaped and cut like `observe` shows it: it can never pass for structure.
fn quote(text: &str) -> String {
    format!("\"{}\"", escape(&cut(text, MAX_NAME_CHARS).0))
}

fn path_text(path: &[String]) -> String {
    format!(
        "[{}]",
        path.iter()
            .map(|item| quote(item))
            .collect::<Vec<_>>()
            .join(",")
    )
}

fn act_text(act: &Act) -> String {
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

fn name_windows<'a>(windows: impl Iterator<Item = (i64, &'a str)>) -> String {
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
fn route_text(route: &Route, app: &str) -> String {
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
fn route_steps(route: &Route) -> Vec<Value> {
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
