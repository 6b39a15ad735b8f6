//! Tesseract's words (its TSV output) into word groups: the words of one line that sit close
//! enough together to be one label, caption or line of terminal text.

use deskhand_core::model::Rect;
use deskhand_core::ocr::WordGroup;

/// One recognized word, in the pixels of the image Tesseract read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    /// Block, paragraph and line number: which line of text the word is on.
    line: (u32, u32, u32),
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) width: i32,
    pub(crate) height: i32,
    pub(crate) confidence: f32,
    pub(crate) text: String,
}

impl Word {
    /// A word of a line read on its own (one line, so no block or paragraph).
    pub(crate) fn new(
        left: i32,
        top: i32,
        width: i32,
        height: i32,
        confidence: f32,
        text: &str,
    ) -> Word {
        Word {
            line: (1, 1, 1),
            left,
            top,
            width,
            height,
            confidence,
            text: text.to_owned(),
        }
    }
}

/// Short words below this confidence are left out: on UI captures they are icons and borders
/// taken for letters far more often than text.
const MIN_CONFIDENCE: f32 = 50.0;
/// A word of only marks (no letter or digit) must be this sure: icons read as "©", "|" or "=".
const MIN_CONFIDENCE_MARKS: f32 = 85.0;

/// A one-letter word that is not one of English's must be this sure.
const MIN_CONFIDENCE_LONE_LETTER: f32 = 95.0;

/// Any other word of one or two characters must be this sure: icons come out as such words (a
/// spinner as "uv" at 50–55 % on the benchmark's apps), while the real ones there (keypad
/// digits, "50") read at 83 % or more. An extensions button read as "4" at 78 % still passes.
const MIN_CONFIDENCE_SHORT: f32 = 70.0;

/// Whether a word is sure enough to keep. Tesseract gives words outside its dictionary (a
/// shell prompt, a path: `root@vm:/tmp#`) a confidence of 0 even when it read them exactly, so
/// a long word made mostly of letters and digits is kept whatever its confidence; what an icon
/// is misread as is short.
fn sure_enough(text: &str, confidence: f32) -> bool {
    let chars = text.chars().count();
    let letters = text.chars().filter(|c| c.is_alphanumeric()).count();
    if letters == 0 {
        return confidence >= MIN_CONFIDENCE_MARKS;
    }
    // English has two words of one letter; any other lone letter beside a caption is an icon
    // read as one (a search lens as "q", a drop-down arrow as "v", a tab's close button as "x"),
    // as sure as 92 % on the benchmark's browsers. Digits stand alone on keypads.
    if chars == 1 && text.chars().all(char::is_alphabetic) && !matches!(text, "a" | "A" | "I") {
        return confidence >= MIN_CONFIDENCE_LONE_LETTER;
    }
    if chars <= 2 {
        return confidence >= MIN_CONFIDENCE_SHORT;
    }
    confidence >= MIN_CONFIDENCE || (chars >= 5 && letters * 5 >= chars * 3)
}

/// Whether the text read from a single shape (`wide`: wider than it is high) is what icons are
/// misread as: one or two letters (a checkbox or radio button as "o", a drop-down arrow as "v",
/// a close button as "x"), or digits from a wide shape (a folder as "6", a backspace key as
/// "5"). A real caption of letters has a shape per letter; a lone digit (a keypad's) is kept,
/// as it is higher than wide in every UI font.
pub(crate) fn icon_like(text: &str, wide: bool) -> bool {
    let letters = text.chars().filter(|c| c.is_alphanumeric()).count();
    let digits = text.chars().filter(|c| c.is_numeric()).count();
    (1..=2).contains(&letters) && (digits == 0 || (wide && digits == letters))
}

/// Whether `word` is one letter of the Greek alphabet read at least `confidence` sure.
pub(crate) fn greek_letter_sure(word: &Word, confidence: f32) -> bool {
    let mut chars = word.text.chars();
    let greek = |c: char| ('\u{0370}'..='\u{03ff}').contains(&c) && c.is_alphabetic();
    chars.next().is_some_and(greek) && chars.next().is_none() && word.confidence >= confidence
}

/// The confidence of the least sure of `words`, if any.
pub(crate) fn weakest(words: &[Word]) -> Option<f32> {
    words.iter().map(|w| w.confidence).reduce(f32::min)
}

/// Whether `sure` (the sure ones of `all`) left out a word of three characters or more: a word
/// lost, not an icon read as one or two.
pub(crate) fn lost_a_word(all: &[Word], sure: &[Word]) -> bool {
    let long = |words: &[Word]| words.iter().filter(|w| w.text.chars().count() >= 3).count();
    long(all) > long(sure)
}

