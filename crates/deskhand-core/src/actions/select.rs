//! `select`: picks a menu item by its path from the menu bar down.

use std::time::Instant;

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Given, Kept, MAX_MENU_DEPTH, Reaches,
};
use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::desk::answer::words::menu_path;
use crate::desk::answer::{Acted, Did};
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::{Error, ErrorKind, Result};
use crate::memory::Step;
use crate::model::{ElementHandle, Node};
use crate::render::escape;
use crate::session::Session;
use crate::values::menu::*;
use crate::values::named::*;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Select,
    text: "select",
    fields: &["target", "path"],
    changes: Changes::Desktop,
    reaches: Reaches::Surface,
    keeps: &[Kept::Detail],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let path = given.args.path.clone().unwrap_or_default();
    if path.is_empty() || path.len() > MAX_MENU_DEPTH {
        return Err(Error::bad_argument(format!(
            "`select` needs `path`: 1–{MAX_MENU_DEPTH} menu item names from the menu bar down, e.g. [\"File\", \"Save As…\"]"
        )));
    }
    if let Some(i) = path.iter().position(|p| p.trim().is_empty()) {
        return Err(Error::bad_argument(format!(
            "`path[{i}]` is empty; give each menu item's name as observe shows it"
        )));
    }
    Ok(Action::Select { path })
}

pub(crate) async fn select<B: Windows + Accessibility + Input + Capture>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
    path: &[String],
) -> Result<Reply> {
    let surface = reach.surface(backend, session).await?;
    let window = surface.window.clone().ok_or_else(|| {
        Error::bad_argument(
            "`select` needs a window: give `target` \"wN\" (menus belong to windows)",
        )
    })?;
    let label = surface.label.clone();
    // A popover or menu of a window without the focus closes as soon as it opens (GTK4), and
    // the Escape that closes what select opened must reach this window.
    crate::desk::focus::ensure_focused(backend, &window).await?;
    let in_request = backend.actions_run_in_request(&window).await;
    crate::learn::before(backend, config, session, &window).await;
    let mut tree = backend.tree(&window).await?;
    // The element the next segment is looked for under; the window's root at first.
    let mut scope = tree.root.handle.clone();
    let mut walked: Vec<String> = Vec::new();
    // The items walked so far, and whether each was opened: a toolkit may list a menu's items
    // only once the menu and every menu above it are open.
    let mut levels: Vec<(ElementHandle, bool)> = Vec::new();
    // What showed before anything was opened: a menu may open away from its button (Firefox's
    // application menu is a panel elsewhere in the window), and then its items are what shows
    // that did not before.
    let shown_before = shown_handles(&tree.root);
    for (level, segment) in path.iter().enumerate() {
        let last = level + 1 == path.len();
        let started = Instant::now();
        let item = loop {
            let scope_node = tree.root.find(&scope).ok_or_else(|| {
                Error::new(
                    ErrorKind::ElementGone,
                    format!(
                        "the menu {} closed or went away while selecting; observe {label} and try again",
                        menu_path(&walked)
                    ),
                )
            })?;
            let mut hits = nearest_named(scope_node, segment, &is_menu_entry);
            if level == 0 {
                hits = top_menus(backend, scope_node, segment, hits).await;
            }
            if !hits.iter().any(|n| n.states.visible) && levels.iter().any(|(_, opened)| *opened) {
                let newly_shown = |n: &Node| {
                    is_menu_entry(n) && n.states.visible && !shown_before.contains(&n.handle)
                };
                let elsewhere = nearest_named(&tree.root, segment, &newly_shown);
                if !elsewhere.is_empty() {
                    hits = elsewhere;
                }
            }
            // An app updates its items when their menu opens: a closed menu's disabled item
            // may be enabled by then (Copy once there is a selection).
            let stale = level > 0 && levels.iter().any(|(_, opened)| !opened);
            let waited_out = started.elapsed() >= MENU_OPEN_TIMEOUT;
            match hits.as_slice() {
                [item] if item.states.enabled || !stale || waited_out => break (*item).clone(),
                [_] | [] if level > 0 && !waited_out => {
                    open_levels(backend, &window, &mut tree, &mut levels, &walked).await?;
                    tokio::time::sleep(POLL).await;
                    tree = backend.tree(&window).await?;
                }
                [] => {
                    let closed = close_opened(backend, &window, &levels).await;
                    return Err(Error::new(
                        ErrorKind::NotFound,
                        format!(
                            "{} has no item \"{}\"; the items there: {}; nothing was selected{}",
                            if level == 0 {
                                label.clone()
                            } else {
                                menu_path(&walked)
                            },
                            escape(segment),
                            choices(scope_node, &is_menu_entry),
                            closed
                        ),
                    ));
                }
                [item] => break (*item).clone(),
                many => {
                    let roles: Vec<&str> = many.iter().map(|n| n.role.as_str()).collect();
                    let closed = close_opened(backend, &window, &levels).await;
                    return Err(Error::new(
                        ErrorKind::Ambiguous,
                        format!(
                            "{} has {} items named \"{}\" ({}); nothing was selected; select by ref after observing{}",
                            if level == 0 {
                                label.clone()
                            } else {
                                menu_path(&walked)
                            },
                            many.len(),
                            escape(segment),
                            roles.join(", "),
                            closed
                        ),
                    ));
                }
            }
        };
        walked.push(item.name.trim().to_owned());
        if !item.states.enabled {
            let closed = close_opened(backend, &window, &levels).await;
            return Err(Error::new(
                ErrorKind::Disabled,
                format!(
                    "{} is disabled in its open menu; nothing was selected{closed}",
                    menu_path(&walked),
                ),
            ));
        }
        if last {
            if in_request {
                click_open_item(backend, &window, &mut tree, &mut levels, &item, &walked).await?;
            } else {
                match invoke(backend, &item, &menu_path(&walked)).await {
                    Err(err) if err.sent => {
                        // Qt answers the item only once the modal dialog it opened closes: the
                        // window is the confirmation. Its menu is left alone, as an Escape
                        // would go to the dialog.
                        let Some(opened) =
                            crate::actions::click::windows_opened(backend, session, &window).await
                        else {
                            return Err(err);
                        };
                        crate::learn::acted(config, session, &window, Step::Select(walked.clone()));
                        return Ok(Acted::done(Did::Select {
                            window: label,
                            path: walked,
                            through_pointer: false,
                            opened: Some(opened),
                        })
                        .into());
                    }
                    invoked => invoked?,
                }
                // Qt runs the item yet leaves its menu open, and the open menu takes the next
                // keys.
                tokio::time::sleep(POLL).await;
                close_opened(backend, &window, &levels).await;
            }
        }
        levels.push((item.handle.clone(), false));
        scope = item.handle.clone();
    }
    crate::learn::acted(config, session, &window, Step::Select(walked.clone()));
    Ok(Acted::done(Did::Select {
        window: label,
        path: walked,
        through_pointer: in_request,
        opened: None,
    })
    .into())
}
