//! From a screen capture to what Tesseract reads well: gray, one line of text at a time on a
//! clean margin, dark on light, and enlarged when small so that UI fonts reach the size its
//! model was trained on.

use deskhand_core::model::RgbImage;

use crate::regions::Area;

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
        let mut data = vec![0; pixels];
        for (gray, p) in data.iter_mut().zip(bytes.chunks_exact(3)) {
            *gray = ((p[0] as u32 * 77 + p[1] as u32 * 150 + p[2] as u32 * 29) >> 8) as u8;
        }
        Some(Gray {
            width,
            height,
            data,
        })
    }

    /// Half as wide and high, each pixel the mean of the four it stands for (an odd last row or
    /// column dropped): large text brought down to the size lines are found and read at.
    pub(crate) fn halved(&self) -> Gray {
        let (width, height) = (self.width / 2, self.height / 2);
        let mut data = Vec::with_capacity(width * height);
        for y in 0..height {
            let upper = &self.data[2 * y * self.width..][..2 * width];
            let lower = &self.data[(2 * y + 1) * self.width..][..2 * width];
            data.extend(
                upper
                    .chunks_exact(2)
                    .zip(lower.chunks_exact(2))
                    .map(|(u, l)| {
                        ((u[0] as u32 + u[1] as u32 + l[0] as u32 + l[1] as u32 + 2) / 4) as u8
                    }),
            );
        }
        Gray {
            width,
            height,
            data,
        }
    }

    /// Enlarged `scale` times (1 to 2.25), by linear interpolation between pixel centres: at 1x
    /// the menu font of a GTK app or xterm's bitmap font comes out garbled, enlarged exact;
    /// pixel repetition garbles them too.
    pub(crate) fn enlarged(&self, scale: f32) -> Gray {
        let (w, h) = (self.width, self.height);
        let (wide, high) = (
            (w as f32 * scale).round() as usize,
            (h as f32 * scale).round() as usize,
        );
        // For each new column (row): the old one left of (above) its centre, the next, and the
        // weight of the next, in 256ths.
        let taps = |new: usize, old: usize| -> Vec<(usize, usize, u32)> {
            (0..new)
                .map(|i| {
                    let at = ((i as f32 + 0.5) / scale - 0.5).clamp(0.0, (old - 1) as f32);
                    let first = at.floor() as usize;
                    let weight = ((at - first as f32) * 256.0).round() as u32;
                    (first, (first + 1).min(old - 1), weight)
                })
                .collect()
        };
        if wide == 0 || high == 0 {
            return Gray {
                width: wide,
                height: high,
                data: Vec::new(),
            };
        }
        let (across, down) = (taps(wide, w), taps(high, h));
        let widened: Vec<u32> = (0..h)
            .flat_map(|y| {
                let row = &self.data[y * w..(y + 1) * w];
                across
                    .iter()
                    .map(move |&(a, b, t)| row[a] as u32 * (256 - t) + row[b] as u32 * t)
            })
            .collect();
        let mut data = Vec::with_capacity(wide * high);
        for &(a, b, t) in &down {
            let (upper, lower) = (&widened[a * wide..][..wide], &widened[b * wide..][..wide]);
            data.extend(
                upper
                    .iter()
                    .zip(lower)
                    .map(|(&p, &q)| ((p * (256 - t) + q * t + (1 << 15)) >> 16) as u8),
            );
        }
        Gray {
            width: wide,
            height: high,
            data,
        }
    }
}

/// One line of text cut out for Tesseract, in the shape it reads best.
pub(crate) struct Crop {
    pub(crate) image: Gray,
    /// How much it was enlarged: 1 to 2.25.
    pub(crate) scale: f32,
}

/// Lines of text lower than this are read enlarged: at 1x a GTK app's menu font or xterm's
/// bitmap font comes out garbled ("QUIT" as "quit", ".txt" lost); larger text reads as well at
/// 1x, faster.
const ENLARGE_BELOW: usize = 20;
/// How much they are enlarged. Recognition time grows with the pixels: 1.5x read the test
/// captures (a Tk demo, a calculator's keypad, xterm, xmessage, zenity) as well as 2x did, in
/// about half the time.
const ENLARGE: f32 = 1.5;

/// Where a line's crop comes from in the image: the line with one more pixel around it, for
/// the faintest glyph edges. Everything the crop is made of is in these pixels, so their hash
/// stands for the crop's, and a line seen before is answered without cutting it out again.
#[derive(Clone, Copy)]
pub(crate) struct Cut {
    left: usize,
    top: usize,
    width: usize,
    height: usize,
    margin: usize,
    scale: f32,
}

impl Cut {
    pub(crate) fn of(image: &Gray, area: &Area) -> Cut {
        let left = area.left.saturating_sub(1);
        let top = area.top.saturating_sub(1);
        let right = (area.left + area.width + 1).min(image.width);
        let bottom = (area.top + area.height + 1).min(image.height);
        let height = bottom - top;
        Cut {
            left,
            top,
            width: right - left,
            height,
            margin: (height / 2).max(4),
            scale: if area.height < ENLARGE_BELOW {
                ENLARGE
            } else {
                1.0
            },
        }
    }

    /// Where the crop's top-left corner is in the image, at 1x (negative: the margin added
    /// around it).
    pub(crate) fn origin(&self) -> (i32, i32) {
        (
            self.left as i32 - self.margin as i32,
            self.top as i32 - self.margin as i32,
        )
    }

    /// How much the crop is enlarged: 1 to 2.25.
    pub(crate) fn scale(&self) -> f32 {
        self.scale
    }

    /// How wide the cut is, in pixels of the image.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// How high the cut is, in pixels of the image.
    pub(crate) fn height(&self) -> usize {
        self.height
    }

