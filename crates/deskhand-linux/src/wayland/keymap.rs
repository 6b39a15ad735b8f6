//! The keymap a virtual keyboard uploads: a US keyboard's keys for printable ASCII, the named
//! keys and the modifiers, and one more key for every other keysym it is about to send, so any
//! character can be typed without the user's layout having it.

/// The modifier keys every keymap carries, each on its key of a PC keyboard (evdev codes), with
/// the keysyms that name it and the real modifier it sets.
const MODIFIERS: [(u32, &str, [u32; 2], &str, u32); 4] = [
    (42, "Shift_L", [0xffe1, 0xffe2], "Shift", 1),
    (29, "Control_L", [0xffe3, 0xffe4], "Control", 1 << 2),
    (56, "Alt_L", [0xffe9, 0xffea], "Mod1", 1 << 3),
    (125, "Super_L", [0xffeb, 0xffec], "Mod4", 1 << 6),
];

/// Printable ASCII where a US keyboard has it (evdev code, plain, with Shift). Toolkits read a
/// key's code as well as its keysym: Chromium dropped the characters of keys whose code names
/// no key it knows (evdev 84 and 95), and GTK3 matches shortcuts by code in tables it does not
/// rebuild when the keymap changes, so every keymap keeps these where a keyboard has them.
const US: [(u32, u32, u32); 47] = [
    (2, b'1' as u32, b'!' as u32),
    (3, b'2' as u32, b'@' as u32),
    (4, b'3' as u32, b'#' as u32),
    (5, b'4' as u32, b'$' as u32),
    (6, b'5' as u32, b'%' as u32),
    (7, b'6' as u32, b'^' as u32),
    (8, b'7' as u32, b'&' as u32),
    (9, b'8' as u32, b'*' as u32),
    (10, b'9' as u32, b'(' as u32),
    (11, b'0' as u32, b')' as u32),
    (12, b'-' as u32, b'_' as u32),
    (13, b'=' as u32, b'+' as u32),
    (16, b'q' as u32, b'Q' as u32),
    (17, b'w' as u32, b'W' as u32),
    (18, b'e' as u32, b'E' as u32),
    (19, b'r' as u32, b'R' as u32),
    (20, b't' as u32, b'T' as u32),
    (21, b'y' as u32, b'Y' as u32),
    (22, b'u' as u32, b'U' as u32),
    (23, b'i' as u32, b'I' as u32),
    (24, b'o' as u32, b'O' as u32),
    (25, b'p' as u32, b'P' as u32),
    (26, b'[' as u32, b'{' as u32),
    (27, b']' as u32, b'}' as u32),
    (30, b'a' as u32, b'A' as u32),
    (31, b's' as u32, b'S' as u32),
    (32, b'd' as u32, b'D' as u32),
    (33, b'f' as u32, b'F' as u32),
    (34, b'g' as u32, b'G' as u32),
    (35, b'h' as u32, b'H' as u32),
    (36, b'j' as u32, b'J' as u32),
    (37, b'k' as u32, b'K' as u32),
    (38, b'l' as u32, b'L' as u32),
    (39, b';' as u32, b':' as u32),
    (40, b'\'' as u32, b'"' as u32),
    (41, b'`' as u32, b'~' as u32),
    (43, b'\\' as u32, b'|' as u32),
    (44, b'z' as u32, b'Z' as u32),
    (45, b'x' as u32, b'X' as u32),
    (46, b'c' as u32, b'C' as u32),
    (47, b'v' as u32, b'V' as u32),
    (48, b'b' as u32, b'B' as u32),
    (49, b'n' as u32, b'N' as u32),
    (50, b'm' as u32, b'M' as u32),
    (51, b',' as u32, b'<' as u32),
    (52, b'.' as u32, b'>' as u32),
    (53, b'/' as u32, b'?' as u32),
];

/// The named keys every keymap has, on their keys of a PC keyboard (evdev code, keysym): space,
/// BackSpace, Tab, Return, Escape, Delete, Home, the arrows, Page Up and Down, End, Print,
/// Insert, Menu, F1 to F12, KP_Enter, Pause and ISO_Level3_Shift.
const NAMED: [(u32, u32); 32] = [
    (57, 0x20),
    (14, 0xff08),
    (15, 0xff09),
    (28, 0xff0d),
    (1, 0xff1b),
    (111, 0xffff),
    (102, 0xff50),
    (105, 0xff51),
    (103, 0xff52),
    (106, 0xff53),
    (108, 0xff54),
    (104, 0xff55),
    (109, 0xff56),
    (107, 0xff57),
    (99, 0xff61),
    (110, 0xff63),
    (127, 0xff67),
    (59, 0xffbe),
    (60, 0xffbf),
    (61, 0xffc0),
    (62, 0xffc1),
    (63, 0xffc2),
    (64, 0xffc3),
    (65, 0xffc4),
    (66, 0xffc5),
    (67, 0xffc6),
    (68, 0xffc7),
    (87, 0xffc8),
    (88, 0xffc9),
    (96, 0xff8d),
    (119, 0xff13),
    (100, 0xfe03),
];

