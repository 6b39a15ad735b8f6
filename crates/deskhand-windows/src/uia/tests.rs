//! The translation on element data shaped as UI Automation returns it for Notepad, Calculator
//! and a browser's sign-in form.

use super::*;

fn recorded(json: &str) -> Element {
    serde_json::from_str(json).expect("recorded element data")
}

fn notepad() -> Element {
    recorded(include_str!("recorded/notepad.json"))
}

fn calculator() -> Element {
    recorded(include_str!("recorded/calculator.json"))
}

fn browser_form() -> Element {
    recorded(include_str!("recorded/browser_form.json"))
}

fn find<'a>(node: &'a Node, name: &str) -> &'a Node {
    fn search<'a>(node: &'a Node, name: &str) -> Option<&'a Node> {
        if node.name == name {
            return Some(node);
        }
        node.children.iter().find_map(|child| search(child, name))
    }
    search(node, name).unwrap_or_else(|| panic!("no element named {name:?}"))
}

fn translate(element: &Element) -> (Node, Pruned) {
    let mut pruned = Pruned::default();
    let node = node(0x6004C, element, &mut pruned);
    (node, pruned)
}

#[test]
fn notepad_reads_as_a_window_with_a_focused_text_and_menus_that_expand() {
    let (root, pruned) = translate(&notepad());
    assert_eq!(pruned, Pruned::default());
    assert_eq!(
        (root.role, root.name.as_str()),
        (Role::Window, "Untitled - Notepad")
    );
    assert_eq!(root.bounds, Some(Rect::new(100, 100, 800, 600)));

    let editor = find(&root, "Text Editor");
    assert_eq!(editor.role, Role::Text);
    assert_eq!(editor.value.as_deref(), Some("hello from notepad"));
    assert!(editor.states.focused && editor.states.editable && editor.states.enabled);

    let file = find(&root, "File");
    assert_eq!(file.role, Role::Menuitem);
    assert!(file.states.expandable && !file.states.expanded);
    assert_eq!(file.actions, ["open", "default"]);
    assert_eq!(find(&root, "Application").role, Role::Menubar);
    assert_eq!(find(&root, "Status Bar").role, Role::Statusbar);
    // Names are trimmed as the Linux reader trims them.
    assert_eq!(find(&root, "Ln 1, Col 19").role, Role::Label);
    assert_eq!(find(&root, "Close").actions, ["default"]);
}

#[test]
fn calculator_buttons_are_invoked_and_a_disabled_one_says_so() {
    let (root, _) = translate(&calculator());
    let seven = find(&root, "Seven");
    assert_eq!(seven.role, Role::Button);
    assert_eq!(seven.actions, ["click", "default"]);
    assert_eq!(
        seven.bounds.unwrap().center(),
        deskhand_core::model::Point { x: 240, y: 405 }
    );
    assert_eq!(find(&root, "Display is 0").role, Role::Label);
    assert_eq!(find(&root, "Number pad").role, Role::Group);
    assert!(!find(&root, "Memory recall").states.enabled);
    // The handle names the window, the runtime id and what tells Seven from a neighbour, and
    // parses back to them.
    assert!(
        seven
            .handle
            .0
            .starts_with(&format!("uia2:{}:7.5420.5:50000:", 0x6004C)),
        "{}",
        seven.handle.0
    );
    let (window, identity) = parse_handle(&seven.handle).unwrap();
    assert_eq!(
        (window, identity.runtime_id, identity.control_type),
        (0x6004C, vec![7, 5420, 5], control_type::BUTTON)
    );
    assert_eq!(identity.name_hash, identity::name_hash("Seven"));
}

