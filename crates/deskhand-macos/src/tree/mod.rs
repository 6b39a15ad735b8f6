//! The walk from a window's element down to the core's [`Tree`], over a narrow [`AxReader`]
//! that the FFI shell implements with the Accessibility API and the tests with recorded dumps.
//! Bounded as on Linux: a node budget, a deadline, at most [`MAX_CHILDREN`] children an element,
//! the visible rows alone of a table or outline, nothing under what is not shown, and a
//! `partial` note that says what was left.

use std::time::Instant;

use deskhand_core::model::{Node, Rect, Role, States, Tree};

use crate::actions::core_action_name;
use crate::attributes::{Attributes, AxValue, FrameF};
use crate::errors::AxError;
use crate::handle::{Handle, Step, name_hash};
use crate::roles::{role, shows_value, value_is_checked_state};

/// Elements one observation reads at most, as on Linux.
pub const NODE_BUDGET: usize = 5_000;
/// Children of one element read at most (a long page, a list): the rest are counted.
pub const MAX_CHILDREN: usize = 500;
/// Levels below the window read at most: the walk recurses, and some apps nest without end (a
/// web page's div soup, a view that contains itself); it stops here rather than run out of
/// stack, as the Windows walk does.
pub const MAX_DEPTH: usize = 64;

/// Which of an element's children to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Children {
    /// `AXChildren`, the first `max` of them.
    All { max: usize },
    /// `kAXVisibleRowsAttribute` of a table or outline: the rows on screen, each with its
    /// `AXIndex`. A table creates its rows on demand, so all of them would be work without end.
    VisibleRows,
}

/// What the walk asks of the Accessibility API, one element at a time.
pub trait AxReader {
    type Element;
    /// The attributes of [`crate::attributes::BATCH`], in one call.
    fn attributes(&self, element: &Self::Element) -> Result<Attributes, AxError>;
    /// `AXValue` alone; never asked of a password.
    fn value(&self, element: &Self::Element) -> Result<Option<AxValue>, AxError>;
    /// The children asked for, in order; a row's step comes from its own batch (`AXIndex`).
    fn children(
        &self,
        element: &Self::Element,
        which: Children,
    ) -> Result<Vec<Self::Element>, AxError>;
    /// The element's `AXUIElementCopyActionNames`.
    fn action_names(&self, element: &Self::Element) -> Result<Vec<String>, AxError>;
    /// The element one step down, as a handle's path names it; `None` when there is none.
    fn step(&self, element: &Self::Element, step: Step) -> Result<Option<Self::Element>, AxError>;
}

/// Where the walk stops.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub nodes: usize,
    pub deadline: Instant,
}

/// What the walk left out, for the tree's `partial` note.
#[derive(Default)]
struct Left {
    /// The node budget, once it ran out.
    budget: Option<usize>,
    deadline: bool,
    stalled: bool,
    children: usize,
    unreadable: usize,
    /// The depth limit, when an element there had children.
    depth: Option<usize>,
}

struct Walk<'r, R: AxReader> {
    reader: &'r R,
    limits: Limits,
    read: usize,
    left: Left,
    /// The window's frame: what lies outside it is not shown.
    clip: Rect,
}

/// Reads the tree of the window `root`, whose attributes the caller has read already (they
/// give its `handle` and its frame, `clip`). Its handles carry their trail (see `tree::identity`).
pub fn read_tree<R: AxReader>(
    reader: &R,
    root: &R::Element,
    attributes: Attributes,
    handle: Handle,
    clip: Rect,
    limits: Limits,
) -> Tree {
    let mut walk = Walk {
        reader,
        limits,
        read: 1,
        left: Left::default(),
        clip,
    };
    let mut root = walk.node(root, attributes, handle, true);
    identity::seal(&mut root);
    Tree {
        root,
        partial: walk.left.note(),
    }
}