/// How many characters `words` hold, spaces aside.
pub(crate) fn characters(words: &[Word]) -> usize {
    words.iter().map(|w| w.text.chars().count()).sum()
}

/// The confidence of the surest of `words`, if any.
pub(crate) fn surest(words: &[Word]) -> Option<f32> {
    words.iter().map(|w| w.confidence).reduce(f32::max)
}

/// The words sure enough to keep.
pub(crate) fn sure(mut words: Vec<Word>) -> Vec<Word> {
    words.retain(|w| sure_enough(&w.text, w.confidence));
    words
}

/// The words of Tesseract's TSV (level 5 rows), sure or not.
pub(crate) fn parse_tsv(tsv: &str) -> Vec<Word> {
    tsv.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.splitn(12, '\t').collect();
            if fields.len() < 12 || fields[0] != "5" {
                return None;
            }
            let number = |i: usize| fields[i].trim().parse::<i32>().ok();
            let text = fields[11].trim();
            let confidence: f32 = fields[10].trim().parse().ok()?;
            if text.is_empty() {
                return None;
            }
            Some(Word {
                line: (number(2)? as u32, number(3)? as u32, number(4)? as u32),
                left: number(6)?,
                top: number(7)?,
                width: number(8)?,
                height: number(9)?,
                confidence,
                text: text.to_owned(),
            })
        })
        .collect()
}

/// Words of one line join when the gap between them is at most this many times the line's
/// height: a space is about a third of it, the gap between two buttons a good deal more.
const JOIN_GAP: f32 = 0.9;

/// A word that starts with a dot this close to the one before it (in line heights) goes on that
/// word's name: a space in a monospace font is about 0.8 of a line high, and prose puts none
/// before a dot ("README .md" for xterm's "README.md").
const DOT_AFTER: f32 = 0.5;
/// A word this close after one that ends with a dot goes on it: proportional fonts leave a
/// third of a line's height or more at a space after a dot, a name's dot hardly any ("notes.
/// txt" for a file dialog's "notes.txt").
const AFTER_DOT: f32 = 0.2;

/// Whether two words Tesseract read apart, `gap` pixels from each other on a line `height`
/// high, are one name parted at its dot: a file's name and its extension.
fn one_name(before: &str, after: &str, gap: f32, height: f32) -> bool {
    let dot_then = |text: &str| {
        let mut chars = text.chars();
        chars.next() == Some('.') && chars.next().is_some_and(char::is_alphanumeric)
    };
    let ends_in_dot = |text: &str| {
        let mut chars = text.chars().rev();
        chars.next() == Some('.') && chars.next().is_some_and(char::is_alphanumeric)
    };
    (dot_then(after) && gap <= DOT_AFTER * height)
        || (ends_in_dot(before)
            && after.chars().next().is_some_and(char::is_alphanumeric)
            && gap <= AFTER_DOT * height)
}