#[test]
fn a_browser_form_reads_as_on_linux_and_the_password_is_never_read() {
    let (root, _) = translate(&browser_form());
    let roles: Vec<(&str, Role)> = [
        "Email",
        "Password",
        "Remember me",
        "Country",
        "Age",
        "Sign in",
        "Forgot password?",
    ]
    .iter()
    .map(|name| (*name, find(&root, name).role))
    .collect();
    // The roles the Linux backend gives the same HTML controls in Chromium over AT-SPI.
    assert_eq!(
        roles,
        [
            ("Email", Role::Text),
            ("Password", Role::Password),
            ("Remember me", Role::Check),
            ("Country", Role::Combobox),
            ("Age", Role::Slider),
            ("Sign in", Role::Document),
            ("Forgot password?", Role::Link),
        ]
    );
    let password = find(&root, "Password");
    assert_eq!(password.value, None, "a password's value is never carried");
    fn no_secret(node: &Node) -> bool {
        node.value.as_deref() != Some("hunter2") && node.children.iter().all(no_secret)
    }
    assert!(no_secret(&root));

    let remember = find(&root, "Remember me");
    assert!(remember.states.checkable && remember.states.checked);
    assert_eq!(remember.actions, ["toggle", "default"]);
    let country = find(&root, "Country");
    assert_eq!(country.value.as_deref(), Some("Norway"));
    assert!(
        !country.states.editable,
        "a read-only value is not editable"
    );
    assert_eq!(find(&root, "Age").value.as_deref(), Some("30"));
    // The page's document, not the button of the same name, comes first.
    let button = &root.children[0].children[0].children[5];
    assert_eq!(
        (button.role, button.name.as_str()),
        (Role::Button, "Sign in")
    );
    assert_eq!(button.actions, ["click", "default"]);
}

#[test]
fn a_long_list_keeps_only_the_items_on_screen_and_says_how_many_it_left() {
    let mut form = browser_form();
    let list = &mut form.children[0].children[1];
    let item = list.children[0].clone();
    list.children = (0..500)
        .map(|i| Element {
            runtime_id: vec![42, 264002, 5, i],
            name: format!("Result {i}"),
            offscreen: i >= 8,
            ..item.clone()
        })
        .collect();
    let (root, pruned) = translate(&form);
    let list = find(&root, "Results");
    assert_eq!(list.children.len(), 8);
    assert_eq!(pruned.offscreen, 492);
    let left = walk::Left {
        offscreen: pruned.offscreen,
        ..walk::Left::default()
    };
    assert_eq!(
        left.note().as_deref(),
        Some("492 list items scrolled out of view were not read")
    );
    let cut = walk::Left {
        budget: Some(5000),
        stalled: true,
        ..walk::Left::default()
    };
    assert_eq!(
        cut.note().as_deref(),
        Some(
            "the application stopped answering during the walk; the walk stopped at its \
             budget of 5000 elements"
        )
    );
    assert_eq!(walk::Left::default().note(), None);

    // A short list keeps its off-screen items: there is no cost to avoid.
    let mut short = browser_form();
    short.children[0].children[1].children[0].offscreen = true;
    let (root, pruned) = translate(&short);
    assert_eq!(find(&root, "Results").children.len(), 1);
    assert_eq!(pruned.offscreen, 0);
    assert!(!find(&root, "Result 0").states.visible);
}

#[test]
fn actions_follow_the_patterns_and_round_trip_through_their_names() {
    let patterns = Patterns {
        expand_collapse: Some(Expand::Expanded),
        ..Patterns::default()
    };
    assert_eq!(actions(&patterns), [Act::Collapse]);
    let leaf = Patterns {
        expand_collapse: Some(Expand::LeafNode),
        invoke: true,
        ..Patterns::default()
    };
    assert_eq!(actions(&leaf), [Act::Invoke]);
    let item = Patterns {
        selection_item: Some(false),
        ..Patterns::default()
    };
    assert_eq!(actions(&item), [Act::Select]);
    assert!(actions(&Patterns::default()).is_empty());
    for act in [
        Act::Invoke,
        Act::Toggle,
        Act::Expand,
        Act::Collapse,
        Act::Select,
        Act::DefaultAction,
    ] {
        assert_eq!(Act::from_name(act.name()), Some(act));
    }
    assert_eq!(Act::from_name("invoke"), None);
    assert!(Act::Invoke.may_block() && Act::DefaultAction.may_block());
    assert!(!Act::Toggle.may_block() && !Act::Select.may_block());
}

