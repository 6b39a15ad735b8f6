//! Where the text is, found before any recognition: the marks of the image (the darker side of
//! every sharp edge) joined into connected components, drawn lines and frames taken out, and
//! the components that sit side by side at one height joined into lines of text. Tesseract then
//! reads each line on its own: it never spends time on blank background, and never sees a
//! button's border or an icon next to the text it would take for a picture (its own page
//! layout drops text that touches a drawn border).

use crate::prepare::Gray;

/// A rectangle of the image, in its pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Area {
    pub(crate) left: usize,
    pub(crate) top: usize,
    pub(crate) width: usize,
    pub(crate) height: usize,
}

impl Area {
    fn right(&self) -> usize {
        self.left + self.width
    }

    fn bottom(&self) -> usize {
        self.top + self.height
    }

    fn union(&self, other: &Area) -> Area {
        let (left, top) = (self.left.min(other.left), self.top.min(other.top));
        Area {
            left,
            top,
            width: self.right().max(other.right()) - left,
            height: self.bottom().max(other.bottom()) - top,
        }
    }

    /// The same rectangle in the pixels of an image `factor` times larger.
    pub(crate) fn scaled(&self, factor: usize) -> Area {
        Area {
            left: self.left * factor,
            top: self.top * factor,
            width: self.width * factor,
            height: self.height * factor,
        }
    }

    /// Whether the two share any pixel.
    pub(crate) fn overlaps(&self, other: &Area) -> bool {
        self.left < other.right()
            && other.left < self.right()
            && self.top < other.bottom()
            && other.top < self.bottom()
    }

    /// Whether the middle of `other` lies in this rectangle.
    pub(crate) fn holds_center_of(&self, other: &Area) -> bool {
        let (x, y) = (other.left + other.width / 2, other.top + other.height / 2);
        (self.left..self.right()).contains(&x) && (self.top..self.bottom()).contains(&y)
    }

    /// How many rows the two share.
    fn rows_shared(&self, other: &Area) -> usize {
        self.bottom()
            .min(other.bottom())
            .saturating_sub(self.top.max(other.top))
    }
}

/// A line of text: its bounds, and how many shapes (glyphs, or glyphs run together) it is made
/// of; a component inside another's bounds (the counter of a bold "o", the cross inside a
/// backspace key's outline) is part of that shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextLine {
    pub(crate) area: Area,
    pub(crate) parts: usize,
}

/// Two neighbouring pixels this far apart in shade are an edge: anti-aliased glyph borders and
/// grey (disabled) captions are further apart than that, the gradients of buttons and panels
/// far less.
const EDGE: u8 = 36;

/// A horizontal run of marks this long is a drawn line (a border, a separator, an underline),
/// not part of a glyph: the bar of a "T" in a 32 px heading is shorter.
const LONG_RUN: usize = 24;

/// Lines of text lower or higher than this (in pixels of the image) are not read: below, no
/// glyph is legible; above, it is a picture or a frame, not text.
const MIN_LINE_HEIGHT: usize = 6;
pub(crate) const MAX_LINE_HEIGHT: usize = 72;

/// Components a line joins are at most this many times its height apart: a space is about a
/// third of it (a monospace one near one), the gap between two buttons more. Tesseract's words
/// of one line are grouped again, closer, after reading; a wide line costs less to read than
/// its words one by one.
const JOIN_GAP: f32 = 1.2;

/// Within a line, a step from one component's height to the next taller one's of this ratio,
/// and a few pixels more, parts glyphs from what is not text of that line: the side of a
/// button's border, an icon beside a label. Between the x-height, capitals and a slash or
/// parenthesis of one font the steps are smaller.
const TALL: f32 = 1.6;
const TALL_MARGIN: usize = 5;

/// A lone component this high or more and under a third as wide is no text.
const STROKE: usize = 16;

/// Below this height a component is a dot, comma or hyphen, whose step up to the glyphs
/// beside it says nothing.
const SPECK: usize = 5;

