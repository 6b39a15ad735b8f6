//! `apps`: the running apps, or with `installed` the apps that can be launched.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches};
use crate::backend::{Apps, Windows};
use crate::desk::answer::{AppRow, Listed};
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Apps,
    text: "apps",
    fields: &["installed"],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    Ok(if given.args.installed == Some(true) {
        Action::Installed
    } else {
        Action::Apps
    })
}

pub(crate) async fn installed<B: Apps>(backend: &B) -> Result<Reply> {
    let installed = backend.installed().await?;
    let not_listed = backend.installed_gaps().await;
    Ok(Listed::Installed {
        installed,
        not_listed,
    }
    .into())
}

pub(crate) async fn apps<B: Windows>(backend: &B, session: &mut Session) -> Result<Reply> {
    let apps = backend.apps().await?;
    let apps = apps
        .into_iter()
        .map(|app| AppRow {
            id: format!("a{}", session.app_id(app.pid)),
            name: app.name,
            pid: app.pid,
            windows: app.windows,
            focused: app.focused,
        })
        .collect();
    Ok(Listed::Apps { apps }.into())
}
