//! Finding a named item in a scope of the tree, as `set_value` and `select` name them.

use crate::model::{Node, Role};
use crate::render::escape;
use crate::text::normalize;

/// The nearest descendants of `scope` named `name`: a same-named item deeper down (in a
/// submenu) does not compete with one nearer, a hidden one (Qt's toolbar button behind its
/// menu's item) not with one shown, and a button not with a menu item. With none named so, the
/// nearest whose names `name` begins ("OpenDocument" for "OpenDocument (.odt)"): one is the
/// choice, more are for the caller to list.
pub(crate) fn nearest_named<'t>(
    scope: &'t Node,
    name: &str,
    accept: &dyn Fn(&Node) -> bool,
) -> Vec<&'t Node> {
    let wanted = normalize(name);
    let exact = nearest_where(scope, &|n| accept(n) && names_item(&n.name, &wanted));
    if !exact.is_empty() || wanted.is_empty() {
        return exact;
    }
    nearest_where(scope, &|n| {
        accept(n)
            && (normalize(&n.name).starts_with(&wanted)
                || normalize(without_shortcut(&n.name)).starts_with(&wanted))
    })
}

fn nearest_where<'t>(scope: &'t Node, wanted: &dyn Fn(&Node) -> bool) -> Vec<&'t Node> {
    let mut level: Vec<&Node> = scope.children.iter().collect();
    while !level.is_empty() {
        let mut hits: Vec<&Node> = level.iter().copied().filter(|n| wanted(n)).collect();
        if !hits.is_empty() {
            let narrow = |hits: &mut Vec<&Node>, keep: &dyn Fn(&Node) -> bool| {
                if hits.iter().any(|n| keep(n)) {
                    hits.retain(|n| keep(n));
                }
            };
            narrow(&mut hits, &|n| n.states.visible);
            narrow(&mut hits, &|n| {
                matches!(n.role, Role::Menu | Role::Menuitem)
            });
            return hits;
        }
        level = level.iter().flat_map(|n| n.children.iter()).collect();
    }
    Vec::new()
}

/// Whether an item's name is the normalized `wanted`, with or without the shortcut a toolkit
/// writes after it (Chromium's "New tab Ctrl+T").
pub(crate) fn names_item(name: &str, wanted: &str) -> bool {
    normalize(name) == wanted || normalize(without_shortcut(name)) == wanted
}

/// A name without a trailing key shortcut: modifiers and a key joined by "+" ("Ctrl+Shift+N"),
/// or a function key ("F11").
pub(crate) fn without_shortcut(name: &str) -> &str {
    let name = name.trim_end();
    let Some((rest, last)) = name.rsplit_once([' ', '\t']) else {
        return name;
    };
    let keys: Vec<&str> = last.split('+').collect();
    let modifier = |key: &&str| {
        ["ctrl", "shift", "alt", "super", "meta"]
            .iter()
            .any(|m| key.eq_ignore_ascii_case(m))
    };
    let chord = keys.len() >= 2
        && keys[..keys.len() - 1].iter().all(modifier)
        && keys.last().is_some_and(|key| !key.is_empty());
    let function_key = last
        .strip_prefix('F')
        .is_some_and(|n| (1..=2).contains(&n.len()) && n.chars().all(|c| c.is_ascii_digit()));
    if chord || function_key {
        rest.trim_end()
    } else {
        name
    }
}

/// Every descendant of `scope`, at any depth and in tree order, named `name` that `accept`
/// takes.
pub(crate) fn named_inside<'t>(
    scope: &'t Node,
    name: &str,
    accept: &dyn Fn(&Node) -> bool,
) -> Vec<&'t Node> {
    fn collect<'n>(
        node: &'n Node,
        wanted: &str,
        accept: &dyn Fn(&Node) -> bool,
        found: &mut Vec<&'n Node>,
    ) {
        for child in &node.children {
            if accept(child) && names_item(&child.name, wanted) {
                found.push(child);
            }
            collect(child, wanted, accept, found);
        }
    }
    let mut found = Vec::new();
    collect(scope, &normalize(name), accept, &mut found);
    found
}

/// Named choices under `scope` an agent could have meant, for an error message: the nearest
/// level that has any (a menu bar's menus, not every item of every menu).
pub(crate) fn choices(scope: &Node, accept: &dyn Fn(&Node) -> bool) -> String {
    let mut names: Vec<String> = Vec::new();
    let mut level: Vec<&Node> = scope.children.iter().collect();
    while !level.is_empty() && names.is_empty() {
        for node in &level {
            let name = node.name.trim();
            if accept(node) && !name.is_empty() && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        level = level.iter().flat_map(|n| n.children.iter()).collect();
    }
    if names.is_empty() {
        return "none shown".into();
    }
    let shown: Vec<String> = names
        .iter()
        .take(20)
        .map(|n| format!("\"{}\"", escape(n)))
        .collect();
    let more = names.len().saturating_sub(20);
    if more > 0 {
        format!("{}, and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

pub(crate) fn is_menu_entry(node: &Node) -> bool {
    matches!(
        node.role,
        Role::Menu
            | Role::Menuitem
            | Role::Check
            | Role::Radio
            | Role::Toggle
            | Role::Button
            | Role::Listitem
    )
}
