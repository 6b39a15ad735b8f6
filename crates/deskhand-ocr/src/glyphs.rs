//! A memory of the glyphs Tesseract has read, so that a line drawn in a font seen before is read
//! by looking its glyphs up instead of by Tesseract again. Screens draw each character of a font
//! at one size with the same pixels every time (or with one of a few, where text is placed at
//! fractions of a pixel), so a line's shapes, split at the blank columns between them, name
//! their characters once Tesseract has read them sure elsewhere. Dense text (a terminal, an
//! editor) uses a few dozen characters: after its first lines, the others are lookups.
//!
//! A line is read from memory when its known shapes are all of one family of lines (a font)
//! and memory knows at least half of it: the words it knows (every gap inside them plainly a
//! gap inside a word by what that family showed), while those it does not, and those beside a
//! gap it cannot tell, are read by Tesseract with a word of context on each side, the rest of
//! the line left out; any other line is read by Tesseract whole. What Tesseract reads teaches
//! the memory.

use std::collections::{HashMap, HashSet};

use xxhash_rust::xxh3;

use crate::engine::SpelledWord;
use crate::words::Word;

/// A pixel this far from the line's ground is ink; fainter ones are the fringes of smoothing,
/// which would join neighbouring glyphs.
const INK: u8 = 32;

/// Lines with fewer shapes are left to Tesseract: short lines are cheap to read, and they are
/// where icons sit beside captions.
const MIN_SHAPES: usize = 8;

/// A word teaches the memory only when Tesseract read it at least this sure.
const LEARN_SURE: f32 = 90.0;

/// A shape is read from memory once this many lines read by Tesseract agree on it (and none
/// disagrees): Tesseract misreads a glyph now and then even when sure (xterm's ":" as "t" in
/// "is:", at 90 % or more), and one misreading must not spread to every line that has it.
const AGREED: u32 = 2;

/// How far (pixels) a character's middle, as Tesseract places it, may be from the shape it is
/// learned as part of, when some shapes hold two characters or more.
const FIT: f32 = 3.0;

/// Past this many shapes (a few hundred fonts' worth), the memory starts again.
const MAX_GLYPHS: usize = 50_000;

/// One shape of a line: its columns of ink, and a hash of its pixels and of where it sits on
/// the line's baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    left: usize,
    right: usize,
    /// Its box with the faint fringe of smoothing around it: where Tesseract's boxes end.
    outline: Outline,
    key: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Outline {
    left: usize,
    right: usize,
    top: usize,
    bottom: usize,
}

/// The shapes of one line, in the pixels of its cut, left to right; `None` when the line has
/// too few of them or no baseline most of them sit on.
pub(crate) fn shapes<'r>(rows: impl Iterator<Item = &'r [u8]>, ground: u8) -> Option<Vec<Shape>> {
    let rows: Vec<&[u8]> = rows.collect();
    let width = rows.first()?.len();
    let ink = |p: u8| p.abs_diff(ground) > INK;
    let drawn = |p: u8| p != ground;
    let column_has = |x: usize, test: &dyn Fn(u8) -> bool| rows.iter().any(|row| test(row[x]));
    let inked: Vec<bool> = (0..width).map(|x| column_has(x, &ink)).collect();
    let mut spans = Vec::new();
    let mut x = 0;
    while x < width {
        if !inked[x] {
            x += 1;
            continue;
        }
        let left = x;
        while x < width && inked[x] {
            x += 1;
        }
        let rows_with = |from: usize, to: usize, test: &dyn Fn(u8) -> bool| {
            let has = |row: &&[u8]| row[from..to].iter().any(|&p| test(p));
            Some((rows.iter().position(has)?, rows.iter().rposition(has)? + 1))
        };
        let (top, bottom) = rows_with(left, x, &ink)?;
        let (mut outer_left, mut outer_right) = (left, x);
        while outer_left > 0 && !inked[outer_left - 1] && column_has(outer_left - 1, &drawn) {
            outer_left -= 1;
        }
        while outer_right < width && !inked[outer_right] && column_has(outer_right, &drawn) {
            outer_right += 1;
        }
        let (outer_top, outer_bottom) = rows_with(outer_left, outer_right, &drawn)?;
        let outline = Outline {
            left: outer_left,
            right: outer_right,
            top: outer_top,
            bottom: outer_bottom,
        };
        spans.push((left, x, top, bottom, outline));
    }
    if spans.len() < MIN_SHAPES {
        return None;
    }
    // The baseline is where most shapes end; a line of mostly descenders has none to trust.
    let mut ends: HashMap<usize, usize> = HashMap::new();
    for &(.., bottom, _) in &spans {
        *ends.entry(bottom).or_default() += 1;
    }
    let (&baseline, &on_it) = ends
        .iter()
        .max_by_key(|(bottom, count)| (**count, **bottom))?;
    if on_it * 3 < spans.len() {
        return None;
    }
    Some(
        spans
            .into_iter()
            .map(|(left, right, top, bottom, outline)| {
                let mut hasher = xxh3::Xxh3::new();
                hasher.update(&((right - left) as u64).to_le_bytes());
                hasher.update(&((bottom - top) as u64).to_le_bytes());
                hasher.update(&(bottom as i64 - baseline as i64).to_le_bytes());
                for row in &rows[top..bottom] {
                    hasher.update(&row[left..right]);
                }
                Shape {
                    left,
                    right,
                    outline,
                    key: hasher.digest(),
                }
            })
            .collect(),
    )
}