/// Which pixels are marks: of every pair of neighbours (across and down) that make an edge,
/// the darker one. Dark text on a light ground is marked on its own pixels, so a glyph and a
/// border one blank pixel apart stay apart; light text on dark is marked on the ground around
/// each glyph, which outlines it as well.
fn marks(image: &Gray) -> Vec<bool> {
    let (width, height) = (image.width, image.height);
    let mut marked = vec![false; width * height];
    if width == 0 {
        return marked;
    }
    // A pixel is the darker of an edge pair when a neighbour is at least EDGE lighter: where the
    // brightest of its four neighbours is. Row by row, as plain slices the loops can vectorize;
    // beyond the image there is no neighbour, which black stands for.
    let none = vec![0u8; width];
    let row = |y: usize| &image.data[y * width..(y + 1) * width];
    for (y, out) in marked.chunks_exact_mut(width).enumerate() {
        let here = row(y);
        let above = if y > 0 { row(y - 1) } else { &none };
        let below = if y + 1 < height { row(y + 1) } else { &none };
        let lighter = |p: u8, neighbours: [u8; 4]| {
            neighbours.into_iter().max().unwrap_or(0).saturating_sub(p) >= EDGE
        };
        let last = width - 1;
        let side = |x: usize, beside: u8| lighter(here[x], [beside, here[x], above[x], below[x]]);
        if width == 1 {
            out[0] = lighter(here[0], [0, 0, above[0], below[0]]);
            continue;
        }
        out[0] = side(0, here[1]);
        out[last] = side(last, here[last - 1]);
        let inner = out[1..last]
            .iter_mut()
            .zip(&here[1..last])
            .zip(here[..last - 1].iter().zip(&here[2..]))
            .zip(above[1..last].iter().zip(&below[1..last]));
        for (((o, &p), (&left, &right)), (&up, &down)) in inner {
            *o = lighter(p, [left, right, up, down]);
        }
    }
    marked
}

/// Where a drawn line is broken by something drawn over it: in column `x`, rows `from..to`
/// lie between two vertical runs too tall for text.
struct Bridge {
    x: usize,
    from: usize,
    to: usize,
}

/// Takes out every vertical run of marks higher than any line of text read: a frame's side, a
/// separator, a slider's trough. Such a run would make whatever it touches one shape too tall
/// to be text and lose it with it: the "I" of a frame's caption that sits on the frame's side
/// ("Inset" read as "nset"). Nothing of a line of text is that high. What such a line passes
/// through (a slider's knob on its trough) stays part of it: the gaps it leaves are returned,
/// and so are the runs, side by side ones as one area: lines of text do not reach across them
/// (the separators between a list's columns).
fn erase_tall_columns(
    marked: &mut [bool],
    width: usize,
    height: usize,
) -> (Vec<Bridge>, Vec<Area>) {
    // How many marks end at each column of the row before, rows walked top to bottom; the
    // runs that end too tall (column, first row, row after the last) are erased after the walk.
    let mut run = vec![0u32; width];
    let mut tall = Vec::new();
    let mut bridges = Vec::new();
    let mut last_end: Vec<Option<usize>> = vec![None; width];
    let blank = vec![false; width];
    for y in 0..=height {
        let row = marked.get(y * width..(y + 1) * width).unwrap_or(&blank);
        for (x, (r, &m)) in run.iter_mut().zip(row).enumerate() {
            if !m && *r as usize > MAX_LINE_HEIGHT {
                let start = y - *r as usize;
                if let Some(end) = last_end[x]
                    && start - end <= MAX_LINE_HEIGHT
                {
                    bridges.push(Bridge {
                        x,
                        from: end,
                        to: start,
                    });
                }
                last_end[x] = Some(y);
                tall.push((x, start, y));
            }
            *r = (*r + 1) * u32::from(m);
        }
    }
    let mut runs: Vec<Area> = Vec::new();
    tall.sort_unstable_by_key(|&(x, start, end)| (start, end, x));
    for (x, start, end) in tall {
        for y in start..end {
            marked[y * width + x] = false;
        }
        match runs.last_mut() {
            Some(run) if run.top == start && run.bottom() == end && run.right() == x => {
                run.width += 1;
            }
            _ => runs.push(Area {
                left: x,
                top: start,
                width: 1,
                height: end - start,
            }),
        }
    }
    (bridges, runs)
}

