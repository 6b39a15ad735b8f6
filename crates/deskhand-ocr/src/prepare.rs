//! From a screen capture to what Tesseract reads well: gray, cut into tiles at blank rows, and
//! enlarged so that UI fonts reach the size its model was trained on.

use deskhand_core::model::RgbImage;

/// An 8-bit gray image, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Gray {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) data: Vec<u8>,
}

impl Gray {
    /// Luma from RGB; `None` when the image's buffer is shorter than its size says.
    pub(crate) fn of(image: &RgbImage) -> Option<Gray> {
        let (width, height) = (image.width as usize, image.height as usize);
        let pixels = width.checked_mul(height)?;
        let bytes = image.data.get(..pixels.checked_mul(3)?)?;
        let data = bytes
            .chunks_exact(3)
            .map(|p| ((p[0] as u32 * 77 + p[1] as u32 * 150 + p[2] as u32 * 29) >> 8) as u8)
            .collect();
        Some(Gray {
            width,
            height,
            data,
        })
    }

    fn row(&self, y: usize) -> &[u8] {
        &self.data[y * self.width..(y + 1) * self.width]
    }

    /// Rows `top..bottom` as an image of their own.
    pub(crate) fn rows(&self, top: usize, bottom: usize) -> Gray {
        Gray {
            width: self.width,
            height: bottom - top,
            data: self.data[top * self.width..bottom * self.width].to_vec(),
        }
    }

    /// Twice as wide and high, by linear interpolation between pixel centres (each new pixel is
    /// 3/4 of the nearest old one and 1/4 of the next): at 1x the menu font of a GTK app or
    /// xterm's bitmap font comes out garbled, at 2x exact; pixel repetition garbles them too.
    pub(crate) fn doubled(&self) -> Gray {
        let (w, h) = (self.width, self.height);
        let widened: Vec<u16> = (0..h)
            .flat_map(|y| {
                let row = &self.data[y * w..(y + 1) * w];
                (0..w).flat_map(move |x| {
                    let p = row[x] as u16 * 3;
                    [
                        p + row[x.saturating_sub(1)] as u16,
                        p + row[(x + 1).min(w - 1)] as u16,
                    ]
                })
            })
            .collect();
        let wide = 2 * w;
        let mut data = vec![0u8; wide * h * 2];
        for y in 0..h {
            let (above, below) = (y.saturating_sub(1), (y + 1).min(h - 1));
            for x in 0..wide {
                let p = widened[y * wide + x] * 3;
                // Both passes weigh by 4: the sum is 16 times the pixel.
                data[2 * y * wide + x] = ((p + widened[above * wide + x] + 8) / 16) as u8;
                data[(2 * y + 1) * wide + x] = ((p + widened[below * wide + x] + 8) / 16) as u8;
            }
        }
        Gray {
            width: wide,
            height: h * 2,
            data,
        }
    }
}

/// Tiles are at least this many rows high, so one line of text is not one engine run each.
const MIN_TILE_ROWS: usize = 48;

/// Blank rows kept above and below a tile's text at most: with a window's worth of blank below
/// a line, Tesseract misread xterm's prompt ("vm:" as "yms") that it read right with less.
const MARGIN: usize = 12;

/// Horizontal tiles `(top, bottom)` that together hold every row with anything drawn on it,
/// cut only through blank rows, so no line of text is ever split. A surface of one colour has
/// none. A tile is read and cached on its own: a changed line re-reads only its tile.
pub(crate) fn tiles(image: &Gray) -> Vec<(usize, usize)> {
    let blank: Vec<bool> = (0..image.height)
        .map(|y| {
            let row = image.row(y);
            let (lo, hi) = row
                .iter()
                .fold((u8::MAX, u8::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
            // Anti-aliased glyph edges are faint; only a row that is all but one shade is blank.
            hi - lo <= 4
        })
        .collect();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut y = 0;
    while y < image.height {
        if blank[y] {
            y += 1;
            continue;
        }
        let top = y;
        while y < image.height && !blank[y] {
            y += 1;
        }
        runs.push((top, y));
    }
    // A short run takes in the next one when it is near; tiles are then cut halfway through the
    // blank gap between them, so each keeps some background around its text (Tesseract misses
    // text that touches an edge).
    let mut tiles: Vec<(usize, usize)> = Vec::new();
    for (top, bottom) in runs {
        match tiles.last_mut() {
            Some(last) if last.1 - last.0 < MIN_TILE_ROWS && top - last.1 < MIN_TILE_ROWS => {
                last.1 = bottom
            }
            _ => tiles.push((top, bottom)),
        }
    }
    let ends: Vec<(usize, usize)> = tiles.clone();
    for (i, tile) in tiles.iter_mut().enumerate() {
        let above = if i == 0 { 0 } else { ends[i - 1].1 };
        let below = ends.get(i + 1).map_or(image.height, |next| next.0);
        tile.0 -= ((tile.0 - above) / 2).min(MARGIN);
        tile.1 += (below - tile.1).div_ceil(2).min(MARGIN);
    }
    tiles
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gray(width: usize, rows: &[u8]) -> Gray {
        Gray {
            width,
            height: rows.len(),
            data: rows
                .iter()
                .flat_map(|&shade| {
                    // A row of `shade` other than 255 has a dark mark in its middle.
                    let mut row = vec![255u8; width];
                    row[width / 2] = shade;
                    row
                })
                .collect(),
        }
    }

    #[test]
    fn tiles_cut_only_through_blank_rows_and_cover_every_marked_row() {
        let mut rows = vec![255u8; 200];
        for y in (10..20).chain(30..40).chain(150..160) {
            rows[y] = 0;
        }
        let image = gray(8, &rows);
        let tiles = tiles(&image);
        // 10..40 is one tile (under the minimum height alone), 150..160 another.
        assert_eq!(tiles.len(), 2, "{tiles:?}");
        for y in (10..20).chain(30..40).chain(150..160) {
            assert!(tiles.iter().any(|(t, b)| (*t..*b).contains(&y)), "row {y}");
        }
        assert!(tiles[0].1 <= tiles[1].0, "tiles do not overlap");
        assert!(
            tiles[0].0 < 10 && tiles[1].1 > 160,
            "background kept around text"
        );
    }

    #[test]
    fn a_surface_of_one_colour_has_no_tiles() {
        assert!(tiles(&gray(8, &[255; 50])).is_empty());
        assert!(
            tiles(&Gray {
                width: 0,
                height: 0,
                data: vec![]
            })
            .is_empty()
        );
    }

    #[test]
    fn doubling_keeps_the_pixels_and_fills_between() {
        let image = Gray {
            width: 2,
            height: 1,
            data: vec![0, 200],
        };
        let doubled = image.doubled();
        assert_eq!((doubled.width, doubled.height), (4, 2));
        assert_eq!(&doubled.data[..4], &[0, 50, 150, 200]);
        assert_eq!(
            &doubled.data[4..],
            &doubled.data[..4],
            "one row: both rows alike"
        );
    }
}
