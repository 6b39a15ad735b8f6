use deskhand_core::model::{ElementHandle, Rect, Role, States};

use super::*;

fn node(bus: &str, children: Vec<Node>) -> Node {
    Node {
        handle: ElementHandle(format!("{bus}|/org/a11y/atspi/accessible/1")),
        role: Role::Unknown,
        name: String::new(),
        value: None,
        states: States::default(),
        bounds: None,
        actions: Vec::new(),
        children,
    }
}

pub(super) fn kept(bus: &str, nodes: usize, used: u64) -> Kept {
    Kept {
        window: WindowInfo {
            handle: 0,
            title: String::new(),
            pid: None,
            app_name: String::new(),
            bounds: Rect::new(0, 0, 10, 10),
            focused: false,
            minimized: false,
            maximized: false,
        },
        unplaced: false,
        tree: Arc::new(Tree {
            root: node(bus, Vec::new()),
            partial: None,
        }),
        style: WalkStyle {
            offset: (0, 0),
            scale: 1.0,
            showing_reliable: true,
            use_cache: true,
        },
        links: Arc::default(),
        buses: vec![bus.to_owned()],
        patched: true,
        mark: Mark(0),
        nodes,
        used,
        observed: std::time::Instant::now(),
        reads_unobserved: 0,
    }
}

fn app(toolkit: &str, version: &str) -> Application {
    Application {
        root: ObjectRef {
            bus: ":1.1".into(),
            path: "/".into(),
        },
        pid: None,
        name: String::new(),
        toolkit: toolkit.into(),
        toolkit_version: version.into(),
        answering: true,
    }
}

#[test]
fn a_tree_names_its_window_bus_first_and_every_embedded_one_once() {
    let tree = node(
        ":1.5",
        vec![
            node(":1.5", vec![node(":1.9", vec![node(":1.9", Vec::new())])]),
            node(":1.5", Vec::new()),
        ],
    );
    let mut buses = Vec::new();
    assert_eq!(buses_of(&tree, &mut buses), 5);
    assert_eq!(buses, [":1.5", ":1.9"]);
}

#[test]
fn only_the_toolkits_held_to_send_every_change_are_kept() {
    assert!(sends_every_change(&app("GTK", "3.24.38")));
    assert!(sends_every_change(&app("GTK", "4.8.3")));
    assert!(sends_every_change(&app("Qt", "5.15.8")));
    assert!(sends_every_change(&app("Qt", "6.4.2")));
    assert!(!sends_every_change(&app("GAIL", "2.24.33")));
    assert!(!sends_every_change(&app("Gecko", "115.0")));
    assert!(!sends_every_change(&app("Chromium", "120.0")));
    assert!(!sends_every_change(&app("VCL", "7.4")));
}

#[test]
fn an_app_over_its_cap_loses_the_windows_used_longest_ago_and_never_the_newest() {
    let mut all = HashMap::new();
    all.insert(1, kept(":1.5", 9_000, 1));
    all.insert(2, kept(":1.5", 9_000, 3));
    all.insert(3, kept(":1.7", 9_000, 0));
    all.insert(4, kept(":1.5", 9_000, 2));
    within_caps(&mut all, 4);
    let mut left: Vec<u64> = all.keys().copied().collect();
    left.sort_unstable();
    // 1 (used first) goes; 2 and 4 fit the cap together; the other app keeps its window.
    assert_eq!(left, [2, 3, 4]);

    let mut alone = HashMap::new();
    alone.insert(9, kept(":1.5", MAX_NODES_PER_APP + 1, 0));
    within_caps(&mut alone, 9);
    assert_eq!(alone.len(), 1);
}

#[test]
fn past_the_window_cap_the_windows_used_longest_ago_go() {
    let mut all: HashMap<u64, Kept> = (0..MAX_WINDOWS as u64 + 3)
        .map(|handle| (handle, kept(&format!(":1.{handle}"), 1, handle)))
        .collect();
    within_caps(&mut all, 0);
    assert_eq!(all.len(), MAX_WINDOWS);
    assert!(all.contains_key(&0));
    assert!(!all.contains_key(&1) && !all.contains_key(&2) && !all.contains_key(&3));
}

#[test]
fn a_qt_item_view_is_never_kept_and_a_gtk_one_is() {
    let mut apps = HashMap::new();
    let mut qt = app("Qt", "5.15.8");
    qt.root.bus = ":1.6".into();
    apps.insert(":1.6".to_owned(), qt);
    apps.insert(":1.2".to_owned(), app("gtk", "3.24.38"));
    let with_list = |bus: &str| {
        let mut list = node(bus, vec![node(bus, Vec::new())]);
        list.role = Role::List;
        list.states.visible = true;
        node(bus, vec![list])
    };
    assert!(has_silent_views(&with_list(":1.6"), &apps));
    assert!(!has_silent_views(&with_list(":1.2"), &apps));
    let mut hidden = with_list(":1.6");
    hidden.children[0].states.visible = false;
    assert!(
        !has_silent_views(&hidden, &apps),
        "a hidden list is not read"
    );
    assert!(!has_silent_views(
        &node(":1.6", vec![node(":1.6", Vec::new())]),
        &apps
    ));
}
