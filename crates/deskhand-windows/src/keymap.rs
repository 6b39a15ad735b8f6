//! The core's keys as Windows input strokes: virtual-key codes with their set-1 scan codes for
//! chords, UTF-16 units (`KEYEVENTF_UNICODE`) for typed text.

use deskhand_core::keys::{Chord, Key, KeyModifier};

/// A physical key: its virtual-key code, its scan code, and whether the scan code carries the
/// 0xE0 prefix (`KEYEVENTF_EXTENDEDKEY`): the arrows and the block above them share scan codes
/// with the number pad and are told apart by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyCode {
    pub vk: u16,
    pub scan: u16,
    pub extended: bool,
}

const fn key(vk: u16, scan: u16) -> KeyCode {
    KeyCode {
        vk,
        scan,
        extended: false,
    }
}

const fn extended(vk: u16, scan: u16) -> KeyCode {
    KeyCode {
        vk,
        scan,
        extended: true,
    }
}

/// One key event to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stroke {
    Key {
        code: KeyCode,
        up: bool,
    },
    /// A UTF-16 code unit, typed whatever the keyboard layout.
    Unicode {
        unit: u16,
        up: bool,
    },
}

/// Where the keyboard layout has a character: the key and the modifiers that type it, as
/// `VkKeyScanW` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutKey {
    pub code: KeyCode,
    pub shift: bool,
    pub ctrl: bool,
    pub alt: bool,
}

impl LayoutKey {
    /// What `VkKeyScanExW` answers (the virtual key in the low byte, the shift state in the
    /// high one, -1 where the layout has no key for the character).
    pub fn from_scan(found: i16) -> Option<LayoutKey> {
        if found == -1 {
            return None;
        }
        let (vk, state) = ((found as u16) & 0xFF, ((found as u16) >> 8) & 0xFF);
        Some(LayoutKey {
            code: KeyCode {
                vk,
                scan: 0,
                extended: false,
            },
            shift: state & 1 != 0,
            ctrl: state & 2 != 0,
            alt: state & 4 != 0,
        })
    }
}

/// A key no layout or app binds (0xE8 is unassigned): pressed before asking for the
/// foreground again, it makes deskhand the process that sent the last input, which Windows'
/// foreground lock asks for, without an app reacting as Alt would (it opens menus).
pub const NUDGE: KeyCode = KeyCode {
    vk: 0xE8,
    scan: 0,
    extended: false,
};

pub const SHIFT: KeyCode = key(0xA0, 0x2A);
pub const CTRL: KeyCode = key(0xA2, 0x1D);
pub const ALT: KeyCode = key(0xA4, 0x38);
pub const SUPER: KeyCode = extended(0x5B, 0x5B);
/// Right Alt; layouts with AltGr make Windows add the left Ctrl to it.
pub const ALT_GR: KeyCode = extended(0xA5, 0x38);
pub const RETURN: KeyCode = key(0x0D, 0x1C);
pub const TAB: KeyCode = key(0x09, 0x0F);

pub fn modifier_key(modifier: KeyModifier) -> KeyCode {
    match modifier {
        KeyModifier::Ctrl => CTRL,
        KeyModifier::Shift => SHIFT,
        KeyModifier::Alt => ALT,
        KeyModifier::Super => SUPER,
        KeyModifier::AltGr => ALT_GR,
    }
}

/// The key of every named key; `None` for a character, whose key depends on the layout.
pub fn named_key(named: Key) -> Option<KeyCode> {
    Some(match named {
        Key::Char(_) => return None,
        Key::Return => RETURN,
        Key::Escape => key(0x1B, 0x01),
        Key::Backspace => key(0x08, 0x0E),
        Key::Delete => extended(0x2E, 0x53),
        Key::Tab => TAB,
        Key::Home => extended(0x24, 0x47),
        Key::End => extended(0x23, 0x4F),
        Key::Left => extended(0x25, 0x4B),
        Key::Up => extended(0x26, 0x48),
        Key::Right => extended(0x27, 0x4D),
        Key::Down => extended(0x28, 0x50),
        Key::PageUp => extended(0x21, 0x49),
        Key::PageDown => extended(0x22, 0x51),
        Key::Insert => extended(0x2D, 0x52),
        Key::Menu => extended(0x5D, 0x5D),
        Key::PrintScreen => extended(0x2C, 0x37),
        Key::Pause => key(0x13, 0x45),
        Key::CapsLock => key(0x14, 0x3A),
        Key::KeypadEnter => extended(0x0D, 0x1C),
        Key::Function(n) => function_key(n)?,
        Key::Modifier(modifier) => modifier_key(modifier),
    })
}

/// F1–F10 sit at scan codes 0x3B–0x44, F11 and F12 at 0x57 and 0x58, F13–F24 at 0x64–0x6F.
fn function_key(n: u8) -> Option<KeyCode> {
    let scan = match n {
        1..=10 => 0x3A + n as u16,
        11 | 12 => 0x4C + n as u16,
        13..=24 => 0x57 + n as u16,
        _ => return None,
    };
    Some(key(0x6F + n as u16, scan))
}

