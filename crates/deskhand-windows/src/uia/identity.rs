//! What a handle checks besides the runtime id before an element is acted on. A runtime id is
//! not always the element's own: the Win32 control proxies build a list item's from its row
//! index (`[…, 4, index]`), as older WinForms ListViews do, so a row inserted above hands the
//! held id to the neighbour. A handle therefore carries the element's control type, a hash of
//! its name and the `trail`, a hash of its ancestors below the window (control type and name,
//! and for an item of a list or table the words it shows), and an element found again by its
//! runtime id is used only when all three still match: otherwise it is gone, never a neighbour.

use super::{Element, control_type};

/// Words of an item counted at most: enough to tell rows apart, few enough to stay cheap.
pub const ITEM_WORDS: usize = 16;

/// FNV-1a: stable across processes and builds, unlike the standard library's hasher.
fn fnv(bytes: impl IntoIterator<Item = u8>) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

pub fn name_hash(name: &str) -> u32 {
    fnv(name.trim().bytes())
}

/// Everything a handle names an element by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub runtime_id: Vec<i32>,
    pub control_type: i32,
    pub name_hash: u32,
    pub trail: u32,
}

/// One ancestor as the trail counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    control_type: i32,
    name_hash: u32,
    /// The hash of the words it shows, for an item of a list or table.
    words: Option<u32>,
}

/// Whether an element is an item of a list, table or tree, told apart from its siblings by
/// what it shows (a WPF DataGrid names every row after its item's type).
pub fn is_item(element: &Element, parent: &Element) -> bool {
    use control_type as c;
    matches!(
        element.control_type,
        c::LIST_ITEM | c::DATA_ITEM | c::TREE_ITEM
    ) || matches!(parent.control_type, c::LIST | c::DATA_GRID | c::TABLE)
}

/// The hash of the words an item shows below it: its texts' names and its edits' values, in
/// order. Editing a field of a row therefore retires the handles inside it, and an observation
/// must follow, which says what is there now. A password's value is never among them.
pub fn words_hash(item: &Element) -> u32 {
    fn collect<'e>(element: &'e Element, words: &mut Vec<&'e str>) {
        for child in &element.children {
            if words.len() >= ITEM_WORDS {
                return;
            }
            let word = match child.control_type {
                control_type::TEXT => child.name.trim(),
                control_type::EDIT if !child.password => child
                    .patterns
                    .value
                    .as_ref()
                    .map_or("", |value| value.value.trim()),
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

impl Link {
    /// `element` read with its subtree when it is an item (for its words).
    pub fn of(element: &Element, parent: &Element) -> Link {
        Link {
            control_type: element.control_type,
            name_hash: name_hash(&element.name),
            words: is_item(element, parent).then(|| words_hash(element)),
        }
    }
}

pub fn trail(links: &[Link]) -> u32 {
    fnv(links.iter().flat_map(|link| {
        link.control_type
            .to_le_bytes()
            .into_iter()
            .chain(link.name_hash.to_le_bytes())
            .chain(link.words.map_or([0; 5], |w| {
                let [a, b, c, d] = w.to_le_bytes();
                [1, a, b, c, d]
            }))
    }))
}

impl Identity {
    /// The identity of `element` below the ancestors `links` (the window itself not among
    /// them: its title changes without anything moving).
    pub fn of(element: &Element, links: &[Link]) -> Identity {
        Identity {
            runtime_id: element.runtime_id.clone(),
            control_type: element.control_type,
            name_hash: name_hash(&element.name),
            trail: trail(links),
        }
    }

    /// Whether `element`, found by runtime id below `links`, is the one this names.
    pub fn matches(&self, element: &Element, links: &[Link]) -> bool {
        *self == Identity::of(element, links)
    }
}
