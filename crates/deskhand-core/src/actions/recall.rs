//! `recall`: what deskhand's memory holds of an app's windows and the routes to them.

use crate::desk::config::Config;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::memory::Recall;

pub(crate) fn recall(config: &Config, request: &Recall) -> Result<Reply> {
    let recalled = config
        .memory()?
        .recall(request, std::time::SystemTime::now())?;
    Ok(Reply::observed(recalled.text, recalled.data))
}
