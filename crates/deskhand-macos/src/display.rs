//! Points and pixels. Accessibility frames, Quartz window bounds and `CGEvent` locations share
//! one space, the global display points (top-left of the main display at 0,0, y down), and
//! deskhand's screen coordinates on macOS are those points, so a ref's center is where a click
//! goes with no conversion. Only a capture is in pixels: a Retina display has two (or three) per
//! point, and the image comes back that much larger. The contract's 0–1000 are fractions of the
//! surface, so they name the same spot in the image and on the screen.

use deskhand_core::model::{Point, Rect};

use crate::attributes::FrameF;

/// One active display: its `CGDirectDisplayID`, `CGDisplayBounds` and how many pixels its mode
/// has per point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Display {
    pub id: u32,
    pub bounds: FrameF,
    pub scale: f64,
}

/// Pixels per point of a display mode: `CGDisplayModeGetPixelWidth` over `CGDisplayModeGetWidth`.
pub fn scale_of(pixel_width: usize, point_width: usize) -> f64 {
    if point_width == 0 {
        1.0
    } else {
        pixel_width as f64 / point_width as f64
    }
}

/// The screen as the core sees it: the rectangle that holds every display.
pub fn screen(displays: &[Display]) -> Option<Rect> {
    let rects: Vec<Rect> = displays.iter().map(|d| d.bounds.to_rect()).collect();
    let first = rects.first()?;
    let (mut x0, mut y0) = (first.x as i64, first.y as i64);
    let (mut x1, mut y1) = (x0 + first.width as i64, y0 + first.height as i64);
    for r in &rects[1..] {
        x0 = x0.min(r.x as i64);
        y0 = y0.min(r.y as i64);
        x1 = x1.max(r.x as i64 + r.width as i64);
        y1 = y1.max(r.y as i64 + r.height as i64);
    }
    Some(Rect::new(
        x0 as i32,
        y0 as i32,
        (x1 - x0) as u32,
        (y1 - y0) as u32,
    ))
}

/// The rectangles of the displays, for telling a window that fills one.
pub fn display_rects(displays: &[Display]) -> Vec<Rect> {
    displays.iter().map(|d| d.bounds.to_rect()).collect()
}

/// Pixels per point of a capture of `rect`: Quartz renders it at the finest display it
/// touches.
pub fn capture_scale(rect: Rect, displays: &[Display]) -> f64 {
    displays
        .iter()
        .filter(|d| d.bounds.to_rect().intersect(&rect).is_some())
        .map(|d| d.scale)
        .fold(None, |best: Option<f64>, s| {
            Some(best.map_or(s, |b| b.max(s)))
        })
        .unwrap_or(1.0)
}

/// The pixel of an image of `captured` (in points) that shows the screen point `point`.
pub fn image_pixel(point: Point, captured: Rect, image_width: u32, image_height: u32) -> Point {
    let along = |offset: i32, points: u32, pixels: u32| -> i32 {
        if points == 0 {
            return 0;
        }
        let scale = pixels as f64 / points as f64;
        ((offset as f64 * scale).floor() as i64).clamp(0, pixels.saturating_sub(1) as i64) as i32
    };
    Point {
        x: along(point.x - captured.x, captured.width, image_width),
        y: along(point.y - captured.y, captured.height, image_height),
    }
}

/// Where red, green and blue sit in a 32-bit pixel of a `CGImage`, from its bitmap info.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Channels {
    pub red: usize,
    pub green: usize,
    pub blue: usize,
}

/// `kCGBitmapByteOrderMask` and its little-endian value; `kCGBitmapAlphaInfoMask`.
const BYTE_ORDER_MASK: u32 = 0x7000;
const BYTE_ORDER_32_LITTLE: u32 = 0x2000;
const ALPHA_INFO_MASK: u32 = 0x1F;

impl Channels {
    /// The layout of a 32-bit pixel: alpha first (`kCGImageAlphaPremultipliedFirst`,
    /// `…First`, `…NoneSkipFirst`) or last, in memory order for the byte order. A screen
    /// capture is opaque, so premultiplied alpha changes no color.
    pub fn of(bitmap_info: u32) -> Channels {
        let alpha_first = matches!(bitmap_info & ALPHA_INFO_MASK, 2 | 4 | 6);
        let little = bitmap_info & BYTE_ORDER_MASK == BYTE_ORDER_32_LITTLE;
        // In big-endian order the bytes read A R G B (first) or R G B A (last); little-endian
        // reverses each word.
        let (red, green, blue) = match (alpha_first, little) {
            (true, true) => (2, 1, 0),
            (true, false) => (1, 2, 3),
            (false, true) => (3, 2, 1),
            (false, false) => (0, 1, 2),
        };
        Channels { red, green, blue }
    }
}

