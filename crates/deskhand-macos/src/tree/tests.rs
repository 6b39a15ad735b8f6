//! The walk over recorded dumps of TextEdit, Calculator, Finder and a Safari form
//! (`tests/data/`), with a reader that logs every request so a test can say what was never
//! asked.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::*;

/// A reader over one dump; it logs each request as "<what> <element label>".
struct Recorded<'a> {
    log: RefCell<Vec<String>>,
    /// Answers `kAXErrorCannotComplete` from this request on, as a hung app does.
    stall_after: Option<usize>,
    dump: &'a Value,
}

fn label(element: &Value) -> String {
    let text = |key: &str| element.get(key).and_then(Value::as_str).unwrap_or("");
    format!(
        "{}[{}{}]",
        text("AXRole"),
        text("AXTitle"),
        text("AXDescription")
    )
}

fn ax_value(value: &Value) -> Option<AxValue> {
    Some(match value {
        Value::String(s) => AxValue::Text(s.clone()),
        Value::Bool(b) => AxValue::Bool(*b),
        Value::Number(n) => AxValue::Number(n.as_f64()?),
        Value::Object(o) if o.contains_key("x") => AxValue::Point {
            x: o["x"].as_f64()?,
            y: o["y"].as_f64()?,
        },
        Value::Object(o) if o.contains_key("w") => AxValue::Size {
            width: o["w"].as_f64()?,
            height: o["h"].as_f64()?,
        },
        Value::Array(items) => AxValue::Count(items.len()),
        _ => AxValue::Other,
    })
}

impl<'a> Recorded<'a> {
    fn new(dump: &'a Value) -> Recorded<'a> {
        Recorded {
            log: RefCell::new(Vec::new()),
            stall_after: None,
            dump,
        }
    }

    fn ask(&self, what: &str, element: &Value) -> Result<(), AxError> {
        let mut log = self.log.borrow_mut();
        log.push(format!("{what} {}", label(element)));
        match self.stall_after {
            Some(n) if log.len() > n => Err(AxError::CANNOT_COMPLETE),
            _ => Ok(()),
        }
    }
}

impl<'a> AxReader for Recorded<'a> {
    type Element = &'a Value;

    fn attributes(&self, element: &&'a Value) -> Result<Attributes, AxError> {
        self.ask("batch", element)?;
        let values: Vec<Option<AxValue>> = crate::attributes::BATCH
            .iter()
            .map(|name| element.get(*name).and_then(ax_value))
            .collect();
        let children = element
            .get(crate::attributes::COUNTED)
            .and_then(Value::as_array)
            .map(Vec::len);
        Ok(Attributes::from_batch(&values, children))
    }

    fn value(&self, element: &&'a Value) -> Result<Option<AxValue>, AxError> {
        self.ask("value", element)?;
        Ok(element.get("AXValue").and_then(ax_value))
    }

