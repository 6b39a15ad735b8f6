//! An observation as compact text: one element a line, indentation for nesting, refs first.
//!
//! Only what carries meaning is listed: controls, named content and values. Layout wrappers
//! without a name are dropped and their children lifted, so a chain of panels costs nothing.
//!
//! Rendering runs in two steps: every element the trees hold is found first (hidden ones
//! included and flagged), then an [`ObserveSpec`] picks what is listed: at most `limit` lines,
//! only down to `max_depth`, only what a `query` matches (with its ancestors), or only what
//! changed `since` the last observe of the surface.
//!
//! Here are what every step shares (a `Line`, a `Found` element, the [`Rendered`] result)
//! and the two entry points, [`render`] and [`pick`]; `walk` finds the elements, `listing`
//! picks a plain listing, `since` the changes, and `text` holds the text helpers every reply
//! uses.

mod lines;
mod listing;
mod since;
mod walk;

use crate::action::ObserveSpec;
use crate::model::{Node, Rect, Role};
pub use crate::session::Numbers;
use crate::session::Seen;
pub use crate::text::{FENCE, cut, cut_to_end, escape, one_line, plural, thousands};
pub use lines::{
    Change, Changes, ListedElement, MAX_NAME_CHARS, MAX_VALUE_CHARS, MAX_WAS_CHARS, REF_NAME_CHARS,
    Rendered, Was, WindowTree,
};
use lines::{Found, count_cuts, issue};
use listing::{keep_points_that_tell_apart, listing, selection};
use since::changes;

use walk::walk_all;

/// Action names that stand for a plain click, best first.
const CLICK_ACTIONS: [&str; 7] = [
    "click", "press", "activate", "toggle", "jump", "open", "select",
];

