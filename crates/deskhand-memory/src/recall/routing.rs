//! Routes: a breadth-first search over an app's recorded steps from where it was last seen,
//! and, where there is no route, what memory lacks for one.

use std::collections::{HashMap, HashSet, VecDeque};

use deskhand_core::render::plural;

use super::queries::edge_sql;
use super::text::{name_windows, quote};
use super::{Edge, Found, Hit, Reader};

/// A way from where an app was last seen to a hit: the steps in order, the last of which may
/// stay in its window (a tab that shows the control, a menu item).
pub(super) struct Route {
    pub(super) start: (i64, String),
    pub(super) steps: Vec<Edge>,
    /// A control the last step makes appear, to wait for.
    pub(super) appears: Option<(String, String)>,
}

/// Windows reached from one start, each with the window and step that first reached it
/// (breadth first: fewest steps; among equals, the step taken most often, then most recently).
pub(super) struct Reach {
    start: (i64, String),
    parents: HashMap<i64, (i64, i64)>,
}

impl Reader<'_> {
    /// The route from where the hit's app was last seen, or what memory lacks for one.
    pub(super) fn route(
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

    pub(super) fn reach(&self, app: i64) -> rusqlite::Result<Reach> {
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
}
