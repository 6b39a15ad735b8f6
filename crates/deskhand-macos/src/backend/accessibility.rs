//! The `Accessibility` capability: a window's tree with the app's menu bar, an element's place,
//! actions and focus.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use deskhand_core::backend::Accessibility;
use deskhand_core::model::{ElementHandle, Rect, Tree, WindowInfo};
use deskhand_core::{ErrorKind, Result};

use crate::actions::core_action_name;
use crate::attributes::{AxValue, FrameF};
use crate::display::screen;
use crate::enablement::{Memory, Process, fall_back_to_enhanced};
use crate::errors::{Request, classify};
use crate::handle::{Handle, Step};
use crate::permissions::Permission;
use crate::tree::dump::dump;
use crate::tree::{Limits, NODE_BUDGET, hash_of, read_tree, web_content_pending};
use crate::windows::pick_window;

use super::find::{gone, resolve, window_element};
use super::{MacBackend, ax, blocking, quartz, require};

/// How long one observation's walk may read.
const TREE_DEADLINE: Duration = Duration::from_secs(5);

/// Lists the application's menu bar first in its window's tree, as a window on Linux holds
/// its own: menus are chosen by path from there. The bar lies outside the window, so what it
/// shows is judged against the screen. Closed menus are not read (see the walk).
fn with_menu_bar(tree: &mut Tree, window: &Handle, limits: Limits) {
    let Ok(Some(bar)) = ax::menu_bar(window.pid) else {
        return;
    };
    let Ok(attributes) = ax::attributes(&bar) else {
        return;
    };
    let Some(screen) = screen(&quartz::displays()) else {
        return;
    };
    let handle = window.child(Step::MenuBar, attributes.role(), hash_of(&attributes));
    let limits = Limits {
        nodes: limits.nodes.saturating_sub(tree.root.count()),
        ..limits
    };
    let bar = read_tree(&ax::Reader, &bar, attributes, handle, screen, limits);
    tree.partial = match (tree.partial.take(), bar.partial) {
        (Some(window), Some(bar)) => Some(format!("{window}; the menu bar: {bar}")),
        (Some(window), None) => Some(window),
        (None, Some(bar)) => Some(format!("the menu bar: {bar}")),
        (None, None) => None,
    };
    tree.root.children.insert(0, bar.root);
}

/// What was switched on in which app (see `crate::enablement`).
pub(super) static SWITCHED_ON: Mutex<Memory> = Mutex::new(Memory::new());
/// How often, and how far apart, a page found empty just after the switch is read again.
const WEB_LOOKS: usize = 4;
const WEB_LOOK_GAP: Duration = Duration::from_millis(250);

pub(super) fn switched_on() -> std::sync::MutexGuard<'static, Memory> {
    SWITCHED_ON
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Chromium and Electron apps (Chrome, VS Code, Slack) build their accessibility tree only
/// when an assistive client asks: `AXManualAccessibility` on the application element is that
/// request (other apps answer that they have no such attribute). Done once a process, as Cua
/// Driver does; says whether this was the first time, and whether the app took it.
fn switch_on_web_accessibility(process: Option<Process>, pid: u32) -> (bool, bool) {
    let first = process.is_none_or(|process| switched_on().first_time(process));
    if !first {
        return (false, true);
    }
    let taken = ax::set_bool(&ax::application(pid), "AXManualAccessibility", true).is_ok();
    (true, taken)
}

/// How long `deskhand doctor --dump-tree` may read: a person waits on it once.
const DUMP_DEADLINE: Duration = Duration::from_secs(20);

/// `deskhand doctor --dump-tree`: the window `which` (its handle as `windows` lists it, or a
/// part of its title) read through the Accessibility API as the walk's tests replay it,
/// nothing typed or secret in it (see `tree::dump`), as pretty JSON.
pub fn dump_tree(which: &str) -> Result<String> {
    require(Permission::Accessibility)?;
    let windows = super::windowing::list_windows();
    let window = pick_window(&windows, which)?;
    let (root, cg) = window_element(window.handle, window.pid)?;
    let limits = Limits {
        nodes: NODE_BUDGET,
        deadline: Instant::now() + DUMP_DEADLINE,
    };
    let source = format!(
        "deskhand doctor --dump-tree {} of \"{}\" ({})",
        env!("CARGO_PKG_VERSION"),
        window.title,
        window.app_name
    );
    let dumped = dump(&ax::Reader, &root, cg.pid, window.handle, &source, limits);
    Ok(serde_json::to_string_pretty(&dumped).unwrap_or_default())
}