impl<R: AxReader> Walk<'_, R> {
    fn node(
        &mut self,
        element: &R::Element,
        mut attributes: Attributes,
        handle: Handle,
        parent_visible: bool,
    ) -> Node {
        let ax_role = attributes.role().to_owned();
        let role = role(&ax_role, attributes.subrole.as_deref());
        if shows_value(role) {
            match self.reader.value(element) {
                Ok(value) => attributes.value = value,
                Err(err) if err.is_stall() => self.left.stalled = true,
                Err(_) => {}
            }
        }
        let bounds = attributes.frame().map(FrameF::to_rect);
        let visible = match bounds {
            Some(bounds) => !bounds.is_empty() && bounds.intersect(&self.clip).is_some(),
            None => parent_visible,
        };
        let mut node = to_node(&attributes, role, handle.to_element(), bounds, visible);
        // An unnamed image is listed only when it acts (a web page's image button); layout is
        // never listed unnamed and controls always are, so neither is asked.
        if visible
            && node.name.is_empty()
            && role == Role::Image
            && !self.left.stalled
            && let Ok(names) = self.reader.action_names(element)
        {
            node.actions = names.iter().map(|n| core_action_name(n)).collect();
        }
        if visible && self.opens(&ax_role, role, &attributes) {
            if handle.path.len() >= MAX_DEPTH {
                self.left.depth = Some(MAX_DEPTH);
            } else {
                node.children = self.children(element, &ax_role, &handle, role, &attributes);
            }
        }
        if node.name.is_empty() && (role.is_control() || role == Role::Heading) {
            node.name = words_of_labels(&node.children);
        }
        node
    }

    /// Whether the element's children are read: a leaf (no `AXChildren`, or none in it) is not
    /// asked for them; a closed menu's items are not shown, and an application builds them
    /// anew each time they are asked for.
    fn opens(&self, ax_role: &str, role: Role, attributes: &Attributes) -> bool {
        if !rows_only(ax_role, role) && attributes.children.unwrap_or(0) == 0 {
            return false;
        }
        match ax_role {
            "AXMenuBarItem" => attributes.selected == Some(true),
            // Columns repeat the cells their table's rows already hold.
            "AXColumn" => false,
            _ => true,
        }
    }

    fn children(
        &mut self,
        element: &R::Element,
        ax_role: &str,
        handle: &Handle,
        role: Role,
        attributes: &Attributes,
    ) -> Vec<Node> {
        if self.stopped() {
            return Vec::new();
        }
        let rows = rows_only(ax_role, role);
        let total = attributes.children.unwrap_or(0);
        let which = if rows {
            Children::VisibleRows
        } else {
            // Never more than there are: the API may refuse a range past the end.
            Children::All {
                max: MAX_CHILDREN.min(total),
            }
        };
        let children = match self.reader.children(element, which) {
            Ok(children) => children,
            Err(err) => {
                self.note_failure(&err);
                return Vec::new();
            }
        };
        if !rows {
            self.left.children += total.saturating_sub(children.len());
        }
        let mut nodes = Vec::with_capacity(children.len());
        for (i, child) in children.into_iter().enumerate() {
            if self.stopped() {
                break;
            }
            let attributes = match self.reader.attributes(&child) {
                Ok(attributes) => attributes,
                Err(err) => {
                    self.note_failure(&err);
                    continue;
                }
            };
            let step = match (rows, attributes.index) {
                (false, _) => Step::Child(i),
                (true, Some(index)) => Step::Row(index),
                // A row that does not say its index cannot be reached again.
                (true, None) => continue,
            };
            self.read += 1;
            let hash = hash_of(&attributes);
            let child_handle = handle.child(step, attributes.role(), hash);
            nodes.push(self.node(&child, attributes, child_handle, true));
        }
        nodes
    }

    fn note_failure(&mut self, err: &AxError) {
        if err.is_stall() {
            self.left.stalled = true;
        } else if !err.is_absent() {
            self.left.unreadable += 1;
        }
    }

    /// Whether the walk must stop here, noting why.
    fn stopped(&mut self) -> bool {
        if self.left.stalled {
            return true;
        }
        if self.read >= self.limits.nodes {
            self.left.budget = Some(self.limits.nodes);
            return true;
        }
        if Instant::now() >= self.limits.deadline {
            self.left.deadline = true;
            return true;
        }
        false
    }
}

