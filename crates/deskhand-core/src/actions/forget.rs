//! `forget`: drops what memory knew of one app, or of all.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches};
use crate::desk::answer::{Acted, Did};
use crate::desk::config::Config;
use crate::desk::reply::Reply;
use crate::error::{Error, Result};

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Forget,
    text: "forget",
    fields: &["app", "all"],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    match (given.args.app.as_deref().map(str::trim), given.args.all) {
        (Some(app), None) if !app.is_empty() => Ok(Action::Forget {
            app: Some(app.to_owned()),
        }),
        (None, Some(true)) => Ok(Action::Forget { app: None }),
        _ => Err(Error::bad_argument(
            "`forget` needs either `app` (an app's name as recall lists it) or `all: true`, not both",
        )),
    }
}

pub(crate) fn forget(config: &Config, app: Option<String>) -> Result<Reply> {
    let windows = config.memory()?.forget(app.as_deref())?;
    Ok(Acted::done(Did::Forget { app, windows }).into())
}
