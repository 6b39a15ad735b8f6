//! Handles against a changed tree: a row inserted above a recorded Finder list must not let a
//! neighbour's identically named button answer for the one observed.

use serde_json::json;

use super::*;
use crate::tree::locate;

/// Finder's list with a "Delete" button in each visible row, as a table of records has.
fn finder_with_buttons() -> Value {
    let mut dump = dump("finder");
    for row in rows(&mut dump) {
        let cells = row["AXChildren"].as_array_mut().unwrap();
        let cell = cells.last_mut().unwrap();
        let y = cell["AXPosition"]["y"].clone();
        cell["AXChildren"].as_array_mut().unwrap().push(json!({
            "AXRole": "AXButton",
            "AXTitle": "Delete",
            "AXEnabled": true,
            "AXPosition": {"x": 860, "y": y},
            "AXSize": {"w": 16, "h": 16}
        }));
    }
    dump
}

fn rows(dump: &mut Value) -> &mut Vec<Value> {
    dump["root"]["AXChildren"][0]["AXChildren"][2]["AXChildren"][0]["AXVisibleRows"]
        .as_array_mut()
        .unwrap()
}

/// A new file listed first: every row below moves one index down.
fn insert_row_above(dump: &mut Value) {
    let rows = rows(dump);
    let mut new = rows[0].clone();
    new["AXChildren"][0]["AXChildren"][1]["AXValue"] = json!("file-0039b.txt");
    for row in rows.iter_mut() {
        row["AXIndex"] = json!(row["AXIndex"].as_u64().unwrap() + 1);
    }
    rows.insert(0, new);
}

fn clip(dump: &Value) -> Rect {
    let reader = Recorded::new(dump);
    reader
        .attributes(&&dump["root"])
        .unwrap()
        .frame()
        .unwrap()
        .to_rect()
}

fn locate_in<'a>(dump: &'a Value, handle: &Node) -> Option<&'a Value> {
    let reader = Recorded::new(dump);
    let parsed = Handle::parse(&handle.handle).expect("an observed handle parses");
    let role = dump["root"]["AXRole"].as_str().unwrap();
    locate(&reader, &&dump["root"], role, &parsed, clip(dump)).unwrap()
}

/// The Delete button of the row that shows `file`.
fn delete_of<'t>(tree: &'t Tree, file: &str) -> &'t Node {
    let list = find(&tree.root, Role::Tree, "list view");
    let row = list
        .children
        .iter()
        .find(|row| row.children[0].children[1].value.as_deref() == Some(file))
        .unwrap();
    find(row, Role::Button, "Delete")
}

#[test]
fn a_row_inserted_above_makes_the_neighbours_delete_answer_gone() {
    let before = finder_with_buttons();
    let tree = walk_with(&Recorded::new(&before), limits());
    let observed = delete_of(&tree, "file-0041.txt");
    assert!(observed.handle.0.contains(".r41."), "{}", observed.handle.0);
    let button = locate_in(&before, observed).expect("nothing changed: it resolves");
    let list = &before["root"]["AXChildren"][0]["AXChildren"][2]["AXChildren"][0];
    assert!(std::ptr::eq(
        button,
        &list["AXVisibleRows"][1]["AXChildren"][1]["AXChildren"][1]
    ));

    let mut after = before.clone();
    insert_row_above(&mut after);
    // The path now leads to file-0040's button, which the role and name alone let through.
    let parsed = Handle::parse(&observed.handle).unwrap();
    let reader = Recorded::new(&after);
    let mut at = &after["root"];
    for step in &parsed.path {
        at = reader.step(&at, *step).unwrap().unwrap();
    }
    let neighbour = reader.attributes(&at).unwrap();
    assert_eq!(
        (neighbour.role(), hash_of(&neighbour)),
        (parsed.role.as_str(), parsed.name_hash),
        "the neighbour looks the same by role and name"
    );
    assert_eq!(
        locate_in(&after, observed),
        None,
        "the neighbour is refused"
    );

    // Observed again, the same row's button has a new handle that resolves.
    let tree = walk_with(&Recorded::new(&after), limits());
    let again = delete_of(&tree, "file-0041.txt");
    assert!(again.handle.0.contains(".r42."), "{}", again.handle.0);
    assert!(locate_in(&after, again).is_some());
}

#[test]
fn rows_with_the_same_words_elsewhere_are_still_told_apart_by_their_file_name() {
    let before = finder_with_buttons();
    let tree = walk_with(&Recorded::new(&before), limits());
    let handles: Vec<&str> = ["file-0040.txt", "file-0041.txt", "file-0042.txt"]
        .iter()
        .map(|file| delete_of(&tree, file).handle.0.as_str())
        .collect();
    let trails: Vec<&str> = handles
        .iter()
        .map(|h| h.rsplit(':').next().unwrap())
        .collect();
    assert!(
        trails[0] != trails[1] && trails[1] != trails[2],
        "each row's words give its buttons their own trail: {handles:?}"
    );
}

#[test]
fn every_observed_handle_of_every_recording_resolves_to_what_was_read() {
    for name in ["textedit", "calculator", "finder", "safari_form"] {
        let dump = dump(name);
        let tree = walk_with(&Recorded::new(&dump), limits());
        let mut nodes = vec![&tree.root];
        let mut count = 0;
        while let Some(node) = nodes.pop() {
            nodes.extend(&node.children);
            let found = locate_in(&dump, node)
                .unwrap_or_else(|| panic!("{name}: {} does not resolve", node.handle.0));
            let reader = Recorded::new(&dump);
            let attributes = reader.attributes(&found).unwrap();
            assert_eq!(
                to_node(&attributes, node.role, node.handle.clone(), None, true).role,
                node.role
            );
            count += 1;
        }
        assert!(count > 10, "{name}: {count}");
    }
}