/// Why a chord cannot be pressed on this keyboard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChordError {
    #[error(
        "\"{chord}\" cannot be pressed: the keyboard layout has no key for '{character}' to \
         hold modifiers with; type the character with the type action, or name a key the \
         layout has"
    )]
    NoKey { chord: String, character: char },
}

/// The strokes of one chord: modifiers down in order, the key down and up, modifiers up in
/// reverse. A character is pressed on the key the layout has for it (`layout`), with Shift
/// (and AltGr's Ctrl+Alt) added where the layout needs them (the parser has already made
/// `ctrl+A` the `a` key); a character the layout lacks is
/// typed as Unicode when no modifier is held, and refused when one is, since a modifier means
/// nothing on a Unicode stroke.
pub fn chord_strokes(
    chord: &Chord,
    layout: impl Fn(char) -> Option<LayoutKey>,
) -> Result<Vec<Stroke>, ChordError> {
    let mut held: Vec<KeyCode> = chord.modifiers.iter().map(|m| modifier_key(*m)).collect();
    let pressed = match chord.key {
        Key::Char(character) => match layout(character).or_else(|| ascii_key(character)) {
            Some(found) => {
                let implied = [(found.ctrl, CTRL), (found.alt, ALT), (found.shift, SHIFT)];
                for (needed, code) in implied {
                    if needed && !held.contains(&code) {
                        held.push(code);
                    }
                }
                found.code
            }
            None if chord.modifiers.is_empty() => return Ok(unicode_strokes(character)),
            None => {
                return Err(ChordError::NoKey {
                    chord: chord.to_string(),
                    character,
                });
            }
        },
        named => named_key(named).expect("every named key has a code"),
    };
    let mut strokes: Vec<Stroke> = held
        .iter()
        .map(|&code| Stroke::Key { code, up: false })
        .collect();
    strokes.push(Stroke::Key {
        code: pressed,
        up: false,
    });
    strokes.push(Stroke::Key {
        code: pressed,
        up: true,
    });
    strokes.extend(
        held.iter()
            .rev()
            .map(|&code| Stroke::Key { code, up: true }),
    );
    Ok(strokes)
}

/// Letters and digits are on the same virtual keys on every layout Windows has.
fn ascii_key(character: char) -> Option<LayoutKey> {
    let upper = character.to_ascii_uppercase();
    (upper.is_ascii_uppercase() || upper.is_ascii_digit()).then(|| LayoutKey {
        code: key(upper as u16, 0),
        shift: character.is_ascii_uppercase(),
        ctrl: false,
        alt: false,
    })
}

fn unicode_strokes(character: char) -> Vec<Stroke> {
    let mut units = [0u16; 2];
    character
        .encode_utf16(&mut units)
        .iter()
        .flat_map(|&unit| {
            [
                Stroke::Unicode { unit, up: false },
                Stroke::Unicode { unit, up: true },
            ]
        })
        .collect()
}

/// The strokes that type `character`: a line break and a tab are their keys (an edit control
/// takes a Unicode CR as nothing), every other character its UTF-16 units, so the text arrives
/// exactly whatever the keyboard layout.
/// The strokes of each character typed, in order. A Windows line break `\r\n` is one Return:
/// pressing it twice would make the second confirm a dialog or submit a form.
pub fn typing_strokes(text: &str) -> Vec<Vec<Stroke>> {
    let mut chars = text.chars().peekable();
    let mut typed = Vec::new();
    while let Some(character) = chars.next() {
        if character == '\r' && chars.peek() == Some(&'\n') {
            chars.next();
        }
        typed.push(text_strokes(character));
    }
    typed
}

