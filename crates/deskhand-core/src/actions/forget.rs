//! `forget`: drops what memory knew of one app, or of all.

use crate::desk::answer::{Acted, Did};
use crate::desk::config::Config;
use crate::desk::reply::Reply;
use crate::error::Result;

pub(crate) fn forget(config: &Config, app: Option<String>) -> Result<Reply> {
    let windows = config.memory()?.forget(app.as_deref())?;
    Ok(Acted::done(Did::Forget { app, windows }).into())
}
