//! The core's keys as macOS virtual key codes (`kVK_*` of `HIToolbox/Events.h`) and
//! `CGEventFlags`, and text cut into the pieces `CGEventKeyboardSetUnicodeString` takes.
//! Named keys sit at the same place on every layout; a character's key depends on the layout,
//! so it is looked up in a [`KeyTable`] built from what the current layout's keys type (the
//! US table when that cannot be read).

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
    /// Unicode string), for characters no key of the layout types.
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

/// Which modifiers a key is translated under while the table of a layout is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    Nothing,
    Shift,
    /// Command: what a Command shortcut is matched against. Most layouts type the same
    /// there, but some choose another table ("Dvorak - QWERTY ⌘" gives the QWERTY letters).
    Command,
    CommandShift,
}

impl Held {
    /// The `modifierKeyState` `UCKeyTranslate` takes: the Carbon `EventModifiers` bits
    /// (`cmdKey`, `shiftKey`) shifted right by 8.
    pub fn modifier_key_state(self) -> u32 {
        const COMMAND: u32 = 0x01;
        const SHIFT: u32 = 0x02;
        match self {
            Held::Nothing => 0,
            Held::Shift => SHIFT,
            Held::Command => COMMAND,
            Held::CommandShift => COMMAND | SHIFT,
        }
    }
}

/// The keypad's key codes (`kVK_ANSI_Keypad*`, `kVK_JIS_KeypadComma`): they type digits and
/// signs too, but a character is pressed where a typist would press it, on the main block.
const KEYPAD: [u16; 19] = [
    0x41, 0x43, 0x45, 0x47, 0x4B, 0x4C, 0x4E, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
    0x5B, 0x5C, 0x5F,
];

/// Which key of one keyboard layout types each character, and whether Shift goes with it:
/// once as typed, once with Command held, as shortcuts are matched.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyTable {
    typed: std::collections::HashMap<char, (u16, bool)>,
    command: std::collections::HashMap<char, (u16, bool)>,
}

impl KeyTable {
    /// The table of a layout, from what each key of the main block types under each of the
    /// [`Held`] states (`translate` answers `None` for a dead key or nothing printable). The
    /// first key found wins, unshifted ones before shifted ones, so each character goes to
    /// the simplest key that types it.
    pub fn build(mut translate: impl FnMut(u16, Held) -> Option<char>) -> KeyTable {
        let mut table = KeyTable::default();
        let printable = |c: char| !c.is_control() && !('\u{F700}'..='\u{F8FF}').contains(&c);
        for (held, shift, into_command) in [
            (Held::Nothing, false, false),
            (Held::Shift, true, false),
            (Held::Command, false, true),
            (Held::CommandShift, true, true),
        ] {
            for code in (0..0x80).filter(|code| !KEYPAD.contains(code)) {
                let Some(c) = translate(code, held).filter(|c| printable(*c)) else {
                    continue;
                };
                let map = if into_command {
                    &mut table.command
                } else {
                    &mut table.typed
                };
                map.entry(c).or_insert((code, shift));
            }
        }
        table
    }

    /// The ANSI (US) layout: what deskhand uses when the current layout cannot be read.
    pub fn us() -> KeyTable {
        let keys: std::collections::HashMap<char, (u16, bool)> =
            (' '..='~').filter_map(|c| Some((c, ansi(c)?))).collect();
        KeyTable {
            typed: keys.clone(),
            command: keys,
        }
    }

    /// The key that types `c`, and whether it needs Shift.
    pub fn typing(&self, c: char) -> Option<(u16, bool)> {
        self.typed.get(&c).copied()
    }

    /// The key a shortcut naming `c` is pressed on: with `command` held, where `c` is while
    /// Command is down; else, or when it is not there, where it is typed (Control and Option
    /// pick no table of their own); else at its US position, as macOS itself falls back for a
    /// layout without Latin letters.
    pub fn shortcut(&self, c: char, command: bool) -> Option<(u16, bool)> {
        command
            .then(|| self.command.get(&c).copied())
            .flatten()
            .or_else(|| self.typing(c))
            .or_else(|| ansi(c))
    }
}

