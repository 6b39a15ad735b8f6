//! The kill switch, the policy and the audit log on a scripted desktop: what is refused, what
//! still works, what the fake desktop received and what the log holds.

mod common;

use std::path::{Path, PathBuf};

use common::{Desk, NodeExt, el, ref_named, tree, window};
use deskhand_core::audit::AuditLog;
use deskhand_core::fake::{FakeDesktop, Received};
use deskhand_core::model::{ElementHandle, Point, Rect, Role};
use deskhand_core::policy::Policy;
use deskhand_core::safety::{RESUMED_NOTE, STOPPED_MESSAGE};
use deskhand_core::{ErrorKind, Session, parse_call};
use serde_json::{Value, json};

const EDITOR: u64 = 0x100;
const VAULT: u64 = 0x200;
const SECRET: &str = "hunter2-correct-horse";
const POLICY_PATH: &str = "/etc/deskhand/policy.toml";

const SCREEN: Rect = Rect {
    x: 0,
    y: 0,
    width: 1920,
    height: 1080,
};

/// An editor, and a password vault on top of its right part, which has focus.
fn desk() -> Desk {
    let editor = el(":1.10/0", Role::Window, "Editor", (100, 50, 800, 600)).children(vec![
        el(":1.10/1", Role::Button, "Save", (110, 60, 80, 30)).actions(&["click"]),
        el(":1.10/2", Role::Text, "Body", (110, 100, 500, 400))
            .value("hello")
            .actions(&["activate"])
            .states(|s| s.editable = true),
    ]);
    let vault = el(":1.20/0", Role::Window, "Vault", (700, 100, 600, 400)).children(vec![
        el(
            ":1.20/1",
            Role::Password,
            "Master password",
            (710, 120, 300, 30),
        )
        .value(SECRET)
        .actions(&["activate"])
        .states(|s| s.editable = true),
        el(":1.20/2", Role::Button, "Unlock", (710, 200, 100, 30)).actions(&["click"]),
    ]);
    Desk::new(FakeDesktop::new(
        SCREEN,
        vec![
            (
                window(
                    EDITOR,
                    "Editor",
                    100,
                    "editor",
                    Rect::new(100, 50, 800, 600),
                    false,
                ),
                tree(editor),
            ),
            (
                window(
                    VAULT,
                    "Vault",
                    200,
                    "KeePassXC",
                    Rect::new(700, 100, 600, 400),
                    true,
                ),
                tree(vault),
            ),
        ],
    ))
}

fn with_policy(text: &str) -> Desk {
    let mut d = desk();
    d.config.policy = Policy::parse(text, Path::new(POLICY_PATH), false).expect("a valid policy");
    d
}

/// Observes a window by title and returns its id and the refs of the named elements.
async fn observe(d: &mut Desk, title: &str, names: &[&str]) -> (String, Vec<String>) {
    let id = d.window_id(title).await;
    let reply = d.ok(json!({"action": "observe", "target": id})).await;
    let refs = names.iter().map(|name| ref_named(&reply, name)).collect();
    (id, refs)
}

/// One call of every action, by ref where a ref is given.
fn every_action(r: &str) -> Vec<Value> {
    vec![
        json!({"action": "click", "ref": r}),
        json!({"action": "click", "target": "screen", "x": 100, "y": 100}),
        json!({"action": "type", "text": "hello"}),
        json!({"action": "type", "ref": r, "text": "hello"}),
        json!({"action": "press", "keys": "ctrl+s"}),
        json!({"action": "scroll", "direction": "down"}),
        json!({"action": "scroll", "ref": r, "direction": "up", "amount": 2}),
        json!({"action": "drag", "from": r, "to": [500, 500]}),
    ]
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "deskhand-core-safety-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("every audit line is JSON"))
        .collect()
}

// ---------------------------------------------------------------- kill switch

