//! Text read from pixels: how a surface without an accessibility tree (Tk, xterm, a canvas, an
//! app under Wine) is still seen as text. The engine lives outside the core (Tesseract, in
//! `deskhand-ocr`); the executor gets it through [`crate::Config::ocr`] and knows only this trait.

use std::fmt::Debug;

use crate::backend::{Capture, Windows};
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
pub(crate) async fn read_rect<B: Windows + Capture>(
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
pub(crate) async fn window_from_pixels<B: Windows + Capture>(
    backend: &B,
    reader: &TextReader,
    window: &WindowInfo,
) -> Result<Tree> {
    let rect = crate::desk::surface::window_pixels(backend, window).await?;
    let groups = read_rect(backend, reader, rect).await?;
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

/// Unnamed controls this big or more are read; smaller ones hold no legible caption.
const MIN_CAPTION_EDGE: u32 = 8;
/// At most this many unnamed controls of one window are read per look.
const MAX_UNNAMED: usize = 32;
/// A control is named by text this sure or more (the weakest of its words).
const MIN_NAME_CONFIDENCE: u8 = 60;

/// Whether `node` is a control with nothing in the tree to name it: no name, no value, and no
/// named element inside (a button's label child names it).
fn unnamed_control(node: &Node, window: &Rect) -> bool {
    let named_inside = |n: &Node| !n.name.trim().is_empty();
    matches!(
        node.role,
        Role::Button | Role::Toggle | Role::Menuitem | Role::Tab | Role::Link
    ) && node.states.visible
        && node.name.trim().is_empty()
        && node.value.as_deref().is_none_or(str::is_empty)
        && !node.children.iter().any(|c| c.any(&named_inside))
        && node.bounds.is_some_and(|b| {
            b.width >= MIN_CAPTION_EDGE
                && b.height >= MIN_CAPTION_EDGE
                && b.intersect(window) == Some(b)
        })
}

/// The paths (child indices from the root) of the unnamed controls of `node`.
fn unnamed_paths(node: &Node, window: &Rect, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if out.len() >= MAX_UNNAMED || !node.states.visible && !path.is_empty() {
        return;
    }
    if unnamed_control(node, window) {
        out.push(path.clone());
        return;
    }
    for (i, child) in node.children.iter().enumerate() {
        path.push(i);
        unnamed_paths(child, window, path, out);
        path.pop();
    }
}

fn at_path<'n>(node: &'n mut Node, path: &[usize]) -> &'n mut Node {
    path.iter().fold(node, |node, &i| &mut node.children[i])
}

/// The part of `image` (captured at `origin`) under `rect`, in screen pixels.
fn crop(image: &RgbImage, origin: Rect, rect: Rect) -> Option<RgbImage> {
    let part = rect.intersect(&Rect::new(origin.x, origin.y, image.width, image.height))?;
    let (left, top) = ((part.x - origin.x) as usize, (part.y - origin.y) as usize);
    let row = image.width as usize * 3;
    let data = (top..top + part.height as usize)
        .flat_map(|y| &image.data[y * row + left * 3..y * row + (left + part.width as usize) * 3])
        .copied()
        .collect();
    Some(RgbImage {
        width: part.width,
        height: part.height,
        data,
    })
}