/// The highest evdev code an XKB keymap can name (keycode 255).
const LAST_CODE: u32 = 247;

/// Codes no other key is given: lock keys, which toolkits track as state, and the right-hand
/// modifiers.
const KEPT_FREE: [u32; 6] = [54, 58, 69, 70, 97, 126];

/// The codes for the other keysyms, in the order they are given out: F13 to F24 and the keypad
/// first, keys every toolkit knows as plain keys, then every code left.
fn spare_codes() -> impl Iterator<Item = u32> {
    let taken = |code: u32| {
        MODIFIERS.iter().any(|m| m.0 == code)
            || US.iter().any(|k| k.0 == code)
            || NAMED.iter().any(|k| k.0 == code)
            || KEPT_FREE.contains(&code)
    };
    let function_keys = 183..=194;
    let keypad = (71..=83).chain([55]);
    let preferred = function_keys.clone().chain(keypad.clone());
    let rest = (1..=LAST_CODE)
        .filter(move |code| !function_keys.contains(code) && !keypad.clone().any(|k| k == *code));
    preferred.chain(rest).filter(move |code| !taken(*code))
}

/// How many keysyms beyond the base keys one keymap can hold.
pub const CAPACITY: usize =
    LAST_CODE as usize - MODIFIERS.len() - US.len() - NAMED.len() - KEPT_FREE.len();

/// Whether `keysym` is one of the keys every keymap has.
pub fn is_base(keysym: u32) -> bool {
    US.iter()
        .any(|&(_, plain, shifted)| keysym == plain || keysym == shifted)
        || NAMED.iter().any(|&(_, named)| named == keysym)
}

/// A keymap's keysyms beyond the base keys, and the code of each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    others: Vec<(u32, u32)>,
}

impl Keymap {
    /// A keymap holding the base keys and `keysyms` (at most [`CAPACITY`] others, duplicates
    /// once).
    pub fn new(keysyms: impl IntoIterator<Item = u32>) -> Self {
        let mut unique: Vec<u32> = Vec::new();
        for keysym in keysyms
            .into_iter()
            .filter(|k| Self::modifier_code(*k).is_none() && !is_base(*k))
        {
            if !unique.contains(&keysym) {
                unique.push(keysym);
            }
        }
        Self {
            others: spare_codes().zip(unique).collect(),
        }
    }

    /// Whether every one of `keysyms` has a key here.
    pub fn holds(&self, keysyms: &[u32]) -> bool {
        keysyms
            .iter()
            .all(|&keysym| Self::modifier_code(keysym).is_some() || self.code_of(keysym).is_some())
    }

    /// The evdev code that sends `keysym`, and whether Shift must be down for it.
    pub fn code_of(&self, keysym: u32) -> Option<(u32, bool)> {
        US.iter()
            .find_map(|&(code, plain, shifted)| {
                (keysym == plain)
                    .then_some((code, false))
                    .or((keysym == shifted).then_some((code, true)))
            })
            .or_else(|| {
                NAMED
                    .iter()
                    .find(|&&(_, named)| named == keysym)
                    .map(|&(code, _)| (code, false))
            })
            .or_else(|| {
                self.others
                    .iter()
                    .find(|&&(_, other)| other == keysym)
                    .map(|&(code, _)| (code, false))
            })
    }

    /// The evdev code of the modifier key a modifier keysym names (left or right alike).
    pub fn modifier_code(keysym: u32) -> Option<u32> {
        MODIFIERS
            .iter()
            .find(|m| m.2.contains(&keysym))
            .map(|m| m.0)
    }

    /// The real-modifier mask the modifier key with evdev `code` sets.
    pub fn mask_of_code(code: u32) -> Option<u32> {
        MODIFIERS.iter().find(|m| m.0 == code).map(|m| m.4)
    }

    /// The real-modifier mask of a modifier keysym: Shift, Control, Mod1 (Alt), Mod4 (Super).
    pub fn modifier_mask(keysym: u32) -> Option<u32> {
        MODIFIERS
            .iter()
            .find(|m| m.2.contains(&keysym))
            .map(|m| m.4)
    }

