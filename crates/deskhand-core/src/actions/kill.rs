//! `kill`: ends a window's app.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches, TargetId};
use crate::backend::{Accessibility, Apps, Capture, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::settle::target_window;
use crate::error::{Error, ErrorKind, Result};
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Kill,
    text: "kill",
    fields: &["target"],
    changes: Changes::Desktop,
    reaches: Reaches::Surface,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    given.window_target()?;
    Ok(Action::Kill)
}

pub(crate) async fn kill<B: Windows + Accessibility + Capture + Apps>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<Reply> {
    let pid = match reach.target() {
        Some(TargetId::App(id)) => session.app_pid(id)?,
        _ => {
            let (_, window) = target_window(backend, session, reach).await?;
            window.pid.ok_or_else(|| {
                Error::new(
                    ErrorKind::Unsupported,
                    "the window does not say which process owns it, so its app cannot be killed; use `close`",
                )
            })?
        }
    };
    let app = format!("a{}", session.app_id(pid));
    backend.kill(pid).await?;
    Ok(Acted::done(Did::Kill { app, pid }).into())
}
