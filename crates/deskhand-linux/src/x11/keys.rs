//! The core's keys as X keysyms, and character → keysym conversion. Pure.

use deskhand_core::keys::{Key, KeyModifier, Keys};
use xkeysym::key;

/// A chord as X presses it: keysyms held down while `key` is pressed.
///
/// Modifiers are pressed in order, then `key` is pressed and released, then the modifiers are
/// released in reverse order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chord {
    pub modifiers: Vec<u32>,
    pub key: u32,
}

/// The chords of `keys` in keysyms, in order.
pub fn chords(keys: &Keys) -> Vec<Chord> {
    keys.chords()
        .iter()
        .map(|chord| Chord {
            modifiers: chord
                .modifiers
                .iter()
                .copied()
                .map(modifier_keysym)
                .collect(),
            key: keysym(chord.key),
        })
        .collect()
}

/// The left-hand key of a modifier, as a keyboard has it.
pub fn modifier_keysym(modifier: KeyModifier) -> u32 {
    match modifier {
        KeyModifier::Ctrl => key::Control_L,
        KeyModifier::Shift => key::Shift_L,
        KeyModifier::Alt => key::Alt_L,
        KeyModifier::Super => key::Super_L,
        KeyModifier::AltGr => key::ISO_Level3_Shift,
    }
}

fn keysym(pressed: Key) -> u32 {
    match pressed {
        Key::Char(c) => keysym_for_char(c),
        Key::Return => key::Return,
        Key::Escape => key::Escape,
        Key::Backspace => key::BackSpace,
        Key::Delete => key::Delete,
        Key::Tab => key::Tab,
        Key::Home => key::Home,
        Key::End => key::End,
        Key::Left => key::Left,
        Key::Up => key::Up,
        Key::Right => key::Right,
        Key::Down => key::Down,
        Key::PageUp => key::Page_Up,
        Key::PageDown => key::Page_Down,
        Key::Insert => key::Insert,
        Key::Menu => key::Menu,
        Key::PrintScreen => key::Print,
        Key::Pause => key::Pause,
        Key::CapsLock => key::Caps_Lock,
        Key::KeypadEnter => key::KP_Enter,
        Key::Function(n) => key::F1 + u32::from(n) - 1,
        Key::Modifier(modifier) => modifier_keysym(modifier),
    }
}

/// The keysym that types `c`: Latin-1 characters are their own keysym, everything else uses the
/// Unicode keysym range (0x0100_0000 + code point). Newline and carriage return map to Return,
/// tab to Tab, and backspace, escape and delete to their keys.
pub fn keysym_for_char(c: char) -> u32 {
    match c {
        '\n' | '\r' => key::Return,
        '\t' => key::Tab,
        '\u{8}' => key::BackSpace,
        '\u{1b}' => key::Escape,
        '\u{7f}' => key::Delete,
        ' '..='~' | '\u{a0}'..='\u{ff}' => u32::from(c),
        _ => 0x0100_0000 + u32::from(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keysyms(spec: &str) -> Vec<Chord> {
        chords(&Keys::parse(spec).unwrap())
    }

    fn chord(modifiers: &[u32], key: u32) -> Chord {
        Chord {
            modifiers: modifiers.to_vec(),
            key,
        }
    }

    #[test]
    fn chords_become_the_keysyms_x_knows_them_by() {
        assert_eq!(keysyms("ctrl+s"), [chord(&[0xffe3], 's' as u32)]);
        assert_eq!(
            keysyms("ctrl+shift+t"),
            [chord(&[0xffe3, 0xffe1], 't' as u32)]
        );
        assert_eq!(keysyms("alt+F4"), [chord(&[0xffe9], 0xffc1)]);
        assert_eq!(keysyms("F24"), [chord(&[], 0xffd5)]);
        assert_eq!(keysyms("super+e"), [chord(&[0xffeb], 'e' as u32)]);
        assert_eq!(keysyms("altgr+e"), [chord(&[0xfe03], 'e' as u32)]);
        assert_eq!(keysyms("shift"), [chord(&[], 0xffe1)]);
        assert_eq!(
            keysyms("Return Escape BackSpace Delete Tab Home End"),
            [0xff0d, 0xff1b, 0xff08, 0xffff, 0xff09, 0xff50, 0xff57].map(|k| chord(&[], k))
        );
        assert_eq!(
            keysyms("Left Up Right Down PageUp PageDown Insert Menu Print Pause CapsLock KP_Enter"),
            [
                0xff51, 0xff52, 0xff53, 0xff54, 0xff55, 0xff56, 0xff63, 0xff67, 0xff61, 0xff13,
                0xffe5, 0xff8d
            ]
            .map(|k| chord(&[], k))
        );
        assert_eq!(
            keysyms("ctrl+plus space"),
            [chord(&[0xffe3], '+' as u32), chord(&[], ' ' as u32)]
        );
    }

    #[test]
    fn keysyms_for_characters() {
        assert_eq!(keysym_for_char('a'), 0x61);
        assert_eq!(keysym_for_char('~'), 0x7e);
        assert_eq!(keysym_for_char('é'), 0xe9);
        assert_eq!(keysym_for_char('\u{a0}'), 0xa0);
        assert_eq!(keysym_for_char('€'), 0x0100_20ac);
        assert_eq!(keysym_for_char('🎉'), 0x0101_f389);
        assert_eq!(keysym_for_char('\n'), key::Return);
        assert_eq!(keysym_for_char('\t'), key::Tab);
    }
}
