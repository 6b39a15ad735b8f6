//! The keymap a virtual keyboard uploads: one key for every keysym it is about to send, so any
//! character can be typed without the user's layout having it.

/// Keycodes are XKB's, 8 to 255; the evdev code sent is 8 less. The first few hold modifiers.
const FIRST_KEYCODE: u32 = 9;
const LAST_KEYCODE: u32 = 255;

/// The modifier keys every keymap carries, with the real modifier each sets, at fixed keycodes
/// from [`FIRST_KEYCODE`].
const MODIFIERS: [(&str, &str); 4] = [
    ("Shift_L", "Shift"),
    ("Control_L", "Control"),
    ("Alt_L", "Mod1"),
    ("Super_L", "Mod4"),
];

/// How many other keysyms one keymap can hold.
pub const CAPACITY: usize = (LAST_KEYCODE - FIRST_KEYCODE + 1) as usize - MODIFIERS.len();

/// A keymap's keysyms and the keycode of each.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Keymap {
    keysyms: Vec<u32>,
}

impl Keymap {
    /// A keymap holding `keysyms` (at most [`CAPACITY`], duplicates once).
    pub fn new(keysyms: impl IntoIterator<Item = u32>) -> Self {
        let mut unique: Vec<u32> = Vec::new();
        // The modifiers have their keys already.
        for keysym in keysyms
            .into_iter()
            .filter(|k| Self::modifier_code(*k).is_none())
        {
            if !unique.contains(&keysym) {
                unique.push(keysym);
            }
        }
        unique.truncate(CAPACITY);
        Self { keysyms: unique }
    }

    /// Whether every one of `keysyms` has a key here.
    pub fn holds(&self, keysyms: &[u32]) -> bool {
        keysyms
            .iter()
            .all(|keysym| Self::modifier_code(*keysym).is_some() || self.keysyms.contains(keysym))
    }

    /// The evdev code (XKB keycode − 8) that sends `keysym`.
    pub fn code_of(&self, keysym: u32) -> Option<u32> {
        let index = self.keysyms.iter().position(|k| *k == keysym)?;
        Some(FIRST_KEYCODE + MODIFIERS.len() as u32 + index as u32 - 8)
    }

    /// The evdev code of the modifier key a modifier keysym names (left or right alike).
    pub fn modifier_code(keysym: u32) -> Option<u32> {
        let index = match keysym {
            0xffe1 | 0xffe2 => 0,
            0xffe3 | 0xffe4 => 1,
            0xffe9 | 0xffea => 2,
            0xffeb | 0xffec => 3,
            _ => return None,
        };
        Some(FIRST_KEYCODE + index - 8)
    }

    /// The real-modifier mask of a modifier keysym: Shift, Control, Mod1 (Alt), Mod4 (Super).
    pub fn modifier_mask(keysym: u32) -> Option<u32> {
        Self::modifier_code(keysym)
            .map(|code| [1, 1 << 2, 1 << 3, 1 << 6][(code + 8 - FIRST_KEYCODE) as usize])
    }

    /// The keymap in XKB's text format, NUL-terminated as the protocol wants it. Types and
    /// compatibility come from xkeyboard-config's "complete", as every desktop keymap's do.
    pub fn text(&self) -> String {
        let mut keycodes = String::new();
        let mut symbols = String::new();
        let modifiers = MODIFIERS.iter().map(|(keysym, _)| keysym.to_string());
        let others = self.keysyms.iter().map(|keysym| format!("0x{keysym:x}"));
        for (index, keysym) in modifiers.chain(others).enumerate() {
            let keycode = FIRST_KEYCODE + index as u32;
            keycodes.push_str(&format!("    <K{keycode}> = {keycode};\n"));
            symbols.push_str(&format!("    key <K{keycode}> {{ [ {keysym} ] }};\n"));
        }
        for (index, (_, modifier)) in MODIFIERS.iter().enumerate() {
            let keycode = FIRST_KEYCODE + index as u32;
            symbols.push_str(&format!(
                "    modifier_map {modifier} {{ <K{keycode}> }};\n"
            ));
        }
        format!(
            "xkb_keymap {{\n\
             xkb_keycodes \"deskhand\" {{\n    minimum = 8;\n    maximum = {LAST_KEYCODE};\n{keycodes}}};\n\
             xkb_types \"deskhand\" {{ include \"complete\" }};\n\
             xkb_compatibility \"deskhand\" {{ include \"complete\" }};\n\
             xkb_symbols \"deskhand\" {{\n{symbols}}};\n\
             }};\n\0"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keysym_gets_one_key_after_the_modifiers() {
        let keymap = Keymap::new([0x61, 0x10020ac, 0x61, 0xffe3, 0xff0d]);
        assert_eq!(keymap.code_of(0x61), Some(FIRST_KEYCODE + 4 - 8));
        assert_eq!(keymap.code_of(0x10020ac), Some(FIRST_KEYCODE + 5 - 8));
        assert_eq!(keymap.code_of(0xff0d), Some(FIRST_KEYCODE + 6 - 8));
        assert_eq!(keymap.code_of(0x62), None);
        assert!(keymap.holds(&[0x61, 0xff0d, 0xffe1]) && !keymap.holds(&[0x62]));
        let text = keymap.text();
        assert!(text.ends_with("};\n\0"));
        assert!(text.contains("<K9> = 9;") && text.contains("key <K9> { [ Shift_L ] };"));
        assert!(text.contains("key <K14> { [ 0x10020ac ] };"), "{text}");
        assert!(text.contains("modifier_map Mod1 { <K11> };"));
        assert_eq!(text.matches("key <K").count(), 4 + 3);
    }

    #[test]
    fn a_keymap_holds_at_most_its_capacity() {
        let keymap = Keymap::new(0x1000100..0x1000100 + 400);
        assert_eq!(keymap.keysyms.len(), CAPACITY);
        assert_eq!(
            keymap.code_of(0x1000100 + CAPACITY as u32 - 1),
            Some(LAST_KEYCODE - 8)
        );
    }

    #[test]
    fn modifier_keys_are_the_first_keys_in_their_order() {
        let text = Keymap::default().text();
        for (keysym, name) in [
            (0xffe1, "Shift_L"),
            (0xffe4, "Control_L"),
            (0xffe9, "Alt_L"),
        ] {
            let code = Keymap::modifier_code(keysym).expect("a modifier");
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
