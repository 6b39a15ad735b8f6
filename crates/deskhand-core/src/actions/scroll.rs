//! `scroll`: wheel clicks at an element or a point, or where the pointer is.

use crate::action::Place;
use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::model::ScrollDirection;
use crate::session::Session;

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
