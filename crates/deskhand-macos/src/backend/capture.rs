//! The `Capture` capability: the screen's pixels.

use deskhand_core::backend::Capture;
use deskhand_core::model::{Rect, RgbImage};
use deskhand_core::{Error, Result};

use crate::capture::{AfterFailure, Plan, after_failure, plan};
use crate::display::screen;
use crate::errors::Request;
use crate::permissions::{Permission, missing};

use super::{MacBackend, blocking, quartz, require, sck};

/// The pixels of `rect` (global points): ScreenCaptureKit where it takes screenshots, else or
/// after it failed for a reason other than the permission, the window list.
fn capture(rect: Rect) -> Result<RgbImage> {
    // Asking Quartz for the displays first also opens the window server connection, which
    // ScreenCaptureKit expects a process without an NSApplication to have.
    let displays = quartz::displays();
    let outside = || {
        Error::bad_argument(format!(
            "the region {rect:?} lies outside every display; give one on screen"
        ))
    };
    let on_screen = screen(&displays)
        .and_then(|screen| rect.intersect(&screen))
        .ok_or_else(outside)?;
    let screenshots = objc2::available!(macos = 14.0);
    if let Plan::Screenshots {
        width,
        height,
        pieces,
    } = plan(on_screen, &displays, screenshots).ok_or_else(outside)?
    {
        match sck::capture(width, height, &pieces) {
            Ok(image) => return Ok(image),
            Err(sck::Failed(code)) => match after_failure(code) {
                AfterFailure::AskForPermission => {
                    return Err(Error::platform(missing(Permission::ScreenRecording)));
                }
                AfterFailure::UseWindowList => {}
            },
        }
    }
    quartz::capture(on_screen).ok_or_else(|| {
        Error::platform(format!(
            "the screen could not be captured (Quartz gave no image); if it worked before, \
             macOS may be asking again for permission: {}",
            missing(Permission::ScreenRecording)
        ))
    })
}

impl Capture for MacBackend {
    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        require(Permission::ScreenRecording)?;
        blocking("Capturing the screen", Request::Read, move || capture(rect)).await
    }
}
