//! The store's reads: apps, windows, controls and recorded steps as rows, and the search
//! behind `query`.

use std::collections::HashSet;

use rusqlite::{OptionalExtension, Row, params};

use super::{Act, App, Coverage, Edge, Found, HITS_SHOWN, Hit, Reader, Win};
use crate::store::key;

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
pub(super) use edge_sql;

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
    pub(super) fn search(
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

    /// The step in `window` that made `control` appear, if one was recorded.
    pub(super) fn revealing(&self, control: i64, window: i64) -> rusqlite::Result<Option<Edge>> {
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

    /// Windows of `app` that `wanted` names: `#id`, or a piece of the title (any case), the
    /// whole title first, then the most recently seen.
    pub(super) fn find_windows(&self, app: &App, wanted: &str) -> rusqlite::Result<Vec<Win>> {
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

    pub(super) fn apps(&self) -> rusqlite::Result<Vec<App>> {
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
    pub(super) fn windows_of(&self, app: i64) -> rusqlite::Result<Vec<Win>> {
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
    pub(super) fn controls_of(&self, window: i64) -> rusqlite::Result<Vec<(String, String, i64)>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT role, name, times_used FROM controls WHERE window_id = ?1 ORDER BY role, name",
        )?;
        statement
            .query_map([window], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect()
    }

    pub(super) fn edges_from(&self, window: i64) -> rusqlite::Result<Vec<Edge>> {
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
    pub(super) fn edges_into(&self, window: i64) -> rusqlite::Result<Vec<Edge>> {
        let mut statement = self.conn.prepare_cached(edge_sql!(
            "WHERE t.to_window = ?1 AND t.from_window <> ?1
             ORDER BY t.count DESC, t.last_seen DESC, t.id"
        ))?;
        statement
            .query_map([window], |row| self.edge(row))?
            .collect()
    }

    pub(super) fn edge(&self, row: &Row<'_>) -> rusqlite::Result<Edge> {
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

    pub(super) fn coverage(&self, app: Option<i64>) -> rusqlite::Result<Coverage> {
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
}
