//! Screen pixels via GetImage on the root window.
//!
//! The root is captured and cropped rather than individual windows: without a compositor a
//! window's own contents are unreliable where other windows overlap it, and the root shows
//! exactly what a user would see.

use std::fmt;

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, ImageOrder};

use super::windows::XRect;
use super::{During as _, X11, X11Error};

const OPERATION: &str = "capturing the screen";

/// An 8-bit RGB image, rows top to bottom, no padding.
#[derive(Clone, PartialEq, Eq)]
pub struct RgbImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl fmt::Debug for RgbImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RgbImage")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("data", &format_args!("[{} bytes]", self.data.len()))
            .finish()
    }
}

/// How a ZPixmap image from the server is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    bytes_per_pixel: usize,
    /// Bytes from one row to the next, including scanline padding.
    stride: usize,
    msb_first: bool,
    /// Bit positions of the 8-bit red, green and blue channels in a pixel value.
    shifts: [u32; 3],
}

impl X11 {
    /// The pixels of `rect` (root coordinates), clipped to the screen; the image has the size
    /// of the clipped region.
    pub fn capture(&self, rect: XRect) -> Result<RgbImage, X11Error> {
        let screen = self.screen_size();
        let clip = |start: i32, len: u32, max: u32| {
            let from = i64::from(start).clamp(0, i64::from(max));
            let to = (i64::from(start) + i64::from(len)).clamp(0, i64::from(max));
            // The screen size comes from 16-bit protocol fields, so both ends fit.
            (from as i16, (to - from) as u16)
        };
        let (x, width) = clip(rect.x, rect.width, screen.0);
        let (y, height) = clip(rect.y, rect.height, screen.1);
        if width == 0 || height == 0 {
            return Err(X11Error::CaptureOutsideScreen { rect, screen });
        }
        let reply = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.root, x, y, width, height, !0)
            .during(OPERATION)?
            .reply()
            .during(OPERATION)?;
        let layout = self.layout(reply.depth, reply.visual, width)?;
        let data = to_rgb(&reply.data, usize::from(width), usize::from(height), layout)?;
        Ok(RgbImage {
            width: u32::from(width),
            height: u32::from(height),
            data,
        })
    }

    fn layout(&self, depth: u8, visual: u32, width: u16) -> Result<Layout, X11Error> {
        let setup = self.conn.setup();
        let format = setup.pixmap_formats.iter().find(|f| f.depth == depth);
        let bits_per_pixel = format.map_or(0, |f| f.bits_per_pixel);
        let unsupported = X11Error::UnsupportedPixelFormat {
            depth,
            bits_per_pixel,
        };
        let (Some(format), Some(visual)) = (
            format,
            setup
                .roots
                .iter()
                .flat_map(|screen| &screen.allowed_depths)
                .flat_map(|d| &d.visuals)
                .find(|v| v.visual_id == visual),
        ) else {
            return Err(unsupported);
        };
        let shift = |mask: u32| {
            let shift = mask.trailing_zeros();
            (mask.checked_shr(shift) == Some(0xff)).then_some(shift)
        };
        let (Some(r), Some(g), Some(b)) = (
            shift(visual.red_mask),
            shift(visual.green_mask),
            shift(visual.blue_mask),
        ) else {
            return Err(unsupported);
        };
        if !matches!(bits_per_pixel, 24 | 32) || r.max(g).max(b) + 8 > u32::from(bits_per_pixel) {
            return Err(unsupported);
        }
        let pad = usize::from(format.scanline_pad.max(8));
        let row_bits = usize::from(width) * usize::from(bits_per_pixel);
        Ok(Layout {
            bytes_per_pixel: usize::from(bits_per_pixel / 8),
            stride: row_bits.div_ceil(pad) * pad / 8,
            msb_first: setup.image_byte_order == ImageOrder::MSB_FIRST,
            shifts: [r, g, b],
        })
    }
}

fn to_rgb(data: &[u8], width: usize, height: usize, layout: Layout) -> Result<Vec<u8>, X11Error> {
    let Layout {
        bytes_per_pixel,
        stride,
        msb_first,
        shifts: [r, g, b],
    } = layout;
    let expected = stride * height;
    if data.len() < expected {
        return Err(X11Error::MalformedImage {
            expected,
            received: data.len(),
        });
    }
    let mut out = Vec::with_capacity(width * height * 3);
    let mut convert = |read: fn(&[u8]) -> u32| {
        for row in data.chunks_exact(stride).take(height) {
            for pixel in row[..width * bytes_per_pixel].chunks_exact(bytes_per_pixel) {
                let v = read(pixel);
                out.extend_from_slice(&[(v >> r) as u8, (v >> g) as u8, (v >> b) as u8]);
            }
        }
    };
    match (bytes_per_pixel, msb_first) {
        (4, false) => convert(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]])),
        (4, true) => convert(|p| u32::from_be_bytes([p[0], p[1], p[2], p[3]])),
        (_, false) => convert(|p| u32::from_le_bytes([p[0], p[1], p[2], 0])),
        (_, true) => convert(|p| u32::from_be_bytes([0, p[0], p[1], p[2]])),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgrx_little_endian_with_padding() {
        let layout = Layout {
            bytes_per_pixel: 4,
            stride: 12,
            msb_first: false,
            shifts: [16, 8, 0],
        };
        // Two rows of two pixels (B, G, R, X) plus four bytes of padding each.
        let data = [
            3, 2, 1, 0, 6, 5, 4, 0, 9, 9, 9, 9, //
            12, 11, 10, 0, 15, 14, 13, 0, 9, 9, 9, 9,
        ];
        let rgb = to_rgb(&data, 2, 2, layout).unwrap();
        assert_eq!(rgb, [1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15]);
    }

    #[test]
    fn xrgb_big_endian() {
        let layout = Layout {
            bytes_per_pixel: 4,
            stride: 4,
            msb_first: true,
            shifts: [16, 8, 0],
        };
        assert_eq!(to_rgb(&[0, 1, 2, 3], 1, 1, layout).unwrap(), [1, 2, 3]);
    }

    #[test]
    fn packed_24_bits_both_orders() {
        let lsb = Layout {
            bytes_per_pixel: 3,
            stride: 8,
            msb_first: false,
            shifts: [16, 8, 0],
        };
        let data = [3, 2, 1, 6, 5, 4, 0, 0];
        assert_eq!(to_rgb(&data, 2, 1, lsb).unwrap(), [1, 2, 3, 4, 5, 6]);
        let msb = Layout {
            msb_first: true,
            ..lsb
        };
        let data = [1, 2, 3, 4, 5, 6, 0, 0];
        assert_eq!(to_rgb(&data, 2, 1, msb).unwrap(), [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn rgb_masks_in_other_positions() {
        let layout = Layout {
            bytes_per_pixel: 4,
            stride: 4,
            msb_first: false,
            shifts: [0, 8, 16],
        };
        assert_eq!(to_rgb(&[1, 2, 3, 0], 1, 1, layout).unwrap(), [1, 2, 3]);
    }

    #[test]
    fn short_data_is_an_error() {
        let layout = Layout {
            bytes_per_pixel: 4,
            stride: 8,
            msb_first: false,
            shifts: [16, 8, 0],
        };
        assert!(matches!(
            to_rgb(&[0; 12], 2, 2, layout),
            Err(X11Error::MalformedImage {
                expected: 16,
                received: 12
            })
        ));
    }
}