/// Where a crop Tesseract read lies on a line's cut: its column `x` is the cut's
/// `x / scale - margin + offset`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placement {
    pub(crate) scale: f32,
    pub(crate) margin: usize,
    pub(crate) offset: isize,
}

/// A run of words memory does not know, in the columns `left..right` of a line's cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unknown {
    pub(crate) left: usize,
    pub(crate) right: usize,
    pub(crate) words: usize,
}

/// What memory read of a line.
pub(crate) struct Recall {
    /// The words it knows.
    pub(crate) known: Vec<Word>,
    /// Each run of words it does not know: its columns of the cut, and how many words it
    /// holds.
    pub(crate) unknown: Vec<Unknown>,
    /// The family its glyphs are of, which the glyphs Tesseract reads in `unknown` join.
    pub(crate) family: FamilyId,
}

/// A family, as long as the memory that holds it has not started again since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FamilyId {
    index: usize,
    generation: u64,
}

struct Glyph {
    /// What Tesseract read the shape as; `None` once it read it as two different things.
    text: Option<Box<str>>,
    /// On how many lines it was read so.
    agreed: u32,
    /// The surest reading it was learned from.
    confidence: f32,
    family: usize,
}

impl Glyph {
    /// What the shape reads as, once lines enough agree on it.
    fn reading(&self) -> Option<&str> {
        self.text.as_deref().filter(|_| self.agreed >= AGREED)
    }
}

/// Lines that share glyphs: one font at one size, as far as the memory can tell.
#[derive(Clone, Copy)]
struct Family {
    parent: usize,
    /// The widest gap seen between two shapes of one word.
    widest_inside: usize,
    /// The narrowest gap seen between two words.
    narrowest_between: usize,
    /// The highest line seen: words are as high, so that they join into groups by their gaps
    /// alike on lines with and without descenders.
    highest: usize,
}

impl Family {
    fn include(&mut self, other: &Family) {
        self.widest_inside = self.widest_inside.max(other.widest_inside);
        self.narrowest_between = self.narrowest_between.min(other.narrowest_between);
        self.highest = self.highest.max(other.highest);
    }
}

/// How high a line's shapes are, fringes included.
fn height(shapes: &[Shape]) -> usize {
    let top = shapes.iter().map(|s| s.outline.top).min().unwrap_or(0);
    let bottom = shapes.iter().map(|s| s.outline.bottom).max().unwrap_or(0);
    bottom.saturating_sub(top)
}

#[derive(Default)]
pub(crate) struct Glyphs {
    known: HashMap<u64, Glyph>,
    families: Vec<Family>,
    /// How many times the memory started again: another thread may learn from a line it read
    /// before.
    generation: u64,
}

