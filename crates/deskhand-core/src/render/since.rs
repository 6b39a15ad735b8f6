//! `since`: what changed since the last observe of a surface, and how a changed line shows
//! what it was.

use std::collections::{HashMap, HashSet};

use super::lines::{Change, Changes, Found, Line, Rendered, Was, count_cuts, issue};
use crate::action::ObserveSpec;
use crate::session::{Numbers, Seen};
use crate::text::escape;

/// ` (was "Save" value="7" no states)`: the old side of a changed line.
fn write_was(text: &mut String, was: &Was) {
    let mut parts = Vec::new();
    if let Some(name) = &was.name {
        parts.push(if name.is_empty() {
            "no name".to_string()
        } else {
            format!("\"{}\"", escape(name))
        });
    }
    if let Some(value) = &was.value {
        parts.push(match value {
            Some(value) => format!("value=\"{}\"", escape(value)),
            None => "no value".to_string(),
        });
    }
    if let Some(states) = &was.states {
        parts.push(if states.is_empty() {
            "no states".to_string()
        } else {
            states.join(" ")
        });
    }
    text.push_str(&format!(" (was {})", parts.join(" ")));
}

/// `since`: refs for the whole tree, lines only for what was added, removed or changed since
/// `previous`. A removed line sits after the element that preceded it before.
pub(super) fn changes(
    out: &mut Rendered,
    view: &[&Found<'_>],
    previous: &[Seen],
    spec: &ObserveSpec,
    query: Option<&str>,
    numbers: &mut dyn Numbers,
) {
    let mut current_numbers = Vec::with_capacity(view.len());
    for found in view {
        let number = numbers.number(&found.node.handle, found.node.role);
        issue(out, found, number);
        current_numbers.push(number);
    }
    out.issued = view.len();

    let old: Vec<Line> = previous
        .iter()
        .map(Line::from_seen)
        .filter(|line| spec.hidden || !line.hidden())
        .collect();
    let old_by_key: HashMap<&str, &Line> = old.iter().map(|l| (l.key.as_str(), l)).collect();
    let current_keys: HashSet<&str> = view.iter().map(|f| f.line.key.as_str()).collect();
    // Each removed line goes after the last element before it that is still there.
    let mut removed_after: HashMap<Option<&str>, Vec<&Line>> = HashMap::new();
    let mut anchor = None;
    for line in &old {
        if current_keys.contains(line.key.as_str()) {
            anchor = Some(line.key.as_str());
        } else {
            removed_after.entry(anchor).or_default().push(line);
        }
    }

    enum Entry<'l, 'a> {
        Now(&'l Found<'a>, u32, Change, Option<Was>),
        Gone(&'l Line),
    }
    let mut entries: Vec<(Entry<'_, '_>, bool)> = Vec::new();
    let gone = |line: &Line| query.is_none_or(|q| line.shows(q));
    for line in removed_after.get(&None).into_iter().flatten() {
        entries.push((Entry::Gone(line), gone(line)));
    }
    for (found, number) in view.iter().zip(&current_numbers) {
        let line = &found.line;
        let entry = match old_by_key.get(line.key.as_str()) {
            None => Some((Change::Added, None, query.is_none_or(|q| found.matches(q)))),
            Some(old) => line.changed_from(old).map(|was| {
                let hit = query.is_none_or(|q| found.matches(q) || old.shows(q));
                (Change::Changed, Some(was), hit)
            }),
        };
        if let Some((change, was, hit)) = entry {
            entries.push((Entry::Now(found, *number, change, was), hit));
        }
        for line in removed_after
            .get(&Some(line.key.as_str()))
            .into_iter()
            .flatten()
        {
            entries.push((Entry::Gone(line), gone(line)));
        }
    }

    let mut counts = Changes::default();
    let mut shown = Vec::new();
    for (entry, hit) in entries {
        if !hit {
            continue;
        }
        let (line, change) = match &entry {
            Entry::Now(found, _, change, _) => (&found.line, *change),
            Entry::Gone(line) => (*line, Change::Removed),
        };
        if spec.max_depth.is_some_and(|d| line.depth > d) {
            out.below_depth += 1;
            continue;
        }
        match change {
            Change::Added => counts.added += 1,
            Change::Removed => counts.removed += 1,
            Change::Changed => counts.changed += 1,
        }
        shown.push(entry);
    }
    out.total = shown.len();
    out.since = Some(Some(counts));
    for entry in shown.into_iter().take(spec.limit) {
        match entry {
            Entry::Now(found, number, change, was) => {
                count_cuts(out, found);
                let line = &found.line;
                line.write(&mut out.body, change.prefix(), Some(number));
                if let Some(was) = &was {
                    write_was(&mut out.body, was);
                }
                out.body.push('\n');
                out.elements
                    .push(line.listed(Some(number), Some(change), was));
            }
            Entry::Gone(line) => {
                let number = Some(numbers.number_of_key(&line.key));
                line.write(&mut out.body, Change::Removed.prefix(), number);
                out.body.push('\n');
                out.elements
                    .push(line.listed(number, Some(Change::Removed), None));
            }
        }
    }
}
