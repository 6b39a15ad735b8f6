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
    // The handle names the window and the runtime id, and parses back to both.
    assert_eq!(seven.handle.0, format!("uia:{}:7.5420.5", 0x6004C));
    assert_eq!(
        parse_handle(&seven.handle),
        Some((0x6004C, vec![7, 5420, 5]))
    );
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
    assert_eq!(
        partial_note(pruned, None, false).as_deref(),
        Some("492 list items scrolled out of view were not read")
    );
    assert_eq!(
        partial_note(Pruned::default(), Some((5000, 64)), true).as_deref(),
        Some(
            "the walk stopped at its budget of 5000 elements or 64 levels; the application \
             stopped answering during the walk"
        )
    );
    assert_eq!(partial_note(Pruned::default(), None, false), None);

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