/// The key table of each keyboard layout seen, by its input source id, built once.
#[derive(Debug, Default)]
pub struct Layouts {
    tables: std::collections::HashMap<String, std::sync::Arc<KeyTable>>,
    last: Option<std::sync::Arc<KeyTable>>,
}

impl Layouts {
    /// The table of layout `id`, built by `build` the first time that layout is current; a
    /// layout whose table cannot be built gets the US one.
    pub fn table(
        &mut self,
        id: &str,
        build: impl FnOnce() -> Option<KeyTable>,
    ) -> std::sync::Arc<KeyTable> {
        let table = self
            .tables
            .entry(id.to_owned())
            .or_insert_with(|| std::sync::Arc::new(build().unwrap_or_else(KeyTable::us)))
            .clone();
        self.last = Some(table.clone());
        table
    }

    /// The table of the layout last seen, or the US one before any: for a moment when the
    /// current layout cannot be asked.
    pub fn last(&self) -> std::sync::Arc<KeyTable> {
        static US: std::sync::OnceLock<std::sync::Arc<KeyTable>> = std::sync::OnceLock::new();
        self.last.clone().unwrap_or_else(|| {
            US.get_or_init(|| std::sync::Arc::new(KeyTable::us()))
                .clone()
        })
    }
}

/// The events of one chord: modifiers down in order, the key down and up, the modifiers up in
/// reverse. A character with no modifier but Shift is pressed on the key of `layout` that
/// types it, or through its Unicode string when no key does; with Command, Control or Option
/// it is pressed where `layout` has it for that shortcut ([`KeyTable::shortcut`]).
pub fn chord_events(chord: &Chord, layout: &KeyTable) -> Result<Vec<KeyEvent>, NoMacKey> {
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
    let shifted = |shift: bool| if shift { FLAG_SHIFT } else { 0 };
    let (code, unicode, extra) = match chord.key {
        Key::Char(c) if chord.types_a_character() => match layout.typing(c) {
            Some((code, shift)) => (code, None, shifted(shift)),
            None => (0, Some(c), 0),
        },
        Key::Char(c) => {
            let mut lower = c.to_lowercase();
            let lower = match (lower.next(), lower.next()) {
                (Some(lower), None) => lower,
                _ => c,
            };
            let command = chord.modifiers.contains(&KeyModifier::Super);
            let (code, shift) = layout
                .shortcut(lower, command)
                .or_else(|| layout.shortcut(c, command))
                .ok_or_else(|| NoMacKey(c.to_string()))?;
            (code, None, shifted(shift))
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

/// The pause after each typed character. Apps read key events one at a time from their queue,
/// and working typists of macOS (Cua Driver, macbot) send a character every 8–12 ms; faster,
/// characters are dropped or come out of order.
pub const TYPE_GAP: std::time::Duration = std::time::Duration::from_millis(10);

/// The key events that type `text`, one character per key press: on the key of `layout` that
/// types it (with Shift where needed), its character also set as the event's Unicode string, so
/// an app that reads the string and one that reads the key code both get it; a character no key
/// types goes as the Unicode string alone. A line break is Return, a tab Tab.
pub fn typing_events(text: &str, layout: &KeyTable) -> Vec<KeyEvent> {
    let mut events = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let (code, flags, unicode) = match c {
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                (0x24, 0, None)
            }
            '\t' => (0x30, 0, None),
            _ => match layout.typing(c) {
                Some((code, shift)) => (code, if shift { FLAG_SHIFT } else { 0 }, Some(c)),
                None => (0, 0, Some(c)),
            },
        };
        for down in [true, false] {
            events.push(KeyEvent {
                code,
                down,
                flags,
                unicode,
            });
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use deskhand_core::keys::Keys;

    fn events(spec: &str) -> Vec<KeyEvent> {
        let keys = Keys::parse(spec).unwrap();
        chord_events(&keys.chords()[0], &KeyTable::us()).unwrap()
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
        let held =
            chord_events(&Keys::parse("cmd+é").unwrap().chords()[0], &KeyTable::us()).unwrap_err();
        assert!(held.to_string().contains("no é key"), "{held}");
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
        let insert = chord_events(&Chord::key(Key::Insert), &KeyTable::us()).unwrap_err();
        assert!(insert.to_string().contains("no Insert key"), "{insert}");
        let f24 = chord_events(&Chord::key(Key::Function(24)), &KeyTable::us()).unwrap_err();
        assert!(f24.to_string().contains("no F24 key"), "{f24}");
    }

    /// An AZERTY layout made for the tests, as `UCKeyTranslate` would read it: A and Q, Z and
    /// W swapped, M where the US semicolon is, the number row typing signs unshifted and digits
    /// shifted, a Command table that gives those digits unshifted (a layout may choose so), a
    /// dead circumflex, and a keypad that types digits.
    fn azerty(code: u16, held: Held) -> Option<char> {
        let shift = matches!(held, Held::Shift | Held::CommandShift);
        let command = matches!(held, Held::Command | Held::CommandShift);
        const NUMBER_ROW: [(u16, char, char); 10] = [
            (0x12, '&', '1'),
            (0x13, 'é', '2'),
            (0x14, '"', '3'),
            (0x15, '\'', '4'),
            (0x17, '(', '5'),
            (0x16, '§', '6'),
            (0x1A, 'è', '7'),
            (0x1C, '!', '8'),
            (0x19, 'ç', '9'),
            (0x1D, 'à', '0'),
        ];
        if let Some(&(_, sign, digit)) = NUMBER_ROW.iter().find(|key| key.0 == code) {
            return Some(if shift || command { digit } else { sign });
        }
        let letter = match code {
            0x21 => return None,
            0x53 => return Some('1'),
            0x0C => 'a',
            0x0D => 'z',
            0x00 => 'q',
            0x06 => 'w',
            0x29 => 'm',
            0x2E => return Some(if shift { '?' } else { ',' }),
            0x31 => return Some(' '),
            _ => ('a'..='z').find(|c| ansi(*c) == Some((code, false)) && !"aqzwm".contains(*c))?,
        };
        Some(if shift {
            letter.to_ascii_uppercase()
        } else {
            letter
        })
    }

    fn pressed(spec: &str, layout: &KeyTable) -> (u16, u64, Option<char>) {
        let keys = Keys::parse(spec).unwrap();
        let events = chord_events(&keys.chords()[0], layout).unwrap();
        let key = events[chord_modifiers(&keys)];
        (key.code, key.flags, key.unicode)
    }

    fn chord_modifiers(keys: &Keys) -> usize {
        keys.chords()[0].modifiers.len()
    }

    #[test]
    fn on_azerty_a_shortcut_uses_the_key_that_types_its_letter_there() {
        let french = KeyTable::build(azerty);
        assert_eq!(pressed("ctrl+a", &french), (0x0C, FLAG_CONTROL, None));
        assert_eq!(pressed("cmd+q", &french), (0x00, FLAG_COMMAND, None));
        assert_eq!(pressed("cmd+shift+z", &french).0, 0x0D);
        assert_eq!(pressed("cmd+m", &french).0, 0x29);
        assert_eq!(
            pressed("ctrl+a", &KeyTable::us()).0,
            0x00,
            "the US table is unchanged"
        );
        // With Command the number row gives digits: cmd+1 is that key, unshifted.
        assert_eq!(pressed("cmd+1", &french), (0x12, FLAG_COMMAND, None));
        // A letter the layout lacks for shortcuts falls back to its US place.
        let greek = KeyTable::build(|code, _| (code == 0x00).then_some('α'));
        assert_eq!(pressed("cmd+c", &greek).0, 0x08);
        assert_eq!(pressed("cmd+α", &greek).0, 0x00);
    }

    #[test]
    fn only_command_picks_the_layouts_command_table() {
        // "Dvorak - QWERTY ⌘": Dvorak as typed, QWERTY while Command is down. Dvorak's C is
        // where QWERTY has I.
        let dvorak_qwerty = KeyTable::build(|code, held| match (code, held) {
            (0x22, Held::Nothing) => Some('c'),
            (0x08, Held::Nothing) => Some('j'),
            (0x22, Held::Command) => Some('i'),
            (0x08, Held::Command) => Some('c'),
            _ => None,
        });
        assert_eq!(
            pressed("cmd+c", &dvorak_qwerty).0,
            0x08,
            "copy on QWERTY's C"
        );
        assert_eq!(
            pressed("ctrl+c", &dvorak_qwerty).0,
            0x22,
            "interrupt on Dvorak's C"
        );
        assert_eq!(pressed("ctrl+cmd+c", &dvorak_qwerty).0, 0x08);
    }

    #[test]
    fn on_azerty_characters_type_on_their_own_keys_and_the_rest_by_unicode() {
        let french = KeyTable::build(azerty);
        assert_eq!(pressed("a", &french), (0x0C, 0, None));
        assert_eq!(pressed("Q", &french), (0x00, FLAG_SHIFT, None));
        assert_eq!(
            pressed("é", &french),
            (0x13, 0, None),
            "é has a key of its own"
        );
        assert_eq!(pressed("&", &french), (0x12, 0, None));
        assert_eq!(
            pressed("1", &french),
            (0x12, FLAG_SHIFT, None),
            "a digit is typed on the number row with Shift, not on the keypad"
        );
        assert_eq!(pressed("space", &french), (0x31, 0, None));
        assert_eq!(
            pressed("^", &french),
            (0, 0, Some('^')),
            "a dead key is never pressed"
        );
        assert_eq!(pressed("ß", &french), (0, 0, Some('ß')));
    }

    #[test]
    fn the_us_table_is_the_ansi_layout() {
        let us = KeyTable::us();
        for c in ' '..='~' {
            assert_eq!(us.typing(c), ansi(c), "{c:?}");
            assert_eq!(us.shortcut(c, true), ansi(c), "{c:?}");
            assert_eq!(us.shortcut(c, false), ansi(c), "{c:?}");
        }
        assert_eq!(us.typing('é'), None);
    }

    #[test]
    fn each_layout_is_built_once_and_a_failed_one_gets_the_us_table() {
        let mut layouts = Layouts::default();
        assert_eq!(*layouts.last(), KeyTable::us(), "before any layout is seen");
        let mut builds = 0;
        let mut build = |table: fn() -> Option<KeyTable>| {
            builds += 1;
            table()
        };
        let french = layouts.table("com.apple.keylayout.French", || {
            build(|| Some(KeyTable::build(azerty)))
        });
        assert_eq!(french.typing('a'), Some((0x0C, false)));
        let again = layouts.table("com.apple.keylayout.French", || build(|| None));
        assert!(std::sync::Arc::ptr_eq(&french, &again));
        let broken = layouts.table("com.example.broken", || build(|| None));
        assert_eq!(*broken, KeyTable::us());
        assert_eq!(*layouts.last(), KeyTable::us());
        layouts.table("com.apple.keylayout.French", || build(|| None));
        assert_eq!(layouts.last().typing('a'), Some((0x0C, false)));
        assert_eq!(builds, 2, "French and the broken layout, each once");
    }

    #[test]
    fn text_is_typed_one_character_an_event_on_the_layouts_keys() {
        let french = KeyTable::build(azerty);
        let events = typing_events("aé?😀\r\nz\t", &french);
        let presses: Vec<(u16, u64, Option<char>)> = events
            .iter()
            .filter(|e| e.down)
            .map(|e| (e.code, e.flags, e.unicode))
            .collect();
        assert_eq!(
            presses,
            [
                (0x0C, 0, Some('a')),
                (0x13, 0, Some('é')),
                (0x2E, FLAG_SHIFT, Some('?')),
                (0x00, 0, Some('😀')),
                (0x24, 0, None),
                (0x0D, 0, Some('z')),
                (0x30, 0, None),
            ],
            "a key where the layout has the character, its string alone where none has it"
        );
        assert_eq!(events.len(), 14, "each press is followed by its release");
        assert!(events.chunks(2).all(|pair| pair[0].down
            && !pair[1].down
            && pair[0]
                == KeyEvent {
                    down: true,
                    ..pair[1]
                }));
        assert!(typing_events("", &french).is_empty());
        let gap = TYPE_GAP.as_millis();
        assert!((8..=12).contains(&gap), "{gap} ms between characters");
    }

    /// Apple's French (AZERTY) layout, key code by key code: what each key types alone, with
    /// Shift and with Command, as its published chart places them (written from the chart, not
    /// captured on a Mac). The number row types signs alone and digits with Shift; Command
    /// gives the digits too, as shortcuts such as cmd+1 are matched.
    const FRENCH: &[(u16, char, char)] = &[
        (0x0C, 'a', 'A'),
        (0x0D, 'z', 'Z'),
        (0x0E, 'e', 'E'),
        (0x0F, 'r', 'R'),
        (0x11, 't', 'T'),
        (0x10, 'y', 'Y'),
        (0x20, 'u', 'U'),
        (0x22, 'i', 'I'),
        (0x1F, 'o', 'O'),
        (0x23, 'p', 'P'),
        (0x00, 'q', 'Q'),
        (0x01, 's', 'S'),
        (0x02, 'd', 'D'),
        (0x03, 'f', 'F'),
        (0x05, 'g', 'G'),
        (0x04, 'h', 'H'),
        (0x26, 'j', 'J'),
        (0x28, 'k', 'K'),
        (0x25, 'l', 'L'),
        (0x29, 'm', 'M'),
        (0x06, 'w', 'W'),
        (0x07, 'x', 'X'),
        (0x08, 'c', 'C'),
        (0x09, 'v', 'V'),
        (0x0B, 'b', 'B'),
        (0x2D, 'n', 'N'),
        (0x2E, ',', '?'),
        (0x2B, ';', '.'),
        (0x2F, ':', '/'),
        (0x2C, '=', '+'),
        (0x12, '&', '1'),
        (0x13, 'é', '2'),
        (0x14, '"', '3'),
        (0x15, '\'', '4'),
        (0x17, '(', '5'),
        (0x16, '§', '6'),
        (0x1A, 'è', '7'),
        (0x1C, '!', '8'),
        (0x19, 'ç', '9'),
        (0x1D, 'à', '0'),
        (0x1B, ')', '°'),
        (0x18, '-', '_'),
        (0x1E, '$', '*'),
        (0x27, 'ù', '%'),
        (0x32, '@', '#'),
        (0x0A, '<', '>'),
        (0x31, ' ', ' '),
    ];

    fn french(code: u16, held: Held) -> Option<char> {
        let &(_, plain, shifted) = FRENCH.iter().find(|key| key.0 == code)?;
        let digit = shifted.is_ascii_digit();
        Some(match held {
            Held::Nothing => plain,
            Held::Shift | Held::CommandShift => shifted,
            Held::Command if digit => shifted,
            Held::Command => plain,
        })
    }

    #[test]
    fn on_the_french_layout_cmd_a_is_the_key_that_types_a_there_not_q() {
        let table = KeyTable::build(french);
        assert_eq!(pressed("cmd+a", &table), (0x0C, FLAG_COMMAND, None));
        assert_eq!(pressed("cmd+q", &table), (0x00, FLAG_COMMAND, None));
        assert_eq!(pressed("cmd+w", &table), (0x06, FLAG_COMMAND, None));
        assert_eq!(pressed("cmd+z", &table), (0x0D, FLAG_COMMAND, None));
        assert_eq!(pressed("cmd+m", &table), (0x29, FLAG_COMMAND, None));
        assert_eq!(pressed("cmd+1", &table), (0x12, FLAG_COMMAND, None));
        assert_eq!(pressed("cmd+shift+z", &table).0, 0x0D);
        assert_eq!(pressed("ctrl+a", &table).0, 0x0C);
        // The US table, what an unread layout falls back to, would have sent Cmd+Q.
        assert_eq!(pressed("cmd+a", &KeyTable::us()).0, 0x00);
    }
}
