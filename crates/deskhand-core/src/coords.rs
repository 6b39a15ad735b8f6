//! Points and regions are 0–1000 of a surface; the platform speaks pixels.

use crate::error::{Error, Result};
use crate::model::{Point, Rect};

/// The top of the normalized scale.
pub const SCALE: f64 = 1000.0;

/// Checks one normalized coordinate and names the argument when it is out of range.
pub fn check_unit(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() && (0.0..=SCALE).contains(&value) {
        Ok(value)
    } else {
        Err(Error::bad_argument(format!(
            "`{name}` is {value}, outside 0–1000; points are normalized 0–1000 of the surface (0,0 top-left, 1000,1000 bottom-right)"
        )))
    }
}

/// The pixel a normalized point names; 1000 lands on the last pixel, not past it.
pub fn to_pixel(surface: &Rect, x: f64, y: f64) -> Point {
    let px = ((x / SCALE) * surface.width as f64).floor() as i64;
    let py = ((y / SCALE) * surface.height as f64).floor() as i64;
    Point {
        x: surface.x + px.clamp(0, surface.width.saturating_sub(1) as i64) as i32,
        y: surface.y + py.clamp(0, surface.height.saturating_sub(1) as i64) as i32,
    }
}

/// A pixel as 0–1000 of the surface, rounded; points outside clamp to the edge.
pub fn to_unit(surface: &Rect, point: Point) -> (u32, u32) {
    let scale = |offset: i32, size: u32| -> u32 {
        if size == 0 {
            return 0;
        }
        let v = (offset as f64 / size as f64 * SCALE).round();
        v.clamp(0.0, SCALE) as u32
    };
    (
        scale(point.x - surface.x, surface.width),
        scale(point.y - surface.y, surface.height),
    )
}

/// Checks a normalized region: four values 0–1000, not empty.
pub fn check_region(region: [f64; 4]) -> Result<()> {
    let names = [
        "region[0] (x0)",
        "region[1] (y0)",
        "region[2] (x1)",
        "region[3] (y1)",
    ];
    for (value, name) in region.iter().zip(names) {
        check_unit(name, *value)?;
    }
    let [x0, y0, x1, y1] = region;
    if x1 <= x0 || y1 <= y0 {
        return Err(Error::bad_argument(format!(
            "region [{x0}, {y0}, {x1}, {y1}] is empty; give [x0, y0, x1, y1] with x1 > x0 and y1 > y0, 0–1000 of the surface"
        )));
    }
    Ok(())
}

/// The pixel rectangle a normalized region names, at least one pixel each way.
pub fn region_to_rect(surface: &Rect, region: [f64; 4]) -> Result<Rect> {
    check_region(region)?;
    let [x0, y0, x1, y1] = region;
    let left = surface.x as f64 + x0 / SCALE * surface.width as f64;
    let top = surface.y as f64 + y0 / SCALE * surface.height as f64;
    let right = surface.x as f64 + x1 / SCALE * surface.width as f64;
    let bottom = surface.y as f64 + y1 / SCALE * surface.height as f64;
    let x = left.floor() as i32;
    let y = top.floor() as i32;
    Ok(Rect::new(
        x,
        y,
        ((right.ceil() as i32 - x).max(1)) as u32,
        ((bottom.ceil() as i32 - y).max(1)) as u32,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    const SURFACE: Rect = Rect {
        x: 100,
        y: 50,
        width: 800,
        height: 600,
    };

    #[test]
    fn corners_map_inside_the_surface() {
        assert_eq!(to_pixel(&SURFACE, 0.0, 0.0), Point { x: 100, y: 50 });
        assert_eq!(to_pixel(&SURFACE, 1000.0, 1000.0), Point { x: 899, y: 649 });
        assert_eq!(to_pixel(&SURFACE, 500.0, 500.0), Point { x: 500, y: 350 });
    }

    #[test]
    fn unit_round_trips_within_a_pixel() {
        for (x, y) in [(0.0, 0.0), (250.0, 750.0), (999.0, 1.0)] {
            let p = to_pixel(&SURFACE, x, y);
            let (ux, uy) = to_unit(&SURFACE, p);
            assert!((ux as f64 - x).abs() <= 1.5, "{x} -> {ux}");
            assert!((uy as f64 - y).abs() <= 1.5, "{y} -> {uy}");
        }
    }

    #[test]
    fn out_of_range_is_a_bad_argument() {
        for value in [1000.5, -1.0, f64::NAN] {
            let err = check_unit("x", value).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{value}");
            assert!(
                err.message
                    .starts_with(&format!("`x` is {value}, outside 0–1000")),
                "{}",
                err.message
            );
        }
        let err = region_to_rect(&SURFACE, [10.0, 10.0, 5.0, 20.0]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument);
        assert!(
            err.message.starts_with("region [10, 10, 5, 20] is empty"),
            "{}",
            err.message
        );
    }

    #[test]
    fn region_covers_its_pixels() {
        let r = region_to_rect(&SURFACE, [0.0, 0.0, 500.0, 500.0]).unwrap();
        assert_eq!(r, Rect::new(100, 50, 400, 300));
    }
}
