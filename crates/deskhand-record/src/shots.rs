//! Screenshots of a recording: grabbed on the call's way (only when there is no earlier capture
//! to stand for "before") or once the window settled after it (or as the next action cut that
//! short), shrunk, encoded and written on the blocking pool, off the reply's path.

use std::path::Path;
use std::sync::Mutex;
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
        taken_ms: None,
        cut_short: false,
    }
}

/// How long after a reply its "after" capture first looks at the window: the reply is on its way
/// by then, and an action that comes soon after still finds a look taken before it.
const FIRST_LOOK: Duration = Duration::from_millis(50);

/// Between two looks at a window that is still changing (a calculator's display redrawn after
/// "="): the "after" is the first look that shows what the one before it showed.
const LOOK_AGAIN: Duration = Duration::from_millis(100);

/// The longest an "after" capture waits for its window to settle; an animation or a blinking
/// cursor never does.
const SETTLE_CAP: Duration = Duration::from_millis(1500);

/// The longest an "after" capture waits for the window to show any change at all: an app draws
/// what an action did a few hundred ms later (GTK 4), or the action shows nothing.
const CHANGE_CAP: Duration = Duration::from_millis(700);

/// An "after" capture still looking at its window, shared with the recorder: the next action
/// stops it, and from then on no look counts, since one might show what that action did.
#[derive(Default)]
pub(crate) struct Looking {
    state: Mutex<Looks>,
    stopped: Notify,
}

#[derive(Default)]
struct Looks {
    /// Unix ms of the latest look kept: the pixels the capture will be.
    taken_ms: Option<u64>,
    /// When an action stopped the looking.
    stopped_at: Option<Instant>,
}

impl Looking {
    /// An action begins: no look after this one counts. The unix ms of the latest look taken
    /// before it, which the capture keeps, if it had one.
    pub(crate) fn stop(&self) -> Option<u64> {
        let mut looks = self.state.lock().expect("looks");
        looks.stopped_at.get_or_insert_with(Instant::now);
        // `notify_one` keeps a permit, so a capture in the middle of a look wakes at once after.
        self.stopped.notify_one();
        looks.taken_ms
    }

    fn stopped_at(&self) -> Option<Instant> {
        self.state.lock().expect("looks").stopped_at
    }
}

/// The pixels an "after" capture kept.
pub(crate) struct Settled {
    pub image: RgbImage,
    pub taken_ms: u64,
    /// An action began before the window settled: this is the last look before it.
    pub cut_short: bool,
}

/// The window once what the action did is drawn: the first look a moment after the reply, then
/// a look every 100 ms until the window shows a change from `since` (the previous capture of
/// the same place) and two looks in a row agree. A window that shows no change in 700 ms did
/// not draw the action; one still changing after 1.5 s is taken as it is. An action that begins
/// stops the looking: the latest look taken before it is kept, and without one there is no
/// capture, and the error says why.
pub(crate) async fn settled<B: Backend>(
    backend: &B,
    screen: Rect,
    since: Option<&RgbImage>,
    looking: &Looking,
) -> Result<Settled, String> {
    let started = Instant::now();
    let mut wait = FIRST_LOOK;
    let mut latest: Option<(RgbImage, u64)> = None;
    let mut changed = since.is_none();
    let cut = |latest: Option<(RgbImage, u64)>, stopped: Instant| match latest {
        Some((image, taken_ms)) => Ok(Settled {
            image,
            taken_ms,
            cut_short: true,
        }),
        None => Err(format!(
            "the next action began {} ms after this call ended, before the window was looked at; a look then could have shown what that action did",
            stopped.saturating_duration_since(started).as_millis()
        )),
    };
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = looking.stopped.notified() => {}
        }
        if let Some(stopped) = looking.stopped_at() {
            return cut(latest, stopped);
        }
        let Some(image) = grab(backend, screen).await else {
            return match latest {
                Some((image, taken_ms)) => Ok(Settled {
                    image,
                    taken_ms,
                    cut_short: false,
                }),
                None => Err("the screen could not be read".into()),
            };
        };
        let taken_ms = crate::recorder::unix_ms();
        {
            let mut looks = looking.state.lock().expect("looks");
            if let Some(stopped) = looks.stopped_at {
                drop(looks);
                return cut(latest, stopped);
            }
            looks.taken_ms = Some(taken_ms);
        }
        changed = changed || since.is_some_and(|before| before.data != image.data);
        let still = latest
            .as_ref()
            .is_some_and(|(before, _)| before.data == image.data);
        latest = Some((image, taken_ms));
        let taken = started.elapsed() + LOOK_AGAIN;
        if taken >= SETTLE_CAP || (changed && still) || (!changed && taken >= CHANGE_CAP) {
            let (image, taken_ms) = latest.expect("a look was just taken");
            return Ok(Settled {
                image,
                taken_ms,
                cut_short: false,
            });
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