/// The words as groups, their bounds divided by `scale`: back in the pixels of the image
/// before it was enlarged.
pub(crate) fn group(words: &[Word], scale: f32) -> Vec<WordGroup> {
    let mut groups: Vec<(Word, f32)> = Vec::new();
    for word in words {
        if let Some((last, weakest)) = groups.last_mut() {
            let gap = word.left - (last.left + last.width);
            let height = last.height.max(word.height) as f32;
            if last.line == word.line && (gap as f32) <= JOIN_GAP * height {
                let right = (last.left + last.width).max(word.left + word.width);
                let bottom = (last.top + last.height).max(word.top + word.height);
                last.left = last.left.min(word.left);
                last.top = last.top.min(word.top);
                last.width = right - last.left;
                last.height = bottom - last.top;
                if !one_name(&last.text, &word.text, gap as f32, height) {
                    last.text.push(' ');
                }
                last.text.push_str(&word.text);
                *weakest = weakest.min(word.confidence);
                continue;
            }
        }
        groups.push((word.clone(), word.confidence));
    }
    groups
        .into_iter()
        .map(|(word, weakest)| WordGroup {
            text: word.text,
            bounds: Rect::new(
                (word.left as f32 / scale).floor() as i32,
                (word.top as f32 / scale).floor() as i32,
                (word.width.max(1) as f32 / scale).ceil() as u32,
                (word.height.max(1) as f32 / scale).ceil() as u32,
            ),
            confidence: weakest.clamp(0.0, 100.0) as u8,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t344\t200\t-1\t
4\t1\t1\t1\t1\t0\t10\t10\t200\t20\t-1\t
5\t1\t1\t1\t1\t1\t10\t10\t60\t20\t96.5\tClick
5\t1\t1\t1\t1\t2\t76\t10\t40\t20\t95.1\tme!
5\t1\t1\t1\t1\t3\t200\t10\t60\t20\t91.0\tQUIT
5\t1\t1\t1\t2\t1\t10\t60\t20\t20\t30.0\tgar
5\t1\t1\t1\t2\t2\t40\t60\t20\t20\t70.0\t|
5\t1\t1\t1\t2\t3\t80\t60\t20\t20\t88.0\t7
5\t1\t1\t1\t3\t1\t10\t90\t200\t20\t0.0\troot@vm:/tmp#
5\t1\t1\t1\t4\t1\t10\t120\t20\t20\t90.0\tv
5\t1\t1\t1\t4\t2\t80\t120\t20\t20\t90.0\ta
";

    #[test]
    fn one_or_two_letters_are_icon_like_digits_and_words_are_not() {
        for icon in ["o", "x", "v", "Cc", "(o)"] {
            assert!(icon_like(icon, false), "{icon}");
            assert!(icon_like(icon, true), "{icon}");
        }
        for text in ["7", "50%", "x2", "Undo", "+"] {
            assert!(!icon_like(text, false), "{text}");
        }
        for icon in ["6", "5", "12"] {
            assert!(icon_like(icon, true), "a wide shape is no digit: {icon}");
        }
        for text in ["x2", "Undo", "+", "128"] {
            assert!(!icon_like(text, true), "{text}");
        }
    }

    #[test]
    fn short_words_must_be_surer_than_long_ones() {
        for (text, confidence) in [("uv", 52.0), ("4", 69.0), ("ok", 65.0), ("x", 90.0)] {
            assert!(!sure_enough(text, confidence), "{text} at {confidence}");
        }
        for (text, confidence) in [("0", 83.0), ("50", 94.0), ("a", 70.0), ("mod", 55.0)] {
            assert!(sure_enough(text, confidence), "{text} at {confidence}");
        }
    }

    #[test]
    fn only_one_greek_letter_read_sure_is_a_greek_reading() {
        let word = |text: &str, confidence: f32| Word {
            line: (1, 1, 1),
            left: 0,
            top: 0,
            width: 10,
            height: 10,
            confidence,
            text: text.to_owned(),
        };
        assert!(greek_letter_sure(&word("π", 93.0), 90.0));
        assert!(greek_letter_sure(&word("Σ", 90.0), 90.0));
        for (text, confidence) in [
            ("π", 89.0),
            ("ππ", 95.0),
            ("x", 95.0),
            ("1", 95.0),
            ("\u{37e}", 95.0),
        ] {
            assert!(!greek_letter_sure(&word(text, confidence), 90.0), "{text}");
        }
        assert_eq!(surest(&[word("a", 20.0), word("b", 60.0)]), Some(60.0));
        assert_eq!(surest(&[]), None);
    }

    #[test]
    fn a_name_parted_at_its_dot_is_one_word_and_a_sentence_is_not() {
        assert!(one_name("README", ".md", 4.0, 11.0));
        assert!(one_name("notes.", "txt", 1.0, 12.0));
        assert!(!one_name("etc.", "and", 4.0, 12.0), "a space after a dot");
        assert!(!one_name("wait", ".md", 9.0, 11.0), "a monospace space");
        assert!(!one_name("end.", "Next", 5.0, 12.0));
        assert!(!one_name("...", "and", 1.0, 12.0), "an ellipsis is no name");
    }

    #[test]
    fn close_words_of_a_line_group_and_unsure_ones_are_left_out() {
        let words = sure(parse_tsv(TSV));
        assert_eq!(
            words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>(),
            ["Click", "me!", "QUIT", "7", "root@vm:/tmp#", "a"]
        );
        let groups = group(&words, 2.0);
        let texts: Vec<&str> = groups.iter().map(|g| g.text.as_str()).collect();
        assert_eq!(texts, ["Click me!", "QUIT", "7", "root@vm:/tmp#", "a"]);
        assert_eq!(groups[0].bounds, Rect::new(5, 5, 53, 10));
        assert_eq!(groups[0].confidence, 95);
        assert_eq!(groups[1].bounds, Rect::new(100, 5, 30, 10));
    }
}
