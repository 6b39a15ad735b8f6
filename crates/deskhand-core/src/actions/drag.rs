//! `drag`: presses at one place, moves through any points given, releases at another.

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Given, Kept, MAX_DRAG_MS, MAX_VIA, Place, Reaches,
    RefId, Spot,
};
use crate::backend::{Accessibility, Capture, Input, Intent, Windows};
use crate::coords::{check_unit, to_pixel};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::{Error, Result};
use crate::model::{Modifier, MouseButton};
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Drag,
    text: "drag",
    fields: &[
        "target",
        "from",
        "to",
        "via",
        "duration_ms",
        "button",
        "modifiers",
    ],
    changes: Changes::Desktop,
    reaches: Reaches::Place,
    keeps: &[Kept::Ends, Kept::Button, Kept::Modifiers],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let spot = |name: &str, spot: &Option<Spot>| -> Result<Place> {
        match spot {
            None => Err(Error::bad_argument(format!(
                "`drag` needs `{name}`: a ref \"eN\" or a point [x, y] 0–1000 of the surface"
            ))),
            Some(Spot::Ref(text)) => RefId::parse(text).map(Place::Ref),
            Some(Spot::Point([x, y])) => Ok(Place::Point {
                x: check_unit(&format!("{name}[0]"), *x)?,
                y: check_unit(&format!("{name}[1]"), *y)?,
            }),
        }
    };
    let via = given.args.via.clone().unwrap_or_default();
    if via.len() > MAX_VIA {
        return Err(Error::bad_argument(format!(
            "`via` has {} points, more than {MAX_VIA}; give fewer points along the path",
            via.len()
        )));
    }
    for (i, [x, y]) in via.iter().enumerate() {
        check_unit(&format!("via[{i}][0]"), *x)?;
        check_unit(&format!("via[{i}][1]"), *y)?;
    }
    let duration_ms = given.args.duration_ms.unwrap_or(0);
    if duration_ms > MAX_DRAG_MS {
        return Err(Error::bad_argument(format!(
            "`duration_ms` is {duration_ms}; give 0–{MAX_DRAG_MS}"
        )));
    }
    Ok(Action::Drag {
        from: spot("from", &given.args.from)?,
        to: spot("to", &given.args.to)?,
        via,
        duration_ms,
        button: given.args.button.unwrap_or(MouseButton::Left),
        modifiers: given.modifiers(),
    })
}

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
    backend.show_intent(Intent::Point(start.pixel()));
    backend.show_intent(Intent::Point(end.pixel()));
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