    /// The columns `left..right` of this cut (with the pixel around them that `of` adds), on
    /// the same margin and enlargement, and how far right of this cut's left they start.
    pub(crate) fn part(&self, left: usize, right: usize) -> (Cut, isize) {
        let from = left.saturating_sub(1);
        let to = (right + 1).min(self.width).max(from + 1);
        (
            Cut {
                left: self.left + from,
                width: to - from,
                ..*self
            },
            from as isize,
        )
    }

    /// The same cut enlarged `by` times more, for a second look at a line read unsure.
    pub(crate) fn enlarged(&self, by: f32) -> Cut {
        Cut {
            scale: self.scale * by,
            ..*self
        }
    }

    /// How many pixels of its ground the crop adds around the cut, at 1x.
    pub(crate) fn margin(&self) -> usize {
        self.margin
    }

    /// The shade the line is drawn on.
    pub(crate) fn ground(&self, image: &Gray) -> u8 {
        ground(&self.rows(image).collect::<Vec<_>>())
    }

    /// The rows of the image the crop is made of.
    pub(crate) fn rows<'g>(&self, image: &'g Gray) -> impl Iterator<Item = &'g [u8]> {
        let (left, width) = (self.left, self.width);
        image.data[self.top * image.width..]
            .chunks(image.width)
            .take(self.height)
            .map(move |row| &row[left..left + width])
    }

    /// The line cut out on a margin of its own background (Tesseract misses text that touches
    /// the edge of its image, and must not see the neighbouring border or icon), dark on light
    /// (its model reads that), and enlarged when small.
    pub(crate) fn crop(&self, image: &Gray) -> Crop {
        let (width, height) = (self.width, self.height);
        let rows: Vec<&[u8]> = self.rows(image).collect();
        let ground = ground(&rows);
        let sum: u64 = rows
            .iter()
            .map(|row| row.iter().map(|&p| p as u64).sum::<u64>())
            .sum();
        let light_on_dark = sum > ground as u64 * (width * height) as u64;
        let shade = |p: u8| if light_on_dark { 255 - p } else { p };
        let margin = self.margin;
        let wide = width + 2 * margin;
        let mut data = vec![shade(ground); wide * (height + 2 * margin)];
        for (y, row) in rows.iter().enumerate() {
            let out = &mut data[(margin + y) * wide + margin..][..width];
            out.iter_mut().zip(*row).for_each(|(o, &p)| *o = shade(p));
        }
        let image = Gray {
            width: wide,
            height: height + 2 * margin,
            data,
        };
        Crop {
            image: if self.scale > 1.0 {
                image.enlarged(self.scale)
            } else {
                image
            },
            scale: self.scale,
        }
    }
}

/// The commonest shade on the rim of `rows`: the ground; the text is what differs from it.
fn ground(rows: &[&[u8]]) -> u8 {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return 255;
    };
    let mut counts = [0u32; 256];
    for (&top, &bottom) in first.iter().zip(*last) {
        counts[top as usize] += 1;
        counts[bottom as usize] += 1;
    }
    for row in rows {
        if let (Some(&left), Some(&right)) = (row.first(), row.last()) {
            counts[left as usize] += 1;
            counts[right as usize] += 1;
        }
    }
    (0..=255u8)
        .max_by_key(|&s| counts[s as usize])
        .unwrap_or(255)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_cut_out_on_a_margin_of_its_ground_dark_on_light() {
        // A dark ground, a light "glyph" at 4..6 x 4..6, and a light border at x = 0 the crop
        // must not take in.
        let mut data = vec![30u8; 12 * 10];
        for y in 0..10 {
            data[y * 12] = 250;
        }
        for y in 4..6 {
            for x in 4..6 {
                data[y * 12 + x] = 220;
            }
        }
        let image = Gray {
            width: 12,
            height: 10,
            data,
        };
        let area = Area {
            left: 4,
            top: 4,
            width: 2,
            height: 2,
        };
        let cut = Cut::of(&image, &area);
        let crop = cut.crop(&image);
        assert!(crop.scale > 1.0, "small text is enlarged");
        // One pixel around the area, then a margin of 4, then enlarged.
        assert_eq!(cut.origin(), (-1, -1));
        assert_eq!((crop.image.width, crop.image.height), (18, 18));
        let ground = 255 - 30;
        assert_eq!(crop.image.data[0], ground, "inverted: a light ground");
        assert!(
            crop.image.data.iter().all(|&p| p >= 255 - 220),
            "the glyph is the darkest, the border left out: {:?}",
            crop.image.data
        );
        assert!(crop.image.data.contains(&(255 - 220)), "the glyph is there");
    }

    #[test]
    fn halving_takes_the_mean_of_each_four_pixels_and_drops_an_odd_edge() {
        let image = Gray {
            width: 5,
            height: 3,
            data: vec![0, 100, 200, 200, 9, 0, 100, 0, 0, 9, 7, 7, 7, 7, 7],
        };
        let half = image.halved();
        assert_eq!((half.width, half.height), (2, 1));
        assert_eq!(half.data, [50, 100]);
    }

    #[test]
    fn enlarging_twice_keeps_the_pixels_and_fills_between() {
        let image = Gray {
            width: 2,
            height: 1,
            data: vec![0, 200],
        };
        let doubled = image.enlarged(2.0);
        assert_eq!((doubled.width, doubled.height), (4, 2));
        assert_eq!(&doubled.data[..4], &[0, 50, 150, 200]);
        assert_eq!(
            &doubled.data[4..],
            &doubled.data[..4],
            "one row: both rows alike"
        );
    }
}
