//! `zoom`: a region of a surface at its native pixels.

use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::session::Session;

use super::screenshot::capture;

pub(crate) async fn zoom<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
    region: [f64; 4],
) -> Result<Reply> {
    capture(backend, session, config, reach, Some(region)).await
}
