//! A subtree read again by the walk's own code, taking a kept tree's unchanged parts as they
//! are: how a live tree is patched (see `atspi::live`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use deskhand_core::model::Node;

use super::super::cache::Snapshot;
use super::super::{Atspi, AtspiError, ObjectRef, WalkLimits, WalkStyle};
use super::Walk;

impl Atspi {
    /// `object`'s subtree read again, taking each element found in `reuse` as it is there
    /// instead of reading it: a kept tree's unchanged parts. `None` when what it read would
    /// make the window's tree partial (a note, a cut, an element that did not answer), or
    /// when an element's children were narrowed to those that show, which a walk decides from
    /// the application's cache: then the window is walked whole.
    pub(in crate::atspi) async fn rewalk(
        &self,
        object: &ObjectRef,
        is_root: bool,
        style: WalkStyle,
        reuse: Reuse<'_>,
    ) -> Result<Option<Rewalked>, AtspiError> {
        let style = WalkStyle {
            use_cache: false,
            ..style
        };
        let walk = Walk::new(
            self,
            Snapshot::default(),
            style,
            WalkLimits::default(),
            &object.bus,
            reuse,
        );
        walk.reserve(1);
        let (root, _) = walk.node(object.clone(), is_root).await?;
        let whole = walk.unanswered.load(Ordering::Relaxed) == 0
            && !walk.cut.load(Ordering::Relaxed)
            && walk.failed.load(Ordering::Relaxed) == 0
            && walk.paragraphs_off_screen.load(Ordering::Relaxed) == 0
            && !walk.narrowed.load(Ordering::Relaxed)
            && walk.managed.lock().expect("not poisoned").is_empty();
        Ok(whole.then(|| Rewalked {
            root,
            links: walk.links.into_inner().expect("not poisoned"),
        }))
    }
}

/// What a walk may take from a kept tree instead of reading it.
#[derive(Default)]
pub(in crate::atspi) struct Reuse<'a> {
    /// Elements with nothing changed in them (what changed under them is read again).
    pub unchanged: Option<&'a HashMap<ObjectRef, &'a Node>>,
    /// The elements of the kept tree that are hyperlinks (their words stand in their parent's
    /// text).
    pub links: Option<&'a HashSet<ObjectRef>>,
}

/// A subtree read again.
pub(in crate::atspi) struct Rewalked {
    pub root: Node,
    /// The hyperlinks it read.
    pub links: HashSet<ObjectRef>,
}

/// How many elements `node` holds, itself included.
pub(in crate::atspi) fn count_nodes(node: &Node) -> usize {
    1 + node.children.iter().map(count_nodes).sum::<usize>()
}