impl Bridge {
    /// Whether `part` lies in this gap, as high as it is wide around its column: drawn over
    /// the line (a knob, whose outline the erased runs leave in pieces), not beside it.
    fn holds(&self, part: &Area) -> bool {
        // The erased runs took in the knob's outline where it crosses the column, as thick as
        // a few pixels.
        let (reach, outline) = (self.to - self.from, 3);
        part.left + reach >= self.x
            && part.right() <= self.x + reach + 1
            && part.top + outline >= self.from
            && part.bottom() <= self.to + outline
    }
}

/// A connected set of marks: its bounds.
fn components(marked: &[bool], width: usize, height: usize) -> Vec<Area> {
    // Runs of marks per row, long ones (drawn lines) left out; runs of neighbouring rows that
    // touch (diagonally too) are one component, kept in a union-find.
    struct Run {
        y: usize,
        left: usize,
        right: usize,
    }
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut runs: Vec<Run> = Vec::new();
    let mut parent: Vec<usize> = Vec::new();
    let mut previous = 0..0;
    for y in 0..height {
        let row = &marked[y * width..(y + 1) * width];
        let first = runs.len();
        let mut x = 0;
        while x < width {
            // Most of a screen is blank: skip it eight marks at a time.
            if let Some(eight) = row.get(x..x + 8)
                && eight == [false; 8]
            {
                x += 8;
                continue;
            }
            if !row[x] {
                x += 1;
                continue;
            }
            let left = x;
            while x < width && row[x] {
                x += 1;
            }
            if x - left < LONG_RUN {
                runs.push(Run { y, left, right: x });
                parent.push(parent.len());
            }
        }
        let current = first..runs.len();
        let mut above = previous.start;
        for i in current.clone() {
            // Runs above that end before this one starts (diagonal contact aside) touch no
            // later run of this row either.
            while above < previous.end && runs[above].right < runs[i].left {
                above += 1;
            }
            let mut j = above;
            while j < previous.end && runs[j].left <= runs[i].right {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
                j += 1;
            }
        }
        previous = current;
    }
    let mut bounds: Vec<Option<Area>> = vec![None; runs.len()];
    for (i, run) in runs.iter().enumerate() {
        let area = Area {
            left: run.left,
            top: run.y,
            width: run.right - run.left,
            height: 1,
        };
        let r = root(&mut parent, i);
        bounds[r] = Some(bounds[r].map_or(area, |b| b.union(&area)));
    }
    bounds.into_iter().flatten().collect()
}

/// Whether `part` is a flat stroke just below the bottom of `line`, an underscore ("root_",
/// "IMAGE_INFO.TXT" in a terminal's monospace font, drawn under the glyphs' baseline): it shares
/// no row with the glyphs beside it, and on a line of its own, too low to be text, it was lost
/// and parted the words it joins.
fn underscore(line: &Area, part: &Area) -> bool {
    part.height < SPECK
        && part.width >= 2 * part.height
        && part.top >= line.top + line.height / 2
        && part.top <= line.bottom() + (line.height * 2 / 5).max(2)
}

/// A stroke much higher than wide: a border's side, a separator, or (in large text) an "l".
fn upright_stroke(area: &Area) -> bool {
    area.height >= STROKE && area.width * 3 < area.height
}

/// Components side by side at one height, joined left to right into lines: each component
/// joins the line it shares the most rows with, when it is near that line's right end, not
/// much taller than it, and not parted from it by one of `walls` standing across the rows they
/// share (two buttons' captions a word's space apart, their borders' sides between them).
fn join(mut parts: Vec<Area>, walls: &[Area]) -> Vec<Vec<Area>> {
    parts.sort_by_key(|p| (p.left, p.top));
    let mut lines: Vec<(Area, Vec<Area>)> = Vec::new();
    for part in parts {
        let parted = |line: &Area| {
            walls.iter().any(|wall| {
                wall.left >= line.right()
                    && wall.right() <= part.left
                    && wall.top <= line.top.max(part.top)
                    && wall.bottom() >= line.bottom().min(part.bottom())
            })
        };
        let best = lines
            .iter()
            .enumerate()
            .filter(|(_, (line, _))| {
                let gap = part.left as f32 - line.right() as f32;
                let shared = line.rows_shared(&part);
                gap <= JOIN_GAP * line.height.max(part.height) as f32
                    && (shared * 2 >= part.height.min(line.height) || underscore(line, &part))
                    && part.height as f32 <= TALL * line.height as f32 + TALL_MARGIN as f32
                    && !parted(line)
            })
            .max_by_key(|(_, (line, _))| line.rows_shared(&part))
            .map(|(i, _)| i);
        match best {
            Some(i) => {
                let (line, members) = &mut lines[i];
                // An underscore widens the line but does not lower it: the line below, whose
                // glyphs would then share rows with it, stays a line of its own.
                let joined = line.union(&part);
                if joined.bottom() > line.bottom() && underscore(line, &part) {
                    line.width = joined.right() - line.left;
                } else {
                    *line = joined;
                }
                members.push(part);
            }
            None => lines.push((part, vec![part])),
        }
    }
    lines.into_iter().map(|(_, members)| members).collect()
}

