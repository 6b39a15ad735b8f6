//! Key specifications ("ctrl+shift+t Return") and character → keysym conversion. Pure.

use super::error::KeyError;

/// Keysyms used by the rest of the module.
pub(super) mod sym {
    pub const SHIFT_L: u32 = 0xffe1;
    pub const CONTROL_L: u32 = 0xffe3;
    pub const ALT_L: u32 = 0xffe9;
    pub const SUPER_L: u32 = 0xffeb;
    pub const ISO_LEVEL3_SHIFT: u32 = 0xfe03;
    pub const RETURN: u32 = 0xff0d;
    pub const TAB: u32 = 0xff09;
    pub const BACKSPACE: u32 = 0xff08;
    pub const ESCAPE: u32 = 0xff1b;
    pub const DELETE: u32 = 0xffff;
    pub const F1: u32 = 0xffbe;
}

/// Keys held down while `key` is pressed, all given as keysyms.
///
/// Modifiers are pressed in order, then `key` is pressed and released, then the modifiers are
/// released in reverse order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chord {
    pub modifiers: Vec<u32>,
    pub key: u32,
}

const MODIFIERS: &[(&str, u32)] = &[
    ("ctrl", sym::CONTROL_L),
    ("control", sym::CONTROL_L),
    ("shift", sym::SHIFT_L),
    ("alt", sym::ALT_L),
    ("super", sym::SUPER_L),
    ("meta", sym::SUPER_L),
    ("win", sym::SUPER_L),
    ("cmd", sym::SUPER_L),
    ("altgr", sym::ISO_LEVEL3_SHIFT),
];

/// Lower-case names; X keysym names (BackSpace, Page_Up, Prior, …) match case-insensitively.
const KEYS: &[(&str, u32)] = &[
    ("return", sym::RETURN),
    ("enter", sym::RETURN),
    ("escape", sym::ESCAPE),
    ("esc", sym::ESCAPE),
    ("backspace", sym::BACKSPACE),
    ("delete", sym::DELETE),
    ("del", sym::DELETE),
    ("tab", sym::TAB),
    ("home", 0xff50),
    ("left", 0xff51),
    ("up", 0xff52),
    ("right", 0xff53),
    ("down", 0xff54),
    ("pageup", 0xff55),
    ("page_up", 0xff55),
    ("pgup", 0xff55),
    ("prior", 0xff55),
    ("pagedown", 0xff56),
    ("page_down", 0xff56),
    ("pgdn", 0xff56),
    ("next", 0xff56),
    ("end", 0xff57),
    ("insert", 0xff63),
    ("menu", 0xff67),
    ("print", 0xff61),
    ("pause", 0xff13),
    ("capslock", 0xffe5),
    ("caps_lock", 0xffe5),
    ("kp_enter", 0xff8d),
    ("space", 0x20),
    ("plus", 0x2b),
    ("minus", 0x2d),
    ("equal", 0x3d),
    ("comma", 0x2c),
    ("period", 0x2e),
    ("slash", 0x2f),
    ("backslash", 0x5c),
];

/// Parses space-separated chords such as `"ctrl+a Delete"` into key strokes pressed in sequence.
///
/// Names are case-insensitive; a single character stands for itself and is case-sensitive
/// (`"A"` types a capital A, pressing Shift as needed). Inside a chord with modifiers an ASCII
/// letter is taken as the key, not the character, so `"ctrl+A"` means `"ctrl+a"`; add `shift`
/// explicitly for Ctrl+Shift+A. `"+"` alone, `"ctrl++"` and `"plus"` name the plus key.
pub fn parse_keys(spec: &str) -> Result<Vec<Chord>, KeyError> {
    let chords = spec
        .split_whitespace()
        .map(parse_chord)
        .collect::<Result<Vec<_>, _>>()?;
    if chords.is_empty() {
        return Err(KeyError::Empty);
    }
    Ok(chords)
}

