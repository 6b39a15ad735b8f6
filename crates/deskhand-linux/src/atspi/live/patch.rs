//! A kept tree brought up to date by reading again only what its application's events name:
//! each changed element's parent (whose list of children and words may hold it), the parts under
//! them read anew only where something changed, the rest taken from the kept tree.

use std::collections::{HashMap, HashSet};

use deskhand_core::model::{Node, Role, Tree};

use super::super::walk::{Reuse, count_nodes};
use super::super::{
    ACCESSIBLE, Atspi, ObjectRef, ROOT_PATH, WalkLimits, WalkStyle, without_extents,
};
use super::events::Change;
use crate::translate;

/// Changed elements outside the kept tree whose place is asked, at most: past it the window is
/// walked.
const MAX_OUTSIDE: usize = 32;
/// Parents asked for one such element before giving up on finding it in the window.
const MAX_CLIMB: usize = 32;

/// Roles whose element is read from what is under it (a table names its cells by place, a cell
/// takes the words of the cell in it, a drop-down says its chosen item): a change under one is
/// read again from above it.
const COMPOSITE: [Role; 7] = [
    Role::Table,
    Role::Tree,
    Role::Row,
    Role::Cell,
    Role::Header,
    Role::Treeitem,
    Role::Combobox,
];

/// A kept tree and what it was read with.
pub(super) struct Kept<'a> {
    pub tree: &'a Tree,
    pub style: WalkStyle,
    pub links: &'a HashSet<ObjectRef>,
    pub unplaced: bool,
}

/// A tree patched.
pub(super) struct Patched {
    pub tree: Tree,
    pub links: HashSet<ObjectRef>,
    pub nodes: usize,
}

/// Where an element stands in a tree: the index of each child taken from the root.
type Place = Vec<usize>;

/// `kept` with the elements `changes` name read again, or `None` when only a walk of the whole
/// window can tell (an application that does not answer, an element that would make the tree
/// partial, too many elements outside the tree).
pub(super) async fn patch(
    atspi: &Atspi,
    kept: Kept<'_>,
    changes: &[(String, String, Change)],
) -> Option<Patched> {
    let root = ObjectRef::from_handle(&kept.tree.root.handle)?;
    if changes.iter().any(|(bus, ..)| *bus != root.bus) {
        return None;
    }
    let mut places = HashMap::new();
    index(&kept.tree.root, &mut Vec::new(), &mut places);
    let mut placed = Vec::new();
    let mut outside = Vec::new();
    for (_, path, change) in changes {
        match places.get(path.as_str()) {
            Some(place) => placed.push((Place::clone(place), *change)),
            None => outside.push(path.as_str()),
        }
    }
    if outside.len() > MAX_OUTSIDE {
        return None;
    }
    let found = futures::future::join_all(
        outside
            .into_iter()
            .map(|path| kept_ancestor(atspi, &root.bus, path, &places)),
    )
    .await;
    for ancestor in found {
        if let Some(place) = ancestor? {
            placed.push((place, Change::Children));
        }
    }
    if changes.iter().any(|(.., change)| *change == Change::Focus) {
        focused(&kept.tree.root, &mut Vec::new(), &mut placed);
    }
    let plan = Plan::of(&kept.tree.root, &placed);
    let mut unchanged = HashMap::new();
    plan.unchanged(&kept.tree.root, &mut Vec::new(), &mut unchanged);
    let reads = plan.roots.iter().map(|place| {
        let node = at(&kept.tree.root, place);
        let reuse = Reuse {
            unchanged: Some(&unchanged),
            links: Some(kept.links),
        };
        async move {
            let object = ObjectRef::from_handle(&node.handle)?;
            atspi
                .rewalk(&object, place.is_empty(), kept.style, reuse)
                .await
                .ok()
                .flatten()
        }
    });
    let read = futures::future::join_all(reads).await;
    let mut tree = kept.tree.clone();
    let mut links = kept.links.clone();
    for (place, rewalked) in plan.roots.iter().zip(read) {
        let mut rewalked = rewalked?;
        if kept.unplaced {
            without_extents(&mut rewalked.root);
        }
        *at_mut(&mut tree.root, place) = rewalked.root;
        links.extend(rewalked.links);
    }
    // A walk notes a window where nothing shows, and cuts a tree past its budget.
    let root = &tree.root;
    if !root.children.is_empty() && root.children.iter().all(|c| !c.states.visible) {
        return None;
    }
    let nodes = count_nodes(root);
    (nodes <= WalkLimits::default().max_nodes).then_some(Patched { tree, links, nodes })
}

/// What is read again.
#[derive(Debug, Default, PartialEq)]
struct Plan {
    /// The subtrees read again, none inside another.
    roots: Vec<Place>,
    /// Elements read again themselves, their children taken as kept where unchanged.
    touched: HashSet<Place>,
    /// Subtrees read again whole.
    anew: Vec<Place>,
}

