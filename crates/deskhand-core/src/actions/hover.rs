//! `hover`: moves the pointer onto an element or a point without clicking.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Kept, Place, Reaches};
use crate::backend::{Accessibility, Capture, Input, Intent, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Hover,
    text: "hover",
    fields: &["target", "ref", "find", "x", "y"],
    changes: Changes::Desktop,
    reaches: Reaches::Place,
    keeps: &[Kept::Place],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    Ok(Action::Hover {
        place: given.place(true)?.expect("required place"),
    })
}

pub(crate) async fn hover<B: Windows + Accessibility + Capture + Input>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    place: &Place,
) -> Result<Reply> {
    let spot = reach.locate(backend, session, place).await?;
    backend.show_intent(Intent::Point(spot.pixel()));
    backend.move_pointer(spot.pixel()).await?;
    Ok(Acted::done(Did::Hover {
        pixel: spot.pixel(),
        at: spot,
    })
    .into())
}
