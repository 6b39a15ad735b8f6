//! `close`: asks a window to close, and waits to see it go.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches};
use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::settle::{SETTLE_TIMEOUT, settle, target_window};
use crate::error::Result;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Close,
    text: "close",
    fields: &["target"],
    changes: Changes::Desktop,
    reaches: Reaches::Surface,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    given.window_target()?;
    Ok(Action::Close)
}

pub(crate) async fn close<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<Reply> {
    let (surface, window) = target_window(backend, session, reach).await?;
    backend.close(&window).await?;
    let (_, still) = settle(backend, &window, |_| false).await?;
    if still.is_none() {
        session.window_closed(window.key());
    }
    Ok(Acted::done(Did::Close {
        window: surface.label,
        closed: still.is_none(),
        waited_s: SETTLE_TIMEOUT.as_secs(),
    })
    .into())
}
