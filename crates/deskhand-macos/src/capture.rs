//! How a region of the screen is captured. From macOS 14 ScreenCaptureKit takes one screenshot
//! per display (`SCScreenshotManager captureImageWithFilter:configuration:completionHandler:`
//! with a display filter and a source rectangle), and the pieces are pasted into one image;
//! before, or when ScreenCaptureKit fails for a reason other than the permission,
//! `CGWindowListCreateImage` takes the whole region at once. Both render at the finest scale
//! of the displays the region touches, so the image is the same size either way.

use deskhand_core::model::{Rect, RgbImage};

use crate::attributes::FrameF;
use crate::display::{Display, capture_scale};

/// One display's share of a capture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    /// The `CGDirectDisplayID` the screenshot is taken of.
    pub display: u32,
    /// The part of the display to take, in points from the display's top-left corner, as
    /// `SCStreamConfiguration.sourceRect` wants it.
    pub source: FrameF,
    /// The screenshot's size in pixels (`width`, `height` of the configuration).
    pub width: u32,
    pub height: u32,
    /// Where its top-left pixel goes in the whole image.
    pub x: u32,
    pub y: u32,
}

/// How a capture is taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// ScreenCaptureKit screenshots pasted into an image of `width` × `height` pixels.
    Screenshots {
        width: u32,
        height: u32,
        pieces: Vec<Piece>,
    },
    /// `CGWindowListCreateImage` of the whole region.
    WindowList,
}

fn scaled(points: i64, scale: f64) -> u32 {
    (points as f64 * scale)
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

/// How to capture `rect` (global points) of `displays`; `screenshots` says whether
/// `SCScreenshotManager` exists (macOS 14 and later). `None` when the region lies on no display.
pub fn plan(rect: Rect, displays: &[Display], screenshots: bool) -> Option<Plan> {
    let on: Vec<(&Display, Rect)> = displays
        .iter()
        .filter_map(|d| Some((d, d.bounds.to_rect().intersect(&rect)?)))
        .collect();
    if on.is_empty() {
        return None;
    }
    if !screenshots {
        return Some(Plan::WindowList);
    }
    let scale = capture_scale(rect, displays);
    let width = scaled(i64::from(rect.width), scale);
    let height = scaled(i64::from(rect.height), scale);
    let pieces = on
        .into_iter()
        .map(|(display, part)| {
            let origin = display.bounds;
            // Both ends are rounded the same way, so neighbouring pieces meet without a gap.
            let x0 = scaled(i64::from(part.x) - i64::from(rect.x), scale);
            let y0 = scaled(i64::from(part.y) - i64::from(rect.y), scale);
            let x1 = scaled(
                i64::from(part.x) + i64::from(part.width) - i64::from(rect.x),
                scale,
            );
            let y1 = scaled(
                i64::from(part.y) + i64::from(part.height) - i64::from(rect.y),
                scale,
            );
            Piece {
                display: display.id,
                source: FrameF {
                    x: f64::from(part.x) - origin.x,
                    y: f64::from(part.y) - origin.y,
                    width: f64::from(part.width),
                    height: f64::from(part.height),
                },
                width: x1.min(width) - x0.min(width),
                height: y1.min(height) - y0.min(height),
                x: x0.min(width),
                y: y0.min(height),
            }
        })
        .filter(|piece| piece.width > 0 && piece.height > 0)
        .collect();
    Some(Plan::Screenshots {
        width,
        height,
        pieces,
    })
}

/// An image of `width` × `height` black pixels: a region between displays of different sizes
/// shows nothing, as it does in a window-list capture.
pub fn canvas(width: u32, height: u32) -> RgbImage {
    RgbImage {
        width,
        height,
        data: vec![0; width as usize * height as usize * 3],
    }
}

/// Copies `piece` into `image` with its top-left pixel at `x`, `y`; whatever would fall outside
/// the image is left out, so a screenshot a pixel larger than asked cannot spill over.
pub fn paste(image: &mut RgbImage, piece: &RgbImage, x: u32, y: u32) {
    if x >= image.width || y >= image.height {
        return;
    }
    let columns = piece.width.min(image.width - x) as usize;
    let rows = piece.height.min(image.height - y) as usize;
    let (image_row, piece_row) = (image.width as usize * 3, piece.width as usize * 3);
    for row in 0..rows {
        let to = (y as usize + row) * image_row + x as usize * 3;
        let from = row * piece_row;
        let (Some(source), true) = (
            piece.data.get(from..from + columns * 3),
            to + columns * 3 <= image.data.len(),
        ) else {
            return;
        };
        image.data[to..to + columns * 3].copy_from_slice(source);
    }
}

/// `SCStreamErrorUserDeclined`: the user has not granted Screen Recording.
pub const USER_DECLINED: isize = -3801;

/// What a ScreenCaptureKit failure leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// The permission is missing: say how to grant it; the window list would fail the same way.
    AskForPermission,
    /// Anything else (a timeout, a display that changed, a daemon that is down): the window
    /// list takes the capture instead.
    UseWindowList,
}