/// Names each unnamed control of `tree` (an icon-only button) by the text read from its own
/// pixels, where there is any, and marks it [`States::from_pixels`]. Best effort: a window
/// whose pixels cannot be read keeps its controls unnamed, as the tree gave them.
pub(crate) async fn name_unnamed<B: Windows + Capture>(
    backend: &B,
    reader: &TextReader,
    window: &WindowInfo,
    tree: &mut Tree,
) {
    let mut paths = Vec::new();
    unnamed_paths(&tree.root, &window.bounds, &mut Vec::new(), &mut paths);
    if paths.is_empty() {
        return;
    }
    let Ok(rect) = crate::desk::surface::window_pixels(backend, window).await else {
        return;
    };
    let Ok(image) = backend.capture(rect).await else {
        return;
    };
    let crops: Vec<(Vec<usize>, RgbImage)> = paths
        .into_iter()
        .filter_map(|path| {
            let bounds = at_path(&mut tree.root, &path).bounds?;
            Some((path, crop(&image, window.bounds, bounds)?))
        })
        .collect();
    let reader = reader.clone();
    let read = tokio::task::spawn_blocking(move || {
        crops
            .into_iter()
            .filter_map(|(path, image)| {
                let groups = reader.read(&image).ok()?;
                let surest = groups.iter().map(|g| g.confidence).min()?;
                let name = groups
                    .into_iter()
                    .map(|g| g.text)
                    .collect::<Vec<_>>()
                    .join(" ");
                let letters = name.chars().filter(|c| c.is_alphanumeric()).count();
                // An icon read as text is mostly one unsure character: "4", "x".
                let sure = (letters >= 2 && surest >= MIN_NAME_CONFIDENCE) || surest >= 90;
                sure.then_some((path, name))
            })
            .collect::<Vec<_>>()
    })
    .await;
    for (path, name) in read.unwrap_or_default() {
        let node = at_path(&mut tree.root, &path);
        node.name = name;
        node.states.from_pixels = true;
    }
}

/// Adds to a window's tree the text read from its pixels that no element shows: on a canvas,
/// an image, a custom-drawn widget. A word group is left out where the tree already has it: its
/// center on an element without children that has a name or value, or its words in the name or
/// value of an element it overlaps. Each one kept becomes a label under the innermost element
/// it lies in.
pub(crate) async fn add_unlisted_text<B: Windows + Capture>(
    backend: &B,
    reader: &TextReader,
    window: &WindowInfo,
    tree: &mut Tree,
) -> Result<usize> {
    let rect = crate::desk::surface::window_pixels(backend, window).await?;
    let groups = read_rect(backend, reader, rect).await?;
    let mut added = 0;
    for group in groups {
        if shown_by_tree(&tree.root, &group) {
            continue;
        }
        let relative = Rect {
            x: group.bounds.x - window.bounds.x,
            y: group.bounds.y - window.bounds.y,
            ..group.bounds
        };
        let label = Node {
            handle: ElementHandle::read_from_pixels(relative, &group.text),
            role: Role::Label,
            name: group.text,
            value: None,
            states: States {
                enabled: true,
                visible: true,
                from_pixels: true,
                ..States::default()
            },
            bounds: Some(group.bounds),
            actions: Vec::new(),
            children: Vec::new(),
        };
        innermost(&mut tree.root, group.bounds.center())
            .children
            .push(label);
        added += 1;
    }
    Ok(added)
}

/// Whether the tree already shows the text of `group`, so that `ocr: true` need not add it: an
/// element it overlaps holds its words, as read (a misread letter in four allowed: "Pres me"
/// over a label "Press me"). The text an element draws is what its name or value says only when
/// they say the same: a canvas named "Result" that draws "1029", or a window titled "Thanks"
/// whose page begins with "Thanks, Alice", does not show those words, and `wait` finds them on
/// the pixels, so `observe` lists them.
fn shown_by_tree(node: &Node, group: &WordGroup) -> bool {
    let words = letters(&group.text);
    if words.is_empty() {
        return true;
    }
    node.any(&|n: &Node| {
        let Some(bounds) = n.bounds.filter(|_| n.states.visible) else {
            return false;
        };
        if bounds.intersect(&group.bounds).is_none() {
            return false;
        }
        [n.name.as_str(), n.value.as_deref().unwrap_or_default()]
            .iter()
            .map(|t| letters(t))
            .any(|t| {
                // A group that holds an element's whole text shows that element (a label read
                // together with its neighbour), but only an element that draws its text
                // itself: a window's or a group's name is its title.
                !t.is_empty()
                    && (nearly_contains(&t, &words)
                        || (n.children.is_empty() && nearly_contains(&words, &t)))
            })
    })
}

