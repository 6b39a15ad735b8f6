//! `select`: a menu path walked level by level, each level opened and checked before the next,
//! and everything it opened closed again when it fails.

use std::time::{Duration, Instant};

use crate::backend::{Accessibility, Input, Windows};
use crate::desk::answer::words::menu_path;
use crate::desk::reply::element_failure;
use crate::error::{Error, ErrorKind, Result};
use crate::keys::{Chord, Key, Keys};
use crate::model::{ElementHandle, Node, Role};
use crate::render::click_action;

use super::named::*;

/// How long an opened menu has to show the next level's items.
pub(crate) const MENU_OPEN_TIMEOUT: Duration = Duration::from_secs(2);

pub(crate) const POLL: Duration = Duration::from_millis(60);

/// Runs an element's own click action; fails closed when it has none.
pub(crate) async fn invoke<B: Accessibility>(backend: &B, node: &Node, what: &str) -> Result<()> {
    run_action(backend, node, what, &click_action).await
}

/// The menu bar entries named `name`: when the nearest is one that offers no way to open it,
/// any shown same-named entry anywhere in the window that does (LibreOffice lists a second,
/// inert menu bar above its real one).
pub(crate) async fn top_menus<'t, B: Accessibility>(
    backend: &B,
    window: &'t Node,
    name: &str,
    nearest: Vec<&'t Node>,
) -> Vec<&'t Node> {
    let opens = |names: &[String]| menu_opener(Role::Menu, names).is_some();
    if let [only] = nearest.as_slice()
        && let Ok(names) = backend.action_names(&only.handle).await
        && !opens(&names)
    {
        let shown_entry = |n: &Node| is_menu_entry(n) && n.states.visible;
        for other in named_inside(window, name, &shown_entry) {
            if other.handle != only.handle
                && let Ok(names) = backend.action_names(&other.handle).await
                && opens(&names)
            {
                return vec![other];
            }
        }
    }
    nearest
}

/// The action that opens a menu: its click action, else the `ShowMenu` a Qt menu bar offers.
pub(crate) fn menu_opener(role: Role, names: &[String]) -> Option<usize> {
    click_action(role, names).or_else(|| {
        names
            .iter()
            .position(|n| n.eq_ignore_ascii_case("showmenu"))
    })
}

/// Opens a menu through [`menu_opener`]'s action.
pub(crate) async fn open_menu<B: Accessibility>(
    backend: &B,
    node: &Node,
    what: &str,
) -> Result<()> {
    run_action(backend, node, what, &menu_opener).await
}

/// Runs the action `pick` chooses on the element, else on the first same-named element inside
/// it that has one: GTK4 wraps a menu button's inner button, which alone acts, in an outer
/// one of the same name.
pub(crate) async fn run_action<B: Accessibility>(
    backend: &B,
    node: &Node,
    what: &str,
    pick: &(dyn Fn(Role, &[String]) -> Option<usize> + Sync),
) -> Result<()> {
    let mut same_named = vec![node];
    same_named.extend(named_inside(node, &node.name, &|_| true));
    let mut offered = Vec::new();
    for candidate in same_named {
        let names = backend
            .action_names(&candidate.handle)
            .await
            .map_err(|err| element_failure(err, &format!("{what} could not be read")))?;
        if let Some(index) = pick(candidate.role, &names) {
            return backend
                .do_action(&candidate.handle, index)
                .await
                .map_err(|err| element_failure(err, &format!("{what} could not be invoked")));
        }
        offered.extend(names);
    }
    Err(Error::new(
        ErrorKind::Unsupported,
        format!(
            "{what} has no accessibility action to invoke it (it offers: {}); click it by ref with the pointer instead",
            if offered.is_empty() {
                "none".to_string()
            } else {
                offered.join(", ")
            }
        ),
    ))
}

