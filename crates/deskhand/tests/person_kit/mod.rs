//! What the tests of a person beside the agent share, on every display server: the watched
//! session, the refusal while the person has the desktop, the click once they left, and what
//! the fixture and the audit log saw.

use std::path::Path;
use std::time::Duration;

use deskhand_testkit::{Desktop, Fixture, Mcp, McpReply, input_events, wait_until};
use serde_json::{Value, json};

pub const TOOK_OVER: &str =
    "failed (stopped): a person is using this desktop (their own mouse or keyboard input since ";
const RESUMED_NOTE: &str = "note: a person had taken over the desktop; actions resumed because they left mouse and keyboard alone";

/// An MCP session with the person's input watched, actions resuming after `idle_seconds`.
pub fn session(desk: &Desktop, audit: &Path, idle_seconds: &str) -> Mcp {
    let _ = std::fs::remove_file(audit);
    desk.mcp_with(&[
        ("DESKHAND_TAKEOVER", "on"),
        ("DESKHAND_TAKEOVER_IDLE", idle_seconds),
        ("DESKHAND_AUDIT", audit.to_str().expect("a UTF-8 path")),
    ])
}

/// deskhand's own `actions`, each after a calm, are done: none is taken for a person's input.
pub fn own_input_is_never_a_persons(mcp: &Mcp, actions: &[Value]) {
    for action in actions {
        std::thread::sleep(Duration::from_millis(400));
        let done = mcp.call(action.clone());
        assert!(done.text.starts_with("done: "), "{action}: {}", done.text);
    }
}

/// The log messages the agent got unasked once `count` arrived, their events in order.
pub fn logged_events(mcp: &Mcp, count: usize) -> (Vec<Value>, Vec<String>) {
    let logged = wait_until(Duration::from_secs(3), || {
        let logged = mcp.logged();
        (logged.len() >= count).then_some(logged)
    })
    .unwrap_or_else(|| panic!("{count} log messages, got {:?}", mcp.logged()));
    let events = logged
        .iter()
        .map(|m| m["data"]["event"].as_str().expect("an event").to_owned())
        .collect();
    (logged, events)
}

/// While the person has the desktop (idle time 1 s), the click `press` is refused as stopped
/// with the sentence, the fixture receives nothing, and reads still work.
pub fn refused_while_the_person_has_it(mcp: &Mcp, fixture: &Fixture, press: &Value) {
    let before = fixture.events().len();
    let refused = mcp.call(press.clone());
    assert!(refused.is_error, "{}", refused.text);
    assert_eq!(refused.kind(), Some("stopped"), "{}", refused.text);
    assert!(refused.text.starts_with(TOOK_OVER), "{}", refused.text);
    assert!(
        refused
            .text
            .contains("once the person has left mouse and keyboard alone for 1 s"),
        "{}",
        refused.text
    );
    let seen = fixture.settled_events(before);
    assert!(
        input_events(&seen).is_empty(),
        "the fixture received input while the person had the desktop: {seen:?}"
    );
    let listed = mcp.call(json!({"action": "windows"}));
    assert!(!listed.is_error, "{}", listed.text);
}

/// Once the person has been idle past the takeover's idle time (1 s here), the click `press`
/// runs again: its reply says actions resumed, and the fixture sees it.
pub fn click_after_the_person_left(mcp: &Mcp, fixture: &Fixture, press: &Value) {
    std::thread::sleep(Duration::from_millis(1300));
    let clicked = clicks(fixture);
    let resumed = mcp.call(press.clone());
    let mut lines = resumed.text.lines();
    assert_eq!(lines.next(), Some(RESUMED_NOTE), "{}", resumed.text);
    assert!(
        lines.next().unwrap().starts_with("done: clicked"),
        "{}",
        resumed.text
    );
    wait_until(Duration::from_secs(5), || {
        (clicks(fixture) == clicked + 1).then_some(())
    })
    .expect("the click after the person left reached the fixture");
}

/// The fixture's "Press me" clicks so far.
pub fn clicks(fixture: &Fixture) -> usize {
    fixture
        .events()
        .iter()
        .filter(|e| e["event"] == "clicked" && e["widget"] == "press_me")
        .count()
}

/// The takeovers and resumes the audit log at `path` noted, in order.
pub fn noted_handovers(path: &Path) -> Vec<String> {
    audit_actions(path)
        .iter()
        .filter(|e| e["result"] == "noted")
        .map(|e| e["action"].as_str().expect("an action").to_owned())
        .collect()
}

pub fn audit_actions(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
        .collect()
}

/// The canvas of a `--kit` fixture, as a point of the window, once two looks a moment apart
/// agree: a window just shown may still be given its size or place, and a point read before
/// that lands beside the canvas.
pub fn canvas_point(mcp: &Mcp, w: &str) -> (f64, f64) {
    let mut seen = canvas_point_now(mcp, w);
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(250));
        let now = canvas_point_now(mcp, w);
        if now == seen {
            return now;
        }
        seen = now;
    }
    panic!("the canvas of {w} kept moving; last seen at {seen:?}")
}

fn canvas_point_now(mcp: &Mcp, w: &str) -> (f64, f64) {
    let observed = mcp.call(json!({"action": "observe", "target": w, "points": true}));
    let line = observed
        .text
        .lines()
        .find(|l| l.contains("\"Canvas\""))
        .unwrap_or_else(|| panic!("no canvas in {}", observed.text));
    line.rsplit('@')
        .next()
        .and_then(|at| at.trim().split_once(','))
        .map(|(x, y)| (x.parse::<f64>().unwrap(), y.parse::<f64>().unwrap()))
        .expect("the canvas's point")
}

/// The left button pressed by `down` on the canvas of `fixture`'s window `w`, with `modifiers`
/// held, stays down for `held_for`; once the person moves their pointer (`person_moves`)
/// deskhand lets go of it without an `up`, and the `up` that follows is refused as `stopped`.
pub fn held_button_is_released_when_the_person_moves(
    mcp: &Mcp,
    fixture: &Fixture,
    w: &str,
    modifiers: &[&str],
    held_for: Duration,
    person_moves: impl FnOnce(),
) {
    let (x, y) = canvas_point(mcp, w);
    let with_modifiers = |mut call: Value| {
        if !modifiers.is_empty() {
            call["modifiers"] = json!(modifiers);
        }
        call
    };
    let down = mcp.call(with_modifiers(
        json!({"action": "down", "target": w, "x": x, "y": y}),
    ));
    assert!(!down.is_error, "{}", down.text);
    std::thread::sleep(held_for);
    assert!(
        !fixture.events().iter().any(|e| e["event"] == "drag"),
        "released before the person moved"
    );

    person_moves();
    let released = fixture.wait_for("the held button's release", |e| e["event"] == "drag");
    assert_eq!(released["button"], 1, "{released}");
    let refused = mcp.call(with_modifiers(json!({"action": "up"})));
    assert_eq!(refused.kind(), Some("stopped"), "{}", refused.text);
}

/// A drag the person cut off: its reply says so as `applied but unconfirmed`, it answered
/// within `within`, and the fixture saw its button released; that release.
pub fn drag_cut_off_by_the_person(reply: &McpReply, fixture: &Fixture, within: Duration) -> Value {
    assert!(
        reply.text.starts_with("applied but unconfirmed: ")
            && reply.text.contains("a person started using the desktop"),
        "{}",
        reply.text
    );
    assert!(reply.took < within, "{:?}", reply.took);
    let released = fixture.wait_for("the drag's release", |e| e["event"] == "drag");
    assert_eq!(released["button"], 1, "{released}");
    released
}
