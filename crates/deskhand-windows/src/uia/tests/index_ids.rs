//! Handles fail closed when a neighbour takes an element's runtime id: a row inserted above a
//! list item whose id is its row index.

use super::*;

/// A window with a list whose items' runtime ids are built from their row index, as the Win32
/// control proxies build a ListView's (`[…, 4, index]`): each row an item named `names[i]` (or
/// all alike, as a WPF DataGrid names rows after their type) showing its file name in a text,
/// with a "Delete" button.
fn index_list(files: &[&str], rows_named_alike: bool) -> Element {
    let element = |runtime_id: Vec<i32>, name: &str, control_type: i32| Element {
        runtime_id,
        name: name.into(),
        control_type,
        bounds: Some([0.0, 0.0, 100.0, 20.0]),
        enabled: true,
        ..Element::default()
    };
    let rows = files
        .iter()
        .enumerate()
        .map(|(index, file)| {
            let index = index as i32;
            let row_name = if rows_named_alike { "Row" } else { file };
            Element {
                children: vec![
                    element(vec![3, 77, 4, index, 0], file, control_type::TEXT),
                    Element {
                        patterns: Patterns {
                            invoke: true,
                            ..Patterns::default()
                        },
                        ..element(vec![3, 77, 4, index, 1], "Delete", control_type::BUTTON)
                    },
                ],
                ..element(vec![3, 77, 4, index], row_name, control_type::LIST_ITEM)
            }
        })
        .collect();
    Element {
        children: vec![Element {
            children: rows,
            ..element(vec![42, 77], "Files", control_type::LIST)
        }],
        ..element(vec![42, 66], "Explorer", control_type::WINDOW)
    }
}

#[test]
fn a_row_inserted_above_the_held_element_makes_its_handle_fail_closed() {
    let files = ["a.txt", "b.txt", "c.txt", "d.txt"];
    let mut inserted = vec!["new.txt"];
    inserted.extend(files);
    for alike in [false, true] {
        let before = index_list(&files, alike);
        let after = index_list(&inserted, alike);
        // The row "c.txt" (index 2) and its Delete button, held from a walk before the insert.
        for (name, path) in [("Delete", vec![0, 2, 1]), ("c.txt", vec![0, 2, 0])] {
            let (node, _) = translate(&before);
            let held = find_at(&node, &path);
            assert_eq!(held.name, name);
            let wanted = parse_handle(&held.handle).unwrap().1;
            let kept = chain(&path);

            // Before the insert, both ways find it.
            let reader = Recorded::new(before.clone());
            let (live, _) =
                walk::lookup(&reader, Some(&kept), &Vec::new(), &wanted, budget(5000)).unwrap();
            assert_eq!(live, path);
            let (live, _) =
                walk::lookup(&reader, None, &Vec::new(), &wanted, budget(5000)).unwrap();
            assert_eq!(live, path);

            // After it, index 2 is "b.txt"'s row: its runtime id, its type, its name ("Delete",
            // or alike rows' "Row"), but neither the kept element nor the search may use it.
            let reader = Recorded::new(after.clone());
            assert_eq!(
                reader.at(&path).unwrap().runtime_id,
                wanted.runtime_id,
                "the neighbour holds the old runtime id"
            );
            for kept in [Some(kept.as_slice()), None] {
                assert_eq!(
                    walk::lookup(&reader, kept, &Vec::new(), &wanted, budget(5000)).unwrap_err(),
                    walk::NotFound::Gone,
                    "{name} (rows alike: {alike}, kept: {})",
                    kept.is_some()
                );
            }
        }
    }
}

fn find_at<'a>(node: &'a Node, path: &[usize]) -> &'a Node {
    path.iter().fold(node, |node, &i| &node.children[i])
}