impl Glyphs {
    pub(crate) fn forget(&mut self) {
        *self = Self {
            generation: self.generation + 1,
            ..Self::default()
        };
    }

    fn root(&mut self, mut family: usize) -> usize {
        while self.families[family].parent != family {
            let grand = self.families[self.families[family].parent].parent;
            self.families[family].parent = grand;
            family = grand;
        }
        family
    }

    /// What memory knows of a line: its words where it knows every shape of them, and the
    /// columns of those it does not, for Tesseract to read; `None` when it knows too little
    /// (less than half the line's width, or no shape at all) or its glyphs are of two families.
    /// Words are in the pixels of the cut, moved by `margin` as Tesseract's crop is.
    pub(crate) fn read(&mut self, shapes: &[Shape], margin: usize) -> Option<Recall> {
        let mut family = None;
        for shape in shapes {
            let Some(glyph) = self.known.get(&shape.key) else {
                continue;
            };
            if glyph.reading().is_none() {
                continue;
            }
            let root = self.root(glyph.family);
            if *family.get_or_insert(root) != root {
                return None;
            }
        }
        let family_index = family?;
        let family = &self.families[family_index];
        // Where words part. A gap neither plainly inside a word nor plainly between two (wider
        // or narrower than any seen) parts them too, and Tesseract reads the shapes on both
        // sides of it.
        let mut starts = vec![0];
        let mut doubtful = Vec::new();
        for (i, pair) in shapes.windows(2).enumerate() {
            let gap = pair[1].left - pair[0].right;
            let inside = gap <= family.widest_inside;
            let between = gap >= family.narrowest_between;
            match (inside, between) {
                (true, false) => {}
                (false, true) => starts.push(i + 1),
                _ => {
                    doubtful.push(starts.len() - 1);
                    starts.push(i + 1);
                    doubtful.push(starts.len() - 1);
                }
            }
        }
        starts.push(shapes.len());
        // Every word spans the line's rows, as high as the family's highest line, so that
        // words group by their gaps alike on lines with and without descenders.
        let top = shapes.iter().map(|s| s.outline.top).min()? + margin;
        let bottom =
            (shapes.iter().map(|s| s.outline.bottom).max()? + margin).max(top + family.highest);
        let words: Vec<&[Shape]> = starts
            .windows(2)
            .map(|run| &shapes[run[0]..run[1]])
            .collect();
        let spelled: Vec<Option<Vec<&Glyph>>> = words
            .iter()
            .enumerate()
            .map(|(i, word)| {
                if doubtful.contains(&i) {
                    return None;
                }
                word.iter()
                    .map(|shape| self.known.get(&shape.key).filter(|g| g.reading().is_some()))
                    .collect()
            })
            .collect();
        // A word memory does not know is read with the words beside it: alone, Tesseract has
        // no letters to tell small from capital by ("A" read as "a"), nor words for context.
        let mut to_read = vec![false; words.len()];
        for (i, glyphs) in spelled.iter().enumerate() {
            if glyphs.is_none() {
                to_read[i.saturating_sub(1)..(i + 2).min(words.len())].fill(true);
            }
        }
        let mut known = Vec::new();
        let mut unknown: Vec<Unknown> = Vec::new();
        let mut unknown_width = 0;
        for (i, (word, glyphs)) in words.iter().zip(&spelled).enumerate() {
            let (left, right) = (word[0].outline.left, word[word.len() - 1].outline.right);
            if to_read[i] {
                match unknown.last_mut() {
                    Some(run) if i > 0 && to_read[i - 1] => {
                        run.right = right;
                        run.words += 1;
                    }
                    _ => unknown.push(Unknown {
                        left,
                        right,
                        words: 1,
                    }),
                }
                continue;
            }
            let Some(glyphs) = glyphs else {
                continue;
            };
            let text: String = glyphs.iter().filter_map(|g| g.reading()).collect();
            let confidence = glyphs.iter().map(|g| g.confidence).fold(100.0, f32::min);
            known.push(Word::new(
                (left + margin) as i32,
                top as i32,
                (right - left) as i32,
                (bottom - top) as i32,
                confidence,
                &text,
            ));
        }
        for run in &unknown {
            unknown_width += run.right - run.left;
        }
        let width = shapes[shapes.len() - 1].outline.right - shapes[0].outline.left;
        if unknown_width * 2 > width {
            return None;
        }
        Some(Recall {
            known,
            unknown,
            family: FamilyId {
                index: family_index,
                generation: self.generation,
            },
        })
    }

