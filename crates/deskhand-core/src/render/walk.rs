//! The walk over the trees: which nodes become elements an observation could list (wrappers
//! and repeated captions do not), with their lines as found.

use super::lines::{Found, Line, MAX_NAME_CHARS, MAX_VALUE_CHARS, Rendered, WindowTree};
use crate::coords::to_unit;
use crate::model::{Node, Rect, Role, WindowKey};
use crate::session::element_key;
use crate::text::{cut, cut_to_end};

/// Every element an observation could list, in tree order; counts nodes in `out`. With
/// `titles_in_header`, a root line whose name is its window's title, which the header shows,
/// leaves the name out.
pub(super) fn walk_all<'t>(
    windows: &[WindowTree<'t>],
    surface: &Rect,
    titles_in_header: bool,
    out: &mut Rendered,
) -> Vec<Found<'t>> {
    let mut found = Vec::new();
    for window in windows {
        out.nodes += window.tree.root.count();
        let mut walk = Walk {
            surface,
            window: window.window,
            title: window.title.as_deref().filter(|_| titles_in_header),
            found: &mut found,
        };
        walk.node(
            &window.tree.root,
            0,
            Parent::default(),
            window.label.as_deref(),
            true,
            false,
        );
    }
    found
}

struct Walk<'a, 'f, 't> {
    surface: &'a Rect,
    window: WindowKey,
    /// The title the header shows, which the root line need not repeat.
    title: Option<&'a str>,
    found: &'f mut Vec<Found<'t>>,
}

/// The nearest listed ancestor, which decides what a child would only repeat.
#[derive(Clone, Copy, Default)]
struct Parent<'a> {
    name: &'a str,
    role: Option<Role>,
    /// The parent's text, where it shows its words as a value (a web page's paragraph).
    text: &'a str,
    control: bool,
}

impl<'t> Walk<'_, '_, 't> {
    fn node(
        &mut self,
        node: &'t Node,
        depth: usize,
        parent: Parent<'t>,
        label: Option<&str>,
        root: bool,
        hidden_above: bool,
    ) {
        let hidden = hidden_above || (!root && !node.states.visible);
        let listed = root || is_meaningful(node, parent);
        let (child_depth, context) = if listed {
            let name_in_header =
                root && !node.name.is_empty() && self.title == Some(node.name.as_str());
            self.found(node, depth, label, hidden, name_in_header);
            let own = Parent {
                name: node.name.as_str(),
                role: Some(node.role),
                text: node.value.as_deref().unwrap_or_default(),
                control: node.role.is_control() || !node.actions.is_empty(),
            };
            (depth + 1, own)
        } else {
            (depth, parent)
        };
        for child in &node.children {
            self.node(child, child_depth, context, None, false, hidden);
        }
    }

    fn found(
        &mut self,
        node: &'t Node,
        depth: usize,
        label: Option<&str>,
        hidden: bool,
        name_in_header: bool,
    ) {
        let (name, name_cut) = cut(&node.name, MAX_NAME_CHARS);
        let (value, value_cut) = match node
            .value
            .as_deref()
            .filter(|v| !v.is_empty() && node.role != Role::Password)
        {
            Some(v) => {
                let (value, value_cut) = if node.role == Role::Terminal {
                    cut_to_end(v, MAX_VALUE_CHARS)
                } else {
                    cut(v, MAX_VALUE_CHARS)
                };
                (Some(value), value_cut)
            }
            None => (None, false),
        };
        let mut states = states_of(node);
        if hidden {
            states.push("hidden");
        }
        let point = node
            .bounds
            .filter(|b| !b.is_empty())
            .and_then(|b| b.intersect(self.surface))
            .map(|b| {
                let (x, y) = to_unit(self.surface, b.center());
                [x, y]
            });
        self.found.push(Found {
            node,
            window: self.window,
            line: Line {
                key: element_key(&node.handle, node.role),
                depth,
                role: node.role,
                name,
                value,
                states,
                label: label.map(str::to_owned),
                point,
                point_shown: true,
                name_in_header,
            },
            name_cut,
            value_cut,
        });
    }
}

fn is_meaningful(node: &Node, parent: Parent<'_>) -> bool {
    let has_name = !node.name.trim().is_empty();
    let named = has_name && node.name != parent.name;
    let has_value = node.value.as_deref().is_some_and(|v| !v.is_empty());
    if node.role.is_layout() {
        return named || has_value;
    }
    // A control wrapping a same-named control of its role (GTK4's menu button around its
    // toggle) is one control to a person: the outer line stands for both.
    if parent.control && parent.role == Some(node.role) && has_name && !named && !has_value {
        return false;
    }
    // A control's own caption adds nothing: the control line already carries it; nor does a
    // piece of static text whose words its parent's text already shows (Chromium's paragraph
    // and the text runs inside it).
    if node.role == Role::Label
        && node.actions.is_empty()
        && ((parent.control && parent.name.contains(node.name.as_str()))
            || (has_name && !has_value && parent.text.contains(node.name.trim())))
    {
        return false;
    }
    // A list item's marker ("• ", "3.") is drawn, not read: the item's role already says it.
    if node.role == Role::Label
        && node.actions.is_empty()
        && parent.role == Some(Role::Listitem)
        && is_list_marker(&node.name)
    {
        return false;
    }
    // Actions decide only for unnamed elements, so a reader need not ask named ones for them.
    node.role.is_control()
        || node.states.editable
        || has_value
        || named
        || (!has_name && !node.actions.is_empty())
}

/// A bullet, or a counter closed by "." or ")" (a number, one letter, a roman numeral): what a
/// list draws before an item.
fn is_list_marker(name: &str) -> bool {
    let name = name.trim();
    let bullet = |c: char| matches!(c, '•' | '◦' | '▪' | '‣' | '⁃' | '-' | '*');
    if !name.is_empty() && name.chars().all(|c| bullet(c) || c.is_whitespace()) {
        return true;
    }
    name.strip_suffix(['.', ')']).is_some_and(|counter| {
        let count = counter.chars().count();
        let digits = (1..=4).contains(&count) && counter.chars().all(|c| c.is_ascii_digit());
        let letter = count == 1 && counter.chars().all(|c| c.is_alphabetic());
        let roman =
            (1..=5).contains(&count) && counter.chars().all(|c| "ivxlcdmIVXLCDM".contains(c));
        digits || letter || roman
    })
}

fn states_of(node: &Node) -> Vec<&'static str> {
    let s = &node.states;
    let mut states = Vec::new();
    if !s.enabled && (node.role.is_control() || !node.actions.is_empty()) {
        states.push("disabled");
    }
    if s.focused {
        states.push("focused");
    }
    if s.checkable || matches!(node.role, Role::Check | Role::Radio | Role::Toggle) {
        states.push(if s.checked { "checked" } else { "unchecked" });
    }
    if s.pressed && !s.checked {
        states.push("pressed");
    }
    if s.selected {
        states.push("selected");
    }
    if s.expandable {
        states.push(if s.expanded { "expanded" } else { "collapsed" });
    }
    if s.modal {
        states.push("modal");
    }
    if s.from_pixels {
        states.push("ocr");
    }
    states
}