fn text_strokes(character: char) -> Vec<Stroke> {
    let code = match character {
        '\n' | '\r' => RETURN,
        '\t' => TAB,
        other => return unicode_strokes(other),
    };
    vec![
        Stroke::Key { code, up: false },
        Stroke::Key { code, up: true },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskhand_core::keys::Keys;

    fn strokes(spec: &str, layout: impl Fn(char) -> Option<LayoutKey> + Copy) -> Vec<Stroke> {
        Keys::parse(spec)
            .unwrap()
            .chords()
            .iter()
            .flat_map(|chord| chord_strokes(chord, layout).unwrap())
            .collect()
    }

    fn no_layout(_: char) -> Option<LayoutKey> {
        None
    }

    fn down(code: KeyCode) -> Stroke {
        Stroke::Key { code, up: false }
    }

    fn up(code: KeyCode) -> Stroke {
        Stroke::Key { code, up: true }
    }

    #[test]
    fn a_chord_holds_its_modifiers_around_the_key_and_releases_them_in_reverse() {
        let s = key(0x53, 0);
        assert_eq!(
            strokes("ctrl+shift+s", no_layout),
            [down(CTRL), down(SHIFT), down(s), up(s), up(SHIFT), up(CTRL)]
        );
    }

    #[test]
    fn named_keys_carry_scan_codes_and_the_extended_flag_where_the_number_pad_shares_them() {
        let left = named_key(Key::Left).unwrap();
        assert_eq!((left.vk, left.scan, left.extended), (0x25, 0x4B, true));
        let enter = named_key(Key::Return).unwrap();
        let keypad_enter = named_key(Key::KeypadEnter).unwrap();
        assert_eq!(enter.vk, keypad_enter.vk);
        assert!(!enter.extended && keypad_enter.extended);
        assert_eq!(named_key(Key::Function(1)).unwrap().vk, 0x70);
        assert_eq!(named_key(Key::Function(12)).unwrap().scan, 0x58);
        assert_eq!(named_key(Key::Function(24)).unwrap().vk, 0x87);
        assert_eq!(named_key(Key::Function(25)), None);
        assert_eq!(named_key(Key::Char('a')), None);
    }

    #[test]
    fn a_capital_letter_alone_adds_shift_and_inside_a_chord_is_the_letter_key() {
        let a = key(0x41, 0);
        assert_eq!(
            strokes("A", no_layout),
            [down(SHIFT), down(a), up(a), up(SHIFT)]
        );
        assert_eq!(
            strokes("ctrl+A", no_layout),
            [down(CTRL), down(a), up(a), up(CTRL)]
        );
    }

    #[test]
    fn a_character_goes_on_the_layouts_key_with_the_modifiers_the_layout_needs() {
        // A German layout: '@' is AltGr+Q, which VkKeyScanW reports as Ctrl+Alt on Q.
        let q = key(0x51, 0x10);
        let german = move |c: char| {
            (c == '@').then_some(LayoutKey {
                code: q,
                shift: false,
                ctrl: true,
                alt: true,
            })
        };
        assert_eq!(
            strokes("@", german),
            [down(CTRL), down(ALT), down(q), up(q), up(ALT), up(CTRL)]
        );
    }

    #[test]
    fn a_character_no_key_types_is_sent_as_unicode_alone_and_refused_with_a_modifier() {
        assert_eq!(
            strokes("€", no_layout),
            [
                Stroke::Unicode {
                    unit: 0x20AC,
                    up: false
                },
                Stroke::Unicode {
                    unit: 0x20AC,
                    up: true
                }
            ]
        );
        let chord = &Keys::parse("ctrl+€").unwrap().chords()[0].clone();
        let err = chord_strokes(chord, no_layout).unwrap_err();
        assert!(err.to_string().contains("type action"), "{err}");
    }

    #[test]
    fn typed_text_is_utf16_units_with_line_breaks_and_tabs_as_their_keys() {
        let units: Vec<Stroke> = typing_strokes("é😀").concat();
        let downs: Vec<u16> = units
            .iter()
            .filter_map(|s| match s {
                Stroke::Unicode { unit, up: false } => Some(*unit),
                _ => None,
            })
            .collect();
        assert_eq!(downs, [0xE9, 0xD83D, 0xDE00]);
        assert_eq!(text_strokes('\n'), [down(RETURN), up(RETURN)]);
        assert_eq!(text_strokes('\t'), [down(TAB), up(TAB)]);
    }

    #[test]
    fn a_layouts_answer_reads_as_its_key_and_modifiers() {
        // German '@' is AltGr+Q: Q (0x51) with Ctrl and Alt; US '+' is Shift+'=' (0xBB).
        let at = LayoutKey::from_scan(0x0651).unwrap();
        assert_eq!(
            (at.code.vk, at.shift, at.ctrl, at.alt),
            (0x51, false, true, true)
        );
        let plus = LayoutKey::from_scan(0x01BB).unwrap();
        assert_eq!(
            (plus.code.vk, plus.shift, plus.ctrl, plus.alt),
            (0xBB, true, false, false)
        );
        assert_eq!(LayoutKey::from_scan(-1), None);
    }

    #[test]
    fn the_nudge_before_a_second_focus_try_is_a_key_nothing_binds() {
        let modifiers = [SHIFT, CTRL, ALT, SUPER, ALT_GR];
        assert!(modifiers.iter().all(|m| m.vk != NUDGE.vk));
        // Unassigned in Windows' virtual-key table; Alt (0x12, 0xA4, 0xA5) and F10 would
        // open a menu.
        assert_eq!(NUDGE.vk, 0xE8);
        assert!(![0x12, 0x79, 0xA4, 0xA5].contains(&NUDGE.vk));
    }

    #[test]
    fn a_windows_line_break_is_one_return_not_two() {
        let enter = vec![down(RETURN), up(RETURN)];
        let typed = typing_strokes("a\r\nb");
        assert_eq!(typed.len(), 3, "a, one Return, b");
        assert_eq!(typed[1], enter);
        assert_eq!(typing_strokes("\r\n\r\n"), [enter.clone(), enter.clone()]);
        // A lone \r or \n is a Return of its own, and \n\r two.
        assert_eq!(typing_strokes("\r"), std::slice::from_ref(&enter));
        assert_eq!(typing_strokes("\n\r"), [enter.clone(), enter]);
    }
}
