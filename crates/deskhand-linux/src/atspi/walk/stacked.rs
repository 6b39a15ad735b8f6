//! GTK 4.8 keeps a stack's page it no longer shows at its last size and place, which is where
//! the page that shows now is: neither states nor extents tell them apart. Its hit test does:
//! a widget that is not mapped contains no point.

use deskhand_core::model::{Node, Rect};
use futures::future::join_all;

use super::super::*;
use super::Walk;

/// Siblings are compared two by two; a container of more is a list, not a stack.
const MAX_STACKED: usize = 64;

impl Walk<'_> {
    /// Hides each of `children` whose place overlaps a sibling's and whose first element with
    /// extents does not contain its own centre: a page of a stack, or of a notebook, that
    /// does not show. Only where the toolkit's `Showing` cannot be trusted (GTK 4), and only
    /// for siblings that overlap, so a window without a stack or an overlay costs no call.
    pub(super) async fn hide_pages_not_shown(&self, children: &mut [(usize, Node, bool)]) {
        if self.style.showing_reliable {
            return;
        }
        // Each child's place is read once: hiding one below leaves it without a place, as
        // it had none.
        let places: Vec<Option<Rect>> =
            children.iter().map(|(_, node, _)| place_of(node)).collect();
        // GTK 4's page objects (a stack's, a notebook's: a named `generic`) have no place of
        // their own: one shows where what it holds does. A page whose content the check below
        // hid at its own level, or an empty page, shows nothing.
        for ((_, node, _), place) in children.iter_mut().zip(&places) {
            if node.bounds.is_none() && !node.children.is_empty() && place.is_none() {
                hide(node);
            }
        }
        if !(2..=MAX_STACKED).contains(&children.len()) {
            return;
        }
        let overlapping: Vec<usize> = (0..children.len())
            .filter(|&at| {
                places[at].is_some_and(|place| {
                    places.iter().enumerate().any(|(other, them)| {
                        other != at && them.is_some_and(|t| place.intersect(&t).is_some())
                    })
                })
            })
            .collect();
        if overlapping.is_empty() {
            return;
        }
        let (dx, dy) = self.style.offset;
        let scale = self.style.scale;
        let asks = overlapping.iter().map(|&at| {
            // The first element in it with extents: a stack's page may have no place of its
            // own to ask (GTK 4 puts one between the stack and the page's widget).
            let first = first_placed(&children[at].1);
            let object = first.and_then(|node| ObjectRef::from_handle(&node.handle));
            // Its centre, in the toolkit's coordinates, as it gave its extents.
            let point = first.and_then(|node| node.bounds).map(|b| {
                let x = (f64::from(b.x - dx) + f64::from(b.width) / 2.0) / scale;
                let y = (f64::from(b.y - dy) + f64::from(b.height) / 2.0) / scale;
                (x.round() as i32, y.round() as i32)
            });
            async move {
                let (object, (x, y)) = (object?, point?);
                self.answered(
                    self.atspi
                        .call::<_, bool>(&object, COMPONENT, "Contains", &(x, y, COORD_SCREEN))
                        .await,
                )
            }
        });
        let answers = join_all(asks).await;
        for (at, contains) in overlapping.into_iter().zip(answers) {
            if contains == Some(false) {
                hide(&mut children[at].1);
            }
        }
    }
}

/// Hidden, and only counted: a hidden element's subtree is never read.
fn hide(node: &mut Node) {
    node.states.visible = false;
    node.children.clear();
}

/// Where an element shows: its extents, or for a layout wrapper (whose extents are not asked)
/// the box around what it holds that shows.
fn place_of(node: &Node) -> Option<Rect> {
    if !node.states.visible {
        return None;
    }
    node.bounds
        .or_else(|| node.children.iter().filter_map(place_of).reduce(around))
}

/// The element, or the first element in it, that has extents.
fn first_placed(node: &Node) -> Option<&Node> {
    if !node.states.visible {
        return None;
    }
    if node.bounds.is_some() {
        return Some(node);
    }
    node.children.iter().find_map(first_placed)
}

/// The smallest rectangle around both.
fn around(a: Rect, b: Rect) -> Rect {
    let right = (i64::from(a.x) + i64::from(a.width)).max(i64::from(b.x) + i64::from(b.width));
    let bottom = (i64::from(a.y) + i64::from(a.height)).max(i64::from(b.y) + i64::from(b.height));
    let (x, y) = (a.x.min(b.x), a.y.min(b.y));
    let length = |from: i32, to: i64| u32::try_from(to - i64::from(from)).unwrap_or(u32::MAX);
    Rect::new(x, y, length(x, right), length(y, bottom))
}

#[cfg(test)]
mod tests {
    use deskhand_core::model::{ElementHandle, Role, States};

    use super::*;

    fn shown(path: &str, bounds: Option<Rect>, children: Vec<Node>) -> Node {
        Node {
            handle: ElementHandle(format!(":1.5|/{path}")),
            role: Role::Generic,
            name: String::new(),
            value: None,
            states: States {
                visible: true,
                ..States::default()
            },
            bounds,
            actions: Vec::new(),
            children,
        }
    }

    #[test]
    fn a_page_without_a_place_of_its_own_is_where_what_shows_in_it_is() {
        let button = shown("b", Some(Rect::new(10, 20, 30, 10)), vec![]);
        let label = shown("l", Some(Rect::new(50, 5, 10, 10)), vec![]);
        let mut hidden = shown("h", Some(Rect::new(500, 500, 10, 10)), vec![]);
        hidden.states.visible = false;
        let page = shown(
            "p",
            None,
            vec![shown("w", None, vec![button, hidden]), label],
        );
        assert_eq!(place_of(&page), Some(Rect::new(10, 5, 50, 25)));
        assert_eq!(
            first_placed(&page).map(|n| n.handle.0.as_str()),
            Some(":1.5|/b")
        );
    }

    #[test]
    fn a_page_where_nothing_shows_has_no_place() {
        let mut hidden = shown("h", Some(Rect::new(0, 0, 10, 10)), vec![]);
        hidden.states.visible = false;
        let page = shown("p", None, vec![shown("w", None, vec![]), hidden]);
        assert_eq!(place_of(&page), None);
        assert!(first_placed(&page).is_none());
    }

    #[test]
    fn the_place_around_two_holds_both() {
        let a = Rect::new(-5, 10, 10, 10);
        let b = Rect::new(20, 0, 5, 5);
        assert_eq!(around(a, b), Rect::new(-5, 0, 30, 20));
        assert_eq!(around(b, a), around(a, b));
    }
}