/// Opens, top down, each walked menu level not opened yet, reading the tree again after each:
/// a toolkit may list a menu's items only once the menu and every menu above it are open.
pub(crate) async fn open_levels<B: Accessibility + Input>(
    backend: &B,
    window: &crate::model::WindowInfo,
    tree: &mut crate::model::Tree,
    levels: &mut [(ElementHandle, bool)],
    walked: &[String],
) -> Result<()> {
    for index in 0..levels.len() {
        if levels[index].1 {
            continue;
        }
        let Some(node) = tree.root.find(&levels[index].0) else {
            break;
        };
        let shown = node.bounds.filter(|b| node.states.visible && !b.is_empty());
        let before = shown_handles(&tree.root);
        // A menu without an action of its own (one of LibreOffice's two menu bars) opens
        // with the pointer, as a person would open it.
        match open_menu(backend, node, &menu_path(&walked[..=index])).await {
            Err(err) if err.kind == ErrorKind::Unsupported && !err.sent && shown.is_some() => {}
            opened => opened?,
        }
        levels[index].1 = true;
        let asked = Instant::now();
        let opened = loop {
            tokio::time::sleep(POLL).await;
            *tree = backend.tree(window).await?;
            let opened = shown_handles(&tree.root)
                .iter()
                .any(|handle| !before.contains(handle));
            if opened || asked.elapsed() >= OPEN_BY_ACTION_WAIT {
                break opened;
            }
        };
        // Firefox's menu buttons take their "press" action and open nothing; a person clicks.
        if let Some(bounds) = shown
            && !opened
        {
            backend
                .click(bounds.center(), crate::model::MouseButton::Left, 1, &[])
                .await?;
            tokio::time::sleep(POLL).await;
            *tree = backend.tree(window).await?;
        }
    }
    Ok(())
}

/// How long a menu opened through its action may take to show before the pointer opens it.
pub(crate) const OPEN_BY_ACTION_WAIT: Duration = Duration::from_millis(700);

/// The elements of a tree that show on screen.
pub(crate) fn shown_handles(root: &Node) -> std::collections::HashSet<ElementHandle> {
    fn collect(node: &Node, into: &mut std::collections::HashSet<ElementHandle>) {
        if node.states.visible {
            into.insert(node.handle.clone());
            for child in &node.children {
                collect(child, into);
            }
        }
    }
    let mut shown = std::collections::HashSet::new();
    collect(root, &mut shown);
    shown
}

/// Selects a menu item with the pointer, opening the menus above it first: in a toolkit that
/// runs an accessibility action inside the request (GTK3, LibreOffice), an item that opens a
/// modal dialog would keep the app from answering until the dialog closed. Opening a menu is
/// safe that way; the item itself is clicked where it shows.
pub(crate) async fn click_open_item<B: Windows + Accessibility + Input>(
    backend: &B,
    window: &crate::model::WindowInfo,
    tree: &mut crate::model::Tree,
    levels: &mut [(ElementHandle, bool)],
    item: &Node,
    walked: &[String],
) -> Result<()> {
    open_levels(backend, window, tree, levels, walked).await?;
    let started = Instant::now();
    loop {
        let shown = tree
            .root
            .find(&item.handle)
            .filter(|node| node.states.visible)
            .and_then(|node| node.bounds)
            .filter(|bounds| !bounds.is_empty());
        if let Some(bounds) = shown {
            return backend
                .click(bounds.center(), crate::model::MouseButton::Left, 1, &[])
                .await;
        }
        if started.elapsed() >= MENU_OPEN_TIMEOUT {
            let closed = close_opened(backend, window, levels).await;
            return Err(Error::new(
                ErrorKind::Platform,
                format!(
                    "{} did not show on screen once its menu was opened, so it was not clicked; nothing was selected{closed}",
                    menu_path(walked)
                ),
            ));
        }
        tokio::time::sleep(POLL).await;
        *tree = backend.tree(window).await?;
    }
}

/// Closes, deepest first, each menu `select` opened that still shows its items (Escape goes
/// to the open menu, which holds the keyboard); says what it left, for a failure's message.
pub(crate) async fn close_opened<B: Windows + Accessibility + Input>(
    backend: &B,
    window: &crate::model::WindowInfo,
    levels: &[(ElementHandle, bool)],
) -> &'static str {
    let opened: Vec<&ElementHandle> = levels
        .iter()
        .filter(|(_, opened)| *opened)
        .map(|(handle, _)| handle)
        .rev()
        .collect();
    if opened.is_empty() {
        return "";
    }
    for handle in opened {
        let Ok(tree) = backend.tree(window).await else {
            return " (a menu it opened may still be open: press Escape)";
        };
        let showing = tree
            .root
            .find(handle)
            .is_some_and(|menu| menu.children.iter().any(|item| item.states.visible));
        let focused = matches!(backend.window(window.handle).await, Ok(Some(w)) if w.focused);
        if showing && (!focused || backend.press_keys(&escape_key()).await.is_err()) {
            return " (a menu it opened may still be open: press Escape)";
        }
    }
    " (the menus it opened were closed again)"
}

/// Closes what a menu or list opened, as a user backs out of one.
pub(crate) fn escape_key() -> Keys {
    Keys::from(Chord::key(Key::Escape))
}
