//! The letters of the overlay's indicator as pixels: a Wayland client draws every pixel itself,
//! and a font library for one short line would be a dependency out of all proportion.

/// A glyph's cell: 5 columns drawn in a 6-pixel advance, 8 rows (the last for descenders).
pub(super) const ADVANCE: u32 = 6;
pub(super) const ROWS: u32 = 8;

/// The rows of the glyph for `byte` (ISO 8859-1, as the indicator's text is), the leftmost
/// column in the fifth bit; a blank for any byte the text does not use.
pub(super) fn glyph(byte: u8) -> [u8; ROWS as usize] {
    match byte {
        b'a' => [0, 0, 0b01110, 0b00001, 0b01111, 0b10001, 0b01111, 0],
        b'c' => [0, 0, 0b01110, 0b10000, 0b10000, 0b10001, 0b01110, 0],
        b'd' => [
            0b00001, 0b00001, 0b01101, 0b10011, 0b10001, 0b10011, 0b01101, 0,
        ],
        b'e' => [0, 0, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110, 0],
        b'f' => [
            0b00110, 0b01001, 0b01000, 0b11100, 0b01000, 0b01000, 0b01000, 0,
        ],
        b'g' => [0, 0, 0b01111, 0b10001, 0b10001, 0b01111, 0b00001, 0b01110],
        b'h' => [
            0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001, 0,
        ],
        b'i' => [0b00100, 0, 0b01100, 0b00100, 0b00100, 0b00100, 0b01110, 0],
        b'k' => [
            0b10000, 0b10000, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0,
        ],
        b'l' => [
            0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0,
        ],
        b'n' => [0, 0, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001, 0],
        b'o' => [0, 0, 0b01110, 0b10001, 0b10001, 0b10001, 0b01110, 0],
        b'p' => [0, 0, 0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000],
        b'r' => [0, 0, 0b10110, 0b11001, 0b10000, 0b10000, 0b10000, 0],
        b's' => [0, 0, 0b01111, 0b10000, 0b01110, 0b00001, 0b11110, 0],
        b't' => [
            0b01000, 0b01000, 0b11100, 0b01000, 0b01000, 0b01001, 0b00110, 0,
        ],
        b'-' => [0, 0, 0, 0, 0b01110, 0, 0, 0],
        0xb7 => [0, 0, 0, 0, 0b00100, 0, 0, 0],
        _ => [0; ROWS as usize],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_letter_of_the_indicator_has_a_glyph() {
        for &byte in crate::overlay::INDICATOR_TEXT {
            let drawn = glyph(byte).iter().any(|row| *row != 0);
            assert_eq!(drawn, byte != b' ', "{:?}", char::from(byte));
            assert!(glyph(byte).iter().all(|row| *row < 1 << 5));
        }
    }
}