/// What to do after ScreenCaptureKit failed with `code` (an `SCStreamError`), or gave no
/// answer in time (`None`).
pub fn after_failure(code: Option<isize>) -> AfterFailure {
    match code {
        Some(USER_DECLINED) => AfterFailure::AskForPermission,
        _ => AfterFailure::UseWindowList,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn display(id: u32, x: f64, y: f64, width: f64, height: f64, scale: f64) -> Display {
        Display {
            id,
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
    fn before_macos_14_the_window_list_takes_the_whole_region() {
        let retina = [display(1, 0.0, 0.0, 1512.0, 982.0, 2.0)];
        let window = Rect::new(100, 50, 800, 600);
        assert_eq!(plan(window, &retina, false), Some(Plan::WindowList));
        assert_eq!(plan(Rect::new(2000, 0, 10, 10), &retina, false), None);
        assert_eq!(plan(Rect::new(2000, 0, 10, 10), &retina, true), None);
    }

    #[test]
    fn a_window_on_a_retina_display_is_one_screenshot_at_twice_its_size_in_points() {
        let displays = [
            display(7, 0.0, 0.0, 1512.0, 982.0, 2.0),
            display(9, 1512.0, 0.0, 1920.0, 1080.0, 1.0),
        ];
        let window = Rect::new(100, 50, 800, 600);
        let Some(Plan::Screenshots {
            width,
            height,
            pieces,
        }) = plan(window, &displays, true)
        else {
            panic!("ScreenCaptureKit is there");
        };
        assert_eq!((width, height), (1600, 1200));
        assert_eq!(
            pieces,
            [Piece {
                display: 7,
                source: FrameF {
                    x: 100.0,
                    y: 50.0,
                    width: 800.0,
                    height: 600.0
                },
                width: 1600,
                height: 1200,
                x: 0,
                y: 0,
            }]
        );
    }

    #[test]
    fn a_region_across_two_displays_is_two_screenshots_at_the_finer_scale_side_by_side() {
        // The second display sits to the right and 200 points higher, as arranged in
        // System Settings; its source rectangle counts from its own corner.
        let displays = [
            display(1, 0.0, 0.0, 1512.0, 982.0, 2.0),
            display(2, 1512.0, -200.0, 1920.0, 1080.0, 1.0),
        ];
        let region = Rect::new(1412, 0, 200, 100);
        let Some(Plan::Screenshots {
            width,
            height,
            pieces,
        }) = plan(region, &displays, true)
        else {
            panic!("ScreenCaptureKit is there");
        };
        assert_eq!((width, height), (400, 200));
        assert_eq!(pieces.len(), 2);
        let (left, right) = (pieces[0], pieces[1]);
        assert_eq!((left.display, left.x, left.width), (1, 0, 200));
        assert_eq!(left.source.x, 1412.0);
        assert_eq!((right.display, right.x, right.width), (2, 200, 200));
        assert_eq!((right.source.x, right.source.y), (0.0, 200.0));
        assert_eq!(
            left.width + right.width,
            width,
            "the pieces meet without a gap"
        );
    }

    #[test]
    fn pieces_land_where_they_belong_and_never_spill_over() {
        let mut image = canvas(4, 2);
        let red = RgbImage {
            width: 2,
            height: 2,
            data: [255, 0, 0].repeat(4),
        };
        let blue_too_wide = RgbImage {
            width: 3,
            height: 3,
            data: [0, 0, 255].repeat(9),
        };
        paste(&mut image, &red, 0, 0);
        paste(&mut image, &blue_too_wide, 2, 0);
        paste(&mut image, &red, 9, 9);
        let row: Vec<u8> = [[255, 0, 0], [255, 0, 0], [0, 0, 255], [0, 0, 255]]
            .concat()
            .to_vec();
        assert_eq!(image.data, [row.clone(), row].concat());
        let short = RgbImage {
            width: 2,
            height: 2,
            data: vec![9; 6],
        };
        let mut image = canvas(2, 2);
        paste(&mut image, &short, 0, 0);
        assert_eq!(
            image.data,
            [[9; 6], [0; 6]].concat(),
            "a short buffer stops"
        );
    }

    #[test]
    fn only_a_declined_permission_stops_the_fallback() {
        assert_eq!(after_failure(Some(-3801)), AfterFailure::AskForPermission);
        assert_eq!(after_failure(Some(-3802)), AfterFailure::UseWindowList);
        assert_eq!(after_failure(None), AfterFailure::UseWindowList);
    }
}
