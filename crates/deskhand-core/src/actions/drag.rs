//! `drag`: presses at one place, moves through any points given, releases at another.

use crate::action::Place;
use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::coords::to_pixel;
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::model::{Modifier, MouseButton};
use crate::session::Session;

/// A drag as the call gave it.
pub(crate) struct DragSpec<'a> {
    pub(crate) from: &'a Place,
    pub(crate) to: &'a Place,
    pub(crate) via: &'a [[f64; 2]],
    pub(crate) duration_ms: u32,
    pub(crate) button: MouseButton,
    pub(crate) modifiers: &'a [Modifier],
}

pub(crate) async fn drag<B: Windows + Accessibility + Capture + Input>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    spec: DragSpec<'_>,
) -> Result<Reply> {
    let start = reach.locate(backend, session, spec.from).await?;
    let end = reach.locate(backend, session, spec.to).await?;
    let mut points = vec![start.pixel()];
    if !spec.via.is_empty() {
        let surface = reach.surface(backend, session).await?;
        points.extend(
            spec.via
                .iter()
                .map(|[x, y]| to_pixel(&surface.rect, *x, *y)),
        );
    }
    points.push(end.pixel());
    backend
        .drag_path(
            &points,
            spec.button,
            spec.modifiers,
            std::time::Duration::from_millis(u64::from(spec.duration_ms)),
        )
        .await?;
    Ok(Acted::done(Did::Drag {
        from: start.pixel(),
        to: end.pixel(),
        points: points.len(),
        from_at: start,
        to_at: end,
        via: spec.via.len(),
    })
    .into())
}
