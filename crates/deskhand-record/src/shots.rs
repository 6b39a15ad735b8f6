//! Screenshots of a recording: grabbed on the call's way (only when there is no earlier capture
//! to stand for "before"), shrunk, encoded and written on the blocking pool, off the reply's path.

use std::path::Path;

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
