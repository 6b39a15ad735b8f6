//! The text an element shows: web engines and LibreOffice give paragraphs and sections no name
//! and keep their words in the Text interface, with each child object embedded as U+FFFC.

use deskhand_core::model::Role;

/// The object replacement character a toolkit puts where a child object sits in the text.
pub const EMBEDDED: char = '\u{FFFC}';

/// Whether an element's words are its content, read from the Text interface: a spreadsheet
/// cell (named by its address), and any unnamed element that can carry text (Gecko's and
/// Chromium's paragraphs and sections, LibreOffice's paragraphs, a page's `role=status` line).
/// A named label's or heading's text is its name, so it is not asked again.
pub fn bears_text(role: Role, unnamed: bool) -> bool {
    role == Role::Cell
        || (unnamed
            && matches!(
                role,
                Role::Paragraph
                    | Role::Heading
                    | Role::Label
                    | Role::Group
                    | Role::Generic
                    | Role::Listitem
                    | Role::Unknown
                    | Role::Header
                    | Role::Statusbar
            ))
}

/// Whether a name says nothing a person could read: empty, or only pictographs (emoji, icon
/// fonts' private-use glyphs, arrows and dingbats) such as a web page's "⟳" or "🗑".
pub fn icon_only(name: &str) -> bool {
    name.chars().all(|c| {
        c.is_whitespace()
            || matches!(
                c as u32,
                0x2190..=0x21FF
                    | 0x2300..=0x23FF
                    | 0x2460..=0x27BF
                    | 0x27F0..=0x27FF
                    | 0x2900..=0x297F
                    | 0x2B00..=0x2BFF
                    | 0xE000..=0xF8FF
                    | 0xFE00..=0xFE0F
                    | 0xFEFF
                    | 0x1F000..=0x1FAFF
            )
    })
}

/// What an embedded child contributes to its parent's text where its U+FFFC stands.
pub enum Embedded<'a> {
    /// An inline object (link, image, static text): its words read on in the sentence.
    Inline(&'a str),
    /// A block of its own (a paragraph in a section, a combo box's menu): listed separately.
    Block,
}

/// Whether a name is a spreadsheet cell's address ("A1", "XFD1048576"), which says nothing
/// about what the cell holds.
pub fn is_cell_address(name: &str) -> bool {
    let letters = name.chars().take_while(char::is_ascii_uppercase).count();
    let digits = &name[letters..];
    (1..=3).contains(&letters)
        && !digits.is_empty()
        && digits.len() <= 7
        && digits.chars().all(|c| c.is_ascii_digit())
}

/// The address a spreadsheet names a cell by: row 0, column 27 is "AB1".
pub fn cell_address(row: i32, column: i32) -> String {
    let mut letters = Vec::new();
    let mut rest = i64::from(column.max(0)) + 1;
    while rest > 0 {
        let digit = (rest - 1) % 26;
        letters.push(char::from(b'A' + digit as u8));
        rest = (rest - 1) / 26;
    }
    letters.reverse();
    format!(
        "{}{}",
        letters.into_iter().collect::<String>(),
        i64::from(row.max(0)) + 1
    )
}

/// A list item's words without the bullets a page draws before them (Chromium gives its
/// marker twice: "• • Item 1"); the role already says it is an item.
pub fn without_bullets(text: &str) -> &str {
    text.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '•' | '◦' | '▪' | '‣' | '⁃'))
}

impl<'a> Embedded<'a> {
    /// An embedded child of this role and these words (its name, else its text): a link,
    /// image, label or static text reads on inside its parent's sentence, anything else is a
    /// block of its own, and so is a field a person types in (its name is a caption, not words
    /// of the sentence).
    pub fn of(role: Role, editable: bool, words: Option<&'a str>) -> Self {
        match words {
            Some(words)
                if !editable
                    && matches!(role, Role::Link | Role::Image | Role::Label | Role::Text) =>
            {
                Embedded::Inline(words)
            }
            _ => Embedded::Block,
        }
    }
}