#[test]
fn a_toggle_button_is_a_toggle_and_a_dialog_window_a_dialog() {
    let button = Element {
        control_type: control_type::BUTTON,
        patterns: Patterns {
            toggle: Some(Toggle::On),
            ..Patterns::default()
        },
        ..Element::default()
    };
    assert_eq!(role(&button), Role::Toggle);
    assert!(states(&button).pressed);
    let dialog = Element {
        control_type: control_type::WINDOW,
        localized_control_type: "Dialog".into(),
        ..Element::default()
    };
    assert_eq!(role(&dialog), Role::Dialog);
    // A German Windows calls it "Dialogfeld": the Window pattern's IsModal decides there.
    let german = Element {
        control_type: control_type::WINDOW,
        localized_control_type: "Dialogfeld".into(),
        modal: true,
        ..Element::default()
    };
    assert_eq!(role(&german), Role::Dialog);
    assert!(states(&german).modal);
    let window = Element {
        localized_control_type: "Fenster".into(),
        modal: false,
        ..german
    };
    assert_eq!(role(&window), Role::Window);
    assert_eq!(role(&Element::default()), Role::Unknown);
}

#[test]
fn ranges_are_checked_before_anything_is_sent() {
    let range = RangeState {
        value: 30.0,
        minimum: 18.0,
        maximum: 99.0,
        read_only: false,
    };
    assert!(check_range(&range, 18.0).is_ok() && check_range(&range, 99.0).is_ok());
    let err = check_range(&range, 120.0).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadArgument);
    assert!(err.message.contains("18–99"), "{}", err.message);
    let fixed = RangeState {
        read_only: true,
        ..range
    };
    assert_eq!(
        check_range(&fixed, 20.0).unwrap_err().kind,
        ErrorKind::Disabled
    );
}

#[test]
fn failures_are_classified_and_only_those_that_may_have_acted_count_as_sent() {
    use hresult as h;
    let missing = classify(h::REGDB_E_CLASSNOTREG, "Reading the tree", false);
    assert_eq!(missing.kind, ErrorKind::NoAccessibility);
    assert!(
        missing.message.contains("not registered"),
        "{}",
        missing.message
    );
    assert!(
        missing.message.contains("0x80040154"),
        "{}",
        missing.message
    );

    assert_eq!(
        classify(h::UIA_E_ELEMENTNOTAVAILABLE, "Invoking", true).kind,
        ErrorKind::ElementGone
    );
    assert_eq!(
        classify(h::UIA_E_ELEMENTNOTENABLED, "Invoking", false).kind,
        ErrorKind::Disabled
    );
    assert_eq!(
        classify(h::UIA_E_NOTSUPPORTED, "Toggling", false).kind,
        ErrorKind::Unsupported
    );
    let timed_out = classify(h::UIA_E_TIMEOUT, "Invoking", true);
    assert_eq!(timed_out.kind, ErrorKind::Timeout);
    assert!(timed_out.sent, "a timed-out action may have run");
    assert!(!classify(h::UIA_E_TIMEOUT, "Reading", false).sent);
    let gone = classify(h::RPC_S_SERVER_UNAVAILABLE, "Invoking", true);
    assert_eq!(gone.kind, ErrorKind::SurfaceGone);
    assert!(gone.sent);
    assert!(!classify(h::UIA_E_ELEMENTNOTENABLED, "Invoking", true).sent);
    assert_eq!(
        classify(h::E_ACCESSDENIED, "Reading", false).kind,
        ErrorKind::Platform
    );
    assert_eq!(classify(-1, "Reading", false).kind, ErrorKind::Platform);
    // Wine 10 answers a pattern or focus call it lacks so: unsupported, and the core then uses
    // the pointer or the keyboard; the call did nothing, sent or not.
    let unimplemented = classify(h::E_NOTIMPL, "Focusing the element", true);
    assert_eq!(unimplemented.kind, ErrorKind::Unsupported);
    assert!(!unimplemented.sent);
    assert!(
        unimplemented.message.contains("does not implement"),
        "{}",
        unimplemented.message
    );
}

#[test]
fn handles_that_no_walk_made_are_refused() {
    for bad in [
        "",
        "uia:",
        "uia:12",
        "uia:12:",
        "uia:x:1.2",
        "uia:12:1.a",
        // The first version, the runtime id alone, could reach a neighbour.
        "uia:12:1.2",
        "uia2:12:1.2",
        "uia2:12:1.2:50000:0000000a",
        "uia2:12::50000:0000000a:0000000b",
        "uia2:12:1.2:50000:0000000a:0000000b:x",
        ":1.42/org/a11y",
    ] {
        assert_eq!(parse_handle(&ElementHandle(bad.into())), None, "{bad}");
    }
}

