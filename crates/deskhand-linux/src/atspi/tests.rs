//! The tree reader on what real applications answered, played back without them: each
//! recording in `recorded/` is the calls `deskhand observe` made on a headless desktop with
//! `DESKHAND_RECORD_ATSPI` set, once with the cached reader and once with the plain one.

use std::sync::Arc;
use std::time::Duration;

use deskhand_core::model::{ElementHandle, Node, Rect, Role};

use super::cells::{name_by_place, places_in_order};
use super::record::Replay;
use super::*;

const MOUSEPAD: &str = include_str!("recorded/mousepad-walk.jsonl");
/// Qt 5's `tests/fixtures/qt_fields.py` after "Ada" was typed into its name field and
/// "hunter2secret" into its password field.
const QT_FIELDS: &str = include_str!("recorded/qt-fields-walk.jsonl");

fn replaying(recording: &str) -> (Atspi, Arc<Replay>) {
    let replay = Arc::new(Replay::parse(recording).expect("the recording parses"));
    (
        Atspi::replaying(replay.clone(), Duration::from_millis(1500)),
        replay,
    )
}

/// The frame of the application named `app`, found through the registry as observe finds it.
async fn frame(atspi: &Atspi, app: &str) -> ObjectRef {
    let apps = atspi.applications().await.expect("the registry's answer");
    let app = apps.iter().find(|a| a.name == app).unwrap_or_else(|| {
        panic!(
            "{app} among {:?}",
            apps.iter().map(|a| &a.name).collect::<Vec<_>>()
        )
    });
    let frames = atspi.frames(app).await.expect("its frames");
    frames.first().expect("one frame").object.clone()
}

fn style(use_cache: bool) -> WalkStyle {
    WalkStyle {
        offset: (0, 0),
        scale: 1.0,
        showing_reliable: true,
        use_cache,
    }
}

fn all(node: &Node) -> Vec<&Node> {
    let mut nodes = vec![node];
    for child in &node.children {
        nodes.extend(all(child));
    }
    nodes
}

fn named<'t>(root: &'t Node, role: Role, name: &str) -> Option<&'t Node> {
    all(root)
        .into_iter()
        .find(|node| node.role == role && node.name == name)
}

#[tokio::test]
async fn the_cached_reader_reads_what_the_plain_one_reads_in_fewer_calls_where_there_is_a_cache() {
    // Qt 5 keeps no cache: there the cached reader asks it once, then element by element.
    for (recording, app, has_cache) in [
        (MOUSEPAD, "mousepad", true),
        (QT_FIELDS, "qt_fields.py", false),
    ] {
        let (atspi, replay) = replaying(recording);
        let root = frame(&atspi, app).await;
        // The registry lookup asks after every app, and the recording holds only those the
        // observe asked after; the walks must find every call they make.
        let missed_before = replay.missed().len();
        let before = atspi.calls();
        let cached = atspi
            .tree(&root, style(true), WalkLimits::default())
            .await
            .expect("the cached walk");
        let cached_calls = atspi.calls() - before;
        let before = atspi.calls();
        let plain = atspi
            .tree(&root, style(false), WalkLimits::default())
            .await
            .expect("the plain walk");
        let plain_calls = atspi.calls() - before;
        assert_eq!(replay.missed()[missed_before..], [] as [String; 0], "{app}");
        assert_eq!(cached.partial, None, "{app}");
        assert_eq!(plain.partial, None, "{app}");
        assert_eq!(cached.root, plain.root, "{app}: the two readers disagree");
        assert_eq!(
            cached_calls * 2 < plain_calls,
            has_cache,
            "{app}: the cached reader made {cached_calls} calls, the plain one {plain_calls}"
        );
    }
}

#[tokio::test]
async fn a_recorded_gtk_window_reads_as_its_menus_and_text() {
    let (atspi, _) = replaying(MOUSEPAD);
    let root = frame(&atspi, "mousepad").await;
    let walked = atspi
        .tree(&root, style(true), WalkLimits::default())
        .await
        .expect("the walk");
    assert_eq!(walked.root.name, "Untitled 1 - Mousepad");
    for menu in ["File", "Edit", "Search", "View", "Document", "Help"] {
        assert!(named(&walked.root, Role::Menu, menu).is_some(), "{menu}");
    }
    // The closed menus' items are read, hidden, as the cache holds them.
    let item = all(&walked.root)
        .into_iter()
        .find(|node| node.role == Role::Menuitem)
        .expect("a menu item");
    assert!(!item.states.visible, "{item:?}");
}

#[tokio::test]
async fn a_password_field_is_read_without_its_content() {
    let (atspi, _) = replaying(QT_FIELDS);
    let root = frame(&atspi, "qt_fields.py").await;
    let walked = atspi
        .tree(&root, style(true), WalkLimits::default())
        .await
        .expect("the walk");
    let name = named(&walked.root, Role::Text, "Name").expect("the name field");
    assert_eq!(name.value.as_deref(), Some("Ada"));
    let password = all(&walked.root)
        .into_iter()
        .find(|node| node.role == Role::Password)
        .expect("the password field");
    assert_eq!(password.value, None, "{password:?}");
    // What was typed into it was never asked, so it is nowhere in the recording either.
    let secret: String = "hunter2secret"
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(!QT_FIELDS.contains(&secret));
    assert!(!QT_FIELDS.contains("hunter2secret"));
}

