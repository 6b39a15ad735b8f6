//! Text read from pixels: how a surface without an accessibility tree (Tk, xterm, a canvas, an
//! app under Wine) is still seen as text. The engine lives outside the core (Tesseract, in
//! `deskhand-ocr`); the executor gets it through [`crate::Config::ocr`] and knows only this trait.

use std::fmt::Debug;

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::model::{ElementHandle, Node, Rect, RgbImage, Role, States, Tree, WindowInfo};

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

/// How the executor holds an engine: shared, for reading off the async threads.
pub type TextReader = std::sync::Arc<dyn ReadText>;

/// The word groups of a screen rectangle, captured now, with bounds in screen pixels; none when
/// the rectangle is off screen. The engine runs on the blocking pool.
pub(crate) async fn read_rect<B: Backend>(
    backend: &B,
    reader: &TextReader,
    rect: Rect,
) -> Result<Vec<WordGroup>> {
    let Some(rect) = rect.intersect(&backend.screen().await?) else {
        return Ok(Vec::new());
    };
    let image = backend.capture(rect).await?;
    let reader = reader.clone();
    let groups = tokio::task::spawn_blocking(move || reader.read(&image))
        .await
        .map_err(|err| Error::platform(format!("reading text from pixels stopped: {err}")))??;
    Ok(groups
        .into_iter()
        .map(|mut group| {
            group.bounds.x = group.bounds.x.saturating_add(rect.x);
            group.bounds.y = group.bounds.y.saturating_add(rect.y);
            group
        })
        .collect())
}

/// A window without an accessibility tree as one: the window, and a label for each word group
/// read from its pixels, marked [`States::from_pixels`].
pub(crate) async fn window_from_pixels<B: Backend>(
    backend: &B,
    reader: &TextReader,
    window: &WindowInfo,
) -> Result<Tree> {
    let groups = read_rect(backend, reader, window.bounds).await?;
    let shown = States {
        enabled: true,
        visible: true,
        ..States::default()
    };
    let children = groups
        .into_iter()
        .map(|group| {
            let relative = Rect {
                x: group.bounds.x - window.bounds.x,
                y: group.bounds.y - window.bounds.y,
                ..group.bounds
            };
            Node {
                handle: ElementHandle::read_from_pixels(relative, &group.text),
                role: Role::Label,
                name: group.text,
                value: None,
                states: States {
                    from_pixels: true,
                    ..shown
                },
                bounds: Some(group.bounds),
                actions: Vec::new(),
                children: Vec::new(),
            }
        })
        .collect();
    Ok(Tree {
        root: Node {
            handle: ElementHandle::read_from_pixels(
                Rect::new(0, 0, window.bounds.width, window.bounds.height),
                "",
            ),
            role: Role::Window,
            name: window.title.clone(),
            value: None,
            states: shown,
            bounds: Some(window.bounds),
            actions: Vec::new(),
            children,
        },
        partial: None,
    })
}
