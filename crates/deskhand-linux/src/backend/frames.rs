//! Which accessible frame is an X window's own, and where its toolkit measures extents from.

use deskhand_core::model::{Point, Rect, WindowInfo};

use crate::atspi::{Application, Frame};
use crate::gnome::Placement;

/// Where a toolkit's extents are measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    Screen,
    /// An X11 app that scales itself (`GDK_SCALE=2`, `QT_SCALE_FACTOR=2`) counts in its own
    /// logical pixels, this many hundredths of a screen pixel each: from the screen's corner
    /// (Qt), or with `within` from the X window's corner plus that inset in screen pixels
    /// (GTK3, whose frame then says it is at 0,0).
    Scaled {
        percent: u32,
        within: Option<(i32, i32)>,
    },
    /// GTK4 reports extents relative to its window; add the X window origin plus this inset.
    /// Scaled by itself on X11 (`GDK_SCALE=2`), it counts in its own logical pixels, each this
    /// many hundredths of a screen pixel.
    Window {
        dx: i32,
        dy: i32,
        percent: u32,
    },
    /// On Wayland every toolkit reports extents relative to its surface, which starts this far
    /// from the window's frame: at it on sway (tiled GTK3 draws no shadow), before it on GNOME
    /// (GTK3's client-side shadow); unlike GTK4, the toolkit's Showing states still hold. The
    /// toolkit counts in its surface's logical pixels, each this many hundredths of a pixel of
    /// the compositor's layout: more than 100 on a scaled monitor where GNOME lays out physical
    /// pixels.
    Surface {
        dx: i32,
        dy: i32,
        percent: u32,
    },
}

/// How extents map to the screen on Wayland, where the toolkit's own rule gives way to the
/// compositor's window origin, `inset` (see [`wayland_inset`]) inside it.
pub(super) fn wayland_origin(toolkit: Origin, (dx, dy): (i32, i32)) -> Origin {
    match toolkit {
        Origin::Screen | Origin::Scaled { .. } | Origin::Surface { .. } => Origin::Surface {
            dx,
            dy,
            percent: 100,
        },
        Origin::Window { .. } => Origin::Window {
            dx: 0,
            dy: 0,
            percent: 100,
        },
    }
}

/// How extents map to the screen on GNOME: from the surface, shadows included, for toolkits
/// that count from it (GTK3), `inset` further in; from the frame for GTK4, which counts from its
/// visible window there as on X11; by X's rules for XWayland windows. `percent` is how many
/// hundredths of a layout pixel one of the app's logical pixels is: the scale of the window's
/// monitor where GNOME lays out physical pixels, else 100.
pub(super) fn gnome_origin(
    toolkit: Origin,
    frame: Rect,
    placement: Placement,
    (dx, dy): (i32, i32),
    percent: u32,
) -> Origin {
    match toolkit {
        toolkit if placement.x11 => toolkit,
        Origin::Window { .. } => Origin::Window {
            dx: 0,
            dy: 0,
            percent,
        },
        Origin::Screen | Origin::Scaled { .. } | Origin::Surface { .. } => Origin::Surface {
            dx: placement.buffer.x - frame.x + dx,
            dy: placement.buffer.y - frame.y + dy,
            percent,
        },
    }
}

/// Where a Wayland toolkit's extents start inside its window. Qt draws its own title bar and
/// border inside its surface where the compositor draws none (GNOME), and counts its extents
/// from the content within them: its frame is then smaller than the window, by a border as wide
/// on the left, the right and the bottom, and the title bar on top. Elsewhere, and for other
/// toolkits, extents start at the window.
/// `percent` is the size of the app's logical pixel in the window's (see [`gnome_origin`]).
pub(super) fn wayland_inset(
    app: &Application,
    frame: &Frame,
    window: &WindowInfo,
    percent: u32,
) -> (i32, i32) {
    let Some(content) = frame
        .extents
        .filter(|_| app.toolkit.eq_ignore_ascii_case("qt"))
        .map(|content| content.scaled(f64::from(percent) / 100.0))
    else {
        return (0, 0);
    };
    let side = (window.bounds.width as i32 - content.width as i32).max(0) / 2;
    let top = (window.bounds.height as i32 - content.height as i32 - side).max(0);
    (side, top)
}