    fn children(&self, element: &&'a Value, which: Children) -> Result<Vec<&'a Value>, AxError> {
        let (what, key) = match which {
            Children::All { .. } => ("children", "AXChildren"),
            Children::VisibleRows => ("rows", "AXVisibleRows"),
        };
        self.ask(what, element)?;
        let all = element
            .get(key)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let max = match which {
            Children::All { max } => max,
            Children::VisibleRows => usize::MAX,
        };
        Ok(all.iter().take(max).collect())
    }

    fn action_names(&self, element: &&'a Value) -> Result<Vec<String>, AxError> {
        self.ask("actions", element)?;
        Ok(element
            .get("AXActionNames")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(|n| n.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// A row is found among the visible ones by its `AXIndex`, as `AXRows` holds it by index.
    fn step(&self, element: &&'a Value, step: Step) -> Result<Option<&'a Value>, AxError> {
        self.ask("step", element)?;
        let list = |key: &str| element.get(key).and_then(Value::as_array);
        Ok(match step {
            Step::Child(n) => list("AXChildren").and_then(|all| all.get(n)),
            Step::Row(n) => list("AXVisibleRows").and_then(|rows| {
                rows.iter()
                    .find(|row| row.get("AXIndex").and_then(Value::as_u64) == Some(n as u64))
            }),
            Step::MenuBar => None,
        })
    }
}

fn dump(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn limits() -> Limits {
    Limits {
        nodes: NODE_BUDGET,
        deadline: Instant::now() + Duration::from_secs(60),
    }
}

/// Walks the dump's window, as the backend walks a live one.
fn walk_with(reader: &Recorded<'_>, limits: Limits) -> Tree {
    let dump = reader.dump;
    let root = &dump["root"];
    let attributes = reader.attributes(&root).unwrap();
    reader.log.borrow_mut().clear();
    let handle = Handle {
        pid: dump["pid"].as_u64().unwrap() as u32,
        window: dump["window"].as_u64().unwrap(),
        path: Vec::new(),
        role: attributes.role().to_owned(),
        name_hash: hash_of(&attributes),
        trail: 0,
    };
    // A menu bar is judged against the screen, as the backend does, a window against itself.
    let clip = match dump.get("screen") {
        Some(screen) => Rect::new(
            0,
            0,
            screen["w"].as_u64().unwrap() as u32,
            screen["h"].as_u64().unwrap() as u32,
        ),
        None => attributes.frame().unwrap().to_rect(),
    };
    read_tree(reader, &root, attributes, handle, clip, limits)
}

fn walk(name: &str) -> (Tree, Vec<String>) {
    let dump = dump(name);
    let reader = Recorded::new(&dump);
    let tree = walk_with(&reader, limits());
    let log = reader.log.borrow().clone();
    (tree, log)
}

fn find<'t>(node: &'t Node, role: Role, name: &str) -> &'t Node {
    fn search<'t>(node: &'t Node, role: Role, name: &str) -> Option<&'t Node> {
        if node.role == role && node.name == name {
            return Some(node);
        }
        node.children.iter().find_map(|c| search(c, role, name))
    }
    search(node, role, name).unwrap_or_else(|| panic!("no {role:?} {name:?} in the tree"))
}

#[test]
fn textedit_reads_as_a_window_with_its_text_title_buttons_and_format_bar() {
    let (tree, _) = walk("textedit");
    let root = &tree.root;
    assert_eq!((root.role, root.name.as_str()), (Role::Window, "Untitled"));
    assert_eq!(root.bounds, Some(Rect::new(200, 120, 640, 480)));
    assert_eq!(tree.partial, None);

    let close = find(root, Role::Button, "close");
    assert!(close.states.enabled && close.states.visible);
    find(root, Role::Button, "minimize");
    find(root, Role::Button, "full screen");

    let text = &find(root, Role::Scrollpane, "").children[0];
    assert_eq!(text.role, Role::Text);
    assert_eq!(text.value.as_deref(), Some("Dear Ada,\nthe engine runs.\n"));
    assert!(text.states.focused && text.states.editable && text.states.focusable);

    let font = find(root, Role::Combobox, "Font Family");
    assert_eq!(font.value.as_deref(), Some("Helvetica"));
    assert!(
        !font.states.editable,
        "a pop-up button is chosen, not typed into"
    );
    let size = find(root, Role::Combobox, "Font Size");
    assert_eq!(size.value.as_deref(), Some("12"));
    assert!(size.states.editable && size.states.expandable && !size.states.expanded);

    let bold = find(root, Role::Check, "Bold");
    assert!(bold.states.checkable && bold.states.checked);
    assert_eq!(
        bold.value, None,
        "a checkbox's 0/1 is its state, not a value"
    );
    let italic = find(root, Role::Check, "Italic");
    assert!(italic.states.checkable && !italic.states.checked);
    let underline = find(root, Role::Check, "Underline");
    assert!(!underline.states.checked, "mixed (2) is not checked");
    assert!(!underline.states.enabled);

    let scrollbar = find(root, Role::Scrollbar, "");
    assert_eq!(scrollbar.value.as_deref(), Some("0.25"));
}

#[test]
fn calculator_buttons_are_named_by_their_description_and_the_display_by_its_words() {
    let (tree, log) = walk("calculator");
    let root = &tree.root;
    assert_eq!(
        root.bounds,
        Some(Rect::new(600, 300, 232, 321)),
        "half points grow"
    );
    for name in ["clear", "seven", "eight", "add", "equals"] {
        let button = find(root, Role::Button, name);
        assert!(button.states.enabled && button.states.visible, "{name}");
    }
    let display = find(root, Role::Label, "1,234.5");
    assert_eq!(
        display.value, None,
        "a label's words are its name, as on Linux"
    );
    assert!(
        !log.iter().any(|l| l.starts_with("value AXButton")),
        "a button's value is not asked: {log:?}"
    );
    assert!(
        log.iter().any(|l| l.starts_with("value AXStaticText")),
        "{log:?}"
    );
}

#[test]
fn finder_reads_only_the_rows_on_screen_and_no_column() {
    let (tree, log) = walk("finder");
    let list = find(&tree.root, Role::Tree, "list view");
    let rows: Vec<&Node> = list.children.iter().collect();
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|row| row.role == Role::Treeitem));
    let names: Vec<&str> = rows
        .iter()
        .map(|row| {
            row.children[0].children[1]
                .value
                .as_deref()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        names,
        [
            "file-0040.txt",
            "file-0041.txt",
            "file-0042.txt",
            "file-0043.txt",
            "file-0044.txt"
        ]
    );
    assert!(rows[2].states.selected && !rows[1].states.selected);
    assert!(
        rows[0].handle.0.contains(".r40:AXRow:"),
        "a row is reached again by its index, not its place on screen: {}",
        rows[0].handle.0
    );
    assert!(
        !log.iter()
            .any(|l| l == "children AXOutline[list view]" || l.starts_with("batch AXColumn")),
        "the outline's full child list and its columns are never asked: {log:?}"
    );
    let sidebar = find(&tree.root, Role::Tree, "sidebar");
    let documents = find(sidebar, Role::Label, "Documents");
    assert!(documents.states.visible);
    assert!(sidebar.children[0].states.expanded && sidebar.children[0].states.expandable);
    let search = find(&tree.root, Role::Text, "search");
    assert!(search.states.editable);
    assert!(!find(&tree.root, Role::Button, "Back").states.enabled);
    assert_eq!(tree.partial, None, "the visible rows are the whole view");
}

#[test]
fn a_password_field_is_listed_but_its_value_is_never_asked() {
    let (tree, log) = walk("safari_form");
    let password = find(&tree.root, Role::Password, "Password");
    assert_eq!(password.value, None);
    assert!(password.states.focused && password.states.editable);
    assert!(
        !log.iter().any(|l| l == "value AXTextField[Password]"),
        "{log:?}"
    );
    let rendered = format!("{tree:?}");
    assert!(!rendered.contains("hunter2"), "the secret is nowhere");

    let email = find(&tree.root, Role::Text, "Email");
    assert_eq!(email.value.as_deref(), Some("ada@example.com"));
    let remember = find(&tree.root, Role::Check, "Remember me");
    assert!(remember.states.checked);
    let country = find(&tree.root, Role::Combobox, "Country");
    assert_eq!(country.value.as_deref(), Some("France"));
    find(&tree.root, Role::Button, "Sign in");
    find(&tree.root, Role::Heading, "Sign in");
    let link = find(&tree.root, Role::Link, "Forgot password?");
    assert_eq!(link.children[0].name, "Forgot password?");
    find(&tree.root, Role::Document, "Sign in – Example");
}

#[test]
fn an_unnamed_image_button_carries_its_actions_and_what_is_far_below_is_not_read() {
    let (tree, log) = walk("safari_form");
    let main = tree.root.children[1].children[0].children[0].children[1].clone();
    let clickable = main
        .children
        .iter()
        .find(|n| n.role == Role::Image)
        .unwrap();
    assert_eq!(clickable.actions, ["press", "showmenu", "scrolltovisible"]);
    assert!(
        !log.iter().any(|l| l == "actions AXButton[Sign in]"),
        "a named control's actions are asked at click time, not while reading: {log:?}"
    );

    let document = find(&tree.root, Role::Document, "Sign in – Example");
    let footer = document.children.last().unwrap();
    assert!(!footer.states.visible);
    assert!(footer.children.is_empty());
    assert_eq!(
        log.iter()
            .filter(|l| l.starts_with("batch AXStaticText"))
            .count(),
        3,
        "the 50 footer lines are never read: {log:?}"
    );
}

#[test]
fn the_node_budget_and_a_stalled_app_end_the_walk_with_a_partial_note() {
    let dump = dump("finder");
    let reader = Recorded::new(&dump);
    let tree = walk_with(
        &reader,
        Limits {
            nodes: 10,
            ..limits()
        },
    );
    assert_eq!(tree.root.count(), 10);
    assert_eq!(tree.partial.as_deref(), Some("stopped at 10 elements"));

    let mut stalled = Recorded::new(&dump);
    stalled.stall_after = Some(4);
    let tree = walk_with(&stalled, limits());
    assert_eq!(
        tree.partial.as_deref(),
        Some("the app stopped answering accessibility requests")
    );
    assert_eq!(
        stalled.log.borrow().len(),
        5,
        "nothing is asked after the request that got no answer: {:?}",
        stalled.log.borrow()
    );

    let late = Recorded::new(&dump);
    let tree = walk_with(
        &late,
        Limits {
            deadline: Instant::now(),
            ..limits()
        },
    );
    assert_eq!(tree.partial.as_deref(), Some("the read ran out of time"));
}

#[test]
fn a_leaf_costs_one_batch_and_is_never_asked_for_children_nor_counted_unreadable() {
    let (tree, log) = walk("calculator");
    let seven = find(&tree.root, Role::Button, "seven");
    assert!(seven.children.is_empty());
    assert!(
        !log.iter()
            .any(|l| l.starts_with("children AXButton") || l.starts_with("children AXStaticText")),
        "a leaf's children are known from its batch: {log:?}"
    );
    assert_eq!(
        log.iter()
            .filter(|l| l.as_str() == "batch AXButton[seven]")
            .count(),
        1
    );
    assert_eq!(
        log.iter()
            .filter(|l| l.ends_with("AXButton[seven]"))
            .count(),
        1,
        "one request for a button: {log:?}"
    );
    assert_eq!(tree.partial, None, "no leaf counts as unreadable");
}

#[test]
fn a_long_child_list_is_cut_and_counted() {
    let items: Vec<Value> = (0..MAX_CHILDREN + 20)
        .map(|i| {
            serde_json::json!({"AXRole": "AXStaticText", "AXValue": format!("line {i}"),
                "AXPosition": {"x": 0, "y": 0}, "AXSize": {"w": 10, "h": 10}})
        })
        .collect();
    let dump = serde_json::json!({"pid": 1, "window": 2, "root": {
        "AXRole": "AXWindow", "AXTitle": "Log", "AXPosition": {"x": 0, "y": 0},
        "AXSize": {"w": 100, "h": 100}, "AXChildren": items}});
    let reader = Recorded::new(&dump);
    let tree = walk_with(&reader, limits());
    assert_eq!(tree.root.children.len(), MAX_CHILDREN);
    assert_eq!(
        tree.partial.as_deref(),
        Some("20 children of long lists were not read")
    );
}

#[test]
fn a_tree_that_nests_without_end_stops_at_the_depth_limit_and_says_so() {
    let mut nested = serde_json::json!({"AXRole": "AXStaticText", "AXValue": "bottom",
        "AXPosition": {"x": 0, "y": 0}, "AXSize": {"w": 10, "h": 10}});
    for level in 0..MAX_DEPTH + 36 {
        nested = serde_json::json!({"AXRole": "AXGroup", "AXDescription": format!("level {level}"),
            "AXPosition": {"x": 0, "y": 0}, "AXSize": {"w": 10, "h": 10},
            "AXChildren": [nested]});
    }
    let dump = serde_json::json!({"pid": 1, "window": 2, "root": {
        "AXRole": "AXWindow", "AXTitle": "Deep", "AXPosition": {"x": 0, "y": 0},
        "AXSize": {"w": 100, "h": 100}, "AXChildren": [nested]}});
    let reader = Recorded::new(&dump);
    let tree = walk_with(&reader, limits());
    fn depth(node: &Node) -> usize {
        1 + node.children.iter().map(depth).max().unwrap_or(0)
    }
    assert_eq!(
        depth(&tree.root),
        MAX_DEPTH + 1,
        "the window and 64 levels below it"
    );
    assert_eq!(
        tree.partial.as_deref(),
        Some("elements deeper than 64 levels were not read")
    );
}

#[test]
fn a_dump_replays_as_the_window_did_with_nothing_typed_or_secret_in_it() {
    for name in ["textedit", "calculator", "finder", "safari_form"] {
        let recorded = dump(name);
        // Until real dumps replace them, the recorded data say they are hand-written.
        assert!(
            recorded["_source"]
                .as_str()
                .unwrap()
                .starts_with("hand-written")
        );
        let reader = Recorded::new(&recorded);
        let dumped = super::dump::dump(
            &reader,
            &&recorded["root"],
            recorded["pid"].as_u64().unwrap() as u32,
            recorded["window"].as_u64().unwrap(),
            "a test",
            limits(),
        );
        let text = dumped.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("s3cret"),
            "{name}: a password"
        );
        let replayed = Recorded::new(&dumped);
        let (before, after) = (walk_with(&reader, limits()), walk_with(&replayed, limits()));
        fn lines(node: &Node, out: &mut Vec<String>) {
            let value = match node.role {
                Role::Text | Role::Password => None,
                _ => node.value.clone(),
            };
            out.push(format!(
                "{:?} {} {:?} {value:?}",
                node.role, node.name, node.bounds
            ));
            node.children.iter().for_each(|c| lines(c, out));
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        lines(&before.root, &mut a);
        lines(&after.root, &mut b);
        assert_eq!(a, b, "{name}");
        // What was typed into a field is not in the dump.
        fn typed(node: &Node, out: &mut Vec<String>) {
            if node.role == Role::Text
                && let Some(value) = node.value.as_deref().filter(|v| !v.is_empty())
            {
                out.push(value.to_owned());
            }
            node.children.iter().for_each(|c| typed(c, out));
        }
        let mut values = Vec::new();
        typed(&before.root, &mut values);
        for value in values {
            assert!(!text.contains(&format!("\"{value}\"")), "{name}: {value:?}");
        }
    }
}

/// Numbers in the order the renderer asks, as a fresh session gives them.
#[derive(Default)]
struct Counter(std::collections::HashMap<String, u32>);

impl deskhand_core::render::Numbers for Counter {
    fn number(&mut self, handle: &deskhand_core::model::ElementHandle, _: Role) -> u32 {
        self.number_of_key(&handle.0)
    }

