//! What tells an element from its neighbour when its path is followed again: the handle's
//! `trail`, a hash of every ancestor between the window and the element (its role and name)
//! and, for an ancestor that is an item of a list or table, of the words it shows. A row
//! inserted above moves a path such as `r41.1.0` onto the next row, whose "Delete" has the
//! same role and name; the words of that row ("file-0040.txt", its date) differ, so the trail
//! does, and the handle answers "gone" instead of reaching it.
//!
//! The walk writes the trail once the tree is read ([`seal`]), from the nodes; resolving reads
//! the same ancestors again through the [`AxReader`] ([`locate`]), an item's words by the walk's
//! own code, so both count the same words.

use std::time::{Duration, Instant};

use deskhand_core::model::{Node, Rect, Role};

use crate::attributes::Attributes;
use crate::errors::AxError;
use crate::handle::{Handle, Step, fnv};

use super::{AxReader, Left, Limits, Walk, hash_of};

/// Words of an item counted at most: enough to tell rows apart, few enough to stay cheap.
const ITEM_WORDS: usize = 16;
/// What reading an item's words again may cost when a handle is resolved.
const ITEM_LIMITS: (usize, Duration) = (200, Duration::from_secs(2));

/// One ancestor as the trail counts it.
struct Link {
    role: String,
    name_hash: u32,
    /// The hash of the words it shows, for an item of a list or table.
    words: Option<u32>,
}

/// Whether an element is an item of a list or table, told apart from its siblings only by
/// what it shows: a row, or a child of a list (a web page's or SwiftUI list's item group).
fn is_item(role: &str, step: Step, parent_role: &str) -> bool {
    role == "AXRow" || matches!(step, Step::Row(_)) || parent_role == "AXList"
}

/// The hash of the words an item shows: its labels' names and its text fields' values (a
/// Finder row's file name is an editable field), in order. Editing a field of a row therefore
/// retires the handles inside it: an observation must follow, which says what is there now.
fn words_hash(item: &Node) -> u32 {
    fn collect<'n>(node: &'n Node, words: &mut Vec<&'n str>) {
        for child in &node.children {
            if words.len() >= ITEM_WORDS {
                return;
            }
            let word = match child.role {
                Role::Label => child.name.trim(),
                Role::Text => child.value.as_deref().unwrap_or("").trim(),
                _ => "",
            };
            if !word.is_empty() {
                words.push(word);
            }
            collect(child, words);
        }
    }
    let mut words = Vec::new();
    collect(item, &mut words);
    fnv(words.join("\u{1f}").into_bytes())
}

fn trail(links: &[Link]) -> u32 {
    fnv(links.iter().flat_map(|link| {
        link.role
            .bytes()
            .chain([0x1f])
            .chain(link.name_hash.to_le_bytes())
            .chain(link.words.map_or([0; 5], |w| {
                let [a, b, c, d] = w.to_le_bytes();
                [1, a, b, c, d]
            }))
            .chain([0x1e])
    }))
}

/// Writes the trail into every handle of a freshly read tree.
pub(super) fn seal(root: &mut Node) {
    seal_under(root, "", &mut Vec::new());
}

fn seal_under(node: &mut Node, parent_role: &str, links: &mut Vec<Link>) {
    let Some(mut handle) = Handle::parse(&node.handle) else {
        return;
    };
    handle.trail = trail(links);
    node.handle = handle.to_element();
    // The window is where every path starts: its title may change without moving anything.
    let link = handle.path.last().map(|step| Link {
        role: handle.role.clone(),
        name_hash: handle.name_hash,
        words: is_item(&handle.role, *step, parent_role).then(|| words_hash(node)),
    });
    let pushed = link.is_some();
    links.extend(link);
    for child in &mut node.children {
        seal_under(child, &handle.role, links);
    }
    if pushed {
        links.pop();
    }
}

/// Follows `handle`'s path down from its window, checking every ancestor on the way: the
/// element when it is the one observed, `None` when the place now holds another (or nothing).
/// `clip` is the window's frame, which judged what the walk read of an item.
pub fn locate<R: AxReader>(
    reader: &R,
    window: &R::Element,
    window_role: &str,
    handle: &Handle,
    clip: Rect,
) -> Result<Option<R::Element>, AxError>
where
    R::Element: Clone,
{
    let Some((last, above)) = handle.path.split_last() else {
        return Ok((window_role == handle.role).then(|| window.clone()));
    };
    let mut element = window.clone();
    let mut parent_role = window_role.to_owned();
    let mut links = Vec::with_capacity(above.len());
    for step in above {
        let Some(next) = reader.step(&element, *step)? else {
            return Ok(None);
        };
        element = next;
        let attributes = reader.attributes(&element)?;
        let role = attributes.role().to_owned();
        let words = if is_item(&role, *step, &parent_role) {
            Some(words_hash(&read_item(
                reader,
                &element,
                attributes.clone(),
                handle,
                clip,
            )?))
        } else {
            None
        };
        links.push(Link {
            role: role.clone(),
            name_hash: hash_of(&attributes),
            words,
        });
        parent_role = role;
    }
    let Some(element) = reader.step(&element, *last)? else {
        return Ok(None);
    };
    let attributes = reader.attributes(&element)?;
    let same = attributes.role() == handle.role
        && hash_of(&attributes) == handle.name_hash
        && trail(&links) == handle.trail;
    Ok(same.then_some(element))
}

/// An item read again as the walk read it, for its words.
fn read_item<R: AxReader>(
    reader: &R,
    item: &R::Element,
    attributes: Attributes,
    handle: &Handle,
    clip: Rect,
) -> Result<Node, AxError> {
    let mut walk = Walk {
        reader,
        limits: Limits {
            nodes: ITEM_LIMITS.0,
            deadline: Instant::now() + ITEM_LIMITS.1,
        },
        read: 1,
        left: Left::default(),
        clip,
    };
    let node = walk.node(item, attributes, handle.clone(), true);
    if walk.left.stalled {
        return Err(AxError::CANNOT_COMPLETE);
    }
    Ok(node)
}
