//! `down` and `up`: one mouse button pressed or released, for what a click cannot do (a long
//! press, a drag the app draws as it goes).

use crate::action::Place;
use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::model::{Modifier, MouseButton};
use crate::session::Session;

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