/// The height above which a line's components are not its glyphs, if any are: the first
/// big step up in their heights.
fn too_tall(members: &[Area]) -> Option<usize> {
    let mut heights: Vec<usize> = members
        .iter()
        .map(|m| m.height)
        .filter(|&h| h >= SPECK)
        .collect();
    heights.sort_unstable();
    // Steps below the lower quartile are from the few things lower than glyphs: the counters
    // of a bold "e" or "o", which are components of their own.
    let body = *heights.get(heights.len() / 4)?;
    heights
        .windows(2)
        .filter(|pair| pair[0] >= body)
        .find(|pair| pair[1] as f32 > TALL * pair[0] as f32 && pair[1] >= pair[0] + TALL_MARGIN)
        .map(|pair| pair[0])
}

/// The height above which a line's upright strokes are not its glyphs, if any are: those well
/// above its tallest other component. Borders inside borders (a focused button's) make steps
/// too small for `too_tall`: xcalc's row of 14 px captions between sides of 22 and 26 px.
fn strokes_too_tall(members: &[Area]) -> Option<usize> {
    let tallest_glyph = members
        .iter()
        .filter(|m| !upright_stroke(m))
        .map(|m| m.height)
        .max()?;
    let limit = tallest_glyph + TALL_MARGIN - 1;
    members
        .iter()
        .any(|m| upright_stroke(m) && m.height > limit)
        .then_some(limit)
}

/// How many of `members` lie inside no other's bounds.
fn shapes(members: &[Area]) -> usize {
    let inside = |m: &Area, n: &Area| {
        n.left <= m.left && n.top <= m.top && n.right() >= m.right() && n.bottom() >= m.bottom()
    };
    members
        .iter()
        .enumerate()
        .filter(|&(i, m)| {
            !members
                .iter()
                .enumerate()
                .any(|(j, n)| j != i && inside(m, n) && (!inside(n, m) || j < i))
        })
        .count()
}

/// The lines of text of a set of components, each once. A line that holds components much
/// taller than its glyphs (a border's sides, an icon) is joined again without them: that also
/// parts what they had bridged (two buttons' captions, two rows beside an icon).
fn lines_of(parts: Vec<Area>, walls: &[Area], out: &mut Vec<TextLine>) {
    for members in join(parts, walls) {
        if let Some(limit) = too_tall(&members).or_else(|| strokes_too_tall(&members)) {
            lines_of(
                members.into_iter().filter(|m| m.height <= limit).collect(),
                walls,
                out,
            );
            continue;
        }
        let line = members
            .iter()
            .skip(1)
            .fold(members[0], |line, m| line.union(m));
        // A lone stroke much higher than wide is a border's side or a separator, a lone one
        // or two pixels wide a piece of an icon; a lone glyph that narrow ("1") is lower and
        // wider.
        let stroke = members.len() == 1 && (line.width <= 2 || upright_stroke(&line));
        if (MIN_LINE_HEIGHT..=MAX_LINE_HEIGHT).contains(&line.height) && !stroke {
            out.push(TextLine {
                area: line,
                parts: shapes(&members),
            });
        }
    }
}

