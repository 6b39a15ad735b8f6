//! The key grammar of `press` ("ctrl+shift+t Return"), parsed once into chords that name keys
//! the same way on every platform; a backend only maps [`Key`]s onto its own key codes.

use std::fmt;

use crate::model::Modifier;

/// Why a key specification was refused; the message names the offending part and a way to
/// write it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error(
        "the key specification is empty; pass one or more chords separated by spaces, such as \
         \"ctrl+s\" or \"ctrl+a Delete\""
    )]
    Empty,

    #[error(
        "unknown key \"{token}\"; use a single character or a key name such as Return, Escape, \
         Tab, BackSpace, Delete, Home, End, PageUp, PageDown, Up, Down, Left, Right, F1-F24, \
         space or plus, joined to modifiers ctrl, alt, shift or super with '+' (e.g. \
         \"ctrl+shift+t\")"
    )]
    UnknownKey { token: String },

    #[error(
        "\"{token}\" in \"{chord}\" is not a modifier: only the last part of a chord is a key \
         and the parts before it must be ctrl, alt, shift or super; separate keys pressed one \
         after another with spaces (e.g. \"ctrl+a Delete\")"
    )]
    NotAModifier { token: String, chord: String },

    #[error(
        "the chord \"{chord}\" has an empty part between '+' signs; write the plus key as \
         \"plus\" (e.g. \"ctrl+plus\")"
    )]
    EmptyPart { chord: String },
}

/// A key that can be held while another is pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyModifier {
    Ctrl,
    Shift,
    Alt,
    Super,
    /// The right Alt of many European layouts, which selects a key's third character.
    AltGr,
}

impl From<Modifier> for KeyModifier {
    fn from(modifier: Modifier) -> KeyModifier {
        match modifier {
            Modifier::Shift => KeyModifier::Shift,
            Modifier::Ctrl => KeyModifier::Ctrl,
            Modifier::Alt => KeyModifier::Alt,
            Modifier::Super => KeyModifier::Super,
        }
    }
}

/// One key, by what it is rather than where a keyboard has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// The key that types this character; a platform presses Shift or remaps a spare key as
    /// the character needs.
    Char(char),
    Return,
    Escape,
    Backspace,
    Delete,
    Tab,
    Home,
    End,
    Left,
    Up,
    Right,
    Down,
    PageUp,
    PageDown,
    Insert,
    Menu,
    PrintScreen,
    Pause,
    CapsLock,
    KeypadEnter,
    /// F1 to F24.
    Function(u8),
    /// A modifier pressed as a key of its own ("shift" alone, the "alt" of "ctrl+alt").
    Modifier(KeyModifier),
}

/// Keys held down while `key` is pressed: the modifiers go down in order, then `key` is pressed
/// and released, then the modifiers come up in reverse order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chord {
    pub modifiers: Vec<KeyModifier>,
    pub key: Key,
}

impl Chord {
    pub fn key(key: Key) -> Chord {
        Chord {
            modifiers: Vec::new(),
            key,
        }
    }

    pub fn ctrl(key: Key) -> Chord {
        Chord {
            modifiers: vec![KeyModifier::Ctrl],
            key,
        }
    }

    /// Whether pressing it types a character (nothing but Shift held), which the audit log
    /// must not keep: `press` can spell out a password one key at a time.
    pub fn types_a_character(&self) -> bool {
        matches!(self.key, Key::Char(_)) && self.modifiers.iter().all(|m| *m == KeyModifier::Shift)
    }

    /// Whether a policy rule denies this chord: the same key, ASCII letters in any case, and
    /// no modifier the chord does not hold, so a rule `ctrl+q` also denies `ctrl+shift+q`.
    pub fn is_denied_by(&self, rule: &Chord) -> bool {
        let same_key = match (self.key, rule.key) {
            (Key::Char(a), Key::Char(b)) => a.to_lowercase().eq(b.to_lowercase()),
            (a, b) => a == b,
        };
        same_key && rule.modifiers.iter().all(|m| self.modifiers.contains(m))
    }
}

/// Space-separated chords pressed in sequence, with the text they were written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    text: String,
    chords: Vec<Chord>,
}

