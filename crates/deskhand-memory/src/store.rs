//! Writes: every call upserts, so seeing or doing the same thing again only moves times and
//! counts.

use deskhand_core::memory::{Control, Effect, Sighting, Step, Transition};
use rusqlite::{OptionalExtension, Transaction, params};

/// The form names and titles are searched in: any case, and `…` the same as `...`, as
/// `select` reads menu items.
pub(crate) fn key(text: &str) -> String {
    text.to_lowercase().replace('…', "...")
}

pub(crate) fn saw(tx: &Transaction<'_>, sighting: &Sighting, at: i64) -> rusqlite::Result<i64> {
    window(tx, sighting, at, true)
}

pub(crate) fn learned(
    tx: &Transaction<'_>,
    transition: &Transition,
    at: i64,
) -> rusqlite::Result<()> {
    let from = window(tx, &transition.from, at, false)?;
    // A path's search key joins its items with a separator no query contains, so a hit lies
    // within one item.
    let (control_id, path, step_key) = match &transition.step {
        Step::Click(control) => {
            let sighted = transition.from.controls.contains(control);
            let id = self::control(tx, from, control, sighted, at, 1)?;
            (Some(id), None, format!("c:{id}"))
        }
        Step::Select(path) => {
            let json = serde_json::to_string(path)
                .map_err(|err| rusqlite::Error::ToSqlConversionFailure(Box::new(err)))?;
            let step_key = format!("s:{json}");
            (None, Some((json, key(&path.join("\u{1f}")))), step_key)
        }
    };
    let (to_window, revealed) = match &transition.effect {
        Effect::Window(sighting) => (Some(window(tx, sighting, at, false)?), Vec::new()),
        Effect::Controls(controls) => {
            let mut ids = controls
                .iter()
                .map(|control| {
                    let sighted = transition.from.controls.contains(control);
                    self::control(tx, from, control, sighted, at, 0)
                })
                .collect::<rusqlite::Result<Vec<_>>>()?;
            ids.sort_unstable();
            ids.dedup();
            (None, ids)
        }
    };
    let effect_key = match to_window {
        Some(id) => format!("w:{id}"),
        None => format!(
            "c:{}",
            revealed
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    let id: i64 = tx
        .prepare_cached(
            "INSERT INTO transitions (from_window, control_id, path, path_key, to_window,
                 step_key, effect_key, count, first_seen, last_seen)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, ?8)
             ON CONFLICT (from_window, step_key, effect_key) DO UPDATE SET
                 count = count + 1, last_seen = max(last_seen, excluded.last_seen)
             RETURNING id",
        )?
        .query_row(
            params![
                from,
                control_id,
                path.as_ref().map(|(json, _)| json),
                path.as_ref().map(|(_, key)| key),
                to_window,
                step_key,
                effect_key,
                at
            ],
            |row| row.get(0),
        )?;
    let mut reveal = tx.prepare_cached(
        "INSERT OR IGNORE INTO reveals (transition_id, control_id) VALUES (?1, ?2)",
    )?;
    for control in revealed {
        reveal.execute(params![id, control])?;
    }
    Ok(())
}