fn parse_chord(chord: &str) -> Result<Chord, KeyError> {
    let (modifier_part, key_token) = if chord == "+" {
        ("", "+")
    } else if let Some(rest) = chord.strip_suffix("++") {
        (rest, "+")
    } else {
        match chord.rsplit_once('+') {
            Some((rest, key)) => (rest, key),
            None => ("", chord),
        }
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

fn modifier(token: &str) -> Option<u32> {
    let lower = token.to_lowercase();
    MODIFIERS
        .iter()
        .find(|(name, _)| *name == lower)
        .map(|&(_, keysym)| keysym)
}

fn key(token: &str, with_modifiers: bool) -> Result<u32, KeyError> {
    let mut chars = token.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        let c = if with_modifiers {
            c.to_ascii_lowercase()
        } else {
            c
        };
        return Ok(keysym_for_char(c));
    }
    let lower = token.to_lowercase();
    if let Some(&(_, keysym)) = KEYS.iter().find(|(name, _)| *name == lower) {
        return Ok(keysym);
    }
    if let Some(keysym) = modifier(&lower) {
        return Ok(keysym);
    }
    if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u32>().ok())
        && (1..=24).contains(&n)
    {
        return Ok(sym::F1 + n - 1);
    }
    Err(KeyError::UnknownKey {
        token: token.to_owned(),
    })
}