/// Picks, for one X window, the frame that is its own among the process's frames: each window of
/// the process gets a different frame, matched on title first and geometry second.
pub(super) fn match_frame(
    window: &WindowInfo,
    siblings: &[WindowInfo],
    frames: &[(Frame, &Application)],
) -> Option<usize> {
    let score = |w: &WindowInfo, frame: &Frame, app: &Application| -> i64 {
        let title = if frame.name == w.title {
            0
        } else if !frame.name.is_empty() && w.title.contains(&frame.name) {
            5_000
        } else {
            50_000
        };
        let origin = origin_for(app, frame, w);
        let geometry = match (frame.extents, origin) {
            (Some(e), Origin::Screen | Origin::Scaled { within: None, .. }) => {
                let e = scale_rect(origin, e);
                let (fc, wc) = (e.center(), w.bounds.center());
                ((fc.x - wc.x).abs() + (fc.y - wc.y).abs()) as i64
                    + (e.width as i64 - w.bounds.width as i64).abs()
                    + (e.height as i64 - w.bounds.height as i64).abs()
            }
            (Some(e), Origin::Window { .. } | Origin::Surface { .. } | Origin::Scaled { .. }) => {
                let e = scale_rect(origin, e);
                (e.width as i64 - w.bounds.width as i64).abs()
                    + (e.height as i64 - w.bounds.height as i64).abs()
            }
            (None, _) => 20_000,
        };
        let active = if w.focused && frame.active { 0 } else { 100 };
        title + geometry + active
    };
    let mut pairs: Vec<(i64, usize, usize)> = Vec::new();
    for (wi, w) in siblings.iter().enumerate() {
        for (fi, (frame, app)) in frames.iter().enumerate() {
            pairs.push((score(w, frame, app), wi, fi));
        }
    }
    if !siblings.iter().any(|w| w.handle == window.handle) {
        return frames
            .iter()
            .enumerate()
            .min_by_key(|(_, (f, a))| score(window, f, a))
            .map(|(i, _)| i);
    }
    pairs.sort();
    let mut used_windows = vec![false; siblings.len()];
    let mut used_frames = vec![false; frames.len()];
    for (_, wi, fi) in pairs {
        if used_windows[wi] || used_frames[fi] {
            continue;
        }
        used_windows[wi] = true;
        used_frames[fi] = true;
        if siblings[wi].handle == window.handle {
            return Some(fi);
        }
    }
    None
}

/// The application's other frames that are a popup open over the window: Chromium shows its
/// own menus in frames of their own, unnamed, which take the keyboard (active) while open and
/// lie over the window. GTK3, LibreOffice and Firefox keep their menus inside the window's
/// frame and add none.
pub(super) fn popups_over(
    window: &WindowInfo,
    chosen: usize,
    frames: &[(Frame, &Application)],
) -> Vec<Frame> {
    let over = |e: Rect| {
        let w = window.bounds;
        e.x < w.x + w.width as i32
            && w.x < e.x + e.width as i32
            && e.y < w.y + w.height as i32
            && w.y < e.y + e.height as i32
    };
    frames
        .iter()
        .enumerate()
        .filter(|(index, (frame, app))| {
            *index != chosen
                && frame.active
                && frame.name.trim().is_empty()
                && origin_for(app, frame, window) == Origin::Screen
                && frame.extents.is_some_and(over)
        })
        .map(|(_, (frame, _))| frame.clone())
        .collect()
}

pub(super) fn origin_for(app: &Application, frame: &Frame, window: &WindowInfo) -> Origin {
    let gtk4 = app.toolkit.eq_ignore_ascii_case("gtk") && app.toolkit_version.starts_with('4');
    match (gtk4, frame.extents) {
        (true, Some(e)) => {
            let percent = scale_between(e, window.bounds).unwrap_or(100);
            let (dx, dy) = centred_in(e, window.bounds, percent);
            Origin::Window { dx, dy, percent }
        }
        (true, None) => Origin::Window {
            dx: 0,
            dy: 0,
            percent: 100,
        },
        (false, Some(e)) => self_scaled(e, window.bounds).unwrap_or(Origin::Screen),
        (false, None) => Origin::Screen,
    }
}

/// How far a frame, scaled to screen pixels, lies inside the X window that centres it.
fn centred_in(frame: Rect, window: Rect, percent: u32) -> (i32, i32) {
    let frame = frame.scaled(f64::from(percent) / 100.0);
    (
        (window.width as i32 - frame.width as i32) / 2,
        (window.height as i32 - frame.height as i32) / 2,
    )
}

