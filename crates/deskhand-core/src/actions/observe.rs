//! `observe`: a surface's accessibility tree as compact text with refs, and text read from the
//! pixels of what has no tree.

use crate::action::{
    Action, ActionName, ActionSpec, Changes, DEFAULT_LIMIT, Given, MAX_DEPTH, MAX_LIMIT,
    MAX_QUERY_CHARS, ObserveSpec, Reaches,
};
use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::answer::Observed;
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::surface::{describe_surface, make_current};
use crate::error::{Error, ErrorKind, Result};
use crate::find::SurfaceTrees;
use crate::ocr::add_unlisted_text;
use crate::render::{REF_NAME_CHARS, cut, one_line, render};
use crate::session::{Observation, Session, element_key};

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Observe,
    text: "observe",
    fields: &[
        "target",
        "limit",
        "query",
        "max_depth",
        "hidden",
        "points",
        "since",
        "ocr",
    ],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let args = given.args;
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::bad_argument(format!(
            "`limit` is {limit}; give 1–{MAX_LIMIT} elements (default {DEFAULT_LIMIT}), or a `query` to list only what you look for"
        )));
    }
    if let Some(depth) = args.max_depth.filter(|d| *d > MAX_DEPTH) {
        return Err(Error::bad_argument(format!(
            "`max_depth` is {depth}; give 0–{MAX_DEPTH} (0 lists only the window itself), or leave it out to list every depth"
        )));
    }
    let query = match args.query.as_deref().map(str::trim) {
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
    Ok(Action::Observe(ObserveSpec {
        limit: limit as usize,
        query,
        max_depth: args.max_depth.map(|d| d as usize),
        hidden: args.hidden.unwrap_or(false),
        points: args.points.unwrap_or(false),
        since: args.since.unwrap_or(false),
        ocr: args.ocr.unwrap_or(false),
    }))
}

pub(crate) async fn observe<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
    spec: &ObserveSpec,
) -> Result<Reply> {
    let surface = reach.surface(backend, session).await?;
    let mut read = SurfaceTrees::of(backend, session, config.ocr.as_ref(), surface).await?;
    let added = if spec.ocr && !read.from_pixels {
        Some(add_pixel_text(backend, config, &mut read).await?)
    } else {
        None
    };
    let labelled = read.labelled(session);
    let (surface, trees, unreadable) = (&read.surface, &read.trees, &read.unreadable);
    // Taken out now and put back below: nothing fails from here on.
    let previous = session.take_seen(surface.key);
    let now_ms = crate::learn::unix_ms();
    let mut rendered = render(
        &labelled,
        &surface.rect,
        spec,
        previous.as_ref().map(|(seen, _)| seen.as_slice()),
        session,
    );
    rendered.compared_ms = previous
        .as_ref()
        .filter(|(_, at_ms)| *at_ms > 0)
        .map(|(_, at_ms)| now_ms.saturating_sub(*at_ms));
    let positions_unknown = backend.positions_unknown().await;
    let partial: Vec<String> = trees
        .iter()
        .filter_map(|(window, tree)| {
            let why = tree.partial.as_deref()?;
            Some(match surface.window {
                Some(_) => one_line(why),
                None => format!("w{}: {}", session.window_id(window.key()), one_line(why)),
            })
        })
        .collect();
    let single = surface.window.is_some();
    let learned = trees
        .iter()
        .find_map(|(window, tree)| crate::learn::observed(config, session, window, tree, single));
    let seen = std::mem::take(&mut rendered.seen);
    let observation = Observation {
        surface: surface.key,
        label: surface.label.clone(),
        refs: std::mem::take(&mut rendered.refs),
    };
    if spec.query.is_some() || spec.max_depth.is_some() {
        session.observed_narrowed(observation, |entry| {
            let key = element_key(&entry.handle, entry.role);
            seen.iter()
                .any(|s| s.key == key && cut(&s.name, REF_NAME_CHARS).0 == entry.name)
        });
    } else {
        session.observed(observation);
    }
    session.remember(surface.key, seen, now_ms);
    let observed = Observed {
        described: describe_surface(session, surface),
        surface: surface.label.clone(),
        bounds: surface.rect,
        of_window: single,
        from_pixels: read.from_pixels,
        missing_bridge: read.missing_bridge.clone(),
        none_found: trees.iter().all(|(_, tree)| tree.root.children.is_empty()),
        added,
        partial,
        unreadable: unreadable.clone(),
        positions_unknown,
        learned,
        rendered,
    };
    make_current(session, surface);
    Ok(observed.into())
}

/// `ocr: true`: unnamed controls named by the text on their pixels, then the text on the
/// window's pixels that its tree does not show, added to it.
async fn add_pixel_text<B: Windows + Capture>(
    backend: &B,
    config: &Config,
    read: &mut SurfaceTrees,
) -> Result<usize> {
    let Some(reader) = config.ocr.as_ref() else {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "`ocr` reads text from pixels, and this build has no text reader (OCR); leave `ocr` out, or take a `screenshot`",
        ));
    };
    read.name_from_pixels(backend, reader).await;
    let [(window, tree)] = read.trees.as_mut_slice() else {
        return Err(Error::bad_argument(
            "`ocr` reads one window's pixels, and the screen shows many that may cover each other; observe one window (`target` \"wN\")",
        ));
    };
    add_unlisted_text(backend, reader, window, tree).await
}
