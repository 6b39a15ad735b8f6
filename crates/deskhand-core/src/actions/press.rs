//! `press`: key chords to the focused window.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Kept, Reaches};
use crate::backend::{Input, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::focus::focused_window;
use crate::desk::reply::Reply;
use crate::error::{Error, Result};
use crate::keys::Keys;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Press,
    text: "press",
    fields: &["keys"],
    changes: Changes::Desktop,
    reaches: Reaches::Focus,
    keeps: &[Kept::Keys, Kept::Place],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let keys = given.args.keys.clone().unwrap_or_default();
    if keys.trim().is_empty() {
        return Err(Error::bad_argument(
            "`press` needs `keys`, e.g. \"ctrl+s\", \"Return\" or \"ctrl+a Delete\"",
        ));
    }
    Ok(Action::Press {
        keys: Keys::parse(&keys).map_err(|err| Error::bad_argument(err.to_string()))?,
    })
}

pub(crate) async fn press<B: Windows + Input>(
    backend: &B,
    session: &mut Session,
    keys: &Keys,
) -> Result<Reply> {
    let into = focused_window(backend, session).await?;
    let sent = backend.press_keys(keys).await?;
    Ok(Acted {
        did: Did::Press {
            keys: keys.to_string(),
            into,
        },
        sent,
    }
    .into())
}