#[tokio::test]
async fn the_walk_stops_at_its_node_budget_and_says_so() {
    let (atspi, _) = replaying(MOUSEPAD);
    let root = frame(&atspi, "mousepad").await;
    let limits = WalkLimits {
        max_nodes: 12,
        deadline: Duration::from_secs(5),
    };
    let walked = atspi
        .tree(&root, style(false), limits)
        .await
        .expect("the walk");
    let partial = walked.partial.expect("a cut tree says so");
    assert!(partial.contains("(limit 12 nodes"), "{partial}");
    assert_eq!(all(&walked.root).len(), 12);
}

#[tokio::test]
async fn an_app_that_stops_answering_gives_what_was_read_and_says_why() {
    let (atspi, replay) = replaying(MOUSEPAD);
    let root = frame(&atspi, "mousepad").await;
    // The menu bar's children stop coming: the menus are missing, the rest is read.
    let menu_bar = atspi
        .children(&root)
        .await
        .expect("the frame's children")
        .into_iter()
        .next()
        .expect("a first child");
    replay.stop_answering(&root.bus, &menu_bar.path, ACCESSIBLE, "GetChildren");
    let walked = atspi
        .tree(&root, style(false), WalkLimits::default())
        .await
        .expect("a partial tree, not an error");
    let partial = walked.partial.expect("a partial tree says why");
    assert!(partial.contains("the app stopped answering"), "{partial}");
    assert_eq!(walked.root.name, "Untitled 1 - Mousepad");
    assert!(named(&walked.root, Role::Menu, "File").is_none());
}

/// A Qt 5 tree view's children, as `places_in_order` and `name_by_place` get them: one header row, then the cells of
/// each row, each under an object path no later read gives again.
fn tree_view_children(rows: &[[&str; 2]], first_path: usize) -> Vec<(usize, Node, bool)> {
    let headers = ["Name", "Kind"].map(|name| (Role::Header, name));
    let cells = rows.iter().flatten().map(|name| (Role::Cell, *name));
    headers
        .into_iter()
        .chain(cells)
        .enumerate()
        .map(|(index, (role, name))| {
            let node = Node {
                handle: ElementHandle(format!(":1.9|/a/{}", first_path + index)),
                role,
                name: name.into(),
                value: None,
                states: Default::default(),
                bounds: None,
                actions: Vec::new(),
                children: Vec::new(),
            };
            (index, node, false)
        })
        .collect()
}

#[test]
fn a_table_that_names_its_cells_anew_keys_them_by_their_place_and_their_rows_words() {
    let table = ObjectRef {
        bus: ":1.9".into(),
        path: "/a/1".into(),
    };
    let rows = [["alpha.txt", "Text"], ["beta.png", "Image"]];
    let mut first = tree_view_children(&rows, 100);
    let mut again = tree_view_children(&rows, 200);
    let places = places_in_order(&first, 2);
    name_by_place(&table, &mut first, &places);
    name_by_place(&table, &mut again, &places);
    for ((_, before, _), (_, now, _)) in first.iter().zip(&again) {
        assert_eq!(before.handle.identity(), now.handle.identity());
        assert_ne!(before.handle.address(), now.handle.address());
    }
    assert_eq!(again[2].1.handle.address(), ":1.9|/a/202");

    // A row inserted above: the cell now first in the Kind column reads "Text" as alpha's did,
    // and is not taken for it.
    let mut moved = tree_view_children(&[["aardvark.txt", "Text"], rows[0], rows[1]], 300);
    let places = places_in_order(&moved, 2);
    name_by_place(&table, &mut moved, &places);
    let identity = |children: &[(usize, Node, bool)], index: usize| {
        children[index].1.handle.identity().to_owned()
    };
    assert_eq!(moved[3].1.name, first[3].1.name);
    assert_ne!(identity(&moved, 3), identity(&first, 3));
    assert_eq!(identity(&moved, 0), identity(&first, 0), "the headers stay");
}

#[test]
fn a_tree_without_the_window_place_keeps_no_extent() {
    let node = |bounds, children| Node {
        handle: ElementHandle(":1.42|/a".into()),
        role: Role::Unknown,
        name: String::new(),
        value: None,
        states: deskhand_core::model::States::default(),
        bounds,
        actions: Vec::new(),
        children,
    };
    let leaf = node(Some(Rect::new(26, 40, 80, 30)), Vec::new());
    let middle = node(Some(Rect::new(10, 10, 100, 100)), vec![leaf]);
    let mut root = node(Some(Rect::new(0, 0, 652, 603)), vec![middle]);
    without_extents(&mut root);
    assert_eq!(root.bounds, None);
    assert_eq!(root.children[0].bounds, None);
    assert_eq!(root.children[0].children[0].bounds, None);
}