#[tokio::test]
async fn the_pointer_in_the_corner_refuses_every_action_and_reads_still_work() {
    let mut d = desk();
    let (editor, refs) = observe(&mut d, "Editor", &["Save"]).await;
    let save = &refs[0];
    d.take();
    d.fake.move_pointer(Point { x: 1, y: 2 });
    for call in every_action(save) {
        let err = d.fail(call.clone()).await;
        assert_eq!(err.kind, ErrorKind::Stopped, "{call}: {}", err.message);
        assert_eq!(err.message, STOPPED_MESSAGE);
        assert!(
            err.reply_text()
                .starts_with("failed (stopped): the user moved the pointer to the top-left corner"),
            "{}",
            err.reply_text()
        );
    }
    assert_eq!(d.take(), vec![], "a stopped action must send nothing");

    // Reads still work, and keep the refs the agent has.
    d.ok(json!({"action": "windows"})).await;
    d.ok(json!({"action": "apps"})).await;
    d.ok(json!({"action": "screenshot", "target": editor}))
        .await;
    d.ok(json!({"action": "zoom", "region": [0, 0, 500, 500]}))
        .await;
    assert!(d.session.stopped);

    // The stop survives the CLI's session file.
    let saved = serde_json::to_string(&d.session).unwrap();
    d.session = serde_json::from_str::<Session>(&saved).unwrap();
    assert!(d.session.stopped);

    d.fake.move_pointer(Point { x: 640, y: 480 });
    let reply = d.ok(json!({"action": "click", "ref": save})).await;
    let mut text = reply.text.lines();
    assert_eq!(text.next(), Some(RESUMED_NOTE), "{}", reply.text);
    assert!(
        text.next()
            .unwrap()
            .starts_with(&format!("done: clicked {save}")),
        "{}",
        reply.text
    );
    assert_eq!(reply.data["resumed_after_stop"], true);
    assert_eq!(
        d.take(),
        vec![Received::Action(
            ElementHandle(":1.10/1".into()),
            "click".into()
        )]
    );

    // Said once: the next action replies as usual, and the session file no longer has it.
    let again = d.ok(json!({"action": "click", "ref": save})).await;
    assert!(again.text.starts_with("done: clicked"), "{}", again.text);
    assert!(again.data.get("resumed_after_stop").is_none());
    assert!(!d.session.stopped);
    assert!(
        !serde_json::to_string(&d.session)
            .unwrap()
            .contains("stopped")
    );
}