impl Keys {
    /// Parses chords such as `"ctrl+a Delete"`.
    ///
    /// Names are case-insensitive; a single character stands for itself and is case-sensitive
    /// (`"A"` types a capital A, pressing Shift as needed). Inside a chord with modifiers an
    /// ASCII letter is taken as the key, not the character, so `"ctrl+A"` means `"ctrl+a"`; add
    /// `shift` explicitly for Ctrl+Shift+A. `"+"` alone, `"ctrl++"` and `"plus"` name the plus
    /// key.
    pub fn parse(spec: &str) -> Result<Keys, KeyError> {
        let chords = spec
            .split_whitespace()
            .map(parse_chord)
            .collect::<Result<Vec<_>, _>>()?;
        if chords.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(Keys {
            text: spec.to_owned(),
            chords,
        })
    }

    pub fn chords(&self) -> &[Chord] {
        &self.chords
    }

    /// The chords as they were written, one per chord.
    pub fn written(&self) -> impl Iterator<Item = (&str, &Chord)> {
        self.text.split_whitespace().zip(&self.chords)
    }
}

impl From<Vec<Chord>> for Keys {
    fn from(chords: Vec<Chord>) -> Keys {
        let text = chords
            .iter()
            .map(Chord::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        Keys { text, chords }
    }
}

impl From<Chord> for Keys {
    fn from(chord: Chord) -> Keys {
        Keys::from(vec![chord])
    }
}

impl fmt::Display for Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Display for Chord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for modifier in &self.modifiers {
            write!(f, "{}+", modifier_name(*modifier))?;
        }
        match self.key {
            Key::Char(' ') => f.write_str("space"),
            Key::Char('+') => f.write_str("plus"),
            Key::Char(c) => write!(f, "{c}"),
            Key::Function(n) => write!(f, "F{n}"),
            Key::Modifier(modifier) => f.write_str(modifier_name(modifier)),
            key => f.write_str(
                NAMED
                    .iter()
                    .find(|(_, named)| *named == key)
                    .map_or("?", |(name, _)| name),
            ),
        }
    }
}

fn modifier_name(modifier: KeyModifier) -> &'static str {
    match modifier {
        KeyModifier::Ctrl => "ctrl",
        KeyModifier::Shift => "shift",
        KeyModifier::Alt => "alt",
        KeyModifier::Super => "super",
        KeyModifier::AltGr => "altgr",
    }
}

const MODIFIERS: &[(&str, KeyModifier)] = &[
    ("ctrl", KeyModifier::Ctrl),
    ("control", KeyModifier::Ctrl),
    ("shift", KeyModifier::Shift),
    ("alt", KeyModifier::Alt),
    ("super", KeyModifier::Super),
    ("meta", KeyModifier::Super),
    ("win", KeyModifier::Super),
    ("cmd", KeyModifier::Super),
    ("command", KeyModifier::Super),
    ("option", KeyModifier::Alt),
    ("opt", KeyModifier::Alt),
    ("altgr", KeyModifier::AltGr),
];

/// Key names, matched without case; the first spelling of each key is the one it is shown by.
/// X keysym names (BackSpace, Page_Up, Prior, …) are among them.
const NAMED: &[(&str, Key)] = &[
    ("Return", Key::Return),
    ("enter", Key::Return),
    ("Escape", Key::Escape),
    ("esc", Key::Escape),
    ("BackSpace", Key::Backspace),
    ("Delete", Key::Delete),
    ("del", Key::Delete),
    ("Tab", Key::Tab),
    ("Home", Key::Home),
    ("Left", Key::Left),
    ("Up", Key::Up),
    ("Right", Key::Right),
    ("Down", Key::Down),
    ("Page_Up", Key::PageUp),
    ("pageup", Key::PageUp),
    ("pgup", Key::PageUp),
    ("prior", Key::PageUp),
    ("Page_Down", Key::PageDown),
    ("pagedown", Key::PageDown),
    ("pgdn", Key::PageDown),
    ("next", Key::PageDown),
    ("End", Key::End),
    ("Insert", Key::Insert),
    ("Menu", Key::Menu),
    ("Print", Key::PrintScreen),
    ("Pause", Key::Pause),
    ("Caps_Lock", Key::CapsLock),
    ("capslock", Key::CapsLock),
    ("KP_Enter", Key::KeypadEnter),
    ("space", Key::Char(' ')),
    ("plus", Key::Char('+')),
    ("minus", Key::Char('-')),
    ("equal", Key::Char('=')),
    ("comma", Key::Char(',')),
    ("period", Key::Char('.')),
    ("slash", Key::Char('/')),
    ("backslash", Key::Char('\\')),
];