/// The scale an X11 app applies to itself, told by its frame: its extents, in the app's own
/// logical pixels, are the X window's divided by one factor on both axes, and either in place
/// on the screen at that factor or at 0,0 (counted from the window). Anything less clear is
/// taken as unscaled; `None` also for scale 1.
fn self_scaled(frame: Rect, window: Rect) -> Option<Origin> {
    let percent = scale_between(frame, window)?;
    let step = f64::from(percent) / 100.0;
    let on_screen = (f64::from(frame.x) * step - f64::from(window.x)).abs()
        <= f64::from(window.width) * 0.1
        && (f64::from(frame.y) * step - f64::from(window.y)).abs()
            <= f64::from(window.height) * 0.1;
    if frame.x == 0 && frame.y == 0 {
        Some(Origin::Scaled {
            percent,
            within: Some(centred_in(frame, window, percent)),
        })
    } else if on_screen {
        Some(Origin::Scaled {
            percent,
            within: None,
        })
    } else {
        None
    }
}

/// The factor, in hundredths, by which the X window is larger than the frame on both axes
/// alike, in quarter steps from 1.25; `None` for no clear factor, or 1.
fn scale_between(frame: Rect, window: Rect) -> Option<u32> {
    if frame.width < 40 || frame.height < 40 {
        return None;
    }
    let rx = f64::from(window.width) / f64::from(frame.width);
    let ry = f64::from(window.height) / f64::from(frame.height);
    let factor = (rx + ry) / 2.0;
    let step = (factor * 4.0).round() / 4.0;
    (step >= 1.25 && (rx - ry).abs() <= 0.1 && (factor - step).abs() <= 0.1)
        .then(|| (step * 100.0).round() as u32)
}

/// How many screen pixels one of the toolkit's pixels is.
pub(super) fn scale_of(origin: Origin) -> f64 {
    match origin {
        Origin::Scaled { percent, .. }
        | Origin::Window { percent, .. }
        | Origin::Surface { percent, .. } => f64::from(percent) / 100.0,
        _ => 1.0,
    }
}

/// A toolkit's rectangle scaled to screen pixels (before its origin's offset).
pub(super) fn scale_rect(origin: Origin, r: Rect) -> Rect {
    r.scaled(scale_of(origin))
}

/// A screen pixel in the toolkit's own pixels, for a hit test.
pub(super) fn toolkit_point(origin: Origin, window: &WindowInfo, p: Point) -> Point {
    let (dx, dy) = offset_of(origin, window);
    let scale = scale_of(origin);
    Point {
        x: (f64::from(p.x - dx) / scale).round() as i32,
        y: (f64::from(p.y - dy) / scale).round() as i32,
    }
}

/// A toolkit's rectangle on the screen.
pub(super) fn screen_rect(origin: Origin, window: &WindowInfo, r: Rect) -> Rect {
    let (dx, dy) = offset_of(origin, window);
    let r = scale_rect(origin, r);
    Rect::new(r.x + dx, r.y + dy, r.width, r.height)
}

/// GTK3 and LibreOffice (through ATK's bridge) run an action inside the D-Bus request and
/// answer it first, so the request "succeeds" while a modal dialog it opened runs a nested main
/// loop that never again serves the accessibility connection. Chromium and Firefox, on the same
/// bridge, defer their actions; GTK4 and Qt have no such nested loops on this path.
pub(super) fn runs_actions_in_request(toolkit: &str, version: &str) -> bool {
    let toolkit = toolkit.to_ascii_lowercase();
    (matches!(toolkit.as_str(), "gtk" | "gail") && version.starts_with('3'))
        || matches!(toolkit.as_str(), "vcl" | "libreoffice")
}