/// The text as a person reads it: each U+FFFC replaced, in order, by the embedded child's words
/// (a block child's are dropped: it shows on its own line), invisible formatting characters
/// removed, and the ends trimmed; `None` when nothing readable is left.
pub fn shown_text(raw: &str, embedded: &[Embedded<'_>]) -> Option<String> {
    let mut children = embedded.iter();
    let mut text = String::with_capacity(raw.len());
    // A dropped block leaves the spaces around it: one is enough.
    let mut after_block = false;
    for c in raw.chars() {
        match c {
            EMBEDDED => match children.next() {
                Some(Embedded::Inline(words)) => text.push_str(words),
                _ => after_block = true,
            },
            // A byte-order mark or zero-width space Gecko keeps after an emoji or icon font.
            '\u{FEFF}' | '\u{200B}' => {}
            ' ' if after_block && text.ends_with(' ') => {}
            c => {
                after_block = false;
                text.push(c);
            }
        }
    }
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_children_read_on_and_blocks_drop() {
        let link = [Embedded::Inline("the docs")];
        assert_eq!(
            shown_text("Read \u{FFFC} before you order.", &link).as_deref(),
            Some("Read the docs before you order.")
        );
        assert_eq!(shown_text("\u{FFFC}", &[Embedded::Block]), None);
        assert_eq!(
            shown_text("Intro \u{FFFC}", &[Embedded::Block]).as_deref(),
            Some("Intro")
        );
    }

    #[test]
    fn a_field_inside_a_sentence_is_a_block_not_its_caption() {
        let children = [
            Embedded::of(Role::Label, false, Some("Name")),
            Embedded::of(Role::Text, true, Some("Name")),
            Embedded::of(Role::Text, false, Some("kg")),
        ];
        assert_eq!(
            shown_text("\u{FFFC} \u{FFFC} in \u{FFFC}", &children).as_deref(),
            Some("Name in kg")
        );
    }

    #[test]
    fn missing_children_and_formatting_characters_leave_nothing_behind() {
        assert_eq!(shown_text("a\u{FFFC}b\u{FFFC}", &[]).as_deref(), Some("ab"));
        assert_eq!(shown_text("🗑\u{FEFF}", &[]).as_deref(), Some("🗑"));
        assert_eq!(shown_text("  \u{FEFF} ", &[]), None);
    }

    #[test]
    fn pictographs_say_nothing_and_signs_do() {
        for nothing in ["", " ", "⟳", "🗑\u{FEFF}", "\u{E5CD}"] {
            assert!(icon_only(nothing), "{nothing:?}");
        }
        for something in ["×", "=", "÷", "π", "7", "Save", "⟳ Reload"] {
            assert!(!icon_only(something), "{something:?}");
        }
    }

    #[test]
    fn cell_addresses_are_told_from_cell_text() {
        assert!(is_cell_address("A1") && is_cell_address("XFD1048576"));
        for (row, column, address) in [
            (0, 0, "A1"),
            (6, 1, "B7"),
            (0, 25, "Z1"),
            (0, 26, "AA1"),
            (9, 51, "AZ10"),
            (1_048_575, 16_383, "XFD1048576"),
        ] {
            assert_eq!(cell_address(row, column), address);
        }
        for text in ["Row 1", "A", "a1", "ABCD1", "1", ""] {
            assert!(!is_cell_address(text), "{text:?}");
        }
    }

    #[test]
    fn list_items_lose_their_bullets() {
        assert_eq!(without_bullets("• • Item 1 stock 37"), "Item 1 stock 37");
        assert_eq!(without_bullets("◦ nested"), "nested");
        assert_eq!(without_bullets("1. First"), "1. First");
    }

    #[test]
    fn only_unnamed_text_carriers_and_cells_are_read() {
        assert!(bears_text(Role::Paragraph, true));
        assert!(!bears_text(Role::Paragraph, false));
        assert!(bears_text(Role::Cell, false));
        assert!(!bears_text(Role::Button, true));
    }
}
