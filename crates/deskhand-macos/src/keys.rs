//! The core's keys as macOS virtual key codes (`kVK_*` of `HIToolbox/Events.h`) and
//! `CGEventFlags`, and text cut into the pieces `CGEventKeyboardSetUnicodeString` takes.

use deskhand_core::keys::{Chord, Key, KeyModifier};

/// `kCGEventFlagMaskShift`, `…Control`, `…Alternate`, `…Command`.
pub const FLAG_SHIFT: u64 = 0x0002_0000;
pub const FLAG_CONTROL: u64 = 0x0004_0000;
pub const FLAG_OPTION: u64 = 0x0008_0000;
pub const FLAG_COMMAND: u64 = 0x0010_0000;

/// One key going down or up, with the modifier flags held while it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyEvent {
    pub code: u16,
    pub down: bool,
    pub flags: u64,
    /// The character the event types regardless of the keyboard layout (a key event with a
    /// Unicode string), for characters no key of the US layout types.
    pub unicode: Option<char>,
}

/// Why a chord has no macOS keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoMacKey(pub String);

impl std::fmt::Display for NoMacKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a Mac keyboard has no {} key; press another key or type the text instead",
            self.0
        )
    }
}

/// The modifier's key code and flag: Super is Command (cmd), Alt is Option, AltGr the right
/// Option that picks a key's third character on European layouts.
pub fn modifier(modifier: KeyModifier) -> (u16, u64) {
    match modifier {
        KeyModifier::Super => (0x37, FLAG_COMMAND),
        KeyModifier::Shift => (0x38, FLAG_SHIFT),
        KeyModifier::Alt => (0x3A, FLAG_OPTION),
        KeyModifier::Ctrl => (0x3B, FLAG_CONTROL),
        KeyModifier::AltGr => (0x3D, FLAG_OPTION),
    }
}

/// The key code of a named key.
fn named(key: Key) -> Result<u16, NoMacKey> {
    let code = match key {
        Key::Return => 0x24,
        Key::Tab => 0x30,
        Key::Backspace => 0x33,
        Key::Escape => 0x35,
        Key::Delete => 0x75,
        Key::Home => 0x73,
        Key::End => 0x77,
        Key::PageUp => 0x74,
        Key::PageDown => 0x79,
        Key::Left => 0x7B,
        Key::Right => 0x7C,
        Key::Down => 0x7D,
        Key::Up => 0x7E,
        Key::CapsLock => 0x39,
        Key::KeypadEnter => 0x4C,
        Key::Function(n) => {
            const F: [u16; 20] = [
                0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D, 0x67, 0x6F, 0x69, 0x6B,
                0x71, 0x6A, 0x40, 0x4F, 0x50, 0x5A,
            ];
            return F
                .get(usize::from(n).wrapping_sub(1))
                .copied()
                .ok_or_else(|| NoMacKey(format!("F{n}")));
        }
        Key::Modifier(m) => modifier(m).0,
        // A Mac's Help key sits where Insert is, but means something else.
        Key::Insert => return Err(NoMacKey("Insert".into())),
        Key::Menu => return Err(NoMacKey("Menu".into())),
        Key::PrintScreen => return Err(NoMacKey("PrintScreen".into())),
        Key::Pause => return Err(NoMacKey("Pause".into())),
        Key::Char(c) => return ansi(c).map(|(code, _)| code).ok_or(NoMacKey(c.to_string())),
    };
    Ok(code)
}

/// The ANSI (US) key that types `c`, and whether it needs Shift.
pub fn ansi(c: char) -> Option<(u16, bool)> {
    const PLAIN: &str = "asdfhgzxcv\0bqweryt123465=97-80]ou[ip\0lj'k;\\,/nm.";
    const SHIFTED: &str = "ASDFHGZXCV\0BQWERYT!@#$^%+(&_*)}OU{IP\0LJ\"K:|<?NM>";
    match c {
        ' ' => return Some((0x31, false)),
        '`' => return Some((0x32, false)),
        '~' => return Some((0x32, true)),
        '\0' => return None,
        _ => {}
    }
    if let Some(i) = PLAIN.chars().position(|p| p == c) {
        return Some((i as u16, false));
    }
    SHIFTED
        .chars()
        .position(|p| p == c)
        .map(|i| (i as u16, true))
}