#[test]
fn the_cores_plain_click_runs_the_pattern_a_click_means_and_the_pointer_otherwise() {
    let click = |node: &Node| {
        deskhand_core::render::click_action(node.role, &node.actions)
            .map(|index| Act::from_name(&node.actions[index]).expect("one of ours"))
    };
    let (calculator, _) = translate(&calculator());
    assert_eq!(click(find(&calculator, "Seven")), Some(Act::Invoke));
    let (form, _) = translate(&browser_form());
    assert_eq!(click(find(&form, "Remember me")), Some(Act::Toggle));
    assert_eq!(click(find(&form, "Country")), Some(Act::Expand));
    assert_eq!(click(find(&form, "Result 0")), Some(Act::Select));
    assert_eq!(
        click(find(&form, "Email")),
        None,
        "a click into a field is the pointer's"
    );
    let (notepad, _) = translate(&notepad());
    assert_eq!(click(find(&notepad, "File")), Some(Act::Expand));
    assert_eq!(
        click(find(&notepad, "Close")),
        None,
        "a legacy default action alone is left to the pointer"
    );
}

/// A reader over recorded element data that logs each request ("children <name>", "refresh
/// <name>"), so a test can say what was asked and what never was. An element is its path of
/// child indices from the root.
struct Recorded {
    root: Element,
    log: std::cell::RefCell<Vec<String>>,
    /// Answers UIA_E_TIMEOUT from this request on, as a hung app does.
    stall_after: Option<usize>,
}

impl Recorded {
    fn new(root: Element) -> Recorded {
        Recorded {
            root,
            log: std::cell::RefCell::default(),
            stall_after: None,
        }
    }

    fn at(&self, path: &[usize]) -> Option<&Element> {
        path.iter()
            .try_fold(&self.root, |element, &i| element.children.get(i))
    }

    fn ask(&self, what: &str, path: &[usize]) -> Result<&Element, i32> {
        let element = self.at(path);
        let mut log = self.log.borrow_mut();
        let name = element.map_or("?", |e| e.name.as_str());
        log.push(format!("{what} {name}"));
        if self.stall_after.is_some_and(|n| log.len() > n) {
            return Err(hresult::UIA_E_TIMEOUT);
        }
        element.ok_or(hresult::UIA_E_ELEMENTNOTAVAILABLE)
    }

    fn requests(&self) -> usize {
        self.log.borrow().len()
    }
}

fn alone(element: &Element) -> Element {
    Element {
        children: Vec::new(),
        ..element.clone()
    }
}

impl walk::UiaReader for Recorded {
    type Live = Vec<usize>;

    fn children(&self, parent: &Vec<usize>) -> Result<Vec<(Vec<usize>, Element)>, i32> {
        let element = self.ask("children", parent)?;
        Ok(element
            .children
            .iter()
            .enumerate()
            .map(|(i, child)| {
                let mut path = parent.clone();
                path.push(i);
                (path, alone(child))
            })
            .collect())
    }

    fn refresh(&self, element: &Vec<usize>) -> Result<Element, i32> {
        self.ask("refresh", element).map(alone)
    }
}

fn budget(nodes: usize) -> walk::Budget {
    walk::Budget {
        nodes,
        depth: 64,
        deadline: std::time::Instant::now() + std::time::Duration::from_secs(60),
    }
}

fn walk_of(reader: &Recorded, budget: walk::Budget) -> walk::Walked<Vec<usize>> {
    walk::walk(reader, Vec::new(), alone(&reader.root), budget)
}

fn count(element: &Element) -> usize {
    1 + element.children.iter().map(count).sum::<usize>()
}

#[test]
fn the_walk_reads_a_window_element_by_element_and_keeps_each_live_element() {
    for recorded in [notepad(), calculator(), browser_form()] {
        let reader = Recorded::new(recorded.clone());
        let walked = walk_of(&reader, budget(5000));
        assert_eq!(
            walked.root, recorded,
            "the walk reads what one cached request gave"
        );
        assert_eq!(walked.left.note(), None);
        assert_eq!(walked.live.len(), count(&recorded));
        assert_eq!(
            reader.requests(),
            count(&recorded),
            "one request per element"
        );
    }
    let reader = Recorded::new(calculator());
    let walked = walk_of(&reader, budget(5000));
    let seven = walked
        .live
        .iter()
        .position(|kept| kept.runtime_id == [7, 5420, 5])
        .expect("Seven is kept");
    assert_eq!(reader.at(&walked.live[seven].live).unwrap().name, "Seven");
    assert_eq!(
        walk::kept_chain(&walked.live, seven),
        chain(&[0, 0, 2, 0]),
        "with its ancestors, to check them again"
    );
}