/// RGB8 rows from a 32-bit image's bytes, `bytes_per_row` apart (rows may be padded); `None`
/// when the buffer is shorter than the image says.
pub fn to_rgb(
    data: &[u8],
    width: usize,
    height: usize,
    bytes_per_row: usize,
    channels: Channels,
) -> Option<Vec<u8>> {
    if bytes_per_row < width * 4
        || data.len() < bytes_per_row * height.saturating_sub(1) + width * 4
    {
        return None;
    }
    let mut rgb = Vec::with_capacity(width * height * 3);
    for row in data.chunks(bytes_per_row).take(height) {
        for pixel in row[..width * 4].chunks_exact(4) {
            rgb.extend_from_slice(&[
                pixel[channels.red],
                pixel[channels.green],
                pixel[channels.blue],
            ]);
        }
    }
    Some(rgb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskhand_core::coords::{to_pixel, to_unit};

    fn display(x: f64, y: f64, width: f64, height: f64, scale: f64) -> Display {
        Display {
            id: 1,
            bounds: FrameF {
                x,
                y,
                width,
                height,
            },
            scale,
        }
    }

    #[test]
    fn normalized_points_land_on_the_same_spot_in_the_retina_image_and_on_screen() {
        let retina = [display(0.0, 0.0, 1512.0, 982.0, 2.0)];
        let window = Rect::new(100, 50, 800, 600);
        let scale = capture_scale(window, &retina);
        assert_eq!(scale, 2.0);
        let (image_w, image_h) = (1600, 1200);
        // The point a click at 500,250 of the window goes to, in points.
        let click = to_pixel(&window, 500.0, 250.0);
        assert_eq!(click, Point { x: 500, y: 200 });
        // The same 0–1000 in the image: the pixel that shows the clicked point.
        let shown = image_pixel(click, window, image_w, image_h);
        assert_eq!(shown, Point { x: 800, y: 300 });
        let image = Rect::new(0, 0, image_w, image_h);
        assert_eq!(to_unit(&image, shown), (500, 250));
        assert_eq!(to_unit(&window, click), (500, 250));
    }

    #[test]
    fn a_capture_renders_at_the_finest_display_it_touches() {
        let displays = [
            display(0.0, 0.0, 1512.0, 982.0, 2.0),
            display(1512.0, -200.0, 1920.0, 1080.0, 1.0),
        ];
        assert_eq!(capture_scale(Rect::new(1600, 0, 500, 500), &displays), 1.0);
        assert_eq!(capture_scale(Rect::new(1400, 0, 500, 500), &displays), 2.0);
        assert_eq!(screen(&displays), Some(Rect::new(0, -200, 3432, 1182)));
        assert_eq!(screen(&[]), None);
        assert_eq!(scale_of(3024, 1512), 2.0);
        assert_eq!(scale_of(100, 0), 1.0);
    }

    #[test]
    fn pixels_come_out_rgb_whatever_the_byte_order() {
        // kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little: B G R A in memory, the
        // layout window captures have.
        let bgra = Channels::of(2 | 0x2000);
        // Two pixels a row, one padding pixel, two rows.
        let data = [
            10, 20, 30, 255, 11, 21, 31, 255, 0, 0, 0, 0, //
            12, 22, 32, 255, 13, 23, 33, 255, 0, 0, 0, 0,
        ];
        assert_eq!(
            to_rgb(&data, 2, 2, 12, bgra).unwrap(),
            [30, 20, 10, 31, 21, 11, 32, 22, 12, 33, 23, 13]
        );
        let rgba = Channels::of(1);
        assert_eq!(to_rgb(&[1, 2, 3, 255], 1, 1, 4, rgba).unwrap(), [1, 2, 3]);
        let argb = Channels::of(6);
        assert_eq!(to_rgb(&[255, 1, 2, 3], 1, 1, 4, argb).unwrap(), [1, 2, 3]);
        assert_eq!(to_rgb(&data[..19], 2, 2, 12, bgra), None, "short buffer");
    }
}
