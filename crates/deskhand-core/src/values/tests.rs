use crate::model::{ElementHandle, Node, Role};

use super::named::*;
use super::set::*;

#[test]
fn a_box_named_by_one_of_its_items_has_taken_what_its_name_says() {
    let item = |name: &str, selected: bool| {
        let mut item = node(Role::Listitem, name, vec![]);
        item.states.selected = selected;
        item
    };
    let combo = |name: &str, items: Vec<Node>| {
        node(Role::Combobox, name, vec![node(Role::List, "", items)])
    };
    // Qt: the list's selection moved to "Windows", the box still shows "Fusion".
    let qt = ComboShows::of(&combo(
        "Fusion",
        vec![item("Windows", true), item("Fusion", false)],
    ));
    assert_eq!(qt.taken().as_deref(), Some("Fusion"));
    // A box labelled "Color": its selected item says the choice.
    let labelled = ComboShows::of(&combo(
        "Color",
        vec![item("Red", true), item("Blue", false)],
    ));
    assert_eq!(labelled.taken().as_deref(), Some("Red"));
    // A labelled box whose items are listed only while it is open.
    let closed = ComboShows::of(&combo("Color", vec![]));
    assert_eq!(closed.taken().as_deref(), Some("Color"));
}

#[test]
fn an_item_is_named_with_or_without_its_shortcut() {
    assert!(names_item("New tab Ctrl+T", "new tab"));
    assert!(names_item(
        "Delete browsing data… Ctrl+Shift+Del",
        "delete browsing data"
    ));
    assert!(names_item("Full screen F11", "full screen"));
    assert!(names_item("New tab Ctrl+T", "new tab ctrl+t"));
    for (name, wanted) in [
        ("Zoom in+out", "zoom in"),
        ("Channel F100", "channel"),
        ("Shift+", "shift"),
        ("Save as", "save"),
    ] {
        assert!(!names_item(name, wanted), "{name:?}");
    }
}

#[test]
fn a_nearer_item_wins_over_a_same_named_one_in_a_submenu() {
    let menu = node(
        Role::Menu,
        "File",
        vec![
            node(Role::Menuitem, "Open…", vec![]),
            node(
                Role::Menu,
                "Recent",
                vec![node(Role::Menuitem, "Open...", vec![])],
            ),
        ],
    );
    let hits = nearest_named(&menu, "open...", &is_menu_entry);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].name, "Open…");
    assert!(nearest_named(&menu, "Close", &is_menu_entry).is_empty());
    assert_eq!(choices(&menu, &is_menu_entry), "\"Open…\", \"Recent\"");
}

/// Issue 41: "New Page" is "New Page..."; a choice the given text alone begins is taken; two
/// it begins are both returned, for the caller to list.
#[test]
fn an_item_is_named_without_its_ellipsis_or_by_a_unique_beginning() {
    let menu = node(
        Role::Menu,
        "File",
        vec![
            node(Role::Menuitem, "New Page...", vec![]),
            node(Role::Menuitem, "OpenDocument (.odt)", vec![]),
            node(Role::Menuitem, "Export as PDF", vec![]),
            node(Role::Menuitem, "Export as PNG", vec![]),
        ],
    );
    let named = |name: &str| -> Vec<String> {
        nearest_named(&menu, name, &is_menu_entry)
            .iter()
            .map(|n| n.name.clone())
            .collect()
    };
    assert_eq!(named("New Page"), ["New Page..."]);
    assert_eq!(named("OpenDocument"), ["OpenDocument (.odt)"]);
    assert_eq!(named("Export as"), ["Export as PDF", "Export as PNG"]);
    assert!(named("Print").is_empty());
}

fn node(role: Role, name: &str, children: Vec<Node>) -> Node {
    Node {
        handle: ElementHandle(format!("{}:{name}", role.as_str())),
        role,
        name: name.into(),
        value: None,
        states: crate::model::States {
            enabled: true,
            visible: true,
            ..Default::default()
        },
        bounds: None,
        actions: vec!["click".into()],
        children,
    }
}