#[test]
fn a_big_window_stops_at_its_budget_with_what_it_read_and_says_so() {
    let reader = Recorded::new(calculator());
    let walked = walk_of(&reader, budget(5));
    assert_eq!(count(&walked.root), 5);
    assert_eq!(
        walked.left.note().as_deref(),
        Some("the walk stopped at its budget of 5 elements")
    );
    let (node, _) = translate(&walked.root);
    assert_eq!(find(&node, "Display is 0").role, Role::Label);

    let late = walk::Budget {
        deadline: std::time::Instant::now(),
        ..budget(5000)
    };
    let walked = walk_of(&Recorded::new(calculator()), late);
    assert_eq!(
        count(&walked.root),
        1,
        "only the window, read before the walk"
    );
    assert_eq!(
        walked.left.note().as_deref(),
        Some("the walk ran out of time")
    );

    let shallow = walk::Budget {
        depth: 2,
        ..budget(5000)
    };
    let walked = walk_of(&Recorded::new(calculator()), shallow);
    assert_eq!(
        walked.left.note().as_deref(),
        Some("elements deeper than 2 levels were not read")
    );
    assert!(walked.root.children[0].children[0].children.is_empty());
}

#[test]
fn an_app_that_stops_answering_is_asked_nothing_more_and_the_tree_says_so() {
    let mut reader = Recorded::new(browser_form());
    reader.stall_after = Some(3);
    let walked = walk_of(&reader, budget(5000));
    assert_eq!(
        reader.requests(),
        4,
        "the request that timed out is the last one"
    );
    assert_eq!(
        walked.left.note().as_deref(),
        Some("the application stopped answering during the walk")
    );
}

#[test]
fn the_items_of_a_long_list_scrolled_out_of_view_are_never_asked_for() {
    let mut form = browser_form();
    let list = &mut form.children[0].children[1];
    let item = list.children[0].clone();
    list.children = (0..500)
        .map(|i| Element {
            runtime_id: vec![42, 264002, 5, i],
            name: format!("Result {i}"),
            offscreen: i >= 8,
            ..item.clone()
        })
        .collect();
    let reader = Recorded::new(form);
    let walked = walk_of(&reader, budget(5000));
    assert_eq!(walked.left.offscreen, 492);
    assert!(
        !reader.log.borrow().iter().any(|r| r == "children Result 8"),
        "an item out of view is not asked for its children"
    );
    assert!(
        walked
            .left
            .note()
            .unwrap()
            .contains("492 list items scrolled out of view")
    );
}

/// The identity the handle of the element named `name` carries, in a walk of `root`.
fn identity_of(root: &Element, name: &str) -> identity::Identity {
    let (node, _) = translate(root);
    parse_handle(&find(&node, name).handle).unwrap().1
}

/// The kept elements from the root's child down to the element at `path`, as a walk keeps them.
fn chain(path: &[usize]) -> Vec<Vec<usize>> {
    (1..=path.len()).map(|end| path[..end].to_vec()).collect()
}