/// Renders the windows' trees as `spec` asks; `previous` is what the last observe of the same
/// surface saw, for `since`.
pub fn render(
    windows: &[WindowTree<'_>],
    surface: &Rect,
    spec: &ObserveSpec,
    previous: Option<&[Seen]>,
    numbers: &mut dyn Numbers,
) -> Rendered {
    let mut out = Rendered {
        limit: spec.limit,
        max_depth: spec.max_depth,
        ..Rendered::default()
    };
    let mut found = walk_all(windows, surface, true, &mut out);
    if !spec.points {
        keep_points_that_tell_apart(&mut found, spec.hidden);
    }
    out.seen = found.iter().map(|f| f.line.to_seen()).collect();
    let view: Vec<&Found<'_>> = found
        .iter()
        .filter(|f| spec.hidden || !f.line.hidden())
        .collect();
    let query = spec.query.as_deref().map(str::to_lowercase);
    // Exactly the lines `hidden: true` would add to this listing.
    out.hidden = if spec.hidden {
        0
    } else {
        let everything: Vec<&Found<'_>> = found.iter().collect();
        selection(&everything, spec, query.as_deref())
            .len()
            .saturating_sub(selection(&view, spec, query.as_deref()).len())
    };
    if let Some(query) = &query {
        let matches = view
            .iter()
            .filter(|f| spec.max_depth.is_none_or(|d| f.line.depth <= d) && f.matches(query))
            .count();
        out.query = Some((spec.query.clone().unwrap_or_default(), matches));
    }
    match (spec.since, previous) {
        (true, Some(previous)) => {
            changes(&mut out, &view, previous, spec, query.as_deref(), numbers)
        }
        (since, _) => {
            if since {
                out.since = Some(None);
            }
            listing(&mut out, &view, spec, query.as_deref(), numbers)
        }
    }
    out
}

/// The elements an observation would list, hidden ones left out, that `accept` takes: flat
/// lines with refs, what `find` and `wait` show as evidence. `seen` holds the whole tree.
pub fn pick(
    windows: &[WindowTree<'_>],
    surface: &Rect,
    accept: &dyn Fn(&Node) -> bool,
    numbers: &mut dyn Numbers,
) -> Rendered {
    let mut out = Rendered::default();
    // These lines go under headers that do not name the window's title.
    let found = walk_all(windows, surface, false, &mut out);
    out.seen = found.iter().map(|f| f.line.to_seen()).collect();
    for found in found.iter().filter(|f| !f.line.hidden() && accept(f.node)) {
        let number = numbers.number(&found.node.handle, found.node.role);
        issue(&mut out, found, number);
        count_cuts(&mut out, found);
        found.line.write(&mut out.body, "", Some(number));
        out.body.push('\n');
        out.elements
            .push(found.line.listed(Some(number), None, None));
    }
    out.total = out.elements.len();
    out.issued = out.elements.len();
    out
}

/// Which of the element's actions (by programmatic name) a plain click stands for; `None`
/// means the pointer must do it.
pub fn click_action(role: Role, actions: &[String]) -> Option<usize> {
    // A text field's "activate" submits it (Enter), which is not what clicking into it does.
    if matches!(role, Role::Text | Role::Terminal | Role::Password) {
        return None;
    }
    let index = CLICK_ACTIONS
        .iter()
        .find_map(|wanted| actions.iter().position(|a| a.eq_ignore_ascii_case(wanted)))?;
    // A cell's "activate" activates its row, as a double-click or Enter does (GTK3's tree
    // view: a file manager opens the file), and leaves the selection where it was; the
    // pointer's click selects the row, or opens a place in a side pane.
    if role == Role::Cell && actions[index].eq_ignore_ascii_case("activate") {
        return None;
    }
    Some(index)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::model::{ElementHandle, States, Tree, WindowKey};
    use crate::session::element_key;

    fn node(id: &str, role: Role, name: &str, children: Vec<Node>) -> Node {
        Node {
            handle: ElementHandle(id.into()),
            role,
            name: name.into(),
            value: None,
            states: States {
                enabled: true,
                visible: true,
                ..States::default()
            },
            bounds: Some(Rect::new(0, 0, 100, 20)),
            actions: vec![],
            children,
        }
    }

    #[test]
    fn a_click_is_not_a_text_fields_or_a_cells_activate() {
        let names = |all: &[&str]| all.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let gtk3_cell = names(&["expand or contract", "edit", "activate"]);
        assert_eq!(click_action(Role::Button, &names(&["activate"])), Some(0));
        assert_eq!(click_action(Role::Listitem, &gtk3_cell), Some(2));
        assert_eq!(click_action(Role::Cell, &gtk3_cell), None, "the pointer's");
        assert_eq!(
            click_action(Role::Cell, &names(&["activate", "click"])),
            Some(1)
        );
        assert_eq!(click_action(Role::Text, &names(&["activate"])), None);
    }

    /// Numbers in the order they are asked for, like a fresh session.
    #[derive(Default)]
    struct Counter(HashMap<String, u32>);

    impl Numbers for Counter {
        fn number(&mut self, handle: &ElementHandle, role: Role) -> u32 {
            let next = self.0.len() as u32 + 1;
            *self.0.entry(element_key(handle, role)).or_insert(next)
        }

        fn number_of_key(&mut self, key: &str) -> u32 {
            let next = self.0.len() as u32 + 1;
            *self.0.entry(key.to_owned()).or_insert(next)
        }
    }

    fn render_with(root: &Node, spec: &ObserveSpec, previous: Option<&[Seen]>) -> Rendered {
        let tree = Tree {
            root: root.clone(),
            partial: None,
        };
        render(
            &[WindowTree {
                tree: &tree,
                window: WindowKey {
                    handle: 7,
                    pid: Some(1),
                },
                label: None,
                title: None,
            }],
            &Rect::new(0, 0, 1000, 1000),
            spec,
            previous,
            &mut Counter::default(),
        )
    }

    fn render_one(root: Node) -> Rendered {
        render_with(&root, &ObserveSpec::default(), None)
    }

    #[test]
    fn wrappers_vanish_and_children_lift() {
        let mut save = node(
            "b",
            Role::Button,
            "Save",
            vec![node("l", Role::Label, "Save", vec![])],
        );
        save.actions = vec!["click".into()];
        let root = node(
            "w",
            Role::Window,
            "Doc",
            vec![node(
                "p",
                Role::Generic,
                "",
                vec![node("p2", Role::Generic, "", vec![save])],
            )],
        );
        let out = render_one(root);
        assert_eq!(out.body, "e1 window \"Doc\"\ne2 button \"Save\"\n");
        assert_eq!(out.nodes, 5);
    }

    #[test]
    fn points_show_where_the_words_do_not_tell_an_element_apart() {
        let mut icon = node("i", Role::Button, "", vec![]);
        icon.bounds = Some(Rect::new(20, 20, 10, 10));
        let mut first_ok = node("o1", Role::Button, "OK", vec![]);
        first_ok.bounds = Some(Rect::new(0, 0, 20, 20));
        let mut second_ok = node("o2", Role::Button, "OK", vec![]);
        second_ok.bounds = Some(Rect::new(80, 0, 20, 20));
        let mut field = node("f", Role::Text, "", vec![]);
        field.value = Some("typed".into());
        let mut hidden_cancel = node("h", Role::Label, "Cancel", vec![]);
        hidden_cancel.states.visible = false;
        let root = node(
            "w",
            Role::Window,
            "W",
            vec![
                node("s", Role::Button, "Save", vec![]),
                node("c", Role::Label, "Cancel", vec![]),
                hidden_cancel,
                icon,
                first_ok,
                second_ok,
                field,
            ],
        );
        let out = render_one(root.clone());
        assert_eq!(
            out.body,
            "e1 window \"W\"\ne2 button \"Save\"\ne3 label \"Cancel\"\ne4 button\n\
             e5 button \"OK\" @10,10\ne6 button \"OK\" @90,10\ne7 text value=\"typed\"\n",
            "a nameless button is the only line that reads `button`"
        );
        assert_eq!(
            out.elements[1].point,
            Some([50, 10]),
            "the structured form keeps every point"
        );

        let hidden = ObserveSpec {
            hidden: true,
            ..ObserveSpec::default()
        };
        let out = render_with(&root, &hidden, None);
        assert!(
            out.body.contains("e3 label \"Cancel\"\n") && out.body.contains("\"Cancel\" hidden\n"),
            "a hidden twin listed beside it is told apart by its state: {}",
            out.body
        );

        let all = ObserveSpec {
            points: true,
            ..ObserveSpec::default()
        };
        let out = render_with(&root, &all, None);
        assert!(
            out.body
                .starts_with("e1 window \"W\" @50,10\ne2 button \"Save\" @50,10\n")
        );
        assert!(out.body.contains("e7 text value=\"typed\" @50,10\n"));
    }

    #[test]
    fn a_state_tells_lines_apart_and_a_check_shows_only_checked() {
        let check = |id: &str, checked: bool, enabled: bool, left: i32| {
            let mut check = node(id, Role::Check, "Bold", vec![]);
            check.states.checked = checked;
            check.states.enabled = enabled;
            check.bounds = Some(Rect::new(left, 0, 100, 20));
            check
        };
        let mut item = node("m", Role::Menuitem, "Wrap", vec![]);
        item.states.checkable = true;
        let root = node(
            "w",
            Role::Window,
            "W",
            vec![
                check("a", true, true, 0),
                check("b", false, true, 0),
                check("c", false, false, 0),
                check("d", false, false, 400),
                item,
            ],
        );
        let out = render_one(root);
        assert_eq!(
            out.body,
            "e1 window \"W\"\ne2 check \"Bold\" checked\ne3 check \"Bold\"\n\
             e4 check \"Bold\" disabled @50,10\ne5 check \"Bold\" disabled @450,10\n\
             e6 menuitem \"Wrap\" unchecked\n"
        );
        assert_eq!(
            out.elements[2].states,
            ["unchecked"],
            "the structured form keeps every state"
        );
    }

    #[test]
    fn siblings_that_read_alike_without_a_point_share_one_line() {
        let pointless = |id: &str| {
            let mut button = node(id, Role::Button, "", vec![]);
            button.states.enabled = false;
            button.bounds = None;
            button
        };
        let root = node(
            "w",
            Role::Window,
            "W",
            vec![
                pointless("a"),
                pointless("b"),
                pointless("c"),
                node("s", Role::Button, "Save", vec![]),
                pointless("d"),
            ],
        );
        let out = render_one(root);
        assert_eq!(
            out.body,
            "e1 window \"W\"\ne2-e4 button disabled\ne5 button \"Save\"\ne6 button disabled\n"
        );
        assert_eq!(out.elements.len(), 6, "the structured form lists each");
        assert_eq!(out.refs.len(), 6, "every one keeps its ref");
        assert_eq!(out.issued, 6);
    }

    #[test]
    fn a_number_goes_without_quotes_and_words_keep_them() {
        let valued = |id: &str, role: Role, value: &str| {
            let mut element = node(id, role, "", vec![]);
            element.value = Some(value.into());
            element
        };
        let root = node(
            "w",
            Role::Window,
            "W",
            vec![
                valued("s", Role::Slider, "50"),
                valued("p", Role::Progress, "-0.25"),
                valued("t", Role::Text, "1.2.3"),
                valued("u", Role::Text, "12 units"),
                valued("v", Role::Text, "5."),
            ],
        );
        let out = render_one(root);
        assert_eq!(
            out.body,
            "e1 window \"W\"\ne2 slider value=50\ne3 progress value=-0.25\n\
             e4 text value=\"1.2.3\"\ne5 text value=\"12 units\"\ne6 text value=\"5.\"\n"
        );
    }

    #[test]
    fn a_window_named_by_its_title_leaves_it_to_the_header() {
        let root = node(
            "w",
            Role::Window,
            "Doc",
            vec![node("d", Role::Button, "Doc", vec![])],
        );
        let tree = Tree {
            root,
            partial: None,
        };
        let titled = |title: &str| WindowTree {
            tree: &tree,
            window: WindowKey {
                handle: 7,
                pid: Some(1),
            },
            label: None,
            title: Some(title.into()),
        };
        let surface = Rect::new(0, 0, 1000, 1000);
        let spec = ObserveSpec::default();
        let out = render(
            &[titled("Doc")],
            &surface,
            &spec,
            None,
            &mut Counter::default(),
        );
        assert_eq!(
            out.body, "e1 window\ne2 button \"Doc\"\n",
            "only the root's"
        );
        assert_eq!(out.elements[0].name, "Doc", "the structured form keeps it");
        let out = render(
            &[titled("Other")],
            &surface,
            &spec,
            None,
            &mut Counter::default(),
        );
        assert!(out.body.starts_with("e1 window \"Doc\"\n"), "{}", out.body);
        let picked = pick(
            &[titled("Doc")],
            &surface,
            &|_| true,
            &mut Counter::default(),
        );
        assert!(
            picked.body.starts_with("e1 window \"Doc\" "),
            "a wait's or find's lines have no title above them: {}",
            picked.body
        );
    }

    #[test]
    fn long_names_and_values_are_cut_and_counted() {
        let mut field = node("t", Role::Text, &"n".repeat(250), vec![]);
        field.value = Some("v".repeat(130));
        let out = render_one(node("w", Role::Window, "W", vec![field]));
        let line = out.body.lines().nth(1).unwrap();
        assert!(
            line.contains(&format!("\"{}…\"", "n".repeat(199))),
            "{line}"
        );
        assert!(
            line.contains(&format!("value=\"{}…\"", "v".repeat(119))),
            "{line}"
        );
        assert_eq!((out.names_cut, out.values_cut), (1, 1));
        assert!(out.summary("w1").contains("1 name cut to 200 chars"));
        assert!(out.summary("w1").contains("1 value cut to 120 chars"));
    }

    #[test]
    fn a_terminal_shows_its_latest_output_and_a_query_the_part_it_matched() {
        let output = format!("{}\n$ echo end-6\nend-6\n\n   ", "older output ".repeat(20));
        let mut terminal = node("t", Role::Terminal, "", vec![]);
        terminal.value = Some(output.clone());
        let mut log = node("l", Role::Text, "Log", vec![]);
        log.value = Some(format!("{}needle{}", "a".repeat(200), "b".repeat(200)));
        let root = node("w", Role::Window, "W", vec![terminal, log]);

        let out = render_one(root.clone());
        let terminal_line = out.body.lines().nth(1).unwrap();
        assert!(terminal_line.contains("value=\"…"), "{terminal_line}");
        assert!(
            terminal_line.ends_with("$ echo end-6\\nend-6\""),
            "{terminal_line}"
        );
        assert_eq!(out.values_cut, 2);

        let spec = ObserveSpec {
            query: Some("NEEDLE".into()),
            ..ObserveSpec::default()
        };
        let out = render_with(&root, &spec, None);
        let log_line = out.body.lines().find(|l| l.contains("\"Log\"")).unwrap();
        let value = log_line
            .split("value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap();
        assert!(value.starts_with('…') && value.ends_with('…'), "{value}");
        assert!(value.contains("aneedleb"), "{value}");
        assert_eq!(value.chars().count(), MAX_VALUE_CHARS, "{value}");
        assert_eq!(out.query, Some(("NEEDLE".to_string(), 1)));
    }

    #[test]
    fn app_text_cannot_forge_a_line() {
        let label = node("l", Role::Label, "ok\ne9 button \"Fake\"", vec![]);
        let out = render_one(node("w", Role::Window, "W", vec![label]));
        assert_eq!(out.body.lines().count(), 2);
        assert!(
            out.body.contains(r#""ok\ne9 button \"Fake\"""#),
            "{}",
            out.body
        );
    }

    #[test]
    fn unicode_line_breaks_and_reordering_are_escaped() {
        // Readers that split on U+2028/U+2029/NEL would otherwise see a new line start at "e9".
        for separator in ['\u{2028}', '\u{2029}', '\u{85}', '\u{b}', '\u{c}', '\u{1e}'] {
            let name = format!("ok{separator}e9 button \"Fake\"");
            let label = node("l", Role::Label, &name, vec![]);
            let out = render_one(node("w", Role::Window, "W", vec![label]));
            let expected = format!(r#""ok\u{{{:x}}}e9 button \"Fake\"""#, separator as u32);
            assert!(out.body.contains(&expected), "{:?}", out.body);
            assert!(!out.body.contains(separator), "{:?}", out.body);
        }
        assert_eq!(escape("a\u{202e}b\u{2067}c"), r"a\u{202e}b\u{2067}c");
        assert_eq!(
            one_line("app said \"no\"\ne9 button\u{2028}x"),
            r#"app said "no"\u{a}e9 button\u{2028}x"#
        );
        // Marks and joiners that real text uses stay as they are.
        assert_eq!(
            escape("שלום\u{200f} 👩\u{200d}💻"),
            "שלום\u{200f} 👩\u{200d}💻"
        );
    }

    #[test]
    fn hidden_subtrees_are_counted_not_listed() {
        let mut page = node(
            "p",
            Role::Group,
            "Page 2",
            vec![node("b", Role::Button, "Hidden", vec![])],
        );
        page.states.visible = false;
        let out = render_one(node("w", Role::Window, "W", vec![page]));
        assert_eq!(out.hidden, 2);
        assert!(!out.body.contains("Hidden"));
    }

    #[test]
    fn password_values_never_render() {
        let mut secret = node("s", Role::Password, "Password", vec![]);
        secret.value = Some("hunter2".into());
        let out = render_one(node("w", Role::Window, "W", vec![secret]));
        assert!(!out.body.contains("hunter2"));
        assert!(out.body.contains("value=<hidden>"));
        assert!(
            out.elements
                .iter()
                .all(|e| e.value.as_deref() != Some("hunter2"))
        );
    }

    #[test]
    fn list_markers_are_not_listed_but_short_words_are() {
        let item = |marker: &str| {
            let mut item = node(
                "i",
                Role::Listitem,
                "",
                vec![
                    node("m", Role::Label, marker, vec![]),
                    node("l", Role::Link, "Item 1", vec![]),
                ],
            );
            item.value = Some("Item 1 in stock".into());
            item
        };
        for marker in ["• ", "3.", "b)", "iv.", "-"] {
            let out = render_one(node("w", Role::Window, "W", vec![item(marker)]));
            assert!(!out.body.contains("label"), "{marker:?}: {}", out.body);
            assert!(out.body.contains("link \"Item 1\""), "{}", out.body);
        }
        for words in ["Yes.", "Total)", "Sold out."] {
            let out = render_one(node("w", Role::Window, "W", vec![item(words)]));
            assert!(out.body.contains("label"), "{words:?}: {}", out.body);
        }
    }

    #[test]
    fn hidden_true_lists_hidden_subtrees_marked_hidden() {
        let mut page = node(
            "p",
            Role::Group,
            "Page 2",
            vec![node("b", Role::Button, "Next", vec![])],
        );
        page.states.visible = false;
        let root = node("w", Role::Window, "W", vec![page]);
        let spec = ObserveSpec {
            hidden: true,
            ..ObserveSpec::default()
        };
        let out = render_with(&root, &spec, None);
        assert_eq!(out.hidden, 0);
        assert_eq!(
            out.body,
            "e1 window \"W\"\ne2 group \"Page 2\" hidden\n e3 button \"Next\" hidden\n"
        );
        assert!(
            !out.summary("w1").contains("hidden"),
            "{}",
            out.summary("w1")
        );
    }

    #[test]
    fn a_query_keeps_ancestors_between_matches_once() {
        // window > list "A" > (item "x1", item "y") ; list "B" > item "x2"
        let root = node(
            "w",
            Role::Window,
            "W",
            vec![
                node(
                    "a",
                    Role::List,
                    "A",
                    vec![
                        node("x1", Role::Listitem, "x one", vec![]),
                        node("y", Role::Listitem, "y", vec![]),
                    ],
                ),
                node(
                    "b",
                    Role::List,
                    "B",
                    vec![node("x2", Role::Listitem, "X two", vec![])],
                ),
            ],
        );
        let spec = ObserveSpec {
            query: Some("X".into()),
            ..ObserveSpec::default()
        };
        let out = render_with(&root, &spec, None);
        let names: Vec<&str> = out.elements.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["W", "A", "x one", "B", "X two"]);
        assert_eq!(out.query, Some(("X".into(), 2)));
    }
}