/// The events of one chord: modifiers down in order, the key down and up, the modifiers up in
/// reverse. A character with no modifier but Shift types through its Unicode string, so the
/// keyboard layout does not matter; with Command, Control or Option it is the key at its US
/// position, as shortcuts are named.
pub fn chord_events(chord: &Chord) -> Result<Vec<KeyEvent>, NoMacKey> {
    let mut events = Vec::new();
    let mut flags = 0;
    for m in &chord.modifiers {
        let (code, flag) = modifier(*m);
        flags |= flag;
        events.push(KeyEvent {
            code,
            down: true,
            flags,
            unicode: None,
        });
    }
    let (code, unicode, extra) = match chord.key {
        Key::Char(c) if chord.types_a_character() => match ansi(c) {
            Some((code, shift)) => (code, None, if shift { FLAG_SHIFT } else { 0 }),
            None => (0, Some(c), 0),
        },
        Key::Char(c) => {
            let lower = c.to_ascii_lowercase();
            let (code, shift) = ansi(lower).ok_or_else(|| NoMacKey(c.to_string()))?;
            (code, None, if shift { FLAG_SHIFT } else { 0 })
        }
        key => (named(key)?, None, 0),
    };
    for down in [true, false] {
        events.push(KeyEvent {
            code,
            down,
            flags: flags | extra,
            unicode,
        });
    }
    for m in chord.modifiers.iter().rev() {
        let (code, flag) = modifier(*m);
        flags &= !flag;
        events.push(KeyEvent {
            code,
            down: false,
            flags,
            unicode: None,
        });
    }
    Ok(events)
}

/// UTF-16 units one `CGEventKeyboardSetUnicodeString` event carries: longer strings are cut by
/// the system.
pub const UNICODE_CHUNK: usize = 20;

/// A piece of typed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextPiece {
    /// Characters sent as one key event's Unicode string.
    Unicode(String),
    /// A key pressed for a character apps take as a key, not as text (a line break, a tab).
    Key(u16),
}