impl Accessibility for MacBackend {
    async fn tree(&self, window: &WindowInfo) -> Result<Tree> {
        require(Permission::Accessibility)?;
        let (handle, pid, bounds) = (window.handle, window.pid, window.bounds);
        blocking("Reading the accessibility tree", Request::Read, move || {
            let (root, cg) = window_element(handle, pid)?;
            let attributes = ax::attributes(&root)
                .map_err(|err| classify(err, Request::Read, "Reading the accessibility tree"))?;
            let root_handle = Handle {
                pid: cg.pid,
                window: handle,
                path: Vec::new(),
                role: attributes.role().to_owned(),
                name_hash: hash_of(&attributes),
                trail: 0,
            };
            let clip = attributes.frame().map_or(bounds, FrameF::to_rect);
            let started = Instant::now();
            let limits = Limits {
                nodes: NODE_BUDGET,
                deadline: started + TREE_DEADLINE,
            };
            let process = super::apps::process(cg.pid);
            let (first_look, manual_taken) = switch_on_web_accessibility(process, cg.pid);
            let mut looks = 0;
            let mut tree = loop {
                let tree = read_tree(
                    &ax::Reader,
                    &root,
                    attributes.clone(),
                    root_handle.clone(),
                    clip,
                    limits,
                );
                looks += 1;
                let empty = web_content_pending(&tree.root);
                if !(first_look && looks < WEB_LOOKS && empty) {
                    break tree;
                }
                // Some Chromium builds answer only the older switch.
                if looks == 1
                    && fall_back_to_enhanced(first_look, empty, manual_taken)
                    && ax::set_bool(&ax::application(cg.pid), "AXEnhancedUserInterface", true)
                        .is_ok()
                    && let Some(process) = process
                {
                    switched_on().set_enhanced(process);
                }
                std::thread::sleep(WEB_LOOK_GAP);
            };
            with_menu_bar(&mut tree, &root_handle, limits);
            Ok(tree)
        })
        .await
    }

    async fn element_bounds(
        &self,
        _window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Rect>> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's place", Request::Read, move || {
            let found = match resolve(&element) {
                Ok(found) => found,
                Err(err) if err.kind == ErrorKind::ElementGone => return Ok(None),
                Err(err) => return Err(err),
            };
            let attributes = ax::attributes(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's place"))?;
            Ok(attributes
                .frame()
                .map(FrameF::to_rect)
                .filter(|r| !r.is_empty()))
        })
        .await
    }

    async fn action_names(&self, element: &ElementHandle) -> Result<Vec<String>> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's actions", Request::Read, move || {
            let found = resolve(&element)?;
            let names = ax::action_names(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's actions"))?;
            Ok(names.iter().map(|n| core_action_name(n)).collect())
        })
        .await
    }

    async fn do_action(&self, element: &ElementHandle, index: usize) -> Result<()> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Running the element's action", Request::Change, move || {
            let found = resolve(&element)?;
            let names = ax::action_names(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's actions"))?;
            let action = names
                .get(index)
                .ok_or_else(|| gone("Running the element's action"))?;
            ax::perform(&found, action).map_err(|err| {
                classify(
                    err,
                    Request::Change,
                    &format!("Running {action} on the element"),
                )
            })
        })
        .await
    }

    async fn answers(&self, window: &WindowInfo) -> bool {
        let Some(pid) = window.pid else {
            return false;
        };
        blocking("Asking the app", Request::Read, move || {
            let app = ax::application(pid);
            // SAFETY: a plain setter on a valid element; a probe waits less than a request.
            let _ = unsafe { app.set_messaging_timeout(0.3) };
            Ok(ax::copy(&app, "AXRole").is_ok())
        })
        .await
        .unwrap_or(false)
    }

    async fn focus_element(&self, element: &ElementHandle) -> Result<()> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Focusing the element", Request::Change, move || {
            let found = resolve(&element)?;
            ax::set_bool(&found, "AXFocused", true)
                .map_err(|err| classify(err, Request::Change, "Focusing the element"))
        })
        .await
    }

    async fn element_focused(&self, element: &ElementHandle) -> Result<bool> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's focus", Request::Read, move || {
            let found = resolve(&element)?;
            let focused = ax::value_of(&found, "AXFocused")
                .map_err(|err| classify(err, Request::Read, "Reading the element's focus"))?;
            Ok(focused == Some(AxValue::Bool(true)))
        })
        .await
    }
}
