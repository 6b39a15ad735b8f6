//! Live trees: each observed window's tree, kept up to date with its applications'
//! accessibility events, so observing a window that has not changed answers without reading it
//! again, and one that has changed reads again only the elements its events name (`patch`).
//!
//! A kept tree is trusted only when every application its elements belong to answers a call
//! and every event it sent since its walk began was taken (see the `events` module), the display
//! server reports the window exactly as then (title, place, size, focus, state), and the walk
//! was whole. Between observes, a changed window is read again once its applications' events
//! go quiet (`refresh`). Only the toolkits that send an event for every change a tree shows are kept
//! (`sends_every_change`); every other window is walked at every observe, as is a window whose
//! tree came partly from an application of another toolkit (a web page's process).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use deskhand_core::model::{Node, Role, Tree, WindowInfo};

use super::{Application, Atspi, ObjectRef, WalkStyle};

mod events;
mod patch;
mod refresh;
use events::Events;
pub use refresh::{Heard, Reader};

/// Elements kept per application, over all its windows: past it the windows observed longest
/// ago are dropped first.
pub const MAX_NODES_PER_APP: usize = 20_000;
/// Windows kept in all.
const MAX_WINDOWS: usize = 64;

/// What a walk starts from: the windows' kept trees are trusted only for what happened after.
#[derive(Debug, Clone, Copy)]
pub struct Mark(u64);

/// One kept tree.
struct Kept {
    window: WindowInfo,
    /// Whether the window's place on the screen was unknown (its extents taken out).
    unplaced: bool,
    /// Shared with a patch under way, which reads it while the lock is not held.
    tree: Arc<Tree>,
    /// How it was read, to read parts of it again the same way.
    style: WalkStyle,
    /// Its elements that are hyperlinks.
    links: Arc<HashSet<ObjectRef>>,
    /// The applications (bus names) the tree's elements belong to; the first is the window's.
    buses: Vec<String>,
    /// Whether a change is read by patching the tree (see [`patches`]), not by a walk.
    patched: bool,
    mark: Mark,
    nodes: usize,
    /// When it was last used, in observes: the oldest goes first.
    used: u64,
    /// When an agent last observed it.
    observed: Instant,
    /// How often it was read since, between observes.
    reads_unobserved: u32,
}

#[derive(Default)]
pub struct LiveTrees {
    events: tokio::sync::OnceCell<Option<Events>>,
    kept: Mutex<HashMap<u64, Kept>>,
    /// Window → the lock its readings take (see [`LiveTrees::reading`]).
    readings: Mutex<HashMap<u64, Arc<tokio::sync::Mutex<()>>>>,
    clock: AtomicUsize,
    /// Observes answered from a kept tree.
    answered: AtomicUsize,
    /// Kept trees patched, for an observe or between observes.
    patches: AtomicUsize,
}

/// A window's tree as a walk read it.
pub struct WalkedWindow<'a> {
    /// Whether the window's place on the screen was unknown (its extents taken out).
    pub unplaced: bool,
    pub style: WalkStyle,
    /// Its elements that are hyperlinks.
    pub links: &'a HashSet<ObjectRef>,
    pub tree: &'a Tree,
}

impl LiveTrees {
    /// Starts listening on first use; `None` when it cannot, and windows are walked.
    async fn events(&self, atspi: &Atspi) -> Option<&Events> {
        self.events
            .get_or_init(|| Events::start(atspi))
            .await
            .as_ref()
    }

    /// How long ago the events were registered with the applications, once they are.
    pub fn registered_for(&self) -> Option<std::time::Duration> {
        self.events
            .get()
            .and_then(Option::as_ref)
            .map(Events::registered_for)
    }

    /// Observes answered from a kept tree so far.
    pub fn answered(&self) -> usize {
        self.answered.load(Ordering::Relaxed)
    }

    /// Kept trees patched so far, for an observe or between observes.
    pub fn patched(&self) -> usize {
        self.patches.load(Ordering::Relaxed)
    }