/// The lines of text of `image`, top to bottom: the bounds of their marks. The darker-side
/// marks of a light-on-dark line lie one pixel outside its glyphs; either way the bounds hold
/// the whole of every glyph but its faintest anti-aliased edge.
pub(crate) fn text_lines(image: &Gray) -> Vec<TextLine> {
    let mut marked = marks(image);
    let (bridges, mut walls) = erase_tall_columns(&mut marked, image.width, image.height);
    let all = components(&marked, image.width, image.height);
    walls.extend(all.iter().copied().filter(upright_stroke));
    let parts: Vec<Area> = all
        .into_iter()
        .filter(|p| p.height <= MAX_LINE_HEIGHT && !bridges.iter().any(|b| b.holds(p)))
        .collect();
    let mut lines = Vec::new();
    lines_of(parts, &walls, &mut lines);
    lines.sort_by_key(|l| (l.area.top, l.area.left));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white image with dark rectangles drawn on it.
    fn drawn(width: usize, height: usize, boxes: &[(usize, usize, usize, usize)]) -> Gray {
        let mut data = vec![240u8; width * height];
        for &(left, top, w, h) in boxes {
            for y in top..top + h {
                for x in left..left + w {
                    data[y * width + x] = 20;
                }
            }
        }
        Gray {
            width,
            height,
            data,
        }
    }

    fn line_areas(image: &Gray) -> Vec<Area> {
        text_lines(image).iter().map(|l| l.area).collect()
    }

    /// "Glyphs": 6x10 blocks 2 px apart, `count` of them from `left` on the row at `top`.
    fn word(left: usize, top: usize, count: usize) -> Vec<(usize, usize, usize, usize)> {
        (0..count).map(|i| (left + i * 8, top, 6, 10)).collect()
    }

    #[test]
    fn glyphs_side_by_side_are_one_line_and_far_apart_two() {
        let mut boxes = word(10, 10, 4);
        boxes.extend(word(48, 10, 3)); // a space (8 px) away: the same line
        boxes.extend(word(200, 10, 2)); // far: a line of its own
        boxes.extend(word(10, 40, 5)); // the row below
        let lines = line_areas(&drawn(300, 60, &boxes));
        assert_eq!(
            lines,
            [
                Area {
                    left: 10,
                    top: 10,
                    width: 60,
                    height: 10
                },
                Area {
                    left: 200,
                    top: 10,
                    width: 14,
                    height: 10
                },
                Area {
                    left: 10,
                    top: 40,
                    width: 38,
                    height: 10
                },
            ]
        );
    }

    #[test]
    fn captions_inside_borders_are_read_without_the_borders() {
        // Two buttons: a 1 px frame each, their captions 2 px inside; nothing else.
        let mut boxes = Vec::new();
        for left in [10, 80] {
            boxes.extend([
                (left, 10, 60, 1),
                (left, 35, 60, 1),
                (left, 10, 1, 26),
                (left + 59, 10, 1, 26),
            ]);
            boxes.extend(word(left + 3, 18, 6));
        }
        let lines = line_areas(&drawn(160, 50, &boxes));
        assert_eq!(
            lines,
            [
                Area {
                    left: 13,
                    top: 18,
                    width: 46,
                    height: 10
                },
                Area {
                    left: 83,
                    top: 18,
                    width: 46,
                    height: 10
                },
            ]
        );
    }

    /// Keys of 38x26 px framed 1 px wide, side by side 3 px apart from `left`, each with its
    /// caption's glyphs (6 px wide, 2 px apart, `height` high) where `caption_at` says.
    fn keys(
        left: usize,
        captions: &[(usize, usize)],
        height: usize,
    ) -> Vec<(usize, usize, usize, usize)> {
        let mut boxes = Vec::new();
        for (i, &(caption_at, glyphs)) in captions.iter().enumerate() {
            let key = left + i * 41;
            boxes.extend([
                (key, 10, 38, 1),
                (key, 35, 38, 1),
                (key, 10, 1, 26),
                (key + 37, 10, 1, 26),
            ]);
            boxes.extend((0..glyphs).map(|g| (key + caption_at + g * 8, 18, 6, height)));
        }
        boxes
    }

    #[test]
    fn captions_a_spaces_width_apart_with_borders_between_are_two_lines() {
        // xcalc's "tan" and "DRG": the first caption ends 3 px before its key's right side, the
        // second starts 3 px after its key's left one, so they are 9 px apart, a word's space.
        let boxes = keys(10, &[(12, 3), (3, 3)], 10);
        let lines = line_areas(&drawn(110, 50, &boxes));
        let at = |left| Area {
            left,
            top: 18,
            width: 22,
            height: 10,
        };
        assert_eq!(lines, [at(22), at(54)]);
    }

    #[test]
    fn columns_of_a_list_a_spaces_width_apart_either_side_of_a_separator_are_two_lines() {
        // A separator higher than any line of text, 5 px from each column's text.
        let mut boxes = vec![(49, 5, 1, 90)];
        boxes.extend(word(22, 40, 3));
        boxes.extend(word(55, 40, 3));
        let lines = line_areas(&drawn(100, 100, &boxes));
        let at = |left| Area {
            left,
            top: 40,
            width: 22,
            height: 10,
        };
        assert_eq!(lines, [at(22), at(55)]);
    }

    #[test]
    fn a_focused_keys_second_frame_does_not_join_a_row_of_keys_into_one_line() {
        // A row of keys, the middle one with a second frame inside its first (xcalc's focused
        // key): with captions 14 px high, the sides of 26 px are not too tall to join them, and
        // those of 22 px leave no step in height between them and the captions.
        let mut boxes = keys(10, &[(12, 2), (12, 2), (12, 2)], 14);
        boxes.extend([
            (53, 12, 32, 1),
            (53, 33, 32, 1),
            (53, 12, 1, 22),
            (84, 12, 1, 22),
        ]);
        let lines = line_areas(&drawn(140, 50, &boxes));
        let at = |left| Area {
            left,
            top: 18,
            width: 14,
            height: 14,
        };
        assert_eq!(lines, [at(22), at(63), at(104)]);
    }

    #[test]
    fn a_bold_line_whose_letters_have_counters_is_one_line() {
        // Thick 14x18 "letters", two with a light 6x6 hole: the holes are components too.
        let letters: Vec<_> = (0..8).map(|i| (10 + i * 18, 10, 14, 18)).collect();
        let mut image = drawn(200, 40, &letters);
        for i in [1, 5] {
            for y in 16..22 {
                for x in 14 + i * 18..20 + i * 18 {
                    image.data[y * 200 + x] = 240;
                }
            }
        }
        let lines = text_lines(&image);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(
            lines[0].area,
            Area {
                left: 10,
                top: 10,
                width: 140,
                height: 18
            }
        );
    }

    #[test]
    fn a_glyph_touching_a_long_drawn_line_is_parted_from_it_and_a_knob_on_one_is_not_text() {
        // A frame's side, 1 px wide, from just below the first "glyph" of a word, diagonally
        // touching it; and a vertical trough broken by a 20x20 knob drawn over it.
        let mut boxes = vec![(9, 20, 1, 100)];
        boxes.extend(word(10, 10, 4));
        boxes.extend([(150, 10, 2, 90), (150, 120, 2, 90)]);
        boxes.extend([
            (141, 100, 20, 2),
            (141, 118, 20, 2),
            (141, 100, 2, 20),
            (159, 100, 2, 20),
        ]);
        let lines = line_areas(&drawn(200, 220, &boxes));
        assert_eq!(
            lines,
            [Area {
                left: 10,
                top: 10,
                width: 30,
                height: 10
            }]
        );
    }

    #[test]
    fn light_text_on_dark_is_found_too() {
        let mut image = drawn(100, 30, &word(10, 10, 3));
        for p in &mut image.data {
            *p = 255 - *p;
        }
        let lines = text_lines(&image);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let line = lines[0].area;
        assert!(line.left <= 10 && line.right() >= 32 && line.top <= 10 && line.bottom() >= 20);
    }

    #[test]
    fn blank_images_pictures_and_specks_hold_no_lines() {
        assert!(text_lines(&drawn(50, 50, &[])).is_empty());
        assert!(
            text_lines(&drawn(200, 200, &[(10, 10, 150, 150)])).is_empty(),
            "a panel"
        );
        assert!(
            text_lines(&drawn(50, 50, &[(10, 10, 2, 2)])).is_empty(),
            "a speck"
        );
        assert!(
            text_lines(&drawn(50, 50, &[(10, 10, 4, 30)])).is_empty(),
            "a separator"
        );
        assert!(
            text_lines(&drawn(50, 50, &[(10, 10, 2, 8)])).is_empty(),
            "a hairline"
        );
        assert_eq!(
            text_lines(&drawn(50, 50, &[(10, 10, 4, 10)])).len(),
            1,
            "a \"1\""
        );
        assert!(
            text_lines(&Gray {
                width: 0,
                height: 0,
                data: vec![]
            })
            .is_empty()
        );
    }
}
