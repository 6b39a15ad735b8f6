//! `down` and `up`: one mouse button pressed or released, for what a click cannot do (a long
//! press, a drag the app draws as it goes).

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Kept, Place, Reaches};
use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::model::{Modifier, MouseButton};
use crate::session::Session;

pub(crate) const DOWN: ActionSpec = ActionSpec {
    name: ActionName::Down,
    text: "down",
    fields: &["target", "ref", "find", "x", "y", "button", "modifiers"],
    changes: Changes::Desktop,
    reaches: Reaches::PlaceOrPointer,
    keeps: &[Kept::Place, Kept::Button, Kept::Modifiers],
};

pub(crate) const UP: ActionSpec = ActionSpec {
    name: ActionName::Up,
    text: "up",
    fields: &["target", "ref", "find", "x", "y", "button", "modifiers"],
    changes: Changes::Desktop,
    reaches: Reaches::PlaceOrPointer,
    keeps: &[Kept::Place, Kept::Button, Kept::Modifiers],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    Ok(Action::Button {
        down: given.name == ActionName::Down,
        place: given.place(false)?,
        button: given.args.button.unwrap_or(MouseButton::Left),
        modifiers: given.modifiers(),
    })
}

pub(crate) async fn button<B: Windows + Accessibility + Capture + Input>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    down: bool,
    place: Option<&Place>,
    button: MouseButton,
    modifiers: &[Modifier],
) -> Result<Reply> {
    let mut at = None;
    if let Some(place) = place {
        let spot = reach.locate(backend, session, place).await?;
        backend.move_pointer(spot.pixel()).await?;
        at = Some(spot);
    }
    backend.button(button, down, modifiers).await?;
    let did = if down {
        Did::Down { button, at }
    } else {
        Did::Up { button, at }
    };
    Ok(Acted::done(did).into())
}