/// `text` as compared with what was read from pixels: lower case, without the spaces OCR may add
/// or drop ("notes. txt").
fn letters(text: &str) -> Vec<char> {
    crate::text::normalize(text)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Whether `needle` is in `hay` but for at most one edit in four of its characters (none in a
/// needle shorter than four): the fewest edits that turn some part of `hay` into `needle`.
fn nearly_contains(hay: &[char], needle: &[char]) -> bool {
    let allowed = needle.len() / 4;
    if needle.len() > hay.len() + allowed {
        return false;
    }
    // Edits to match needle[..i] ending at each position of hay, a match free to start anywhere.
    let mut row: Vec<usize> = vec![0; hay.len() + 1];
    for (i, &c) in needle.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &h) in hay.iter().enumerate() {
            let next = (diagonal + usize::from(c != h))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row.into_iter().min().is_some_and(|edits| edits <= allowed)
}

fn innermost(node: &mut Node, point: crate::model::Point) -> &mut Node {
    let inside = node.children.iter().position(|c| {
        c.states.visible
            && c.bounds.is_some_and(|b| b.contains(point))
            && !c.handle.is_read_from_pixels()
    });
    match inside {
        Some(i) => innermost(&mut node.children[i], point),
        None => node,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, bounds: Rect, children: Vec<Node>) -> Node {
        Node {
            handle: ElementHandle(name.into()),
            role: if children.is_empty() {
                Role::Label
            } else {
                Role::Window
            },
            name: name.into(),
            value: None,
            states: States {
                visible: true,
                ..States::default()
            },
            bounds: Some(bounds),
            actions: Vec::new(),
            children,
        }
    }

    fn group(text: &str, bounds: Rect) -> WordGroup {
        WordGroup {
            text: text.into(),
            bounds,
            confidence: 95,
        }
    }

    #[test]
    fn a_line_that_begins_with_the_windows_title_is_not_taken_for_the_title() {
        let tree = node(
            "Thanks",
            Rect::new(0, 0, 400, 300),
            vec![node("Order", Rect::new(10, 10, 60, 20), Vec::new())],
        );
        let line = group("Thanks, Alice", Rect::new(10, 100, 120, 20));
        assert!(!shown_by_tree(&tree, &line));
        // A label read together with what follows it is still the label's.
        let label = group("Order now", Rect::new(10, 10, 90, 20));
        assert!(shown_by_tree(&tree, &label));
    }

    #[test]
    fn text_drawn_on_a_named_canvas_is_not_taken_for_its_name() {
        // A calculator's display: a canvas whose name says what it is, not what it draws.
        let tree = node(
            "Calculator",
            Rect::new(0, 0, 400, 300),
            vec![node("Result", Rect::new(10, 10, 300, 60), Vec::new())],
        );
        assert!(!shown_by_tree(
            &tree,
            &group("1029", Rect::new(40, 20, 90, 40))
        ));
        // Its name drawn on it is the tree's, read right or nearly.
        for read in ["Result", "Resu1t", "Re sult"] {
            assert!(
                shown_by_tree(&tree, &group(read, Rect::new(40, 20, 90, 40))),
                "{read}"
            );
        }
        assert!(!shown_by_tree(
            &tree,
            &group("Rezzlt", Rect::new(40, 20, 90, 40))
        ));
    }

    #[test]
    fn nearly_contains_allows_one_edit_in_four() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert!(nearly_contains(&chars("pressme"), &chars("presme")));
        assert!(nearly_contains(&chars("openthefile"), &chars("thefi1e")));
        assert!(!nearly_contains(&chars("result"), &chars("1029")));
        assert!(
            !nearly_contains(&chars("abc"), &chars("abd")),
            "short: exact"
        );
        assert!(nearly_contains(&chars("xabcx"), &chars("abc")));
    }
}
