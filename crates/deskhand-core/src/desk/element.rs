//! Places: a ref, a `find` or a point, turned into an element or a pixel at call time.

use crate::action::{Place, RefId, TargetId};
use crate::backend::Backend;
use crate::coords::to_pixel;
use crate::error::{Error, ErrorKind, Result};
use crate::find::find_one;
use crate::model::{Point, WindowInfo};
use crate::render::escape;
use crate::session::{RefEntry, Session};

use super::{Surface, live_window, resolve};

/// A resolved place: the pixel, and how to describe it in a reply.
pub(super) struct Located {
    pub(super) pixel: Point,
    what: String,
}

impl Located {
    pub(super) fn describe(&self) -> String {
        self.what.clone()
    }
}

/// A ref's entry after checking it belongs to the call's surface and its window still exists.
async fn ref_entry<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
    id: RefId,
) -> Result<(RefEntry, WindowInfo)> {
    let (observation, entry) = session.resolve_ref(id)?;
    let (observed_on, observed_label, entry) = (
        observation.surface,
        observation.label.clone(),
        entry.clone(),
    );
    if let Some(named) = target {
        let surface = resolve(backend, session, Some(named)).await?;
        if surface.key != observed_on {
            return Err(Error::new(
                ErrorKind::RefWrongSurface,
                format!(
                    "{id} was observed on {observed_label}, not on {}; observe {named} and use its refs, or leave out `target`",
                    if surface.label == named.to_string() {
                        surface.label.clone()
                    } else {
                        format!("{named} ({})", surface.label)
                    }
                ),
            ));
        }
    }
    match live_window(backend, entry.window).await? {
        Some(window) => Ok((entry, window)),
        None => Err(Error::new(
            ErrorKind::SurfaceGone,
            format!(
                "{id} was in a window that is gone now; call `windows`, then observe the window you want"
            ),
        )),
    }
}

fn ref_label(id: RefId, entry: &RefEntry) -> String {
    if entry.name.is_empty() {
        format!("{id} {}", entry.role.as_str())
    } else {
        format!("{id} {} \"{}\"", entry.role.as_str(), escape(&entry.name))
    }
}

/// The current center of a ref's element, read again so a moved window is followed.
pub(super) async fn ref_center<B: Backend>(
    backend: &B,
    id: RefId,
    entry: &RefEntry,
    window: &WindowInfo,
) -> Result<Point> {
    // An element off screen (a closed menu's item) can report extents far outside any window.
    let screen = backend.screen().await?;
    match backend.element_bounds(window, &entry.handle).await? {
        Some(bounds) if !bounds.is_empty() && screen.contains(bounds.center()) => {
            Ok(bounds.center())
        }
        _ => Err(Error::new(
            ErrorKind::ElementGone,
            format!(
                "{} is not on screen (removed, hidden, in a closed menu or zero-sized); call `observe` again",
                ref_label(id, entry)
            ),
        )),
    }
}

/// An element a call names, by ref or by `find`.
pub(crate) struct Named {
    pub(crate) id: RefId,
    pub(crate) entry: RefEntry,
    pub(crate) window: WindowInfo,
}

impl Named {
    pub(crate) fn label(&self) -> String {
        ref_label(self.id, &self.entry)
    }
}

/// The element a place names; `None` for a point.
pub(crate) async fn named<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
    place: &Place,
) -> Result<Option<Named>> {
    match place {
        Place::Ref(id) => {
            let (entry, window) = ref_entry(backend, session, target, *id).await?;
            Ok(Some(Named {
                id: *id,
                entry,
                window,
            }))
        }
        Place::Find(find) => {
            let (id, entry, window) = find_one(backend, session, target, find).await?;
            Ok(Some(Named { id, entry, window }))
        }
        Place::Point { .. } => Ok(None),
    }
}

pub(super) async fn locate<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
    place: &Place,
) -> Result<Located> {
    if let Some(element) = named(backend, session, target, place).await? {
        let pixel = ref_center(backend, element.id, &element.entry, &element.window).await?;
        return Ok(Located {
            pixel,
            what: format!("{} (pixel {},{})", element.label(), pixel.x, pixel.y),
        });
    }
    let Place::Point { x, y } = *place else {
        unreachable!("a place that names no element is a point")
    };
    let surface = resolve(backend, session, target).await?;
    Ok(point_on(&surface, x, y))
}

/// A point 0–1000 of a resolved surface.
pub(super) fn point_on(surface: &Surface, x: f64, y: f64) -> Located {
    let pixel = to_pixel(&surface.rect, x, y);
    Located {
        pixel,
        what: format!(
            "{x},{y} of {} (pixel {},{})",
            surface.label, pixel.x, pixel.y
        ),
    }
}
