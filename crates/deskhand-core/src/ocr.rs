//! Text read from pixels: how a surface without an accessibility tree (Tk, xterm, a canvas, an
//! app under Wine) is still seen as text. The engine lives outside the core (Tesseract, in
//! `deskhand-ocr`); the executor gets it through [`crate::Config::ocr`] and knows only this trait.

use std::fmt::Debug;

use crate::error::Result;
use crate::model::{Rect, RgbImage};

/// Words that belong together on screen: a label, a button's caption, a line of a terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordGroup {
    pub text: String,
    /// In the pixels of the image that was read, (0, 0) at its top-left corner.
    pub bounds: Rect,
    /// The engine's confidence in the weakest of its words, 0–100.
    pub confidence: u8,
}

/// An engine that reads the text of an image. Reading is CPU work that may take a good part of a
/// second: the executor calls it off the async threads.
pub trait ReadText: Debug + Send + Sync {
    /// The word groups of `image`, top to bottom, left to right; none for an image with no text
    /// (empty, uniform, a single pixel). Fails only when the engine itself cannot run.
    fn read(&self, image: &RgbImage) -> Result<Vec<WordGroup>>;
}