/// The keysym that types `c`: Latin-1 characters are their own keysym, everything else uses the
/// Unicode keysym range (0x0100_0000 + code point). Newline and carriage return map to Return,
/// tab to Tab, and backspace, escape and delete to their keys.
pub fn keysym_for_char(c: char) -> u32 {
    match c {
        '\n' | '\r' => sym::RETURN,
        '\t' => sym::TAB,
        '\u{8}' => sym::BACKSPACE,
        '\u{1b}' => sym::ESCAPE,
        '\u{7f}' => sym::DELETE,
        ' '..='~' | '\u{a0}'..='\u{ff}' => u32::from(c),
        _ => 0x0100_0000 + u32::from(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(modifiers: &[u32], key: u32) -> Chord {
        Chord {
            modifiers: modifiers.to_vec(),
            key,
        }
    }

    #[test]
    fn modifiers_and_named_keys() {
        assert_eq!(
            parse_keys("ctrl+s").unwrap(),
            [chord(&[sym::CONTROL_L], 's' as u32)]
        );
        assert_eq!(
            parse_keys("ctrl+shift+t").unwrap(),
            [chord(&[sym::CONTROL_L, sym::SHIFT_L], 't' as u32)]
        );
        assert_eq!(
            parse_keys("alt+F4").unwrap(),
            [chord(&[sym::ALT_L], 0xffc1)]
        );
        assert_eq!(parse_keys("Return").unwrap(), [chord(&[], sym::RETURN)]);
        assert_eq!(
            parse_keys("Control+Escape").unwrap(),
            [chord(&[sym::CONTROL_L], sym::ESCAPE)]
        );
        for alias in ["super", "meta", "win", "cmd", "SUPER"] {
            assert_eq!(
                parse_keys(&format!("{alias}+e")).unwrap(),
                [chord(&[sym::SUPER_L], 'e' as u32)]
            );
        }
    }

    #[test]
    fn sequences_split_on_whitespace() {
        assert_eq!(
            parse_keys("ctrl+a  Delete\tenter").unwrap(),
            [
                chord(&[sym::CONTROL_L], 'a' as u32),
                chord(&[], sym::DELETE),
                chord(&[], sym::RETURN),
            ]
        );
    }

    #[test]
    fn names_are_case_insensitive_with_aliases() {
        let cases: &[(&str, u32)] = &[
            ("enter", sym::RETURN),
            ("RETURN", sym::RETURN),
            ("esc", sym::ESCAPE),
            ("BackSpace", sym::BACKSPACE),
            ("del", sym::DELETE),
            ("Delete", sym::DELETE),
            ("tab", sym::TAB),
            ("home", 0xff50),
            ("End", 0xff57),
            ("pageup", 0xff55),
            ("Page_Up", 0xff55),
            ("PgUp", 0xff55),
            ("pagedown", 0xff56),
            ("up", 0xff52),
            ("down", 0xff54),
            ("left", 0xff51),
            ("right", 0xff53),
            ("f1", 0xffbe),
            ("F12", 0xffc9),
            ("f24", 0xffd5),
            ("insert", 0xff63),
            ("menu", 0xff67),
            ("space", 0x20),
            ("print", 0xff61),
            ("plus", 0x2b),
        ];
        for &(name, keysym) in cases {
            assert_eq!(parse_keys(name).unwrap(), [chord(&[], keysym)], "{name}");
        }
    }

    #[test]
    fn single_characters() {
        assert_eq!(parse_keys("a").unwrap(), [chord(&[], 'a' as u32)]);
        assert_eq!(parse_keys("A").unwrap(), [chord(&[], 'A' as u32)]);
        assert_eq!(parse_keys("é").unwrap(), [chord(&[], 0xe9)]);
        assert_eq!(parse_keys("世").unwrap(), [chord(&[], 0x0100_4e16)]);
        assert_eq!(parse_keys("+").unwrap(), [chord(&[], '+' as u32)]);
        assert_eq!(
            parse_keys("ctrl++").unwrap(),
            [chord(&[sym::CONTROL_L], '+' as u32)]
        );
        assert_eq!(
            parse_keys("ctrl+plus").unwrap(),
            [chord(&[sym::CONTROL_L], '+' as u32)]
        );
    }

    #[test]
    fn letters_with_modifiers_name_the_key() {
        assert_eq!(
            parse_keys("ctrl+A").unwrap(),
            [chord(&[sym::CONTROL_L], 'a' as u32)]
        );
        assert_eq!(
            parse_keys("ctrl+shift+T").unwrap(),
            [chord(&[sym::CONTROL_L, sym::SHIFT_L], 't' as u32)]
        );
    }

    #[test]
    fn a_modifier_alone_is_a_key() {
        assert_eq!(parse_keys("shift").unwrap(), [chord(&[], sym::SHIFT_L)]);
        assert_eq!(
            parse_keys("ctrl+alt").unwrap(),
            [chord(&[sym::CONTROL_L], sym::ALT_L)]
        );
    }

    #[test]
    fn errors_name_the_offending_token() {
        assert_eq!(parse_keys("  "), Err(KeyError::Empty));
        assert_eq!(
            parse_keys("ctrl+foo"),
            Err(KeyError::UnknownKey {
                token: "foo".into()
            })
        );
        assert_eq!(
            parse_keys("f25"),
            Err(KeyError::UnknownKey {
                token: "f25".into()
            })
        );
        assert_eq!(
            parse_keys("a+b"),
            Err(KeyError::NotAModifier {
                token: "a".into(),
                chord: "a+b".into()
            })
        );
        for bad in ["ctrl+", "+a", "ctrl++a", "ctrl+ +a"] {
            assert!(
                matches!(parse_keys(bad), Err(KeyError::EmptyPart { .. })),
                "{bad}"
            );
        }
        let message = parse_keys("ctrl+foo").unwrap_err().to_string();
        assert!(message.contains("\"foo\"") && message.contains("Return"));
    }

    #[test]
    fn keysyms_for_characters() {
        assert_eq!(keysym_for_char('a'), 0x61);
        assert_eq!(keysym_for_char('~'), 0x7e);
        assert_eq!(keysym_for_char('é'), 0xe9);
        assert_eq!(keysym_for_char('\u{a0}'), 0xa0);
        assert_eq!(keysym_for_char('€'), 0x0100_20ac);
        assert_eq!(keysym_for_char('🎉'), 0x0101_f389);
        assert_eq!(keysym_for_char('\n'), sym::RETURN);
        assert_eq!(keysym_for_char('\t'), sym::TAB);
    }
}