fn parse_chord(chord: &str) -> Result<Chord, KeyError> {
    let (modifier_part, key_token) = if chord == "+" {
        ("", "+")
    } else if let Some(rest) = chord.strip_suffix("++") {
        (rest, "+")
    } else {
        chord.rsplit_once('+').unwrap_or(("", chord))
    };
    let empty_part = || KeyError::EmptyPart {
        chord: chord.to_owned(),
    };
    if key_token.is_empty() {
        return Err(empty_part());
    }
    let modifiers = if modifier_part.is_empty() {
        if chord != key_token {
            return Err(empty_part());
        }
        Vec::new()
    } else {
        modifier_part
            .split('+')
            .map(|token| {
                if token.is_empty() {
                    return Err(empty_part());
                }
                modifier(token).ok_or_else(|| KeyError::NotAModifier {
                    token: token.to_owned(),
                    chord: chord.to_owned(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let key = key(key_token, !modifiers.is_empty())?;
    Ok(Chord { modifiers, key })
}

fn modifier(token: &str) -> Option<KeyModifier> {
    MODIFIERS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(token))
        .map(|&(_, modifier)| modifier)
}

fn key(token: &str, with_modifiers: bool) -> Result<Key, KeyError> {
    let mut chars = token.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Ok(Key::Char(if with_modifiers {
            c.to_ascii_lowercase()
        } else {
            c
        }));
    }
    if let Some(&(_, key)) = NAMED
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(token))
    {
        return Ok(key);
    }
    if let Some(modifier) = modifier(token) {
        return Ok(Key::Modifier(modifier));
    }
    if let Some(n) = token
        .strip_prefix(['f', 'F'])
        .and_then(|n| n.parse::<u8>().ok())
        && (1..=24).contains(&n)
    {
        return Ok(Key::Function(n));
    }
    Err(KeyError::UnknownKey {
        token: token.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chords(spec: &str) -> Result<Vec<Chord>, KeyError> {
        Keys::parse(spec).map(|keys| keys.chords)
    }

    fn chord(modifiers: &[KeyModifier], key: Key) -> Chord {
        Chord {
            modifiers: modifiers.to_vec(),
            key,
        }
    }

    use KeyModifier::{Alt, Ctrl, Shift, Super};

    #[test]
    fn modifiers_and_named_keys() {
        assert_eq!(chords("ctrl+s").unwrap(), [chord(&[Ctrl], Key::Char('s'))]);
        assert_eq!(
            chords("ctrl+shift+t").unwrap(),
            [chord(&[Ctrl, Shift], Key::Char('t'))]
        );
        assert_eq!(chords("alt+F4").unwrap(), [chord(&[Alt], Key::Function(4))]);
        assert_eq!(chords("Return").unwrap(), [Chord::key(Key::Return)]);
        assert_eq!(
            chords("Control+Escape").unwrap(),
            [chord(&[Ctrl], Key::Escape)]
        );
        for alias in ["super", "meta", "win", "cmd", "SUPER"] {
            assert_eq!(
                chords(&format!("{alias}+e")).unwrap(),
                [chord(&[Super], Key::Char('e'))]
            );
        }
        for (spelling, key) in [
            ("enter", Key::Return),
            ("BACKSPACE", Key::Backspace),
            ("Prior", Key::PageUp),
            ("pgdn", Key::PageDown),
            ("space", Key::Char(' ')),
            ("f24", Key::Function(24)),
        ] {
            assert_eq!(chords(spelling).unwrap(), [Chord::key(key)], "{spelling}");
        }
    }

    #[test]
    fn sequences_split_on_whitespace() {
        assert_eq!(
            chords("ctrl+a  Delete\tReturn").unwrap(),
            [
                chord(&[Ctrl], Key::Char('a')),
                Chord::key(Key::Delete),
                Chord::key(Key::Return)
            ]
        );
    }

    #[test]
    fn the_plus_key_has_three_spellings() {
        assert_eq!(chords("+").unwrap(), [Chord::key(Key::Char('+'))]);
        for spec in ["ctrl++", "ctrl+plus"] {
            assert_eq!(chords(spec).unwrap(), [chord(&[Ctrl], Key::Char('+'))]);
        }
    }

    #[test]
    fn letters_with_modifiers_name_the_key_and_alone_the_character() {
        assert_eq!(chords("ctrl+A").unwrap(), [chord(&[Ctrl], Key::Char('a'))]);
        assert_eq!(chords("A").unwrap(), [Chord::key(Key::Char('A'))]);
        assert_eq!(chords("€").unwrap(), [Chord::key(Key::Char('€'))]);
    }

    #[test]
    fn a_modifier_alone_is_a_key() {
        assert_eq!(chords("shift").unwrap(), [Chord::key(Key::Modifier(Shift))]);
        assert_eq!(
            chords("ctrl+alt").unwrap(),
            [chord(&[Ctrl], Key::Modifier(Alt))]
        );
    }

    #[test]
    fn errors_name_the_offending_token() {
        assert_eq!(chords("  "), Err(KeyError::Empty));
        assert_eq!(
            chords("ctrl+foo"),
            Err(KeyError::UnknownKey {
                token: "foo".into()
            })
        );
        assert_eq!(
            chords("f25"),
            Err(KeyError::UnknownKey {
                token: "f25".into()
            })
        );
        assert_eq!(
            chords("a+b"),
            Err(KeyError::NotAModifier {
                token: "a".into(),
                chord: "a+b".into()
            })
        );
        for bad in ["ctrl+", "+a", "ctrl++a", "ctrl+ +a"] {
            assert!(
                matches!(chords(bad), Err(KeyError::EmptyPart { .. })),
                "{bad}"
            );
        }
        let err = chords("ctrl+foo").unwrap_err();
        assert!(
            matches!(&err, KeyError::UnknownKey { token } if token == "foo"),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(message.contains("\"foo\"") && message.contains("Return"));
    }

    #[test]
    fn chords_built_in_code_read_as_they_would_be_written() {
        let keys = Keys::from(vec![Chord::ctrl(Key::Char('a')), Chord::key(Key::Delete)]);
        assert_eq!(keys.to_string(), "ctrl+a Delete");
        assert_eq!(Keys::from(Chord::key(Key::Escape)).to_string(), "Escape");
        for spec in ["ctrl+shift+plus", "space", "alt+F4", "Page_Down", "altgr+e"] {
            let parsed = Keys::parse(spec).unwrap();
            assert_eq!(Keys::from(parsed.chords.clone()).to_string(), spec);
        }
    }

    #[test]
    fn written_pairs_each_chord_with_its_spelling() {
        let keys = Keys::parse(" ctrl+A  Delete ").unwrap();
        let written: Vec<(&str, Chord)> = keys.written().map(|(t, c)| (t, c.clone())).collect();
        assert_eq!(
            written,
            [
                ("ctrl+A", chord(&[Ctrl], Key::Char('a'))),
                ("Delete", Chord::key(Key::Delete))
            ]
        );
    }

    #[test]
    fn rules_deny_a_chord_in_any_spelling_and_with_more_modifiers() {
        let rule = |spec: &str| Keys::parse(spec).unwrap().chords[0].clone();
        let pressed = |spec: &str| Keys::parse(spec).unwrap().chords[0].clone();
        assert!(pressed("alt+ctrl+del").is_denied_by(&rule("ctrl+alt+Delete")));
        assert!(pressed("ctrl+shift+q").is_denied_by(&rule("ctrl+q")));
        assert!(pressed("Q").is_denied_by(&rule("q")));
        assert!(!pressed("alt+q").is_denied_by(&rule("ctrl+q")));
        assert!(!pressed("Delete").is_denied_by(&rule("ctrl+alt+Delete")));
    }

    #[test]
    fn only_chords_that_type_characters_count_as_typing() {
        let types = |spec: &str| Keys::parse(spec).unwrap().chords[0].types_a_character();
        assert!(types("a") && types("shift+X") && types("+") && types("space"));
        assert!(!types("ctrl+a") && !types("Return") && !types("shift"));
    }
}
