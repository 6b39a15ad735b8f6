//! Golden files for what an agent reads: a realistic tree observed through the executor,
//! compared byte for byte with `tests/golden/<name>`.
//!
//! After an intended change of the rendering, refresh them with
//! `UPDATE_GOLDEN=1 cargo test -p deskhand-core --test golden`, then read the diff.

mod common;

use std::path::PathBuf;

use common::{Desk, NodeExt, el, tree, window};
use deskhand_core::Reply;
use deskhand_core::fake::FakeDesktop;
use deskhand_core::model::{Rect, Role, WindowInfo};
use serde_json::{Value, json};

const MAIL: u64 = 0x500;
const REMINDER: u64 = 0x600;
const BROWSER: u64 = 0x700;

const APP_PASSWORD: &str = "s3cr3t-app-pass";

fn long_subject() -> String {
    format!(
        "Re: Fwd: Quarterly planning — {} — please read before Monday",
        "budget, hiring, roadmap, offsite logistics, ".repeat(5)
    )
}

fn long_draft() -> String {
    format!(
        "Sounds good!\nI can do 12:30 at \"The usual\" place. {}See you then.",
        "Let me know if anything changes on your side. ".repeat(3)
    )
}

/// A mail client's main window as an AT-SPI bridge would report it: wrappers in wrappers,
/// captions repeating their buttons, an icon-only button, a long subject, a long draft,
/// a hidden panel and a password field.
fn mail_window() -> (WindowInfo, deskhand_core::model::Tree) {
    let info = window(
        MAIL,
        "Inbox (3) — Mail",
        500,
        "mail",
        Rect::new(0, 0, 1200, 800),
        true,
    );
    let root = el(
        ":1.50/0",
        Role::Window,
        "Inbox (3) — Mail",
        (0, 0, 1200, 800),
    )
    .children(vec![
        el(":1.50/1", Role::Generic, "", (0, 0, 1200, 800)).children(vec![
            el(":1.50/2", Role::Generic, "", (0, 0, 1200, 800)).children(vec![
                el(":1.50/3", Role::Menubar, "", (0, 0, 1200, 24)).children(vec![
                    el(":1.50/4", Role::Menuitem, "File", (0, 0, 40, 24)).actions(&["click"]),
                    el(":1.50/5", Role::Menuitem, "Edit", (40, 0, 40, 24)).actions(&["click"]),
                ]),
                el(":1.50/10", Role::Toolbar, "Main toolbar", (0, 24, 1200, 40)).children(vec![
                    el(":1.50/11", Role::Button, "Compose", (4, 28, 90, 32))
                        .actions(&["click"])
                        .children(vec![
                            el(":1.50/12", Role::Image, "", (8, 32, 24, 24)),
                            el(":1.50/13", Role::Label, "Compose", (36, 32, 56, 24)),
                        ]),
                    el(":1.50/14", Role::Button, "Reply", (100, 28, 90, 32))
                        .actions(&["click"])
                        .states(|s| s.enabled = false)
                        .children(vec![el(
                            ":1.50/15",
                            Role::Label,
                            "Reply",
                            (110, 32, 70, 24),
                        )]),
                    el(":1.50/16", Role::Toggle, "Flag", (196, 28, 60, 32))
                        .actions(&["toggle"])
                        .states(|s| {
                            s.checkable = true;
                            s.checked = true;
                            s.pressed = true;
                        }),
                    el(":1.50/17", Role::Button, "", (262, 28, 32, 32)).actions(&["click"]),
                ]),
                el(":1.50/20", Role::Generic, "", (0, 64, 1200, 712)).children(vec![
                    el(":1.50/21", Role::Scrollpane, "", (0, 64, 400, 712)).children(vec![
                        el(":1.50/22", Role::List, "Messages", (0, 64, 400, 712)).children(vec![
                            el(
                                ":1.50/23",
                                Role::Listitem,
                                "Alice Martin — Lunch on Friday?",
                                (0, 64, 400, 60),
                            )
                            .actions(&["activate"])
                            .states(|s| s.selected = true),
                            el(
                                ":1.50/24",
                                Role::Listitem,
                                &long_subject(),
                                (0, 124, 400, 60),
                            )
                            .actions(&["activate"]),
                            // Scrolled out of view: listed, but with no point to aim at.
                            el(":1.50/25", Role::Listitem, "Old thread", (0, 900, 400, 60))
                                .actions(&["activate"]),
                        ]),
                    ]),
                    el(":1.50/30", Role::Document, "Message", (400, 64, 800, 712)).children(vec![
                        el(
                            ":1.50/31",
                            Role::Heading,
                            "Lunch on Friday?",
                            (410, 70, 600, 30),
                        ),
                        el(":1.50/32", Role::Paragraph, "", (410, 110, 600, 40)).children(vec![
                            el(
                                ":1.50/33",
                                Role::Label,
                                "Hi Bob,\nare you free for lunch on Friday?",
                                (410, 110, 600, 40),
                            ),
                        ]),
                        el(
                            ":1.50/34",
                            Role::Link,
                            "https://example.com/menu",
                            (410, 160, 200, 20),
                        )
                        .actions(&["jump"]),
                        el(":1.50/35", Role::Text, "Quick reply", (410, 600, 780, 120))
                            .value(&long_draft())
                            .actions(&["activate"])
                            .states(|s| {
                                s.editable = true;
                                s.focused = true;
                                s.focusable = true;
                            }),
                    ]),
                    el(":1.50/40", Role::Group, "Search options", (0, 64, 400, 200))
                        .hidden()
                        .children(vec![
                            el(":1.50/41", Role::Check, "Include spam", (10, 70, 150, 20))
                                .actions(&["toggle"]),
                            el(":1.50/42", Role::Check, "Match case", (10, 90, 150, 20))
                                .actions(&["toggle"]),
                        ]),
                ]),
                el(":1.50/50", Role::Form, "", (0, 700, 1200, 76)).children(vec![
                    el(":1.50/51", Role::Combobox, "Account", (10, 710, 300, 30))
                        .value("work@example.com")
                        .actions(&["press"])
                        .states(|s| s.expandable = true),
                    el(
                        ":1.50/52",
                        Role::Password,
                        "App password",
                        (320, 710, 300, 30),
                    )
                    .value(APP_PASSWORD)
                    .states(|s| s.editable = true),
                ]),
                el(":1.50/60", Role::Statusbar, "", (0, 776, 1200, 24)).children(vec![
                    el(":1.50/61", Role::Label, "Connected", (4, 776, 100, 24)),
                    el(":1.50/62", Role::Progress, "Sync", (1000, 780, 190, 16)).value("40%"),
                ]),
            ]),
        ]),
    ]);
    (info, tree(root))
}

