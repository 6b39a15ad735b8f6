//! `scroll`: wheel clicks at an element or a point, or where the pointer is.

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Given, Kept, MAX_SCROLL, Place, Reaches,
};
use crate::backend::{Accessibility, Capture, Input, Intent, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::{Error, Result};
use crate::model::ScrollDirection;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Scroll,
    text: "scroll",
    fields: &["target", "ref", "find", "x", "y", "direction", "amount"],
    changes: Changes::Desktop,
    reaches: Reaches::PlaceOrPointer,
    keeps: &[Kept::Place, Kept::Direction, Kept::Amount],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    // Scrolling without a place goes where the pointer is, whatever the target.
    if given.target.is_some() && given.place(false)?.is_none() {
        return Err(Error::bad_argument(
            "`scroll` takes `target` only together with `ref`, `find` or `x`/`y`; without them it goes where the pointer is",
        ));
    }
    let direction = given.args.direction.ok_or_else(|| {
        Error::bad_argument("`scroll` needs `direction`: up, down, left or right")
    })?;
    let amount = given.args.amount.unwrap_or(3);
    if !(1..=MAX_SCROLL).contains(&amount) {
        return Err(Error::bad_argument(format!(
            "`amount` is {amount}; give 1–{MAX_SCROLL} wheel clicks"
        )));
    }
    Ok(Action::Scroll {
        place: given.place(false)?,
        direction,
        amount,
    })
}

pub(crate) async fn scroll<B: Windows + Accessibility + Capture + Input>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    place: Option<&Place>,
    direction: ScrollDirection,
    amount: u32,
) -> Result<Reply> {
    let at = match place {
        Some(place) => Some(reach.locate(backend, session, place).await?),
        None => None,
    };
    if let Some(at) = &at {
        backend.show_intent(Intent::Point(at.pixel()));
    }
    backend
        .scroll(at.as_ref().map(|l| l.pixel()), direction, amount)
        .await?;
    Ok(Acted::done(Did::Scroll {
        direction,
        amount,
        at,
    })
    .into())
}
