//! What the window actions share: the window a call names, and waiting for a window to show a
//! change.

use std::time::{Duration, Instant};

use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::reach::Reach;
use crate::desk::surface::Surface;
use crate::error::{Error, Result};
use crate::model::WindowInfo;
use crate::session::Session;

/// How long a window has to show a requested change or to close.
pub(crate) const SETTLE_TIMEOUT: Duration = Duration::from_secs(3);
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// The window a window action names: `wN`, or the window `aN` resolves to.
pub(crate) async fn target_window<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<(Surface, WindowInfo)> {
    let surface = reach.surface(backend, session).await?;
    let window = surface
        .window
        .clone()
        .ok_or_else(|| Error::bad_argument("this action needs a window, not the screen"))?;
    Ok((surface, window))
}

/// Reads the window again until `test` holds or the time is up; `None` once the window is gone.
pub(crate) async fn settle<B: Windows>(
    backend: &B,
    window: &WindowInfo,
    test: impl Fn(&WindowInfo) -> bool,
) -> Result<(bool, Option<WindowInfo>)> {
    let started = Instant::now();
    loop {
        let now = backend
            .window(window.handle)
            .await?
            .filter(|w| w.pid == window.pid);
        match now {
            Some(now) if test(&now) => return Ok((true, Some(now))),
            None => return Ok((false, None)),
            Some(now) if started.elapsed() >= SETTLE_TIMEOUT => return Ok((false, Some(now))),
            Some(_) => tokio::time::sleep(POLL).await,
        }
    }
}
