//! Whether text goes into a password field, decided at the moment it is typed from the element
//! that has the focus then, however the field was reached (a ref, a `find`, a click by point,
//! no place at all): a recording must not keep that text.

use crate::backend::{Accessibility, Windows};
use crate::model::{Node, Role, WindowInfo};
use crate::session::Session;

/// Whether the focused element of `window` (else of the focused window) is a password field.
/// Where no element says it has the focus, or the tree cannot be read, the text is taken for a
/// secret when the latest element clicked was a password field.
pub(crate) async fn focus_is_password<B: Windows + Accessibility>(
    backend: &B,
    session: &Session,
    window: Option<&WindowInfo>,
) -> bool {
    let window = match window {
        Some(window) => Some(window.clone()),
        None => backend
            .windows()
            .await
            .ok()
            .and_then(|windows| windows.into_iter().find(|w| w.focused)),
    };
    let focused = match &window {
        Some(window) => backend
            .tree(window)
            .await
            .ok()
            .and_then(|tree| focused_role(&tree.root)),
        None => None,
    };
    match focused {
        Some(role) => role == Role::Password,
        None => session.clicked_password,
    }
}

/// The role of the deepest element that says it has the keyboard focus.
fn focused_role(node: &Node) -> Option<Role> {
    node.children
        .iter()
        .find_map(focused_role)
        .or_else(|| node.states.focused.then_some(node.role))
}

/// Marks `field` secret when the text went into a password field.
pub(crate) fn mark_if(session: &mut Session, secret: bool, field: &str) {
    if secret {
        session.mark_secret(field);
    }
}