    fn number_of_key(&mut self, key: &str) -> u32 {
        let next = self.0.len() as u32 + 1;
        *self.0.entry(key.to_owned()).or_insert(next)
    }
}

/// The observation's lines the core renders from a dump's tree.
fn rendered(name: &str) -> String {
    let (tree, _) = walk(name);
    let window = deskhand_core::model::WindowKey {
        handle: 1,
        pid: Some(1),
    };
    let surface = tree.root.bounds.unwrap();
    let trees = [deskhand_core::render::WindowTree {
        tree: &tree,
        window,
        label: None,
        title: None,
    }];
    deskhand_core::render::render(
        &trees,
        &surface,
        &deskhand_core::action::ObserveSpec::default(),
        None,
        &mut Counter::default(),
    )
    .body
}

#[test]
fn the_safari_form_renders_as_the_same_form_would_on_linux() {
    let body = rendered("safari_form");
    for line in [
        "window \"Sign in – Example\" focused",
        "text \"Email\" value=\"ada@example.com\"",
        "password \"Password\" value=<hidden> focused",
        "check \"Remember me\" checked",
        "combobox \"Country\" value=\"France\" collapsed",
        "button \"Sign in\"",
        "link \"Forgot password?\"",
        "image",
    ] {
        assert!(
            body.lines().any(|l| l
                .trim_start()
                .split_once(' ')
                .is_some_and(|(_, rest)| rest.starts_with(line))),
            "no line {line:?} in\n{body}"
        );
    }
    assert!(!body.contains("hunter2"), "{body}");
    assert!(!body.contains("footer line"), "{body}");
}

#[test]
fn finder_and_calculator_render_their_controls() {
    let finder = rendered("finder");
    assert!(finder.contains("treeitem"), "{finder}");
    assert!(finder.contains("\"file-0042.txt\""), "{finder}");
    assert!(!finder.contains("file-0039.txt"), "{finder}");
    let calculator = rendered("calculator");
    assert!(calculator.contains("button \"seven\""), "{calculator}");
    assert!(calculator.contains("label \"1,234.5\""), "{calculator}");
}

#[test]
fn a_menu_bar_reads_its_items_and_only_the_open_menu() {
    let item = |title: &str, x: i32, open: bool| {
        serde_json::json!({"AXRole": "AXMenuBarItem", "AXTitle": title, "AXSelected": open,
            "AXPosition": {"x": x, "y": 0}, "AXSize": {"w": 60, "h": 24}, "AXEnabled": true,
            "AXChildren": [{"AXRole": "AXMenu", "AXPosition": {"x": x, "y": 24},
                "AXSize": {"w": 200, "h": 100}, "AXChildren": [
                    {"AXRole": "AXMenuItem", "AXTitle": format!("{title} item"),
                     "AXPosition": {"x": x, "y": 30}, "AXSize": {"w": 200, "h": 22},
                     "AXEnabled": true}]}]})
    };
    let dump = serde_json::json!({"pid": 412, "window": 9031, "screen": {"w": 1512, "h": 982},
        "root": {
        "AXRole": "AXMenuBar", "AXPosition": {"x": 0, "y": 0}, "AXSize": {"w": 1512, "h": 24},
        "AXChildren": [item("Apple", 0, false), item("File", 60, false), item("Format", 120, true)]}});
    let reader = Recorded::new(&dump);
    let tree = walk_with(&reader, limits());
    let items = &tree.root.children;
    assert_eq!(tree.root.role, Role::Menubar);
    assert_eq!(items.len(), 3);
    assert!(items.iter().all(|i| i.role == Role::Menuitem));
    assert!(items[0].children.is_empty() && items[1].children.is_empty());
    assert_eq!(items[2].children[0].role, Role::Menu);
    assert_eq!(items[2].children[0].children[0].name, "Format item");
    assert!(
        !reader
            .log
            .borrow()
            .iter()
            .any(|l| l == "children AXMenuBarItem[File]"),
        "a closed menu is not asked for: {:?}",
        reader.log.borrow()
    );
}

#[test]
fn an_empty_web_page_asks_for_another_look_and_a_full_one_does_not() {
    let (tree, _) = walk("safari_form");
    assert!(!web_content_pending(&tree.root));
    let mut page = dump("safari_form");
    fn empty_pages(element: &mut Value) {
        if element["AXRole"] == "AXWebArea" {
            element["AXChildren"] = Value::Array(Vec::new());
        }
        if let Some(children) = element.get_mut("AXChildren").and_then(Value::as_array_mut) {
            children.iter_mut().for_each(empty_pages);
        }
    }
    empty_pages(&mut page["root"]);
    let reader = Recorded::new(&page);
    assert!(web_content_pending(&walk_with(&reader, limits()).root));
}

mod identity;
