//! `zoom`: a region of a surface at its native pixels.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches};
use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::{Error, Result};
use crate::session::Session;

use super::screenshot::capture;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Zoom,
    text: "zoom",
    fields: &["target", "region"],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let region = given.args.region.ok_or_else(|| {
        Error::bad_argument("`zoom` needs `region`: [x0, y0, x1, y1], 0–1000 of the surface")
    })?;
    Ok(Action::Zoom { region })
}

pub(crate) async fn zoom<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
    region: [f64; 4],
) -> Result<Reply> {
    capture(backend, session, config, reach, Some(region)).await
}