    /// The keymap in XKB's text format, NUL-terminated as the protocol wants it. Types and
    /// compatibility come from xkeyboard-config's "complete", as every desktop keymap's do.
    pub fn text(&self) -> String {
        let mut keys: Vec<(u32, String)> = Vec::new();
        for (code, name, ..) in MODIFIERS {
            keys.push((code, format!("[ {name} ]")));
        }
        for (code, plain, shifted) in US {
            keys.push((
                code,
                format!("type = \"TWO_LEVEL\", [ 0x{plain:x}, 0x{shifted:x} ]"),
            ));
        }
        for (code, keysym) in NAMED.iter().chain(&self.others) {
            keys.push((*code, format!("[ 0x{keysym:x} ]")));
        }
        keys.sort_by_key(|(code, _)| *code);
        let mut keycodes = String::new();
        let mut symbols = String::new();
        for (code, levels) in &keys {
            let keycode = code + 8;
            keycodes.push_str(&format!("    <K{keycode}> = {keycode};\n"));
            symbols.push_str(&format!("    key <K{keycode}> {{ {levels} }};\n"));
        }
        for (code, _, _, modifier, _) in MODIFIERS {
            symbols.push_str(&format!(
                "    modifier_map {modifier} {{ <K{}> }};\n",
                code + 8
            ));
        }
        format!(
            "xkb_keymap {{\n\
             xkb_keycodes \"deskhand\" {{\n    minimum = 8;\n    maximum = {};\n{keycodes}}};\n\
             xkb_types \"deskhand\" {{ include \"complete\" }};\n\
             xkb_compatibility \"deskhand\" {{ include \"complete\" }};\n\
             xkb_symbols \"deskhand\" {{\n{symbols}}};\n\
             }};\n\0",
            LAST_CODE + 8
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_sits_on_a_us_keyboard_and_other_keysyms_on_spare_keys() {
        let keymap = Keymap::new([0x61, 0x10020ac, 0x61, 0xffe3, 0xff0d, 0x10000e9]);
        let other = Keymap::new([0x1001f600]);
        assert_eq!(keymap.code_of(u32::from(b'o')), Some((24, false)));
        assert_eq!(keymap.code_of(u32::from(b'Z')), Some((44, true)));
        assert_eq!(keymap.code_of(u32::from(b'@')), Some((3, true)));
        assert_eq!(keymap.code_of(0x20), Some((57, false)));
        assert_eq!(keymap.code_of(0xff0d), Some((28, false)));
        // The base keys sit where every keymap has them; the others take the spare keys, F13 on.
        for keysym in [0x20, 0x61, 0xff08, 0xff0d] {
            assert_eq!(keymap.code_of(keysym), other.code_of(keysym));
        }
        assert_eq!(keymap.code_of(0x10020ac), Some((183, false)));
        assert_eq!(keymap.code_of(0x10000e9), Some((184, false)));
        assert_eq!(other.code_of(0x1001f600), Some((183, false)));
        assert_eq!(keymap.code_of(0x1001f600), None);
        assert!(keymap.holds(&[0x61, 0xff0d, 0xffe1]) && !keymap.holds(&[0x1001f600]));
        let text = keymap.text();
        assert!(text.ends_with("};\n\0"));
        assert!(text.contains("<K50> = 50;") && text.contains("key <K50> { [ Shift_L ] };"));
        assert!(
            text.contains("key <K32> { type = \"TWO_LEVEL\", [ 0x6f, 0x4f ] };"),
            "{text}"
        );
        assert!(text.contains("key <K191> { [ 0x10020ac ] };"), "{text}");
        assert!(text.contains("modifier_map Mod1 { <K64> };"));
        assert_eq!(text.matches("key <K").count(), 4 + 47 + 32 + 2);
        assert!(is_base(0x61) && is_base(u32::from(b'~')) && is_base(0xff08));
        assert!(!is_base(0x10020ac));
    }

    #[test]
    fn a_keymap_holds_at_most_its_capacity_on_distinct_codes() {
        let codes: Vec<u32> = spare_codes().collect();
        assert_eq!(codes.len(), CAPACITY);
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), codes.len());
        assert!(codes.iter().all(|&code| (1..=LAST_CODE).contains(&code)));
        let keymap = Keymap::new(0x1000100..0x1000100 + 400);
        assert_eq!(keymap.others.len(), CAPACITY);
        assert!(keymap.code_of(0x1000100 + CAPACITY as u32 - 1).is_some());
        assert_eq!(keymap.code_of(0x1000100 + CAPACITY as u32), None);
    }

    #[test]
    fn modifiers_are_on_their_keys_with_their_masks() {
        let text = Keymap::new([]).text();
        for (keysym, name, code) in [
            (0xffe1, "Shift_L", 42),
            (0xffe4, "Control_L", 29),
            (0xffe9, "Alt_L", 56),
        ] {
            assert_eq!(Keymap::modifier_code(keysym), Some(code));
            assert!(
                text.contains(&format!("key <K{}> {{ [ {name} ] }};", code + 8)),
                "{name} is not on keycode {}",
                code + 8
            );
        }
        assert_eq!(Keymap::modifier_code(0x61), None);
        assert_eq!(Keymap::modifier_mask(0xffe2), Some(1));
        assert_eq!(Keymap::modifier_mask(0xffe3), Some(4));
        assert_eq!(Keymap::modifier_mask(0xffe9), Some(8));
        assert_eq!(Keymap::modifier_mask(0xffeb), Some(64));
    }
}
