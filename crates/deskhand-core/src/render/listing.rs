//! What a plain observation lists: down to `max_depth`, what a query matches with its
//! ancestors, the first `limit`; and which lines need their point to be told apart.

use std::borrow::Cow;
use std::collections::HashMap;

use super::lines::{Found, Line, Rendered, count_cuts, issue};
use crate::action::ObserveSpec;
use crate::model::Role;
use crate::session::Numbers;

/// Leaves a point only on the lines that need it to be told apart: those that show the same
/// role, name, value and states as another the listing could show. A line that its words
/// identify, a nameless one too when no other line reads like it, is acted on by its ref; its
/// point cost a quarter of an observation's tokens and said nothing an agent needed
/// (`points: true` shows them all, the structured form always carries them).
pub(super) fn keep_points_that_tell_apart(found: &mut [Found<'_>], hidden: bool) {
    type Identity<'l> = (Role, &'l str, Option<&'l str>, &'l [&'static str]);
    fn identity(line: &Line) -> Identity<'_> {
        (
            line.role,
            line.name.as_str(),
            line.value.as_deref(),
            &line.states,
        )
    }
    let shown: Vec<bool> = {
        let mut alike: HashMap<Identity<'_>, usize> = HashMap::new();
        for line in found.iter().map(|f| &f.line) {
            if hidden || !line.hidden() {
                *alike.entry(identity(line)).or_default() += 1;
            }
        }
        found
            .iter()
            .map(|f| alike.get(&identity(&f.line)).is_some_and(|n| *n > 1))
            .collect()
    };
    for (f, shown) in found.iter_mut().zip(shown) {
        f.line.point_shown = shown;
    }
}

/// The plain listing: down to `max_depth`, what the query matches with its ancestors, the
/// first `limit` in tree order. Ancestors come before their descendants in tree order, so the
/// first `limit` keep every listed element's ancestors.
pub(super) fn listing(
    out: &mut Rendered,
    view: &[&Found<'_>],
    spec: &ObserveSpec,
    query: Option<&str>,
    numbers: &mut dyn Numbers,
) {
    if let Some(depth) = spec.max_depth {
        // With a query, what it matched deeper down: the rest was never going to be listed.
        out.below_depth = view
            .iter()
            .filter(|f| f.line.depth > depth && query.is_none_or(|q| f.matches(q)))
            .count();
    }
    let selected = selection(view, spec, query);
    out.total = selected.len();
    let listed: Vec<&Found<'_>> = selected.into_iter().take(spec.limit).collect();
    // Under the one root line of a window's listing every line is that window's, so its
    // children start at the left edge: a line indented by two spaces costs a token more than
    // one by one, and most lines are two levels down or deeper.
    let one_root = listed.iter().filter(|f| f.line.depth == 0).count() == 1;
    let mut run: Option<Run> = None;
    for found in listed {
        let number = numbers.number(&found.node.handle, found.node.role);
        issue(out, found, number);
        count_cuts(out, found);
        let line = query.map_or(Cow::Borrowed(&found.line), |q| found.line_for(q));
        let mut words = String::new();
        line.write(&mut words, "", None);
        match &mut run {
            Some(same) if same.depth == line.depth && same.words == words => {
                same.numbers.push(number)
            }
            _ => {
                if let Some(done) = run.take() {
                    done.write(&mut out.body);
                }
                run = Some(Run {
                    depth: line.depth,
                    indent: if one_root {
                        line.depth.saturating_sub(1)
                    } else {
                        line.depth
                    },
                    words,
                    numbers: vec![number],
                });
            }
        }
        out.elements.push(line.listed(Some(number), None, None));
    }
    if let Some(done) = run {
        done.write(&mut out.body);
    }
    out.issued = out.elements.len();
}

/// Siblings one after another that read alike and have no point to tell them apart (27
/// nameless disabled buttons of a browser's toolbar): one line says them all, with every ref.
struct Run {
    depth: usize,
    indent: usize,
    /// The line after its ref.
    words: String,
    numbers: Vec<u32>,
}

impl Run {
    /// ` e4 button "Save"`, or for a run ` e7-e9,e12 button disabled`.
    fn write(&self, body: &mut String) {
        // One space a level: a line indented by one space costs no token more than one at the
        // left edge (the space joins the ref's `e`), where two cost one more on every line.
        body.push_str(&" ".repeat(self.indent));
        let mut first = true;
        let mut rest = self.numbers.as_slice();
        while let [start, ..] = *rest {
            let consecutive = rest
                .iter()
                .enumerate()
                .take_while(|&(i, &n)| n == start + i as u32)
                .count();
            if !first {
                body.push(',');
            }
            first = false;
            body.push_str(&format!("e{start}"));
            if consecutive > 1 {
                body.push_str(&format!("-e{}", start + consecutive as u32 - 1));
            }
            rest = &rest[consecutive..];
        }
        body.push(' ');
        body.push_str(&self.words);
        body.push('\n');
    }
}

/// What a listing selects from `view` before its limit: down to `max_depth`, and what the query
/// matches with its ancestors.
pub(super) fn selection<'f, 'a>(
    view: &[&'f Found<'a>],
    spec: &ObserveSpec,
    query: Option<&str>,
) -> Vec<&'f Found<'a>> {
    let shallow: Vec<&Found<'_>> = match spec.max_depth {
        Some(depth) => view
            .iter()
            .copied()
            .filter(|f| f.line.depth <= depth)
            .collect(),
        None => view.to_vec(),
    };
    match query {
        Some(query) => with_ancestors(&shallow, |f| f.matches(query)),
        None => shallow,
    }
}

/// The elements `hit` picks, each with its ancestors, in tree order.
fn with_ancestors<'f, 'a>(
    view: &[&'f Found<'a>],
    hit: impl Fn(&Found<'a>) -> bool,
) -> Vec<&'f Found<'a>> {
    let mut keep = vec![false; view.len()];
    let mut ancestors: Vec<usize> = Vec::new();
    for (i, found) in view.iter().enumerate() {
        while ancestors
            .last()
            .is_some_and(|&a| view[a].line.depth >= found.line.depth)
        {
            ancestors.pop();
        }
        if hit(found) {
            keep[i] = true;
            // A kept ancestor already has its own ancestors kept.
            for &a in ancestors.iter().rev() {
                if std::mem::replace(&mut keep[a], true) {
                    break;
                }
            }
        }
        ancestors.push(i);
    }
    view.iter()
        .zip(keep)
        .filter_map(|(found, keep)| keep.then_some(*found))
        .collect()
}
