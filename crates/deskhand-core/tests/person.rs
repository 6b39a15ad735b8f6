//! A person taking over the desktop on a scripted desktop: every action refused with the
//! sentence and nothing sent, a batch stopped at its next step, reads still working, and
//! actions back once the person has been idle.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Desk, NodeExt, el, ref_named, tree, window};
use deskhand_core::ErrorKind;
use deskhand_core::fake::FakeDesktop;
use deskhand_core::model::{Rect, Role};
use deskhand_core::person::{Presence, RESUMED_NOTE};
use serde_json::json;

const IDLE: Duration = Duration::from_millis(300);

fn desk() -> (Desk, Arc<Presence>) {
    let editor = el(":1.10/0", Role::Window, "Editor", (100, 50, 800, 600)).children(vec![
        el(":1.10/1", Role::Button, "Save", (110, 60, 80, 30)).actions(&["click"]),
    ]);
    let fake = FakeDesktop::new(
        Rect::new(0, 0, 1920, 1080),
        vec![(
            window(
                0x100,
                "Editor",
                100,
                "editor",
                Rect::new(100, 50, 800, 600),
                true,
            ),
            tree(editor),
        )],
    );
    let presence = Arc::new(Presence::new(IDLE));
    *fake.presence.lock().unwrap() = Some(Arc::clone(&presence));
    (Desk::new(fake), presence)
}

#[tokio::test]
async fn a_persons_input_refuses_actions_until_they_are_idle() {
    let (mut d, presence) = desk();
    let id = d.window_id("Editor").await;
    let observed = d.ok(json!({"action": "observe", "target": id})).await;
    let save = ref_named(&observed, "Save");
    d.take();

    presence.noticed();
    for call in [
        json!({"action": "click", "ref": save}),
        json!({"action": "type", "text": "hello"}),
        json!({"action": "press", "keys": "ctrl+s"}),
        json!({"action": "drag", "from": save, "to": [500, 500]}),
    ] {
        let err = d.fail(call.clone()).await;
        assert_eq!(err.kind, ErrorKind::Stopped, "{call}: {}", err.message);
        assert!(
            err.reply_text()
                .starts_with("failed (stopped): a person is using this desktop (their own mouse or keyboard input since "),
            "{}",
            err.reply_text()
        );
        assert!(
            err.message
                .contains("left mouse and keyboard alone for 0.3 s"),
            "{}",
            err.message
        );
    }
    let batch = d
        .call(json!({"action": "batch", "steps": [
            {"action": "windows"},
            {"action": "click", "ref": save},
        ]}))
        .await
        .expect("a batch answers with its steps");
    assert!(
        batch.text.contains("a person is using this desktop"),
        "{}",
        batch.text
    );
    // Reads still work.
    d.ok(json!({"action": "windows"})).await;
    assert_eq!(
        d.take(),
        vec![],
        "nothing may be sent while the person has the desktop"
    );
    assert!(d.session.taken_over);

    tokio::time::sleep(IDLE + Duration::from_millis(50)).await;
    let reply = d.ok(json!({"action": "click", "ref": save})).await;
    let mut lines = reply.text.lines();
    assert_eq!(lines.next(), Some(RESUMED_NOTE), "{}", reply.text);
    assert!(
        lines.next().unwrap().starts_with("done: clicked"),
        "{}",
        reply.text
    );
    assert_eq!(reply.data["resumed_after_takeover"], true);
    assert_eq!(d.take().len(), 1);
    let again = d.ok(json!({"action": "click", "ref": save})).await;
    assert!(again.text.starts_with("done: clicked"), "{}", again.text);
    assert!(!d.session.taken_over);
}

#[tokio::test]
async fn a_wait_under_way_stops_when_the_person_takes_over() {
    let (mut d, presence) = desk();
    let id = d.window_id("Editor").await;
    let toucher = Arc::clone(&presence);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        toucher.noticed();
    });
    let err = d
        .fail(json!({"action": "wait", "target": id, "until": {"name": "Never there"}, "timeout_ms": 5000}))
        .await;
    assert_eq!(err.kind, ErrorKind::Stopped, "{}", err.message);
    assert!(
        err.message
            .starts_with(&format!("the wait on {id} stopped after 0."))
            && err.message.contains("a person is using this desktop"),
        "{}",
        err.message
    );
}