pub(super) fn offset_of(origin: Origin, window: &WindowInfo) -> (i32, i32) {
    match origin {
        Origin::Screen | Origin::Scaled { within: None, .. } => (0, 0),
        Origin::Window { dx, dy, .. }
        | Origin::Surface { dx, dy, .. }
        | Origin::Scaled {
            within: Some((dx, dy)),
            ..
        } => (window.bounds.x + dx, window.bounds.y + dy),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atspi::ObjectRef;

    fn app(toolkit: &str, version: &str) -> Application {
        Application {
            root: ObjectRef {
                bus: ":1.5".into(),
                path: "/org/a11y/atspi/accessible/root".into(),
            },
            pid: Some(42),
            name: "app".into(),
            toolkit: toolkit.into(),
            toolkit_version: version.into(),
            answering: true,
        }
    }

    #[test]
    fn qt_on_wayland_counts_from_inside_its_own_title_bar_and_border() {
        let frame = |extents: Rect| frame("/qt", "Untitled", Some(extents), true);
        let decorated = window(1, "Untitled", Rect::new(253, 203, 706, 533));
        let qt = app("Qt", "5.15.8");
        // FeatherPad on GNOME: a 3 px border and a 30 px title bar around 700x500 of content.
        assert_eq!(
            wayland_inset(&qt, &frame(Rect::new(0, 0, 700, 500)), &decorated, 100),
            (3, 30)
        );
        // The same at scale 2 where GNOME lays out physical pixels: the content counts half.
        let doubled = window(1, "Untitled", Rect::new(506, 406, 1412, 1066));
        assert_eq!(
            wayland_inset(&qt, &frame(Rect::new(0, 0, 700, 500)), &doubled, 200),
            (6, 60)
        );
        // The compositor draws the decoration (sway): the content is the window.
        let plain = window(1, "Untitled", Rect::new(0, 0, 700, 500));
        assert_eq!(
            wayland_inset(&qt, &frame(Rect::new(0, 0, 700, 500)), &plain, 100),
            (0, 0)
        );
        // GTK3 counts from its surface whatever its frame says.
        assert_eq!(
            wayland_inset(
                &app("GTK", "3.24.38"),
                &frame(Rect::new(0, 0, 700, 500)),
                &decorated,
                100
            ),
            (0, 0)
        );
    }

    fn window(handle: u64, title: &str, bounds: Rect) -> WindowInfo {
        WindowInfo {
            handle,
            title: title.into(),
            pid: Some(42),
            app_name: "app".into(),
            bounds,
            focused: false,
            minimized: false,
            maximized: false,
        }
    }

    fn frame(path: &str, name: &str, extents: Option<Rect>, active: bool) -> Frame {
        Frame {
            object: ObjectRef {
                bus: ":1.5".into(),
                path: path.into(),
            },
            name: name.into(),
            extents,
            active,
            showing: true,
        }
    }

    #[test]
    fn two_windows_with_one_title_get_a_frame_each_by_geometry() {
        let gtk3 = app("GTK", "3.24.38");
        let left = window(1, "Untitled", Rect::new(0, 0, 400, 300));
        let right = window(2, "Untitled", Rect::new(500, 0, 400, 300));
        let frames = [
            (
                frame(
                    "/f/right",
                    "Untitled",
                    Some(Rect::new(500, 0, 400, 300)),
                    false,
                ),
                &gtk3,
            ),
            (
                frame(
                    "/f/left",
                    "Untitled",
                    Some(Rect::new(0, 0, 400, 300)),
                    false,
                ),
                &gtk3,
            ),
        ];
        let siblings = [left.clone(), right.clone()];
        assert_eq!(match_frame(&left, &siblings, &frames), Some(1));
        assert_eq!(match_frame(&right, &siblings, &frames), Some(0));
    }

    #[test]
    fn a_matching_title_outweighs_a_frame_in_the_same_place() {
        let gtk3 = app("GTK", "3.24.38");
        let dialog = window(7, "Save As", Rect::new(100, 100, 300, 200));
        let frames = [
            (
                frame(
                    "/f/main",
                    "Document",
                    Some(Rect::new(100, 100, 300, 200)),
                    false,
                ),
                &gtk3,
            ),
            (
                frame(
                    "/f/dialog",
                    "Save As",
                    Some(Rect::new(400, 400, 300, 200)),
                    false,
                ),
                &gtk3,
            ),
        ];
        assert_eq!(
            match_frame(&dialog, std::slice::from_ref(&dialog), &frames),
            Some(1)
        );
    }

    #[test]
    fn a_window_whose_process_lists_no_such_window_still_gets_the_closest_frame() {
        let qt = app("Qt", "5.15.8");
        let unknown = window(9, "Editor", Rect::new(0, 0, 800, 600));
        let frames = [
            (frame("/f/other", "Other", None, false), &qt),
            (
                frame(
                    "/f/editor",
                    "Editor",
                    Some(Rect::new(0, 0, 800, 600)),
                    false,
                ),
                &qt,
            ),
        ];
        assert_eq!(match_frame(&unknown, &[], &frames), Some(1));
    }

    #[test]
    fn an_x11_app_that_scales_itself_is_mapped_to_screen_pixels_both_ways() {
        // gnome-calculator (GTK4) with GDK_SCALE=2, as measured: its X window at 595,69 is
        // 730x1004 pixels, its frame says 0,0 355x492, and button "7" 16,294 55x40, all in its
        // own pixels from the window's corner.
        let gtk4 = app("GTK", "4.8.3");
        let w = window(3, "Calculator", Rect::new(595, 69, 730, 1004));
        let f = frame("/f", "Calculator", Some(Rect::new(0, 0, 355, 492)), true);
        let origin = origin_for(&gtk4, &f, &w);
        assert_eq!(
            origin,
            Origin::Window {
                dx: 10,
                dy: 10,
                percent: 200
            }
        );
        // GTK3 at 0,0 with a scale counts from the window alike.
        let gtk3 = app("GTK", "3.24.38");
        assert_eq!(
            origin_for(&gtk3, &f, &w),
            Origin::Scaled {
                percent: 200,
                within: Some((10, 10))
            }
        );
        let seven = screen_rect(origin, &w, Rect::new(16, 294, 55, 40));
        assert_eq!(seven, Rect::new(637, 667, 110, 80));
        assert_eq!(
            toolkit_point(origin, &w, seven.center()),
            Point { x: 44, y: 314 }
        );
        // A toolkit that counts from the screen's corner at its own scale (Qt).
        let qt = app("Qt", "5.15.8");
        let w = window(3, "KCalc", Rect::new(600, 200, 720, 1000));
        let f = frame("/f", "KCalc", Some(Rect::new(300, 100, 360, 500)), true);
        let origin = origin_for(&qt, &f, &w);
        assert_eq!(
            origin,
            Origin::Scaled {
                percent: 200,
                within: None
            }
        );
        assert_eq!(
            screen_rect(origin, &w, Rect::new(310, 400, 40, 30)),
            Rect::new(620, 800, 80, 60)
        );
        // The matching scores the frame in screen pixels, as if unscaled.
        assert_eq!(
            match_frame(&w, std::slice::from_ref(&w), &[(f, &qt)]),
            Some(0)
        );
        // At scale 1, and where size and place disagree, nothing is scaled.
        let same = frame(
            "/f",
            "Calculator",
            Some(Rect::new(600, 200, 720, 1000)),
            true,
        );
        assert_eq!(origin_for(&gtk3, &same, &w), Origin::Screen);
        let odd = frame(
            "/f",
            "Calculator",
            Some(Rect::new(600, 200, 360, 500)),
            true,
        );
        assert_eq!(origin_for(&gtk3, &odd, &w), Origin::Screen);
        let squashed = frame(
            "/f",
            "Calculator",
            Some(Rect::new(300, 100, 360, 250)),
            true,
        );
        assert_eq!(origin_for(&gtk3, &squashed, &w), Origin::Screen);
    }

    #[test]
    fn gtk4_extents_are_window_relative_and_centred_in_the_x_window() {
        let gtk4 = app("GTK", "4.8.3");
        let w = window(3, "Widgets", Rect::new(100, 50, 820, 620));
        let f = frame("/f", "Widgets", Some(Rect::new(0, 0, 800, 600)), true);
        let origin = origin_for(&gtk4, &f, &w);
        assert_eq!(
            origin,
            Origin::Window {
                dx: 10,
                dy: 10,
                percent: 100
            }
        );
        assert_eq!(offset_of(origin, &w), (110, 60));
        let gtk3 = app("GTK", "3.24.38");
        assert_eq!(origin_for(&gtk3, &f, &w), Origin::Screen);
        assert_eq!(offset_of(Origin::Screen, &w), (0, 0));
    }

    #[test]
    fn only_an_unnamed_active_frame_over_the_window_is_a_popup() {
        let chromium = app("Chromium", "120");
        let w = window(4, "Page", Rect::new(0, 0, 800, 600));
        let frames = [
            (
                frame("/f/page", "Page", Some(Rect::new(0, 0, 800, 600)), false),
                &chromium,
            ),
            (
                frame("/f/menu", "", Some(Rect::new(700, 40, 200, 300)), true),
                &chromium,
            ),
            (
                frame(
                    "/f/elsewhere",
                    "",
                    Some(Rect::new(900, 700, 100, 100)),
                    true,
                ),
                &chromium,
            ),
            (
                frame(
                    "/f/named",
                    "Settings",
                    Some(Rect::new(10, 10, 100, 100)),
                    true,
                ),
                &chromium,
            ),
            (
                frame("/f/inactive", "", Some(Rect::new(10, 10, 100, 100)), false),
                &chromium,
            ),
        ];
        let popups = popups_over(&w, 0, &frames);
        let paths: Vec<&str> = popups.iter().map(|f| f.object.path.as_str()).collect();
        assert_eq!(paths, ["/f/menu"]);
    }

    #[test]
    fn gtk3_and_libreoffice_run_actions_inside_the_request() {
        assert!(runs_actions_in_request("GTK", "3.24.38"));
        assert!(runs_actions_in_request("gail", "3.0"));
        assert!(runs_actions_in_request("VCL", "7.4"));
        assert!(!runs_actions_in_request("GTK", "4.8.3"));
        assert!(!runs_actions_in_request("Chromium", "120"));
        assert!(!runs_actions_in_request("Qt", "5.15"));
    }
}
