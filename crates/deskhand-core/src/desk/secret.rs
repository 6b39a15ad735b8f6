//! Whether text goes into a password field, decided at the moment it is typed from the element
//! that has the focus then, however the field was reached (a ref, a `find`, a click by point,
//! no place at all): a recording must not keep that text.

use crate::backend::{Accessibility, Windows};
use crate::model::{Node, Role, WindowInfo};
use crate::session::{RefEntry, Session};

/// Whether the focused element of `window` (else of the focused window) is a password field,
/// asked only while a recorder watches (nothing else keeps typed text). Where the focused
/// element cannot be read, the text is taken for a secret when the latest element clicked was a
/// password field.
pub(crate) async fn focus_is_password<B: Windows + Accessibility>(
    backend: &B,
    session: &Session,
    window: Option<&WindowInfo>,
) -> bool {
    if !session.watch_secrets {
        return false;
    }
    let window = match window {
        Some(window) => Some(window.clone()),
        None => backend
            .windows()
            .await
            .ok()
            .and_then(|windows| windows.into_iter().find(|w| w.focused)),
    };
    let Some(window) = window else {
        return session.clicked_password;
    };
    // The fields the latest observation listed are asked first, passwords first, cheaply;
    // reading a whole tree costs an app tenths of seconds.
    let mut fields: Vec<&RefEntry> = session
        .latest
        .iter()
        .flat_map(|latest| latest.refs.values())
        .filter(|entry| entry.window == window.key() && TAKES_TEXT.contains(&entry.role))
        .collect();
    fields.sort_by_key(|entry| entry.role != Role::Password);
    for entry in fields {
        if backend
            .element_focused(&entry.handle)
            .await
            .unwrap_or(false)
        {
            return entry.role == Role::Password;
        }
    }
    // The focus is on a field the observation did not list (a dialog since, a field revealed):
    // only the whole tree says what it is.
    let focused = backend
        .tree(&window)
        .await
        .ok()
        .and_then(|tree| focused_role(&tree.root));
    match focused {
        Some(role) => role == Role::Password,
        None => session.clicked_password,
    }
}

/// Where typed text goes: the fields whose focus is asked before a tree is read. Not a
/// document: the focus "within" a web page may be on a password field inside it.
const TAKES_TEXT: [Role; 5] = [
    Role::Password,
    Role::Text,
    Role::Terminal,
    Role::Combobox,
    Role::Spin,
];

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