/// A dialog on another tab shows other controls under the same title: still the same window
/// when enough of its controls (the tabs, the buttons) are ones it had. Another structure under
/// the same title shares few, and stays another window.
fn same_title_and_much_alike(
    tx: &Transaction<'_>,
    app: i64,
    sighting: &Sighting,
) -> rusqlite::Result<Option<i64>> {
    let candidate: Option<i64> = tx
        .prepare_cached(
            "SELECT id FROM windows WHERE app_id = ?1 AND title_key = ?2
             ORDER BY last_seen DESC LIMIT 1",
        )?
        .query_row(params![app, key(&sighting.title)], |row| row.get(0))
        .optional()?;
    let Some(candidate) = candidate else {
        return Ok(None);
    };
    let mut statement =
        tx.prepare_cached("SELECT role, name FROM controls WHERE window_id = ?1 AND sighted = 1")?;
    let known: std::collections::HashSet<(String, String)> = statement
        .query_map(params![candidate], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let shared = sighting
        .controls
        .iter()
        .filter(|c| known.contains(&(c.role.as_str().to_owned(), c.name.clone())))
        .count();
    let smaller = known.len().min(sighting.controls.len());
    Ok((smaller > 0 && shared * 10 >= smaller * 3).then_some(candidate))
}

/// Upserts the window and its controls. Only a sighting counts as one more time seen: the
/// window a step started from or led to is shown to memory by its own sighting as well.
fn window(
    tx: &Transaction<'_>,
    sighting: &Sighting,
    at: i64,
    counts: bool,
) -> rusqlite::Result<i64> {
    let app: i64 = tx
        .prepare_cached(
            "INSERT INTO apps (name, first_seen, last_seen) VALUES (?1, ?2, ?2)
             ON CONFLICT (name) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)
             RETURNING id",
        )?
        .query_row(params![sighting.app, at], |row| row.get(0))?;
    let by_structure: Option<i64> = tx
        .prepare_cached("SELECT id FROM windows WHERE app_id = ?1 AND fingerprint = ?2")?
        .query_row(params![app, sighting.fingerprint], |row| row.get(0))
        .optional()?;
    let existing = match by_structure {
        Some(id) => Some(id),
        None => same_title_and_much_alike(tx, app, sighting)?,
    };
    let id = match existing {
        None => tx
            .prepare_cached(
                "INSERT INTO windows (app_id, fingerprint, title, title_key, first_seen,
                     last_seen, times_seen, touched)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, 1,
                     (SELECT coalesce(max(touched), 0) + 1 FROM windows))
                 RETURNING id",
            )?
            .query_row(
                params![
                    app,
                    sighting.fingerprint,
                    sighting.title,
                    key(&sighting.title),
                    at
                ],
                |row| row.get(0),
            )?,
        Some(id) => {
            // The latest title wins: it is what the window shows now. A write with an older
            // time (a clock set back) keeps the newer title.
            tx.prepare_cached(
                "UPDATE windows SET
                     title = CASE WHEN ?2 >= last_seen THEN ?3 ELSE title END,
                     title_key = CASE WHEN ?2 >= last_seen THEN ?4 ELSE title_key END,
                     last_seen = max(last_seen, ?2),
                     times_seen = times_seen + ?5,
                     touched = (SELECT max(touched) + 1 FROM windows)
                 WHERE id = ?1",
            )?
            .execute(params![
                id,
                at,
                sighting.title,
                key(&sighting.title),
                i64::from(counts)
            ])?;
            id
        }
    };
    for control in &sighting.controls {
        self::control(tx, id, control, true, at, 0)?;
    }
    Ok(id)
}

fn control(
    tx: &Transaction<'_>,
    window: i64,
    control: &Control,
    sighted: bool,
    at: i64,
    used: i64,
) -> rusqlite::Result<i64> {
    tx.prepare_cached(
        "INSERT INTO controls (window_id, role, name, name_key, sighted, first_seen, last_seen,
             times_used)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)
         ON CONFLICT (window_id, role, name) DO UPDATE SET
             sighted = max(sighted, excluded.sighted),
             last_seen = max(last_seen, excluded.last_seen),
             times_used = times_used + excluded.times_used
         RETURNING id",
    )?
    .query_row(
        params![
            window,
            control.role.as_str(),
            control.name,
            key(&control.name),
            sighted,
            at,
            used
        ],
        |row| row.get(0),
    )
}

/// Forgets one app (exact name, any case) or everything; returns the windows removed.
/// Controls, transitions and reveals go with their windows (foreign keys cascade).
pub(crate) fn forget(tx: &Transaction<'_>, app: Option<&str>) -> rusqlite::Result<usize> {
    let Some(app) = app else {
        let windows = tx.query_row("SELECT count(*) FROM windows", [], |row| row.get(0))?;
        tx.execute_batch("DELETE FROM apps;")?;
        return Ok(windows);
    };
    let wanted = app.to_lowercase();
    let mut ids = Vec::new();
    let mut apps = tx.prepare("SELECT id, name FROM apps")?;
    let mut rows = apps.query([])?;
    while let Some(row) = rows.next()? {
        let name: String = row.get(1)?;
        if name.to_lowercase() == wanted {
            ids.push(row.get::<_, i64>(0)?);
        }
    }
    let mut windows = 0;
    for id in ids {
        windows += tx.query_row(
            "SELECT count(*) FROM windows WHERE app_id = ?1",
            [id],
            |row| row.get::<_, usize>(0),
        )?;
        tx.execute("DELETE FROM apps WHERE id = ?1", [id])?;
    }
    Ok(windows)
}