/// A small modal dialog of another app whose tree came back incomplete.
fn reminder_window() -> (WindowInfo, deskhand_core::model::Tree) {
    let info = window(
        REMINDER,
        "Reminder",
        600,
        "calendar",
        Rect::new(1300, 100, 400, 200),
        false,
    );
    let root = el(":1.60/0", Role::Dialog, "Reminder", (1300, 100, 400, 200))
        .states(|s| s.modal = true)
        .children(vec![
            el(
                ":1.60/1",
                Role::Label,
                "Standup in 5 minutes",
                (1310, 110, 380, 40),
            ),
            el(":1.60/2", Role::Button, "Snooze", (1310, 250, 120, 32)).actions(&["click"]),
            el(":1.60/3", Role::Button, "Dismiss", (1570, 250, 120, 32)).actions(&["click"]),
        ]);
    let mut tree = tree(root);
    tree.partial = Some("calendar stopped answering after 4 elements".into());
    (info, tree)
}

/// A minimized browser window with a page title longer than 200 characters.
fn browser_window() -> (WindowInfo, deskhand_core::model::Tree) {
    let title = format!(
        "{} — Search results — Browser",
        "how to configure a headless X server with accessibility ".repeat(4)
    );
    let mut info = window(
        BROWSER,
        &title,
        700,
        "browser",
        Rect::new(50, 50, 1600, 900),
        false,
    );
    info.minimized = true;
    let root = el(":1.70/0", Role::Window, &title, (50, 50, 1600, 900));
    (info, tree(root))
}

fn desk() -> Desk {
    Desk::new(FakeDesktop::new(
        Rect::new(0, 0, 1920, 1080),
        vec![browser_window(), mail_window(), reminder_window()],
    ))
}

/// Compares `actual` with the golden file, or rewrites the file when `UPDATE_GOLDEN=1`.
fn golden(name: &str, actual: &str) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "golden", name]
        .iter()
        .collect();
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| {
            panic!(
                "{}: {err}; create it with UPDATE_GOLDEN=1 cargo test -p deskhand-core --test golden",
                path.display()
            )
        })
        .replace("\r\n", "\n");
    if expected == actual {
        return;
    }
    let (line, want, got) = expected
        .lines()
        .map(Some)
        .chain(std::iter::repeat(None))
        .zip(actual.lines().map(Some).chain(std::iter::repeat(None)))
        .enumerate()
        .find(|(_, (e, a))| e != a)
        .map(|(i, (e, a))| (i + 1, e, a))
        .unwrap_or((0, None, None));
    panic!(
        "{name} differs from {} at line {line}:\n  golden: {want:?}\n  actual: {got:?}\n\
         full actual output:\n{actual}\n\
         if the change is intended, run UPDATE_GOLDEN=1 cargo test -p deskhand-core --test golden and review the diff",
        path.display()
    );
}