/// `text` in the pieces it is typed in: runs of at most [`UNICODE_CHUNK`] UTF-16 units, never
/// splitting a character, with Return for each line break and Tab for each tab.
pub fn text_pieces(text: &str) -> Vec<TextPiece> {
    let mut pieces = Vec::new();
    let mut run = String::new();
    let mut units = 0;
    let flush = |run: &mut String, units: &mut usize, pieces: &mut Vec<TextPiece>| {
        if !run.is_empty() {
            pieces.push(TextPiece::Unicode(std::mem::take(run)));
        }
        *units = 0;
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let key = match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                Some(0x24)
            }
            '\n' => Some(0x24),
            '\t' => Some(0x30),
            _ => None,
        };
        if let Some(code) = key {
            flush(&mut run, &mut units, &mut pieces);
            pieces.push(TextPiece::Key(code));
            continue;
        }
        if units + c.len_utf16() > UNICODE_CHUNK {
            flush(&mut run, &mut units, &mut pieces);
        }
        units += c.len_utf16();
        run.push(c);
    }
    flush(&mut run, &mut units, &mut pieces);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskhand_core::keys::Keys;

    fn events(spec: &str) -> Vec<KeyEvent> {
        let keys = Keys::parse(spec).unwrap();
        chord_events(&keys.chords()[0]).unwrap()
    }

    #[test]
    fn cmd_s_is_command_down_s_with_the_flag_command_up() {
        let e = events("cmd+s");
        let codes: Vec<(u16, bool, u64)> = e.iter().map(|e| (e.code, e.down, e.flags)).collect();
        assert_eq!(
            codes,
            [
                (0x37, true, FLAG_COMMAND),
                (0x01, true, FLAG_COMMAND),
                (0x01, false, FLAG_COMMAND),
                (0x37, false, 0),
            ]
        );
        assert_eq!(events("super+s"), e, "cmd and super are one key");
        assert_eq!(events("command+s"), e);
        assert_eq!(events("option+a"), events("alt+a"), "option is alt");
        assert_eq!(events("opt+a")[0].code, 0x3A);
    }

    #[test]
    fn modifiers_accumulate_and_come_up_in_reverse() {
        let e = events("ctrl+alt+shift+Delete");
        let downs: Vec<u64> = e.iter().filter(|e| e.down).map(|e| e.flags).collect();
        let all = FLAG_CONTROL | FLAG_OPTION | FLAG_SHIFT;
        assert_eq!(
            downs,
            [FLAG_CONTROL, FLAG_CONTROL | FLAG_OPTION, all, all],
            "the key itself goes down with every flag"
        );
        assert_eq!(e[3].code, 0x75, "forward delete");
        let ups: Vec<u16> = e.iter().skip(5).map(|e| e.code).collect();
        assert_eq!(ups, [0x38, 0x3A, 0x3B]);
        assert_eq!(e.last().unwrap().flags, 0);
    }

    #[test]
    fn characters_type_by_key_where_the_us_layout_has_them_else_by_unicode() {
        let a = events("A");
        assert_eq!(
            (a[0].code, a[0].flags, a[0].unicode),
            (0x00, FLAG_SHIFT, None)
        );
        let question = events("?");
        assert_eq!((question[0].code, question[0].flags), (0x2C, FLAG_SHIFT));
        let e_acute = events("é");
        assert_eq!(e_acute[0].unicode, Some('é'));
        assert_eq!(e_acute.len(), 2);
        let ctrl_a = events("ctrl+A");
        assert_eq!((ctrl_a[1].code, ctrl_a[1].flags), (0x00, FLAG_CONTROL));
        assert!(chord_events(&Keys::parse("cmd+é").unwrap().chords()[0]).is_err());
    }

    #[test]
    fn every_ansi_character_has_its_own_key() {
        let printable: Vec<char> = (' '..='~').collect();
        let mut seen = std::collections::HashSet::new();
        for c in printable {
            let (code, shift) = ansi(c).unwrap_or_else(|| panic!("{c:?} has no key"));
            assert!(seen.insert((code, shift)), "{c:?} shares a key");
            assert!(code <= 0x32, "{c:?}");
        }
        assert_eq!(ansi('q'), Some((0x0C, false)));
        assert_eq!(ansi('5'), Some((0x17, false)));
        assert_eq!(ansi('%'), Some((0x17, true)));
        assert_eq!(ansi('/'), Some((0x2C, false)));
    }

    #[test]
    fn named_keys_and_keys_a_mac_lacks() {
        assert_eq!(events("Return")[0].code, 0x24);
        assert_eq!(events("BackSpace")[0].code, 0x33);
        assert_eq!(events("F1")[0].code, 0x7A);
        assert_eq!(events("F20")[0].code, 0x5A);
        assert_eq!(events("Page_Down")[0].code, 0x79);
        let insert = chord_events(&Chord::key(Key::Insert)).unwrap_err();
        assert!(insert.to_string().contains("no Insert key"), "{insert}");
        assert!(chord_events(&Chord::key(Key::Function(24))).is_err());
    }

    #[test]
    fn text_goes_in_chunks_that_never_split_a_character() {
        let pieces = text_pieces("Hello, wörld! 😀😀😀😀😀😀😀😀😀\nnext\tcol\r\nend");
        let Some(TextPiece::Unicode(first)) = pieces.first() else {
            panic!("{pieces:?}")
        };
        assert_eq!(first.encode_utf16().count(), 20);
        for piece in &pieces {
            if let TextPiece::Unicode(run) = piece {
                assert!(run.encode_utf16().count() <= UNICODE_CHUNK, "{run}");
            }
        }
        let joined: String = pieces
            .iter()
            .map(|p| match p {
                TextPiece::Unicode(run) => run.clone(),
                TextPiece::Key(0x24) => "⏎".into(),
                TextPiece::Key(_) => "⇥".into(),
            })
            .collect();
        assert_eq!(joined, "Hello, wörld! 😀😀😀😀😀😀😀😀😀⏎next⇥col⏎end");
        assert!(text_pieces("").is_empty());
    }
}