    /// `window`'s kept tree, with what changed since it was read read again; `None` when the
    /// window is to be walked whole.
    pub async fn current(
        &self,
        atspi: &Atspi,
        window: &WindowInfo,
        unplaced: bool,
        reader: Reader,
    ) -> Option<Tree> {
        let events = self.events(atspi).await?;
        let (buses, mark, patched) = {
            let kept = self.kept.lock().expect("not poisoned");
            let kept = kept.get(&window.handle)?;
            if kept.window != *window || kept.unplaced != unplaced {
                return None;
            }
            (kept.buses.clone(), kept.mark, kept.patched)
        };
        let since = events.changes_since(atspi, &buses, mark.0).await?;
        if !patched && !since.silent {
            return None;
        }
        if since.changes.is_empty() {
            let tick = self.tick();
            let mut kept = self.kept.lock().expect("not poisoned");
            let kept = kept.get_mut(&window.handle)?;
            // Kept again by a walk while the applications were asked: that tree's applications
            // were not the ones asked.
            if kept.mark.0 != mark.0 {
                return None;
            }
            self.used_by(kept, tick, reader);
            return Some(Tree::clone(&kept.tree));
        }
        let (tree, style, links) = {
            let kept = self.kept.lock().expect("not poisoned");
            let kept = kept.get(&window.handle)?;
            if kept.mark.0 != mark.0 {
                return None;
            }
            (Arc::clone(&kept.tree), kept.style, Arc::clone(&kept.links))
        };
        let kept = patch::Kept {
            tree: &tree,
            style,
            links: &links,
            unplaced,
        };
        let Some(patched) = patch::patch(atspi, kept, &since.changes).await else {
            self.forget(window);
            return None;
        };
        let tick = self.tick();
        let mut kept = self.kept.lock().expect("not poisoned");
        // Kept again by a walk meanwhile: that tree stays, and this one is as true now.
        if let Some(entry) = kept.get_mut(&window.handle)
            && entry.mark.0 == mark.0
        {
            entry.tree = Arc::new(patched.tree.clone());
            entry.links = Arc::new(patched.links);
            entry.nodes = patched.nodes;
            entry.mark = Mark(since.mark);
            self.used_by(entry, tick, reader);
            if patched.nodes > MAX_NODES_PER_APP {
                kept.remove(&window.handle);
            } else {
                within_caps(&mut kept, window.handle);
            }
        } else if reader == Reader::Agent {
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
        self.patches.fetch_add(1, Ordering::Relaxed);
        Some(patched.tree)
    }

    /// Notes a use of a kept tree: an agent's observe is answered, and the tree is wanted
    /// between observes again.
    fn used_by(&self, kept: &mut Kept, tick: u64, reader: Reader) {
        if reader == Reader::Agent {
            kept.used = tick;
            kept.observed = Instant::now();
            kept.reads_unobserved = 0;
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Taken before a walk: only events after it make its tree stale.
    pub async fn mark(&self, atspi: &Atspi) -> Option<Mark> {
        self.events(atspi).await.map(|events| Mark(events.mark()))
    }

    /// Keeps a walked tree of `window`, if its toolkits send their changes and it is whole. A
    /// walk between observes keeps a tree only in place of one kept before.
    pub fn keep(
        &self,
        atspi: &Atspi,
        window: &WindowInfo,
        walked: WalkedWindow<'_>,
        (mark, reader): (Mark, Reader),
    ) {
        let tree = walked.tree;
        if tree.partial.is_some() {
            self.forget(window);
            return;
        }
        let mut buses = Vec::new();
        let nodes = buses_of(&tree.root, &mut buses);
        let known = atspi.apps.lock().expect("not poisoned").clone();
        let mirrored = !buses.is_empty()
            && buses
                .iter()
                .all(|bus| known.get(bus).is_some_and(sends_every_change))
            && !has_silent_views(&tree.root, &known);
        if !mirrored || nodes > MAX_NODES_PER_APP {
            self.forget(window);
            return;
        }
        let patched = buses.len() == 1 && known.get(&buses[0]).is_some_and(patches);
        let mut used = self.tick();
        let mut observed = Instant::now();
        let mut reads_unobserved = 0;
        let mut kept = self.kept.lock().expect("not poisoned");
        if reader == Reader::Between {
            let Some(before) = kept.get(&window.handle) else {
                return;
            };
            (used, observed, reads_unobserved) =
                (before.used, before.observed, before.reads_unobserved);
        }
        kept.insert(
            window.handle,
            Kept {
                window: window.clone(),
                unplaced: walked.unplaced,
                tree: Arc::new(tree.clone()),
                style: walked.style,
                links: Arc::new(walked.links.clone()),
                buses,
                patched,
                mark,
                nodes,
                used,
                observed,
                reads_unobserved,
            },
        );
        within_caps(&mut kept, window.handle);
    }

    /// Drops `window`'s kept tree.
    pub fn forget(&self, window: &WindowInfo) {
        self.kept
            .lock()
            .expect("not poisoned")
            .remove(&window.handle);
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) as u64
    }
}

/// Whether an application's toolkit sends an event for every change an observation shows. The
/// property test (`tests/live_tree.rs`) holds each listed one to it on real apps: GTK 3 (through
/// at-spi2-atk), GTK 4 and Qt (but for its item views and open menus: [`has_silent_views`]). Others (Gecko, Chromium, LibreOffice, WebKitGTK's web process,
/// GTK 2) are walked at every observe until a test holds them to it too.
fn sends_every_change(app: &Application) -> bool {
    let major = app.toolkit_version.split('.').next().unwrap_or_default();
    match app.toolkit.to_ascii_lowercase().as_str() {
        "gtk" => matches!(major, "3" | "4"),
        "qt" => matches!(major, "5" | "6"),
        _ => false,
    }
}

/// Whether an application's events name every element a change touches, so a changed window
/// is read by patching its kept tree. The property test holds GTK 3 (through at-spi2-atk) to
/// it. Patched, GTK 4.8 and Qt 5 failed it: GTK 4 closes a popover without an event that names
/// the element it leaves, and a Qt menu's item stayed focused in the live tree after its menu
/// closed. Their windows are walked whole after any event.
fn patches(app: &Application) -> bool {
    let major = app.toolkit_version.split('.').next().unwrap_or_default();
    app.toolkit.eq_ignore_ascii_case("gtk") && major == "3"
}

/// Whether the tree shows an item view or an open menu of Qt's: Qt sends no event when a
/// list's rows are rewritten in place or added (its item views' model changes reach no
/// accessibility event), nor when the pointer leaves a menu's highlighted item (which it marks
/// focused), so a Qt window that shows a list, table, tree or menu is walked at every observe.
/// A hidden one is not read, and Qt says when it shows.
fn has_silent_views(node: &Node, apps: &HashMap<String, Application>) -> bool {
    let silent = node.states.visible
        && matches!(
            node.role,
            Role::List
                | Role::Listitem
                | Role::Table
                | Role::Row
                | Role::Cell
                | Role::Header
                | Role::Tree
                | Role::Treeitem
                | Role::Menu
        );
    let of_qt = || {
        ObjectRef::from_handle(&node.handle)
            .and_then(|object| apps.get(&object.bus))
            .is_some_and(|app| app.toolkit.eq_ignore_ascii_case("qt"))
    };
    (silent && of_qt())
        || node
            .children
            .iter()
            .any(|child| has_silent_views(child, apps))
}

/// The bus names `node`'s elements belong to, the root's first, and how many elements it has.
fn buses_of(node: &Node, buses: &mut Vec<String>) -> usize {
    if let Some(object) = ObjectRef::from_handle(&node.handle)
        && !buses.contains(&object.bus)
    {
        buses.push(object.bus);
    }
    1 + node
        .children
        .iter()
        .map(|child| buses_of(child, buses))
        .sum::<usize>()
}

/// Drops the windows used longest ago until every application is within
/// [`MAX_NODES_PER_APP`] and all within [`MAX_WINDOWS`], never `newest`.
fn within_caps(kept: &mut HashMap<u64, Kept>, newest: u64) {
    loop {
        let mut per_app: HashMap<&str, usize> = HashMap::new();
        for entry in kept.values() {
            *per_app.entry(entry.buses[0].as_str()).or_default() += entry.nodes;
        }
        let over: Vec<String> = per_app
            .into_iter()
            .filter(|(_, nodes)| *nodes > MAX_NODES_PER_APP)
            .map(|(bus, _)| bus.to_owned())
            .collect();
        let oldest = kept
            .iter()
            .filter(|(handle, entry)| {
                **handle != newest && (kept.len() > MAX_WINDOWS || over.contains(&entry.buses[0]))
            })
            .min_by_key(|(_, entry)| entry.used)
            .map(|(handle, _)| *handle);
        match oldest {
            Some(handle) => {
                kept.remove(&handle);
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests;
