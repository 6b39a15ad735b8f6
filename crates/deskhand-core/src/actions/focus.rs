//! `focus`: raises a window and gives it the keyboard focus.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches};
use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::settle::target_window;
use crate::error::Result;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Focus,
    text: "focus",
    fields: &["target"],
    changes: Changes::Desktop,
    reaches: Reaches::Surface,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    given.window_target()?;
    Ok(Action::Focus)
}

pub(crate) async fn focus<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<Reply> {
    let (surface, window) = target_window(backend, session, reach).await?;
    backend.activate(&window).await?;
    Ok(Acted::done(Did::Focus {
        window: surface.label,
        title: window.title,
    })
    .into())
}
