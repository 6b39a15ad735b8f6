//! Pixels on GNOME: through the shell's screenshot while the extension runs, else from Mutter's
//! screen cast, kept watching while it is used.

use std::time::Duration;

use deskhand_core::error::Result;
use deskhand_core::model::{Rect, RgbImage};

use super::GnomeError;
use crate::gnome::cast::{CursorMode, Recording};
use crate::gnome::cursor::{CursorWatch, Pointer};

use super::*;

impl Gnome {
    /// Pixels of a screen rectangle: through the shell extension while it runs, else through
    /// Mutter's screen cast. Both give the same pixels (the displays tests compare them), and
    /// the shell's screenshot was the faster for what is captured most, a window or a region
    /// (`benches/gnome_capture.rs`, release, medians of 11: 1280×800 158 ms by the shell, 122 ms
    /// by the screen cast; 400×300 23 ms against 129 ms, as a screen-cast client spends about
    /// 120 ms connecting and negotiating whatever the size). The screen cast is the fall-back
    /// when the shell's screenshot fails. Without the extension the screen cast kept connected
    /// for the pointer gives its latest picture after the wait that makes it current (on a
    /// later run: 55 ms for 1280×800 and 53 ms for 400×300, against 71 and 52 ms connecting a
    /// client for one frame).
    pub async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        if !self.extension_running().await? {
            return self.watched_capture(rect).await;
        }
        match self.shell_capture(rect).await {
            Ok(image) => Ok(image),
            Err(shell) => self.cast_capture(rect).await.map_err(|_| shell),
        }
    }

    /// The kept screen cast with the pointer, ended if it records another layout than the
    /// monitors' now; the monitors; whether a watch was kept. Reading the monitors is also the
    /// round trip through Mutter's main loop that makes a look current.
    pub(super) async fn current_watch(
        &self,
    ) -> Result<(
        tokio::sync::MutexGuard<'_, Option<CursorWatch>>,
        Vec<(String, Rect)>,
        bool,
    )> {
        let monitors = crate::gnome::remote::monitors_of(self.bus().await?, CALL_TIMEOUT)
            .await
            .map_err(gnome_error)?;
        let mut watch = self.cursor.lock().await;
        if watch.as_ref().is_some_and(|w| !w.records(&monitors))
            && let Some(old) = watch.take()
        {
            old.stop().await;
        }
        let kept = watch.is_some();
        Ok((watch, monitors, kept))
    }

    /// Pixels from the kept screen cast the pointer is read from (without the extension): its
    /// streams keep the latest picture, so a capture pays no connection.
    pub async fn watched_capture(&self, rect: Rect) -> Result<RgbImage> {
        let bus = self.bus().await?;
        let (mut watch, monitors, kept) = self.current_watch().await?;
        match capture_once(&mut watch, bus, &monitors, rect).await {
            Err(GnomeError::NoCursor { .. } | GnomeError::NoFrame { .. }) if kept => {
                capture_once(&mut watch, bus, &monitors, rect).await
            }
            other => other,
        }
        .map_err(gnome_error)
    }

    /// Pixels through Mutter's screen cast, recording the monitors as they are now: a
    /// recording of a layout that has changed since is replaced.
    pub async fn cast_capture(&self, rect: Rect) -> Result<RgbImage> {
        let bus = self.bus().await?;
        let monitors = crate::gnome::remote::monitors_of(bus, CALL_TIMEOUT)
            .await
            .map_err(gnome_error)?;
        let mut recording = self.recording.lock().await;
        let current = recording.as_ref().is_some_and(|r| r.records(&monitors));
        if !current && let Some(old) = recording.take() {
            old.stop().await;
        }
        // A kept recording may have ended since (the user stopped the screen sharing from the
        // top bar, or the shell restarted): it is replaced once, and a new one is not.
        let kept = recording.is_some();
        let image = match cast_once(&mut recording, bus, &monitors, rect).await {
            Err(GnomeError::NoFrame { .. }) if kept => {
                cast_once(&mut recording, bus, &monitors, rect).await
            }
            other => other,
        };
        image.map_err(gnome_error)
    }

    /// Pixels through deskhand's shell extension.
    pub async fn shell_capture(&self, rect: Rect) -> Result<RgbImage> {
        self.shell()
            .await?
            .screenshot(rect)
            .await
            .map_err(gnome_error)
    }
}

/// Longer than a frame of the shell's 60 Hz clock, on which it hands queued input to the apps.
pub(super) const FRAME: Duration = Duration::from_millis(40);

/// A screen cast's first frame comes at once; a loaded machine may take a second.
pub(super) const FRAME_TIMEOUT: Duration = Duration::from_secs(3);

/// One look through the watch in `slot`, started when there is none; a watch that told nothing
/// is ended, for the next look to start afresh.
pub(super) async fn look_once(
    slot: &mut Option<CursorWatch>,
    bus: &zbus::Connection,
    monitors: &[(String, Rect)],
) -> std::result::Result<Pointer, GnomeError> {
    let watch = match slot.as_mut() {
        Some(watch) => watch,
        None => slot.insert(CursorWatch::start(bus.clone(), monitors, CALL_TIMEOUT).await?),
    };
    let seen = watch.look(FRAME_TIMEOUT).await;
    if matches!(seen, Err(GnomeError::NoCursor { .. }))
        && let Some(old) = slot.take()
    {
        old.stop().await;
    }
    seen
}

/// One capture through the watch in `slot`, started when there is none; a watch that gave no
/// pixels is ended, for the next capture to start afresh.
pub(super) async fn capture_once(
    slot: &mut Option<CursorWatch>,
    bus: &zbus::Connection,
    monitors: &[(String, Rect)],
    rect: Rect,
) -> std::result::Result<RgbImage, GnomeError> {
    let watch = match slot.as_mut() {
        Some(watch) => watch,
        None => slot.insert(CursorWatch::start(bus.clone(), monitors, CALL_TIMEOUT).await?),
    };
    let image = watch.capture(rect, FRAME_TIMEOUT).await;
    if matches!(
        image,
        Err(GnomeError::NoCursor { .. } | GnomeError::NoFrame { .. })
    ) && let Some(old) = slot.take()
    {
        old.stop().await;
    }
    image
}

/// One capture through the recording in `slot`, started when there is none; a recording that
/// gave no pixels is ended, for the next capture to start afresh.
pub(super) async fn cast_once(
    slot: &mut Option<Recording>,
    bus: &zbus::Connection,
    monitors: &[(String, Rect)],
    rect: Rect,
) -> std::result::Result<RgbImage, GnomeError> {
    let cast = match slot.as_mut() {
        Some(cast) => cast,
        None => slot.insert(
            Recording::start(bus.clone(), monitors, CursorMode::Hidden, CALL_TIMEOUT).await?,
        ),
    };
    let image = cast.capture(rect, FRAME_TIMEOUT).await;
    if matches!(image, Err(GnomeError::NoFrame { .. }))
        && let Some(old) = slot.take()
    {
        old.stop().await;
    }
    image
}