impl Plan {
    fn of(root: &Node, changes: &[(Place, Change)]) -> Plan {
        let mut plan = Plan::default();
        let mut roots: Vec<Place> = Vec::new();
        for (place, change) in changes {
            for depth in 0..=place.len() {
                plan.touched.insert(place[..depth].to_vec());
            }
            if matches!(change, Change::Moved | Change::Content) {
                plan.anew.push(place.clone());
            }
            // A table's cells take states from it (focus) with no event of their own.
            if let Some(composite) = highest_composite(root, place) {
                plan.anew.push(place[..composite].to_vec());
            }
            let from = match change {
                Change::Children => place.clone(),
                Change::Own | Change::Focus | Change::Moved | Change::Content => parent(place),
            };
            roots.push(read_from(root, from));
        }
        roots.sort();
        roots.dedup();
        plan.roots = roots
            .iter()
            .filter(|place| {
                !roots
                    .iter()
                    .any(|other| other.len() < place.len() && place.starts_with(other))
            })
            .cloned()
            .collect();
        plan
    }

    /// The kept elements a read may take as they are.
    fn unchanged<'a>(
        &self,
        node: &'a Node,
        place: &mut Place,
        unchanged: &mut HashMap<ObjectRef, &'a Node>,
    ) {
        if self.anew.contains(place) {
            return;
        }
        if !self.touched.contains(place)
            && let Some(object) = ObjectRef::from_handle(&node.handle)
        {
            unchanged.insert(object, node);
        }
        for (index, child) in node.children.iter().enumerate() {
            place.push(index);
            self.unchanged(child, place, unchanged);
            place.pop();
        }
    }
}

/// Where a change at `place` is read from: above every element whose words or listing depend
/// on what is under it (see [`COMPOSITE`]; and text that holds its links' words).
fn read_from(root: &Node, mut place: Place) -> Place {
    if let Some(highest) = highest_composite(root, &place) {
        place.truncate(highest.saturating_sub(1));
    }
    while !place.is_empty() && at(root, &parent(&place)).value.is_some() {
        place.pop();
    }
    place
}

/// The depth of the highest element at or above `place` that is read from what is under it.
fn highest_composite(root: &Node, place: &[usize]) -> Option<usize> {
    (0..=place.len()).find(|depth| COMPOSITE.contains(&at(root, &place[..*depth]).role))
}

fn parent(place: &[usize]) -> Place {
    place[..place.len().saturating_sub(1)].to_vec()
}

fn at<'a>(root: &'a Node, place: &[usize]) -> &'a Node {
    place
        .iter()
        .fold(root, |node, index| &node.children[*index])
}

fn at_mut<'a>(root: &'a mut Node, place: &[usize]) -> &'a mut Node {
    place
        .iter()
        .fold(root, |node, index| &mut node.children[*index])
}

/// The elements the kept tree shows focused, as changed: the focus moved, and the element that
/// had it may lose it without an event of its own.
fn focused(node: &Node, place: &mut Place, changed: &mut Vec<(Place, Change)>) {
    if node.states.focused {
        changed.push((place.clone(), Change::Own));
    }
    for (index, child) in node.children.iter().enumerate() {
        place.push(index);
        focused(child, place, changed);
        place.pop();
    }
}

/// Each element's object path → its place.
fn index<'a>(node: &'a Node, place: &mut Place, places: &mut HashMap<&'a str, Place>) {
    if let Some((_, path)) = node.handle.address().split_once('|') {
        places.insert(path, place.clone());
    }
    for (i, child) in node.children.iter().enumerate() {
        place.push(i);
        index(child, place, places);
        place.pop();
    }
}

/// The place of the nearest ancestor of `path` that the kept tree holds: `Some(None)` when it is
/// gone, in no window or in another window that is not active; `None` when it is in another
/// active window of the application, or the application did not answer.
async fn kept_ancestor(
    atspi: &Atspi,
    bus: &str,
    path: &str,
    places: &HashMap<&str, Place>,
) -> Option<Option<Place>> {
    let mut object = ObjectRef {
        bus: bus.to_owned(),
        path: path.to_owned(),
    };
    for _ in 0..MAX_CLIMB {
        let parent = match atspi.parent(&object).await {
            Ok(Some(parent)) => parent,
            Ok(None) => return Some(None),
            Err(err) if err.unanswered() => return None,
            Err(_) => return Some(None),
        };
        if let Some(place) = places.get(parent.path.as_str()) {
            return Some(Some(place.clone()));
        }
        if parent.bus != bus {
            return None;
        }
        // Another window of the application changed. An active one may be a popup over this
        // one, which a walk lists as part of it; one that is not (a menu made ready at the
        // app's start, a dialog behind) is not listed.
        if parent.path == ROOT_PATH {
            let states: Vec<u32> = match atspi.call(&object, ACCESSIBLE, "GetState", &()).await {
                Ok(states) => states,
                Err(err) if err.unanswered() => return None,
                Err(_) => return Some(None),
            };
            let active = translate::state_set(&states).contains(atspi::State::Active);
            return if active { None } else { Some(None) };
        }
        object = parent;
    }
    None
}

#[cfg(test)]
mod tests;
