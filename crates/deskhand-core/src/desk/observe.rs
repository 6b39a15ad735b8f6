//! `observe`, `screenshot` and `zoom`: the tree as text, and pixels.

use serde_json::json;

use crate::action::{ObserveSpec, TargetId};
use crate::backend::Backend;
use crate::coords::region_to_rect;
use crate::error::{Error, ErrorKind, Result};
use crate::find::SurfaceTrees;
use crate::image::{encode_png, fit};
use crate::ocr::add_unlisted_text;
use crate::render::{FENCE, one_line, plural, render};
use crate::session::{Observation, Session};

use super::{Config, Outcome, Reply, describe_surface, make_current, resolve};

pub(super) async fn observe<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    target: Option<TargetId>,
    spec: &ObserveSpec,
) -> Result<Reply> {
    let mut read = SurfaceTrees::read(backend, session, config.ocr.as_ref(), target).await?;
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
    let mut header = format!(
        "observe {} · {}x{} px · {}",
        describe_surface(session, surface),
        surface.rect.width,
        surface.rect.height,
        rendered.summary(&surface.label)
    );
    let unplaced = backend.positions_unknown().await;
    if let Some(why) = &unplaced {
        header.push_str(&format!(" · no points: {why}"));
    }
    if read.from_pixels {
        header.push_str(" · no accessibility tree: text read from pixels");
        if trees.iter().all(|(_, tree)| tree.root.children.is_empty()) {
            header.push_str(", none found (take a `screenshot` to see what it shows)");
        }
    }
    if let Some(added) = added {
        header.push_str(&format!(
            " · {} read from pixels where the tree shows none",
            plural(added, "text", "texts")
        ));
    }
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
    if !partial.is_empty() {
        header.push_str(&format!(" · partial: {}", partial.join("; ")));
    }
    if !unreadable.is_empty() {
        header.push_str(&format!(" · unreadable: {}", unreadable.join("; ")));
    }
    let mut data = json!({
        "surface": surface.label,
        "bounds": surface.rect,
        "nodes": rendered.nodes,
        "names_cut": rendered.names_cut,
        "values_cut": rendered.values_cut,
        "hidden": rendered.hidden,
        "partial": partial,
        "elements": rendered.elements,
    });
    if read.from_pixels {
        data["from_pixels"] = json!(true);
    }
    if let Some(why) = unplaced {
        if surface.window.is_some() {
            data["bounds"] = serde_json::Value::Null;
        }
        data["positions_unknown"] = json!(why);
    }
    // Only what a call asked for, or a cut, adds fields: the common reply stays as short.
    if rendered.total > rendered.elements.len() {
        data["elements_total"] = json!(rendered.total);
        data["limit"] = json!(rendered.limit);
    }
    if let Some((query, matches)) = &rendered.query {
        data["query"] = json!(query);
        data["matches"] = json!(matches);
    }
    if rendered.below_depth > 0 {
        data["below_depth"] = json!(rendered.below_depth);
    }
    if let Some(since) = rendered.since {
        data["since"] = match since {
            Some(changes) => {
                json!({"previous": true, "added": changes.added, "removed": changes.removed, "changed": changes.changed})
            }
            None => json!({"previous": false}),
        };
    }
    // App text is fenced: the line after the header says quoted text is data.
    let mut text = format!("{header}\n{FENCE}\n{}", rendered.body);
    let single = surface.window.is_some();
    for (window, tree) in trees {
        if let Some(note) = crate::learn::observed(config, session, window, tree, single) {
            text.push_str(&note);
            text.push('\n');
            break;
        }
    }
    session.remember(surface.key, std::mem::take(&mut rendered.seen), now_ms);
    session.observed(Observation {
        surface: surface.key,
        label: surface.label.clone(),
        refs: rendered.refs,
    });
    make_current(session, surface);
    Ok(Reply::observed(text, data))
}

/// `ocr: true`: unnamed controls named by the text on their pixels, then the text on the
/// window's pixels that its tree does not show, added to it.
async fn add_pixel_text<B: Backend>(
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

pub(super) async fn capture<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    target: Option<TargetId>,
    region: Option<[f64; 4]>,
) -> Result<Reply> {
    let surface = resolve(backend, session, target).await?;
    let base = match &surface.window {
        Some(window) => super::window_pixels(backend, window).await?,
        None => surface.rect,
    };
    let (rect, kind) = match region {
        Some(region) => (region_to_rect(&base, region)?, "zoom"),
        None => (base, "screenshot"),
    };
    let image = backend.capture(rect).await?;
    let (native_w, native_h) = (image.width, image.height);
    let image = if region.is_some() {
        image
    } else {
        fit(image, config.max_image_edge)
    };
    let png = encode_png(&image)?;
    let scaled = if (image.width, image.height) != (native_w, native_h) {
        format!(" · scaled to {}x{}", image.width, image.height)
    } else {
        String::new()
    };
    let region_text = region
        .map(|[x0, y0, x1, y1]| format!(" region [{x0}, {y0}, {x1}, {y1}]"))
        .unwrap_or_default();
    let text = format!(
        "{kind} {}{region_text} · {native_w}x{native_h} px{scaled}\n",
        describe_surface(session, &surface)
    );
    let data = json!({
        "surface": surface.label, "kind": kind, "pixels": rect,
        "width": image.width, "height": image.height,
    });
    make_current(session, &surface);
    Ok(Reply {
        text,
        outcome: Outcome::Observed,
        image: Some(png),
        data,
    })
}
