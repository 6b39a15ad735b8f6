//! Monitors as every platform's backend reports them, put in one order and told apart: which is
//! primary (the kill switch's corner is its top-left) and which shows a window.

use crate::model::{Monitor, Point, Rect};

/// Primary first, then left to right and top to bottom. Where the display server flags none as
/// primary, the one at the desktop's origin is (else the top-left one): there is always exactly
/// one, so the kill switch always has a corner on a monitor.
pub fn ordered(mut monitors: Vec<Monitor>) -> Vec<Monitor> {
    monitors.sort_by_key(|m| (m.bounds.y, m.bounds.x));
    let flagged = monitors.iter().position(|m| m.primary);
    let primary = flagged
        .or_else(|| {
            monitors
                .iter()
                .position(|m| contains(m.bounds, Point { x: 0, y: 0 }))
        })
        .unwrap_or(0);
    for (index, monitor) in monitors.iter_mut().enumerate() {
        monitor.primary = index == primary;
    }
    if primary < monitors.len() {
        let first = monitors.remove(primary);
        monitors.insert(0, first);
    }
    monitors
}

/// The top-left pixel of the primary monitor of monitors in [`ordered`] order.
pub fn corner(monitors: &[Monitor]) -> Point {
    monitors.first().map_or(Point { x: 0, y: 0 }, |m| Point {
        x: m.bounds.x,
        y: m.bounds.y,
    })
}

/// The index of the monitor that shows most of `rect`, if any shows part of it.
pub fn most_of(monitors: &[Monitor], rect: Rect) -> Option<usize> {
    monitors
        .iter()
        .enumerate()
        .map(|(index, monitor)| (index, overlap(monitor.bounds, rect)))
        .filter(|(_, area)| *area > 0)
        .max_by_key(|(index, area)| (*area, std::cmp::Reverse(*index)))
        .map(|(index, _)| index)
}

fn contains(rect: Rect, point: Point) -> bool {
    overlap(rect, Rect::new(point.x, point.y, 1, 1)) > 0
}

fn overlap(a: Rect, b: Rect) -> u64 {
    let span = |start_a: i32, len_a: u32, start_b: i32, len_b: u32| {
        let end =
            (i64::from(start_a) + i64::from(len_a)).min(i64::from(start_b) + i64::from(len_b));
        u64::try_from(end - i64::from(start_a.max(start_b))).unwrap_or(0)
    };
    span(a.x, a.width, b.x, b.width) * span(a.y, a.height, b.y, b.height)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monitor(name: &str, x: i32, y: i32, width: u32, height: u32, primary: bool) -> Monitor {
        Monitor {
            name: name.into(),
            bounds: Rect::new(x, y, width, height),
            scale: 1.0,
            primary,
        }
    }

    #[test]
    fn the_primary_comes_first_and_the_rest_left_to_right() {
        let listed = ordered(vec![
            monitor("right", 1920, 0, 1920, 1080, false),
            monitor("left", -1280, 0, 1280, 1024, false),
            monitor("main", 0, 0, 1920, 1080, true),
        ]);
        let names: Vec<&str> = listed.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["main", "left", "right"]);
        assert_eq!(corner(&listed), Point { x: 0, y: 0 });
    }

    #[test]
    fn without_a_flagged_primary_the_one_at_the_origin_is_and_its_corner_is_on_it() {
        let listed = ordered(vec![
            monitor("above", 0, -1080, 1920, 1080, false),
            monitor("desk", 0, 0, 2560, 1440, false),
        ]);
        assert_eq!(listed[0].name, "desk");
        assert!(listed[0].primary && !listed[1].primary);
        let listed = ordered(vec![
            monitor("b", 1920, 200, 1280, 1024, false),
            monitor("a", 100, 300, 1920, 1080, false),
        ]);
        assert_eq!(
            listed[0].name, "b",
            "the top one, where none is at the origin"
        );
        assert_eq!(corner(&listed), Point { x: 1920, y: 200 });
    }

    #[test]
    fn a_window_is_on_the_monitor_that_shows_most_of_it() {
        let listed = [
            monitor("a", 0, 0, 1920, 1080, true),
            monitor("b", 1920, 0, 1920, 1080, false),
        ];
        assert_eq!(most_of(&listed, Rect::new(1800, 10, 400, 300)), Some(1));
        assert_eq!(most_of(&listed, Rect::new(10, 10, 400, 300)), Some(0));
        assert_eq!(most_of(&listed, Rect::new(5000, 10, 400, 300)), None);
    }
}
