//! Screenshots of a recording: grabbed on the call's way (only when there is no earlier capture
//! to stand for "before") or once the window settled after it, shrunk, encoded and written on the
//! blocking pool, off the reply's path.

use std::path::Path;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use deskhand_core::Backend;
use deskhand_core::model::{Rect, RgbImage};

use crate::format::Shot;

/// The long edge of a recorded screenshot: a button's label still reads, and 50 steps of
/// them stay a few MB in the report.
pub(crate) const SHOT_EDGE: u32 = 1024;

/// Where a capture of `screen` will be written and how screen pixels map onto it.
pub(crate) fn planned(file: String, screen: Rect) -> Shot {
    let long = screen.width.max(screen.height).max(1);
    let scale = if long <= SHOT_EDGE {
        1.0
    } else {
        f64::from(SHOT_EDGE) / f64::from(long)
    };
    Shot {
        file,
        screen,
        scale,
    }
}

/// How long after a reply its "after" capture is first taken, so what the action started has
/// drawn; the next call cuts it short.
const FIRST_LOOK: Duration = Duration::from_millis(150);

/// Between two looks at a window that is still changing (a calculator's display redrawn after
/// "="): the "after" is the first look that shows what the one before it showed.
const LOOK_AGAIN: Duration = Duration::from_millis(100);

/// The longest an "after" capture waits for its window to settle; an animation or a blinking
/// cursor never does.
const SETTLE_CAP: Duration = Duration::from_millis(1500);

/// The longest an "after" capture waits for the window to show any change at all: an app draws
/// what an action did a few hundred ms later (GTK 4), or the action shows nothing.
const CHANGE_CAP: Duration = Duration::from_millis(700);

/// The window once what the action did is drawn: the first look a moment after the reply, then
/// a look every 100 ms until the window shows a change from `since` (the previous capture of
/// the same place) and two looks in a row agree. A window that shows no change in 700 ms did
/// not draw the action; one still changing after 1.5 s is taken as it is; and the next action
/// takes it at once.
pub(crate) async fn settled<B: Backend>(
    backend: &B,
    screen: Rect,
    since: Option<&RgbImage>,
    hurry: &Notify,
) -> Option<RgbImage> {
    let started = Instant::now();
    let mut wait = FIRST_LOOK;
    let mut latest: Option<RgbImage> = None;
    let mut changed = since.is_none();
    loop {
        let hurried = tokio::select! {
            () = tokio::time::sleep(wait) => false,
            () = hurry.notified() => true,
        };
        let Some(image) = grab(backend, screen).await else {
            return latest;
        };
        changed = changed || since.is_some_and(|before| before.data != image.data);
        let still = latest
            .as_ref()
            .is_some_and(|before| before.data == image.data);
        latest = Some(image);
        let taken = started.elapsed() + LOOK_AGAIN;
        if hurried || taken >= SETTLE_CAP || (changed && still) || (!changed && taken >= CHANGE_CAP)
        {
            return latest;
        }
        wait = LOOK_AGAIN;
    }
}

/// `window` with a margin, within `screen`; `None` when they do not meet.
pub(crate) fn around(window: Rect, screen: Rect) -> Option<Rect> {
    const MARGIN: i32 = 40;
    let left = (window.x - MARGIN).max(screen.x);
    let top = (window.y - MARGIN).max(screen.y);
    let right = (window.x + window.width as i32 + MARGIN).min(screen.x + screen.width as i32);
    let bottom = (window.y + window.height as i32 + MARGIN).min(screen.y + screen.height as i32);
    (right > left && bottom > top)
        .then(|| Rect::new(left, top, (right - left) as u32, (bottom - top) as u32))
}

pub(crate) async fn grab<B: Backend>(backend: &B, screen: Rect) -> Option<RgbImage> {
    backend.capture(screen).await.ok()
}

/// Shrinks and writes one capture; returns the bytes written.
pub(crate) fn write(dir: &Path, shot: &Shot, image: RgbImage) -> Option<u64> {
    let image = deskhand_core::image::fit(image, SHOT_EDGE);
    let png = encode(&image)?;
    let path = dir.join(crate::format::SHOTS).join(&shot.file);
    std::fs::write(&path, &png).ok()?;
    Some(png.len() as u64)
}

/// Better compression than replies use: this runs off the call's path, and the report
/// carries every image.
fn encode(image: &RgbImage) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(image.data.len() / 8);
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let mut writer = encoder.write_header().ok()?;
    writer.write_image_data(&image.data).ok()?;
    writer.finish().ok()?;
    Some(out)
}