#[test]
fn an_element_is_found_again_through_the_kept_one_without_a_search_and_never_a_neighbour() {
    let seven = identity_of(&calculator(), "Seven");
    let kept = chain(&[0, 0, 2, 0]);
    let reader = Recorded::new(calculator());
    let (live, found) =
        walk::lookup(&reader, Some(&kept), &Vec::new(), &seven, budget(5000)).unwrap();
    assert_eq!((live, found.name.as_str()), (vec![0, 0, 2, 0], "Seven"));
    assert!(
        !reader
            .log
            .borrow()
            .iter()
            .any(|r| r.starts_with("children")),
        "the kept element and its ancestors answered: no search"
    );

    // A button inserted before Seven: the kept place now holds the new one, whose runtime id
    // differs, so it is not used; the search finds Seven where it went.
    let mut moved = calculator();
    let pad = &mut moved.children[0].children[0].children[2].children;
    pad.insert(
        0,
        Element {
            runtime_id: vec![7, 5420, 99],
            name: "Seven".into(),
            ..pad[0].clone()
        },
    );
    let reader = Recorded::new(moved);
    let (live, found) =
        walk::lookup(&reader, Some(&kept), &Vec::new(), &seven, budget(5000)).unwrap();
    assert_eq!(live, vec![0, 0, 2, 1]);
    assert_eq!(found.runtime_id, seven.runtime_id);

    // Gone from the window: gone, whatever else is named Seven.
    let mut removed = calculator();
    removed.children[0].children[0].children[2].children[0].runtime_id = vec![7, 5420, 98];
    let reader = Recorded::new(removed);
    assert_eq!(
        walk::lookup(&reader, Some(&kept), &Vec::new(), &seven, budget(5000)).unwrap_err(),
        walk::NotFound::Gone
    );
    // Without a kept element (a new CLI process), the search within its budget.
    let reader = Recorded::new(calculator());
    assert!(walk::lookup(&reader, None, &Vec::new(), &seven, budget(5000)).is_ok());
    assert_eq!(
        walk::lookup(&reader, None, &Vec::new(), &seven, budget(3)).unwrap_err(),
        walk::NotFound::Unsearched
    );
    // The same runtime id on an element of another type or name is not Seven.
    let mut renamed = calculator();
    renamed.children[0].children[0].children[2].children[0].name = "Eight".into();
    let reader = Recorded::new(renamed);
    assert_eq!(
        walk::lookup(&reader, Some(&kept), &Vec::new(), &seven, budget(5000)).unwrap_err(),
        walk::NotFound::Gone
    );
}

/// A reader that answers each request only after `delay`, as a big Electron window does.
struct Slow {
    inner: Recorded,
    delay: std::time::Duration,
}

impl walk::UiaReader for Slow {
    type Live = Vec<usize>;

    fn children(&self, parent: &Vec<usize>) -> Result<Vec<(Vec<usize>, Element)>, i32> {
        std::thread::sleep(self.delay);
        self.inner.children(parent)
    }

    fn refresh(&self, element: &Vec<usize>) -> Result<Element, i32> {
        std::thread::sleep(self.delay);
        self.inner.refresh(element)
    }
}

#[test]
fn another_look_at_an_empty_web_page_shares_the_walks_time_and_answers_partial() {
    use std::time::{Duration, Instant};
    let mut form = browser_form();
    fn empty_documents(element: &mut Element) {
        if element.control_type == control_type::DOCUMENT {
            element.children.clear();
        }
        element.children.iter_mut().for_each(empty_documents);
    }
    empty_documents(&mut form);
    let reader = Slow {
        inner: Recorded::new(form),
        delay: Duration::from_millis(30),
    };
    let time = Duration::from_millis(400);
    let started = Instant::now();
    let shared = walk::Budget {
        deadline: started + time,
        ..budget(5000)
    };
    let root = || Ok((Vec::new(), alone(&reader.inner.root)));
    let walked = walk::walk_window(&reader, root, shared, 50, Duration::from_millis(60)).unwrap();
    // Fifty looks of a fresh budget each would take at least 50 gaps (3 s); the caller's
    // deadline is kept, give or take one request.
    assert!(
        started.elapsed() < time + Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    // What the last look read: the page still empty, or cut short by the time, and said so.
    assert!(walked.left.deadline || walk::web_content_pending(&walked.root));
    // A page that filled in is read once.
    let reader = Recorded::new(browser_form());
    let root = || Ok((Vec::new(), alone(&reader.root)));
    let walked = walk::walk_window(&reader, root, budget(5000), 4, Duration::ZERO).unwrap();
    assert_eq!(walked.root, browser_form());
    assert_eq!(reader.requests(), count(&browser_form()));
}

#[test]
fn an_empty_web_document_asks_for_another_look() {
    let mut form = browser_form();
    assert!(!walk::web_content_pending(&form));
    fn empty_documents(element: &mut Element) {
        if element.control_type == control_type::DOCUMENT {
            element.children.clear();
        }
        element.children.iter_mut().for_each(empty_documents);
    }
    empty_documents(&mut form);
    assert!(walk::web_content_pending(&form));
}

mod index_ids;