impl Left {
    fn note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.stalled {
            parts.push("the app stopped answering accessibility requests".to_owned());
        }
        if let Some(budget) = self.budget {
            parts.push(format!("stopped at {budget} elements"));
        }
        if self.deadline {
            parts.push("the read ran out of time".to_owned());
        }
        if self.children > 0 {
            parts.push(format!(
                "{} children of long lists were not read",
                self.children
            ));
        }
        if self.unreadable > 0 {
            parts.push(format!("{} elements could not be read", self.unreadable));
        }
        if let Some(depth) = self.depth {
            parts.push(format!("elements deeper than {depth} levels were not read"));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Whether a web page in the tree has nothing in it yet: Chromium and Electron build their tree
/// only once an assistive client switches it on (`AXManualAccessibility`), so a walk right
/// after that may find the page empty, and is worth doing again shortly.
pub fn web_content_pending(node: &Node) -> bool {
    (node.role == Role::Document && node.children.is_empty())
        || node.children.iter().any(web_content_pending)
}

/// Whether only the visible rows of the element are read: a table or outline creates its rows
/// on demand, so all of them would be work without end. A column browser lists its columns.
fn rows_only(ax_role: &str, role: Role) -> bool {
    matches!(role, Role::Table | Role::Tree) && ax_role != "AXBrowser"
}

/// The words of the static texts directly inside an element: a web link or button names
/// itself by the text it holds, as a person reads it.
fn words_of_labels(children: &[Node]) -> String {
    let words: Vec<&str> = children
        .iter()
        .filter(|child| child.role == Role::Label)
        .map(|child| child.name.trim())
        .filter(|name| !name.is_empty())
        .collect();
    words.join(" ")
}

/// What the handle checks on resolving: the words the element is named by, its value aside.
pub fn hash_of(attributes: &Attributes) -> u32 {
    name_hash(
        attributes.title.as_deref().unwrap_or(""),
        attributes.description.as_deref().unwrap_or(""),
    )
}

/// One element as the core sees it, children aside.
pub fn to_node(
    attributes: &Attributes,
    role: Role,
    handle: deskhand_core::model::ElementHandle,
    bounds: Option<Rect>,
    visible: bool,
) -> Node {
    let ax_role = attributes.role();
    let text = |t: &Option<String>| t.as_deref().map(str::trim).unwrap_or("").to_owned();
    let mut name = text(&attributes.title);
    if name.is_empty() {
        name = text(&attributes.description);
    }
    if name.is_empty() {
        // A window's title-bar buttons carry no title nor description, only their subrole.
        name = match attributes.subrole.as_deref() {
            Some("AXCloseButton") => "close",
            Some("AXMinimizeButton") => "minimize",
            Some("AXZoomButton") => "zoom",
            Some("AXFullScreenButton") => "full screen",
            _ => "",
        }
        .to_owned();
    }
    let number = match attributes.value {
        Some(AxValue::Number(n)) => Some(n),
        Some(AxValue::Bool(b)) => Some(if b { 1.0 } else { 0.0 }),
        _ => None,
    };
    let mut value = match (&attributes.value, role) {
        (_, Role::Password) => None,
        (_, _) if value_is_checked_state(role) => None,
        (Some(AxValue::Text(text)), _) => Some(text.clone()),
        (
            Some(AxValue::Number(n)),
            Role::Slider | Role::Spin | Role::Scrollbar | Role::Progress,
        ) => Some(format_number(*n)),
        _ => None,
    };
    // A static text's words are its value; a person reads them as its name, as on Linux.
    if role == Role::Label && name.is_empty() {
        name = value.take().unwrap_or_default();
    }
    let enabled = attributes.enabled.unwrap_or(true);
    let checkable = value_is_checked_state(role) && role != Role::Tab;
    let on = number == Some(1.0);
    let expanded = attributes.expanded == Some(true) || (ax_role == "AXDisclosureTriangle" && on);
    let states = States {
        enabled,
        visible,
        focused: attributes.focused == Some(true),
        focusable: attributes.focused.is_some() && role.is_control(),
        checked: checkable && on,
        checkable,
        selected: role != Role::Window
            && (attributes.selected == Some(true) || (role == Role::Tab && on)),
        expanded,
        expandable: attributes.expanded.is_some() || ax_role == "AXDisclosureTriangle",
        editable: enabled
            && matches!(
                ax_role,
                "AXTextField" | "AXTextArea" | "AXComboBox" | "AXDateField" | "AXTimeField"
            ),
        pressed: false,
        modal: ax_role == "AXSheet",
        from_pixels: false,
    };
    Node {
        handle,
        role,
        name,
        value,
        states,
        bounds,
        actions: Vec::new(),
        children: Vec::new(),
    }
}

/// A number as a person writes it: 50, not 50.0; 0.25 as it is.
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

pub mod dump;
mod identity;
pub use identity::locate;

#[cfg(test)]
mod tests;
