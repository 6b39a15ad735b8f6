//! Screenshots: scale to what vision models keep, encode PNG fast.

use crate::error::{Error, Result};
use crate::model::RgbImage;

/// The long edge vision models keep without downscaling again.
pub const DEFAULT_MAX_EDGE: u32 = 1568;

/// Shrinks the image so its long edge is at most `max_edge`; never enlarges.
pub fn fit(image: RgbImage, max_edge: u32) -> RgbImage {
    let long = image.width.max(image.height);
    if long <= max_edge || max_edge == 0 {
        return image;
    }
    let scale = max_edge as f64 / long as f64;
    let width = ((image.width as f64 * scale).round() as u32).max(1);
    let height = ((image.height as f64 * scale).round() as u32).max(1);
    box_resize(&image, width, height)
}

/// `image` at `width`x`height`: area-averaged where it shrinks, repeated where it grows.
pub fn resized(image: &RgbImage, width: u32, height: u32) -> RgbImage {
    if (image.width, image.height) == (width, height) {
        return image.clone();
    }
    if image.width == 0 || image.height == 0 || width == 0 || height == 0 {
        return RgbImage {
            width,
            height,
            data: vec![0; width as usize * height as usize * 3],
        };
    }
    box_resize(image, width, height)
}

/// Copies `part` into `canvas` with its top-left pixel at `(x, y)`, clipped to the canvas.
pub fn paste(canvas: &mut RgbImage, part: &RgbImage, (x, y): (u32, u32)) {
    let width = part.width.min(canvas.width.saturating_sub(x)) as usize;
    let rows = part.height.min(canvas.height.saturating_sub(y));
    for row in 0..rows {
        let from = row as usize * part.width as usize * 3;
        let to = ((y + row) as usize * canvas.width as usize + x as usize) * 3;
        canvas.data[to..to + width * 3].copy_from_slice(&part.data[from..from + width * 3]);
    }
}

/// Area-average downscale: each output pixel averages the source pixels it covers.
fn box_resize(src: &RgbImage, width: u32, height: u32) -> RgbImage {
    let spans = |from: u32, to: u32| -> Vec<(usize, usize)> {
        (0..to)
            .map(|i| {
                let start = (i as u64 * from as u64 / to as u64) as usize;
                let end =
                    (((i as u64 + 1) * from as u64).div_ceil(to as u64) as usize).max(start + 1);
                (start, end.min(from as usize))
            })
            .collect()
    };
    let xs = spans(src.width, width);
    let ys = spans(src.height, height);
    let stride = src.width as usize * 3;
    let mut data = Vec::with_capacity(width as usize * height as usize * 3);
    let mut row_sums = vec![0u32; src.width as usize * 3];
    for &(y0, y1) in &ys {
        row_sums.iter_mut().for_each(|s| *s = 0);
        for row in src.data[y0 * stride..y1 * stride].chunks_exact(stride) {
            for (sum, value) in row_sums.iter_mut().zip(row) {
                *sum += *value as u32;
            }
        }
        let rows = (y1 - y0) as u32;
        for &(x0, x1) in &xs {
            let count = rows * (x1 - x0) as u32;
            let mut total = [0u32; 3];
            for pixel in row_sums[x0 * 3..x1 * 3].chunks_exact(3) {
                total[0] += pixel[0];
                total[1] += pixel[1];
                total[2] += pixel[2];
            }
            data.extend(total.map(|sum| ((sum + count / 2) / count) as u8));
        }
    }
    RgbImage {
        width,
        height,
        data,
    }
}

pub fn encode_png(image: &RgbImage) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(image.data.len() / 4);
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let fail = |err: png::EncodingError| {
        Error::platform(format!(
            "encoding the screenshot as PNG failed: {err}; try again or capture a smaller region with zoom"
        ))
    };
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(&image.data).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn pasted_parts_sit_where_they_are_placed_and_resizing_keeps_colours() {
        let solid = |width: u32, height: u32, value: u8| RgbImage {
            width,
            height,
            data: vec![value; width as usize * height as usize * 3],
        };
        let mut canvas = solid(4, 2, 0);
        let doubled = solid(4, 4, 200);
        let part = super::resized(&doubled, 2, 2);
        assert_eq!(part, solid(2, 2, 200));
        super::paste(&mut canvas, &part, (2, 0));
        let row: Vec<u8> = canvas.data[..12].iter().step_by(3).copied().collect();
        assert_eq!(row, [0, 0, 200, 200]);
        super::paste(&mut canvas, &solid(3, 3, 9), (3, 1));
        assert_eq!(
            canvas.data[(4 + 3) * 3],
            9,
            "clipped to the canvas, not past it"
        );
        assert_eq!(canvas.data.len(), 4 * 2 * 3);
    }

    use super::*;

    fn solid(width: u32, height: u32, rgb: [u8; 3]) -> RgbImage {
        RgbImage {
            width,
            height,
            data: rgb.repeat((width * height) as usize),
        }
    }

    #[test]
    fn fit_keeps_aspect_and_colour() {
        let small = fit(solid(1920, 1080, [10, 200, 30]), 1568);
        assert_eq!((small.width, small.height), (1568, 882));
        assert!(small.data.chunks(3).all(|p| p == [10, 200, 30]));
        let same = fit(solid(100, 50, [1, 2, 3]), 1568);
        assert_eq!((same.width, same.height), (100, 50));
    }

    #[test]
    fn png_has_signature_and_size() {
        let png = encode_png(&solid(4, 3, [255, 0, 0])).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 4);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 3);
    }
}