    /// Learns the shapes of a line from what Tesseract read of it: `words` with their
    /// characters' columns in the pixels of its crop, placed on the line's cut by `at`; with
    /// `family`, what it learns is of that family (a part of a line the rest of which memory
    /// read). A word teaches only when it is sure and each of its shapes
    /// holds the middle of at least one of its characters, and each character's middle is in
    /// one of its shapes: a shape holding two (glyphs that touch, as "xt" do in a monospace
    /// font) is learned as both, a character of two shapes (`"`) teaches nothing.
    pub(crate) fn learn(
        &mut self,
        shapes: &[Shape],
        words: &[SpelledWord],
        at: Placement,
        family: Option<FamilyId>,
    ) {
        if self.known.len() > MAX_GLYPHS {
            self.forget();
        }
        let column = |x: f32| x / at.scale - at.margin as f32 + at.offset as f32;
        // Each shape: the word it belongs to, once that word teaches, and its text.
        let mut taught: Vec<Option<(usize, String)>> = vec![None; shapes.len()];
        for (index, word) in words.iter().enumerate() {
            if word.confidence < LEARN_SURE {
                continue;
            }
            if let Some(texts) = spell_out(shapes, word, column)
                && texts.iter().all(|(i, _)| taught[*i].is_none())
            {
                for (i, text) in texts {
                    taught[i] = Some((index, text));
                }
            }
        }
        if taught.iter().all(Option::is_none) {
            return;
        }
        let mut families: Vec<usize> = family
            .filter(|id| id.generation == self.generation)
            .map(|id| id.index)
            .into_iter()
            .collect();
        let mut counted = HashSet::new();
        for (shape, taught) in shapes.iter().zip(&taught) {
            let Some((word, text)) = taught else {
                continue;
            };
            let confidence = words[*word].confidence;
            let first_on_line = counted.insert(shape.key);
            match self.known.get_mut(&shape.key) {
                Some(glyph) => {
                    if glyph.text.as_deref() != Some(text) {
                        glyph.text = None;
                    } else if first_on_line {
                        glyph.agreed += 1;
                    }
                    glyph.confidence = glyph.confidence.max(confidence);
                    // A glyph first seen earlier on this line has no family yet.
                    if glyph.family != usize::MAX {
                        families.push(glyph.family);
                    }
                }
                None => {
                    self.known.insert(
                        shape.key,
                        Glyph {
                            text: Some(text.as_str().into()),
                            agreed: 1,
                            confidence,
                            family: usize::MAX,
                        },
                    );
                }
            }
        }
        let family = self.join(families);
        let mut line = Family {
            parent: family,
            widest_inside: 0,
            narrowest_between: usize::MAX,
            highest: height(shapes),
        };
        for i in 0..shapes.len() {
            if let Some(glyph) = self.known.get_mut(&shapes[i].key)
                && taught[i].is_some()
                && glyph.family == usize::MAX
            {
                glyph.family = family;
            }
            let (Some(Some((this, _))), Some(Some((next, _)))) = (taught.get(i), taught.get(i + 1))
            else {
                continue;
            };
            let gap = shapes[i + 1].left - shapes[i].right;
            if this == next {
                line.widest_inside = line.widest_inside.max(gap);
            } else if next - this == 1 {
                line.narrowest_between = line.narrowest_between.min(gap);
            }
        }
        self.families[family].include(&line);
    }

