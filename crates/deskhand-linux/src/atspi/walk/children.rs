//! What of an element's children a walk reads: of a long list only those that show, and of an
//! element that creates its children on demand only the few it has, or a table's visible cells.

use std::sync::atomic::Ordering;

use super::super::*;
use super::{CellsOnDemand, Walk, described};
use crate::atspi::cells::{MAX_VISIBLE_CELLS, Place};

impl Walk<'_> {
    /// A long list of children (a page's paragraphs, a list's items) narrowed to those that
    /// show, in one call where the application offers it: the others are counted in the
    /// `partial` note, not asked one by one.
    pub(super) async fn showing_only(
        &self,
        object: &ObjectRef,
        role: u32,
        name: &str,
        interfaces: &[String],
        children: Vec<ObjectRef>,
    ) -> Vec<ObjectRef> {
        if children.len() <= MANY_CHILDREN || !self.style.showing_reliable {
            return children;
        }
        // Where the cache holds every child's states, no call is needed.
        let cached: Option<Vec<ObjectRef>> = children
            .iter()
            .map(|child| {
                let item = self.snapshot.items.get(child)?;
                let showing = translate::state_set(&item.states).contains(atspi::State::Showing);
                Some(showing.then(|| child.clone()))
            })
            .collect::<Option<Vec<_>>>()
            .map(|children| children.into_iter().flatten().collect());
        let showing = match cached {
            Some(showing) => showing,
            None if interfaces.iter().any(|i| i == COLLECTION) => {
                self.narrowed.store(true, Ordering::Relaxed);
                match self.answered(self.atspi.showing_children(object).await) {
                    Some(showing) => showing,
                    None => return children,
                }
            }
            None => return children,
        };
        let others = children.len().saturating_sub(showing.len());
        if others > 0 {
            self.managed.lock().expect("not poisoned").push(format!(
                "{} shows {} of its {} children; the other {} (off screen or hidden) were not read: scroll to bring them into view",
                described(role, name),
                deskhand_core::render::thousands(showing.len()),
                deskhand_core::render::thousands(children.len()),
                deskhand_core::render::thousands(others),
            ));
        }
        showing
    }

    /// The children of an element that creates them on demand: all of them when there are
    /// few (a text document's visible paragraphs), else a table's visible cells, else none;
    /// what is left out is said in the tree's `partial` note (for a table, once its cells are
    /// read: see `CellsOnDemand`).
    pub(super) async fn managed_children(
        &self,
        object: &ObjectRef,
        role: u32,
        name: &str,
        cached_count: Option<i32>,
        interfaces: &[String],
    ) -> (Vec<ObjectRef>, Option<CellsOnDemand>) {
        let a = self.atspi;
        let count = match cached_count.filter(|count| *count >= 0) {
            Some(count) => Some(i64::from(count)),
            None => self.answered(a.child_count(object).await),
        };
        if count.is_some_and(|count| count <= FEW_MANAGED_CHILDREN) {
            return (
                self.answered(a.children(object).await).unwrap_or_default(),
                None,
            );
        }
        let what = described(role, name);
        if interfaces.iter().any(|i| i == TABLE)
            && let Some(visible) = self.answered(a.visible_cells(object, MAX_VISIBLE_CELLS).await)
        {
            let places = visible.named_anew.then(|| {
                visible
                    .headers
                    .iter()
                    .map(|(_, column)| Place::Header { column: *column })
                    .chain(visible.cells.iter().map(|cell| Place::Cell {
                        row: cell.row,
                        column: cell.column,
                    }))
                    .collect()
            });
            let cells = CellsOnDemand {
                what,
                read: visible.cells.len(),
                total: visible.total,
                places,
            };
            self.sheet_cells.lock().expect("not poisoned").extend(
                visible
                    .cells
                    .iter()
                    .map(|cell| (cell.object.clone(), cell.name.clone())),
            );
            let objects = visible
                .headers
                .into_iter()
                .map(|(header, _)| header)
                .chain(visible.cells.into_iter().map(|cell| cell.object))
                .collect();
            return (objects, Some(cells));
        }
        self.managed.lock().expect("not poisoned").push(format!(
            "{what} creates its {} children on demand, so they were not read",
            count.map_or_else(|| "unknown number of".to_string(), |c| c.to_string())
        ));
        (Vec::new(), None)
    }
}

pub(in crate::atspi) fn manages_descendants(states: &[u32]) -> bool {
    translate::state_set(states).contains(atspi::State::ManagesDescendants)
}

/// An element that manages its descendants with at most this many children lists them all
/// (Writer's document: its visible paragraphs).
const FEW_MANAGED_CHILDREN: i64 = 256;

/// An element with more children than this keeps only those that show (a long page, a long
/// list); fewer are each asked, as cheaply as one `GetMatches` would be.
const MANY_CHILDREN: usize = 200;
