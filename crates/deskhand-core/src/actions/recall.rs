//! `recall`: what deskhand's memory holds of an app's windows and the routes to them.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, MAX_QUERY_CHARS, Reaches};
use crate::desk::config::Config;
use crate::desk::reply::Reply;
use crate::error::{Error, Result};
use crate::memory::Recall;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Recall,
    text: "recall",
    fields: &["app", "window", "query"],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let clean = |field: &str, text: &Option<String>| -> Result<Option<String>> {
        match text.as_deref().map(str::trim) {
            None => Ok(None),
            Some("") => Err(Error::bad_argument(format!(
                "`{field}` is empty; leave it out to recall more widely"
            ))),
            Some(t) if t.chars().count() > MAX_QUERY_CHARS => Err(Error::bad_argument(format!(
                "`{field}` is longer than {MAX_QUERY_CHARS} characters"
            ))),
            Some(t) => Ok(Some(t.to_owned())),
        }
    };
    let recall = Recall {
        app: clean("app", &given.args.app)?,
        window: clean("window", &given.args.window)?,
        query: clean("query", &given.args.query)?,
    };
    if recall.window.is_some() && recall.app.is_none() {
        return Err(Error::bad_argument(
            "`window` goes with `app`: recall {\"app\": \"Mousepad\", \"window\": \"Preferences\"}",
        ));
    }
    Ok(Action::Recall(recall))
}

pub(crate) fn recall(config: &Config, request: &Recall) -> Result<Reply> {
    let recalled = config
        .memory()?
        .recall(request, std::time::SystemTime::now())?;
    Ok(Reply::observed(recalled.text, recalled.data))
}