#[tokio::test]
async fn the_corner_is_the_three_by_three_pixels_at_the_top_left() {
    for (x, y, stops) in [
        (0, 0, true),
        (2, 2, true),
        (2, 0, true),
        (3, 0, false),
        (0, 3, false),
        (1919, 0, false),
        (0, 1079, false),
    ] {
        let mut d = desk();
        d.fake.move_pointer(Point { x, y });
        let result = d.call(json!({"action": "press", "keys": "Return"})).await;
        match result {
            Err(err) if stops => assert_eq!(err.kind, ErrorKind::Stopped),
            Ok(_) if !stops => {}
            other => panic!("pointer at {x},{y}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_failure_after_resuming_keeps_the_note_for_the_first_success() {
    let mut d = desk();
    d.fake.move_pointer(Point { x: 0, y: 0 });
    d.fail(json!({"action": "press", "keys": "Return"})).await;
    d.fake.move_pointer(Point { x: 500, y: 500 });
    let err = d.fail(json!({"action": "click", "ref": "e999"})).await;
    assert_eq!(err.kind, ErrorKind::RefUnknown);
    assert!(d.session.stopped);
    let reply = d.ok(json!({"action": "press", "keys": "Return"})).await;
    assert!(reply.text.starts_with(RESUMED_NOTE), "{}", reply.text);
    assert_eq!(d.take(), vec![Received::Keys("Return".into())]);
}

// ---------------------------------------------------------------- policy

#[tokio::test]
async fn read_only_refuses_every_action_and_names_the_rule() {
    let mut d = with_policy("read_only = true");
    let (editor, refs) = observe(&mut d, "Editor", &["Save"]).await;
    d.take();
    for call in every_action(&refs[0]) {
        let err = d.fail(call.clone()).await;
        assert_eq!(err.kind, ErrorKind::Denied, "{call}");
        assert!(
            err.message
                .starts_with("denied by policy /etc/deskhand/policy.toml: read_only = true;"),
            "{}",
            err.message
        );
    }
    assert_eq!(d.take(), vec![]);
    d.ok(json!({"action": "apps"})).await;
    d.ok(json!({"action": "observe", "target": editor})).await;
    d.ok(json!({"action": "screenshot"})).await;
}

#[tokio::test]
async fn a_denied_app_receives_nothing_by_ref_focus_or_point() {
    let mut d = with_policy(r#"deny_apps = ["keepassxc"]"#);
    let (vault, refs) = observe(&mut d, "Vault", &["Master password", "Unlock"]).await;
    let (password, unlock) = (&refs[0], &refs[1]);
    d.take();
    let denied = [
        json!({"action": "click", "ref": unlock}),
        json!({"action": "type", "ref": password, "text": "x"}),
        // Keys and text go to the focused window: the vault's.
        json!({"action": "press", "keys": "Return"}),
        json!({"action": "type", "text": "x"}),
        json!({"action": "click", "target": vault, "x": 500, "y": 500}),
        json!({"action": "drag", "from": [10, 10], "to": unlock}),
        // The vault is on top at this point of the screen.
        json!({"action": "click", "target": "screen", "x": 500, "y": 200}),
    ];
    for call in denied {
        let err = d.fail(call.clone()).await;
        assert_eq!(err.kind, ErrorKind::Denied, "{call}: {}", err.message);
        assert!(
            err.message.starts_with(
                "denied by policy /etc/deskhand/policy.toml: deny_apps contains \"keepassxc\", the application of"
            ),
            "{}",
            err.message
        );
    }
    assert_eq!(d.take(), vec![]);

    // The editor is fine, except where the vault covers it: a point there reaches the vault.
    let (editor, refs) = observe(&mut d, "Editor", &["Save"]).await;
    d.ok(json!({"action": "click", "ref": refs[0]})).await;
    d.ok(json!({"action": "click", "target": editor, "x": 100, "y": 100}))
        .await;
    let err = d
        .fail(json!({"action": "click", "target": editor, "x": 900, "y": 300}))
        .await;
    assert!(
        err.message.contains("the window on top at pixel"),
        "{}",
        err.message
    );
    d.focus(EDITOR);
    d.ok(json!({"action": "press", "keys": "ctrl+s"})).await;
    assert_eq!(d.take().len(), 3);
}

#[tokio::test]
async fn an_allow_list_refuses_other_apps_and_points_whose_app_is_unknown() {
    let mut d = with_policy(r#"allow_apps = ["Editor"]"#);
    let (editor, refs) = observe(&mut d, "Editor", &["Save", "Body"]).await;
    d.take();
    d.ok(json!({"action": "click", "ref": refs[0]})).await;
    d.ok(json!({"action": "type", "ref": refs[1], "text": "hi"}))
        .await;
    d.ok(json!({"action": "click", "target": editor, "x": 100, "y": 100}))
        .await;
    assert_eq!(
        d.take().len(),
        5,
        "action, window activation, element focus, text, click"
    );

    let err = d
        .fail(json!({"action": "click", "target": "screen", "x": 200, "y": 200}))
        .await;
    assert_eq!(err.kind, ErrorKind::Denied);
    assert!(
        err.message.contains(
            "allow_apps is set and the application of the point 200,200 of screen (pixel 384,216) is not known"
        ),
        "{}",
        err.message
    );
    let err = d
        .fail(json!({"action": "scroll", "direction": "down"}))
        .await;
    assert!(
        err.message.contains("wherever the pointer is"),
        "{}",
        err.message
    );
    // Typing into the editor's field raised it; the vault takes the focus back.
    d.focus(VAULT);
    let err = d.fail(json!({"action": "press", "keys": "Return"})).await;
    assert!(
        err.message.contains(
            "allow_apps (\"Editor\") does not contain \"KeePassXC\", the application of the focused window"
        ),
        "{}",
        err.message
    );
    assert_eq!(d.take(), vec![]);
}

#[tokio::test]
async fn denied_key_chords_are_refused_and_typed_text_is_not_a_chord() {
    let mut d = with_policy(r#"deny_keys = ["ctrl+alt+Delete", "super+l"]"#);
    for keys in ["ctrl+alt+Delete", "Tab alt+ctrl+del", "win+L"] {
        let err = d.fail(json!({"action": "press", "keys": keys})).await;
        assert_eq!(err.kind, ErrorKind::Denied);
        assert!(
            err.message.contains("deny_keys contains"),
            "{}",
            err.message
        );
    }
    assert_eq!(d.take(), vec![]);
    d.ok(json!({"action": "press", "keys": "ctrl+s"})).await;
    d.ok(json!({"action": "type", "text": "ctrl+alt+Delete"}))
        .await;
    assert_eq!(d.take().len(), 2);
}

#[test]
fn no_call_can_name_or_change_the_policy() {
    for key in ["policy", "read_only", "allow_apps", "audit"] {
        let err = parse_call(json!({"action": "observe", key: true})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument, "{key}");
    }
}

// ---------------------------------------------------------------- audit

#[tokio::test]
async fn every_action_leaves_one_line_without_typed_text_or_password_names() {
    let dir = scratch("audit");
    let log = dir.join("state/deskhand/audit.jsonl");
    let mut d = desk();
    d.config.audit = AuditLog::open(&log).expect("the audit log opens");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&log).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only the user may read the log");
    }
    let (editor, refs) = observe(&mut d, "Editor", &["Save"]).await;
    assert!(lines(&log).is_empty(), "reads are not audited");
    d.ok(json!({"action": "click", "ref": refs[0]})).await;
    let (vault, vault_refs) = observe(&mut d, "Vault", &["Master password"]).await;
    d.ok(json!({"action": "type", "ref": vault_refs[0], "text": SECRET}))
        .await;
    d.ok(json!({"action": "press", "keys": "h u n t e r 2 ctrl+a Return"}))
        .await;
    d.fake.move_pointer(Point { x: 0, y: 0 });
    d.fail(json!({"action": "press", "keys": "Return"})).await;
    d.fake.move_pointer(Point { x: 500, y: 500 });
    d.config.policy = Policy::parse("read_only = true", Path::new(POLICY_PATH), false).unwrap();
    d.fail(json!({"action": "scroll", "direction": "down"}))
        .await;
    d.config.policy = Policy::default();
    d.fail(json!({"action": "click", "ref": "e999"})).await;

    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("hunter2"), "{text}");
    assert!(!text.contains("Master password"), "{text}");
    let entries = lines(&log);
    assert_eq!(entries.len(), 6, "{text}");
    for entry in &entries {
        let ts = entry["ts"].as_str().unwrap();
        assert_eq!(ts.len(), 24, "{ts}");
        assert!(ts.ends_with('Z') && ts.as_bytes()[10] == b'T', "{ts}");
    }
    let click = &entries[0];
    assert_eq!(click["action"], "click");
    assert_eq!(click["target"], editor);
    assert_eq!(click["app"], "editor");
    assert_eq!(click["ref"], refs[0]);
    assert_eq!(click["role"], "button");
    assert_eq!(click["name"], "Save");
    assert_eq!(click["result"], "done");
    assert!(click.get("kind").is_none());

    let typed = &entries[1];
    assert_eq!(typed["action"], "type");
    assert_eq!(typed["target"], vault);
    assert_eq!(typed["characters"], SECRET.chars().count());
    assert_eq!(typed["role"], "password");
    assert!(typed.get("name").is_none(), "{typed}");

    assert_eq!(
        entries[2]["keys"],
        "<char> <char> <char> <char> <char> <char> <char> ctrl+a Return"
    );
    assert_eq!(entries[3]["result"], "failed");
    assert_eq!(entries[3]["kind"], "stopped");
    assert_eq!(entries[3]["message"], STOPPED_MESSAGE);
    assert_eq!(entries[4]["kind"], "denied");
    assert!(
        entries[4]["message"]
            .as_str()
            .unwrap()
            .contains("read_only = true")
    );
    assert_eq!(entries[4]["target"], "pointer");
    assert_eq!(entries[5]["kind"], "ref-unknown");
    assert!(entries[5].get("message").is_none());
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn an_audit_log_that_cannot_be_written_is_said_in_the_reply() {
    let dir = scratch("unwritable");
    let log = dir.join("audit.jsonl");
    let mut d = desk();
    d.config.audit = AuditLog::open(&log).unwrap();
    // The log was replaced by a directory after startup.
    std::fs::remove_file(&log).unwrap();
    std::fs::create_dir(&log).unwrap();
    let reply = d.ok(json!({"action": "press", "keys": "Return"})).await;
    assert!(
        reply.text.contains(&format!(
            "note: the audit log {} could not be written",
            log.display()
        )),
        "{}",
        reply.text
    );
    let err = d.fail(json!({"action": "click", "ref": "e5"})).await;
    assert!(err.message.contains("the audit log"), "{}", err.message);
    let _ = std::fs::remove_dir_all(dir);

    // An unusable path is refused at startup, naming the path and the way out.
    let err = AuditLog::open(Path::new("/proc/deskhand/audit.jsonl")).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("the audit log /proc/deskhand/audit.jsonl cannot be written"),
        "{message}"
    );
    assert!(message.contains("--audit off"), "{message}");
}

#[test]
fn the_readme_lists_every_error_kind() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    for kind in ErrorKind::ALL {
        assert!(
            readme.contains(&format!("| `{}` |", kind.as_str())),
            "the README's error table lacks `{}`",
            kind.as_str()
        );
    }
}