/// Valid JSON with one top-level field, or one list item, a line: reviewable in a diff.
fn compact_json(value: &Value) -> String {
    let fields: Vec<String> = value
        .as_object()
        .expect("an object")
        .iter()
        .map(|(key, value)| {
            let value = match value.as_array() {
                Some(items) if !items.is_empty() => {
                    let items: Vec<String> = items.iter().map(|i| format!("    {i}")).collect();
                    format!("[\n{}\n  ]", items.join(",\n"))
                }
                _ => value.to_string(),
            };
            format!("  {}: {value}", Value::from(key.as_str()))
        })
        .collect();
    format!("{{\n{}\n}}\n", fields.join(",\n"))
}

/// What holds of every observation, whatever the golden file says.
fn check_invariants(reply: &Reply) {
    let listed = reply.data["elements"].as_array().unwrap().len();
    assert_eq!(
        reply.text.lines().count(),
        2 + listed,
        "one header line, the fence line, then one line per element:\n{}",
        reply.text
    );
    assert_eq!(
        reply.text.lines().nth(1),
        Some(deskhand_core::render::FENCE),
        "{}",
        reply.text
    );
    assert!(reply.text.ends_with('\n'));
    assert!(!reply.text.contains(APP_PASSWORD), "{}", reply.text);
    assert!(
        !reply.data.to_string().contains(APP_PASSWORD),
        "{}",
        reply.data
    );
}

#[tokio::test]
async fn observe_of_a_window() {
    let mut d = desk();
    d.ok(json!({"action": "windows"})).await;
    let reply = d.ok(json!({"action": "observe", "target": "w2"})).await;
    check_invariants(&reply);
    golden("observe_window.txt", &reply.text);
    let data = compact_json(&reply.data);
    assert_eq!(serde_json::from_str::<Value>(&data).unwrap(), reply.data);
    golden("observe_window.json", &data);
}

#[tokio::test]
async fn observe_of_the_screen() {
    let mut d = desk();
    d.ok(json!({"action": "windows"})).await;
    let reply = d.ok(json!({"action": "observe", "target": "screen"})).await;
    check_invariants(&reply);
    golden("observe_screen.txt", &reply.text);
}

#[tokio::test]
async fn apps_and_windows_listings() {
    let mut d = desk();
    let apps = d.ok(json!({"action": "apps"})).await;
    let windows = d.ok(json!({"action": "windows"})).await;
    golden("listings.txt", &format!("{}{}", apps.text, windows.text));
}

#[tokio::test]
async fn observe_with_a_query() {
    let mut d = desk();
    d.ok(json!({"action": "windows"})).await;
    // The full observation first: the query's lines keep the numbers it gave.
    d.ok(json!({"action": "observe", "target": "w2"})).await;
    let reply = d
        .ok(json!({"action": "observe", "target": "w2", "query": "LUNCH"}))
        .await;
    check_invariants(&reply);
    golden("observe_query.txt", &reply.text);
}

#[tokio::test]
async fn observe_since_the_last_observe() {
    let mut d = desk();
    d.ok(json!({"action": "windows"})).await;
    d.ok(json!({"action": "observe", "target": "w2"})).await;
    d.edit_tree(MAIL, |root| {
        let main = &mut root.children[0].children[0];
        let toolbar = &mut main.children[1];
        toolbar.children[1].states.enabled = true;
        toolbar.children[2].states.checked = false;
        toolbar.children[2].states.pressed = false;
        let messages = &mut main.children[2].children[0].children[0];
        messages.children.pop();
        messages.children.insert(
            0,
            el(
                ":1.50/26",
                Role::Listitem,
                "Carol Diaz — Standup notes",
                (0, 64, 400, 60),
            )
            .actions(&["activate"]),
        );
        main.children[2].children[1].children[3].value =
            Some("Sounds good! See you at 12:30.".into());
        main.children[4].children[1].value = Some("80%".into());
    });
    let reply = d
        .ok(json!({"action": "observe", "target": "w2", "since": true}))
        .await;
    check_invariants(&reply);
    golden("observe_since.txt", &reply.text);
    let data = compact_json(&reply.data);
    assert_eq!(serde_json::from_str::<Value>(&data).unwrap(), reply.data);
    golden("observe_since.json", &data);
}
