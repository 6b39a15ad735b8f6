use deskhand_core::model::{ElementHandle, States};

use super::*;

fn node(path: &str, role: Role, children: Vec<Node>) -> Node {
    Node {
        handle: ElementHandle(format!(":1.5|/{path}")),
        role,
        name: String::new(),
        value: None,
        states: States::default(),
        bounds: None,
        actions: Vec::new(),
        children,
    }
}

/// frame > [panel > [button, label], table > [row > [cell]], paragraph (with text) > [link]]
fn window() -> Node {
    let mut paragraph = node("p", Role::Paragraph, vec![node("a", Role::Link, vec![])]);
    paragraph.value = Some("see \u{fffc}".into());
    node(
        "frame",
        Role::Window,
        vec![
            node(
                "panel",
                Role::Group,
                vec![
                    node("button", Role::Button, vec![]),
                    node("label", Role::Label, vec![]),
                ],
            ),
            node(
                "table",
                Role::Table,
                vec![node(
                    "row",
                    Role::Row,
                    vec![node("cell", Role::Cell, vec![])],
                )],
            ),
            paragraph,
        ],
    )
}

fn reused(plan: &Plan, root: &Node) -> Vec<String> {
    let mut unchanged = HashMap::new();
    plan.unchanged(root, &mut Vec::new(), &mut unchanged);
    let mut paths: Vec<String> = unchanged.keys().map(|o| o.path.clone()).collect();
    paths.sort();
    paths
}

#[test]
fn a_changed_button_is_read_again_from_its_parent_and_its_siblings_are_kept() {
    let root = window();
    let plan = Plan::of(&root, &[(vec![0, 0], Change::Own)]);
    assert_eq!(plan.roots, vec![vec![0]]);
    assert_eq!(
        reused(&plan, &root),
        ["/a", "/cell", "/label", "/p", "/row", "/table"]
    );
}

#[test]
fn children_that_changed_are_read_again_from_the_element_itself() {
    let root = window();
    let plan = Plan::of(&root, &[(vec![0], Change::Children)]);
    assert_eq!(plan.roots, vec![vec![0]]);
    assert!(reused(&plan, &root).contains(&"/button".to_string()));
}

#[test]
fn what_moved_is_read_again_whole() {
    let root = window();
    let plan = Plan::of(&root, &[(vec![0], Change::Moved)]);
    assert_eq!(plan.roots, vec![Vec::<usize>::new()]);
    let kept = reused(&plan, &root);
    assert!(!kept.contains(&"/button".to_string()), "{kept:?}");
    assert!(!kept.contains(&"/label".to_string()), "{kept:?}");
    assert!(kept.contains(&"/table".to_string()), "{kept:?}");
}

#[test]
fn a_change_in_a_table_is_read_again_from_above_the_table() {
    let root = window();
    let plan = Plan::of(&root, &[(vec![1, 0, 0], Change::Own)]);
    assert_eq!(plan.roots, vec![Vec::<usize>::new()]);
    assert_eq!(
        reused(&plan, &root),
        ["/a", "/button", "/label", "/p", "/panel"]
    );
}

#[test]
fn a_link_in_text_is_read_again_with_the_text_that_holds_its_words() {
    let root = window();
    let plan = Plan::of(&root, &[(vec![2, 0], Change::Own)]);
    assert_eq!(plan.roots, vec![vec![2]]);
    let plan = Plan::of(&root, &[(vec![2, 0], Change::Children)]);
    assert_eq!(plan.roots, vec![vec![2]]);
}

#[test]
fn a_subtree_inside_another_read_again_is_read_once() {
    let root = window();
    let plan = Plan::of(
        &root,
        &[(vec![0, 1], Change::Own), (vec![0], Change::Children)],
    );
    assert_eq!(plan.roots, vec![vec![0]]);
    let plan = Plan::of(
        &root,
        &[(vec![0, 1], Change::Own), (Vec::new(), Change::Own)],
    );
    assert_eq!(plan.roots, vec![Vec::<usize>::new()]);
}