    /// One family for all of `families` (a new one if none), merging what they showed.
    fn join(&mut self, families: Vec<usize>) -> usize {
        let mut roots: Vec<usize> = families.into_iter().map(|f| self.root(f)).collect();
        roots.sort_unstable();
        roots.dedup();
        let Some(&first) = roots.first() else {
            self.families.push(Family {
                parent: self.families.len(),
                widest_inside: 0,
                narrowest_between: usize::MAX,
                highest: 0,
            });
            return self.families.len() - 1;
        };
        for &other in &roots[1..] {
            self.families[other].parent = first;
            let merged = Family {
                parent: first,
                ..self.families[other]
            };
            self.families[first].include(&merged);
        }
        first
    }
}

/// Which shapes `word` spells and what each says: the word's characters laid over the run of
/// neighbouring shapes its box covers, in order, each shape taking one or more, the way that
/// best fits where Tesseract says each character is. Tesseract's boxes of neighbouring
/// characters overlap and drift by a few pixels along a line, so with a shape per character
/// the fit is one to one whatever the boxes say; with fewer shapes (glyphs that touch, as "xt"
/// do in a monospace font) each character must be within `FIT` of the shape it goes to. More
/// shapes than characters (a `"` of two) teaches nothing. `column` takes a column of the crop
/// to one of the cut.
fn spell_out(
    shapes: &[Shape],
    word: &SpelledWord,
    column: impl Fn(f32) -> f32,
) -> Option<Vec<(usize, String)>> {
    let middles: Vec<f32> = word
        .characters
        .iter()
        .map(|(_, left, right)| column((left + right) as f32 / 2.0))
        .collect();
    let (left, right) = (
        column(word.characters.iter().map(|c| c.1).min()? as f32),
        column(word.characters.iter().map(|c| c.2).max()? as f32),
    );
    let centre = |s: &Shape| (s.left + s.right) as f32 / 2.0;
    let first = shapes.iter().position(|s| centre(s) >= left)?;
    let end = shapes.iter().rposition(|s| centre(s) <= right)? + 1;
    let run = shapes.get(first..end)?;
    let (count, shapes_in_run) = (middles.len(), run.len());
    if shapes_in_run == 0 || shapes_in_run > count {
        return None;
    }
    let distance = |character: usize, shape: usize| {
        let (s, m) = (&run[shape], middles[character]);
        (s.left as f32 - m).max(m - s.right as f32).max(0.0)
    };
    // cost[c][s]: the best fit of the first c + 1 characters with character c on shape s.
    let mut cost = vec![vec![f32::INFINITY; shapes_in_run]; count];
    cost[0][0] = distance(0, 0);
    for c in 1..count {
        for s in 0..shapes_in_run {
            let stay = cost[c - 1][s];
            let step = if s > 0 {
                cost[c - 1][s - 1]
            } else {
                f32::INFINITY
            };
            cost[c][s] = stay.min(step) + distance(c, s);
        }
    }
    if !cost[count - 1][shapes_in_run - 1].is_finite() {
        return None;
    }
    let mut on = vec![0; count];
    let mut s = shapes_in_run - 1;
    for c in (0..count).rev() {
        on[c] = s;
        if c > 0 && s > 0 && cost[c - 1][s - 1] <= cost[c - 1][s] {
            s -= 1;
        }
    }
    if on[0] != 0 {
        return None;
    }
    let one_each = shapes_in_run == count;
    if !one_each && (0..count).any(|c| distance(c, on[c]) > FIT) {
        return None;
    }
    let mut texts: Vec<(usize, String)> = Vec::new();
    for (c, (character, ..)) in word.characters.iter().enumerate() {
        match texts.last_mut() {
            Some((last, text)) if *last == first + on[c] => text.push_str(character),
            _ => texts.push((first + on[c], character.clone())),
        }
    }
    Some(texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glyphs 3 px wide and 5 high, each a pattern of its own, sitting on one baseline; `.` a
    /// dot on it, `'` a dot at the top.
    fn glyph(character: char) -> Vec<&'static str> {
        match character {
            'a' => vec!["###", "#.#", "###", "#.#", "#.#"],
            'b' => vec!["##.", "#.#", "##.", "#.#", "##."],
            'c' => vec!["###", "#..", "#..", "#..", "###"],
            'd' => vec!["##.", "#.#", "#.#", "#.#", "##."],
            'e' => vec!["###", "#..", "##.", "#..", "###"],
            '.' => vec!["...", "...", "...", "...", ".#."],
            '\'' => vec![".#.", "...", "...", "...", "..."],
            other => panic!("no glyph for {other:?}"),
        }
    }

    /// Where a character was drawn: it, and its first column and the one after its last.
    type Placed = (char, usize, usize);

    /// A line of `text` in those glyphs, a blank column between letters and four for a space,
    /// on a white ground with two blank rows above and below; with each character's columns.
    fn line(text: &str) -> (Vec<Vec<u8>>, Vec<Placed>) {
        let mut columns: Vec<[u8; 9]> = vec![[255; 9]];
        let mut placed = Vec::new();
        for character in text.chars() {
            if character == ' ' {
                columns.extend([[255; 9]; 3]);
                continue;
            }
            let rows = glyph(character);
            let left = columns.len();
            for x in 0..3 {
                let mut column = [255; 9];
                for (y, row) in rows.iter().enumerate() {
                    if row.as_bytes()[x] == b'#' {
                        column[y + 2] = 0;
                    }
                }
                columns.push(column);
            }
            placed.push((character, left, left + 3));
            columns.push([255; 9]);
        }
        let rows = (0..9)
            .map(|y| columns.iter().map(|column| column[y]).collect())
            .collect();
        (rows, placed)
    }

    fn shapes_of(rows: &[Vec<u8>]) -> Option<Vec<Shape>> {
        shapes(rows.iter().map(Vec::as_slice), 255)
    }

    /// What Tesseract would say of the line if it read it as `text`: its words, each character
    /// with the columns of the one drawn there (at 1x, no margin), as sure as `confidence`.
    fn spelled(placed: &[Placed], text: &str, confidence: f32) -> Vec<SpelledWord> {
        let mut words = Vec::new();
        let mut at = 0;
        for word in text.split(' ') {
            let characters = placed[at..at + word.chars().count()]
                .iter()
                .zip(word.chars())
                .map(|(&(_, left, right), c)| (c.to_string(), left as i32, right as i32))
                .collect();
            at += word.chars().count();
            words.push(SpelledWord {
                confidence,
                characters,
            });
        }
        words
    }

    const AT_1X: Placement = Placement {
        scale: 1.0,
        margin: 0,
        offset: 0,
    };

    fn teach(glyphs: &mut Glyphs, text: &str, times: usize) {
        let (rows, placed) = line(text);
        let shapes = shapes_of(&rows).expect("shapes enough");
        for _ in 0..times {
            glyphs.learn(&shapes, &spelled(&placed, text, 95.0), AT_1X, None);
        }
    }

    fn words_of(recall: &Recall) -> Vec<&str> {
        recall.known.iter().map(|w| w.text.as_str()).collect()
    }

    #[test]
    fn a_line_parts_at_blank_columns_and_a_glyph_keys_the_same_wherever_it_is() {
        let (rows, placed) = line("abcde abcde");
        let shapes = shapes_of(&rows).expect("ten shapes");
        assert_eq!(shapes.len(), 10);
        assert_eq!(
            shapes.iter().map(|s| (s.left, s.right)).collect::<Vec<_>>(),
            placed.iter().map(|p| (p.1, p.2)).collect::<Vec<_>>()
        );
        assert_eq!(
            shapes[0].key, shapes[5].key,
            "the same glyph, further right"
        );
        assert_ne!(shapes[0].key, shapes[1].key);
        let (short, _) = line("abc");
        assert_eq!(shapes_of(&short), None, "too few shapes to be worth it");
    }

    #[test]
    fn the_same_shape_higher_on_the_line_is_another_glyph() {
        let (rows, _) = line("abcde.abcde'");
        let shapes = shapes_of(&rows).expect("shapes");
        let (dot, tick) = (&shapes[5], &shapes[11]);
        assert_eq!(dot.right - dot.left, tick.right - tick.left);
        assert_ne!(dot.key, tick.key, "a full stop is not an apostrophe");
    }

    #[test]
    fn glyphs_read_twice_alike_read_a_new_line_with_its_spaces() {
        let mut glyphs = Glyphs::default();
        teach(&mut glyphs, "abcde abcde", 1);
        let (rows, _) = line("ebb dace bead");
        let shapes = shapes_of(&rows).expect("shapes");
        assert!(
            glyphs.read(&shapes, 0).is_none(),
            "one reading is not yet enough to go by"
        );
        teach(&mut glyphs, "abcde abcde", 1);
        let recall = glyphs.read(&shapes, 0).expect("all known");
        assert!(recall.unknown.is_empty());
        assert_eq!(words_of(&recall), ["ebb", "dace", "bead"]);
        let first = &recall.known[0];
        assert_eq!((first.left, first.width), (1, 11), "where its glyphs are");
        assert_eq!(recall.known[1].left, 16);
    }

    #[test]
    fn a_glyph_read_two_ways_is_never_read_from_memory() {
        let mut glyphs = Glyphs::default();
        teach(&mut glyphs, "abcde abcde", 2);
        let (rows, placed) = line("abcde abcde");
        let shapes = shapes_of(&rows).expect("shapes");
        // The same pixels read with the "c" as an "e" once.
        glyphs.learn(&shapes, &spelled(&placed, "abede abede", 95.0), AT_1X, None);
        let (rows, _) = line("cab bad dab bead abed");
        let recall = glyphs
            .read(&shapes_of(&rows).expect("shapes"), 0)
            .expect("most known");
        assert_eq!(
            words_of(&recall),
            ["dab", "bead", "abed"],
            "only words without the disputed glyph"
        );
        assert_eq!(
            recall.unknown.len(),
            1,
            "the word with it and its neighbour"
        );
        assert_eq!((recall.unknown[0].left, recall.unknown[0].words), (1, 2));
    }

    #[test]
    fn an_unsure_reading_teaches_nothing() {
        let mut glyphs = Glyphs::default();
        let (rows, placed) = line("abcde abcde");
        let shapes = shapes_of(&rows).expect("shapes");
        for _ in 0..3 {
            glyphs.learn(&shapes, &spelled(&placed, "abcde abcde", 80.0), AT_1X, None);
        }
        assert!(glyphs.read(&shapes, 0).is_none());
    }

    #[test]
    fn glyphs_that_touch_are_learned_as_one_and_a_gap_unlike_any_seen_is_left_to_tesseract() {
        // "d" and "e" drawn touching: the blank column between them inked at the baseline.
        let touching = |text: &str| {
            let (mut rows, placed) = line(text);
            for (character, _, right) in &placed {
                if *character == 'd' {
                    rows[6][*right] = 0;
                }
            }
            (rows, placed)
        };
        let mut glyphs = Glyphs::default();
        let (rows, placed) = touching("abcde abcde");
        let shapes = shapes_of(&rows).expect("shapes");
        assert_eq!(shapes.len(), 8, "two pairs run together");
        for _ in 0..2 {
            glyphs.learn(&shapes, &spelled(&placed, "abcde abcde", 95.0), AT_1X, None);
        }
        let recall = glyphs.read(&shapes, 0).expect("known");
        assert_eq!(words_of(&recall), ["abcde", "abcde"]);
        // Two blank columns after the first "a": wider than any gap seen inside a word,
        // narrower than any space.
        let (mut rows, _) = touching("abcde abcde abcde abcde");
        for row in &mut rows {
            row.insert(4, 255);
        }
        let recall = glyphs
            .read(&shapes_of(&rows).expect("shapes"), 0)
            .expect("known");
        assert_eq!(words_of(&recall), ["abcde", "abcde"], "the last two");
        assert_eq!(
            recall.unknown,
            [Unknown {
                left: 1,
                right: 44,
                words: 3
            }],
            "both sides of the gap and the next word, for Tesseract"
        );
    }
}
