//! The actions beyond single clicks (wait, batch, find, set_value, select, window management,
//! pointer gestures) on the fixture app, whose own log says what it received.

mod common;

use common::{Desktop, Fixture, desktop, ref_of};
use serde_json::{Value, json};

const KIT: &[&str] = &["--kit"];

fn kit(desk: &Desktop, title: &str) -> (Fixture, String) {
    let fixture = desk.fixture_with(title, 1, KIT);
    let w = desk.window_id(title);
    desk.activate(title);
    (fixture, w)
}

fn events_named(fixture: &Fixture, event: &str) -> Vec<Value> {
    fixture
        .events()
        .into_iter()
        .filter(|e| e["event"] == event)
        .collect()
}

#[test]
fn wait_sees_a_delayed_change_and_a_new_window_and_a_timeout_changes_nothing() {
    let (_turn, desk) = desktop();
    let (fixture, w) = kit(desk, "Wait Fixture");
    desk.act("observe", json!({"target": w})).ok();

    desk.act("click", json!({"find": {"name": "Arm", "role": "button"}}))
        .ok();
    let held = desk.act_json(
        "wait",
        json!({"target": w, "until": {"name": "Fire", "role": "button", "is": "enabled"}, "timeout_ms": 8000}),
    );
    assert_eq!(held["ok"], true, "{held}");
    assert_eq!(held["data"]["held"], true, "{held}");
    let evidence = held["data"]["evidence"][0].as_str().unwrap();
    assert!(evidence.contains("button \"Fire\""), "{held}");
    assert!(!evidence.contains("disabled"), "{held}");
    // "Fire" turns on a second after "Arm": the wait really waited.
    assert!(
        held["data"]["elapsed_ms"].as_u64().unwrap() >= 300,
        "{held}"
    );
    let fire = evidence.split(' ').next().unwrap();
    desk.act("click", json!({"ref": fire})).ok();
    fixture.wait_for("the Fire click", |e| e["widget"] == "fire");

    desk.act("click", json!({"find": {"name": "Open later"}}))
        .ok();
    // The window is open before the wait is called: it is still new since the click.
    fixture.wait_for("the later window", |e| e["event"] == "opened");
    let later = desk.window_id("Later window");
    let opened = desk.act_json(
        "wait",
        json!({"target": w, "until": {"new_window": true}, "timeout_ms": 3000}),
    );
    assert_eq!(opened["data"]["held"], true, "{opened}");
    assert_eq!(opened["data"]["new_window"], later.as_str(), "{opened}");

    // A timed-out wait is a failure with evidence, and it acted on nothing.
    let before = fixture.events().len();
    let run = desk.act(
        "wait",
        json!({"target": w, "until": [{"name": "Fire", "role": "button"}, {"name": "No such thing"}], "timeout_ms": 600, "interval_ms": 100}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.starts_with("timeout: waited "), "{}", run.stdout);
    assert!(
        run.stdout.contains("not met: \"No such thing\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("no shown element is \"No such thing\""),
        "{}",
        run.stdout
    );
    assert_eq!(fixture.settled_events(before), Vec::<Value>::new());

    let closed = desk.act("close", json!({"target": later})).ok();
    assert_eq!(closed, format!("done: closed {later}\n"));
    fixture.wait_for("the later window closing", |e| e["event"] == "closed_extra");
    let gone = desk.act_json("wait", json!({"target": later, "until": {"gone": true}}));
    assert_eq!(gone["data"]["held"], true, "{gone}");

    let bad = desk.act_json(
        "wait",
        json!({"target": w, "until": {"name": "x", "title": "y"}}),
    );
    assert_eq!(bad["error"], "bad-argument", "{bad}");
}

#[test]
fn a_batch_checks_every_step_first_and_stops_at_the_first_failure() {
    let (_turn, desk) = desktop();
    let (fixture, w) = kit(desk, "Batch Fixture");
    let before = fixture.events().len();
    let run = desk.act(
        "batch",
        json!({"steps": [
            {"action": "click", "target": w, "find": {"name": "Press me"}},
            {"action": "click", "x": 5},
        ]}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .starts_with("failed (bad-argument): step 1 is not valid, so no step ran"),
        "{}",
        run.stdout
    );
    assert_eq!(fixture.settled_events(before), Vec::<Value>::new());

    let doc = desk.act_json(
        "batch",
        json!({"steps": [
            {"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}},
            {"action": "click", "target": w, "find": {"name": "Nowhere", "role": "button"}},
            {"action": "click", "target": w, "find": {"name": "Other", "role": "button"}},
        ]}),
    );
    assert_eq!(doc["outcome"], "unconfirmed", "{doc}");
    assert_eq!(doc["data"]["completed"], 1, "{doc}");
    assert_eq!(doc["data"]["failed_index"], 1, "{doc}");
    let steps = doc["data"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "the third step never ran: {doc}");
    assert_eq!(steps[1]["error"], "not-found", "{doc}");
    let clicked: Vec<Value> = fixture
        .settled_events(before)
        .into_iter()
        .filter(|e| e["event"] == "clicked")
        .map(|e| e["widget"].clone())
        .collect();
    assert_eq!(clicked, vec![json!("press_me")]);

    // Refs issued by a step's observe serve later steps; a whole sequence in one call.
    let doc = desk.act_json(
        "batch",
        json!({"steps": [
            {"action": "observe", "target": w, "query": "Agree"},
            {"action": "click", "find": {"name": "Agree", "role": "check"}},
            {"action": "wait", "until": {"name": "Agree", "role": "check", "value_not": "x"}, "timeout_ms": 100},
        ]}),
    );
    assert_eq!(doc["data"]["completed"], 2, "{doc}");
    assert_eq!(
        doc["data"]["failed_index"], 2,
        "a check box has no value: {doc}"
    );
    fixture.wait_for("the toggle", |e| {
        e["widget"] == "agree" && e["active"] == true
    });
}

#[test]
fn set_value_sets_a_gtk3_slider_spin_button_combo_box_and_entry_and_reads_them_back() {
    let (_turn, desk) = desktop();
    let (fixture, w) = kit(desk, "Value Fixture");
    desk.act("observe", json!({"target": w})).ok();

    let reply = desk
        .act(
            "set_value",
            json!({"find": {"name": "Volume"}, "value": 42}),
        )
        .ok();
    assert!(reply.starts_with("done: set e"), "{reply}");
    assert!(
        reply.ends_with("slider \"Volume\" to \"42\" (read back)\n"),
        "{reply}"
    );
    fixture.wait_for("the slider at 42", |e| {
        e["widget"] == "volume" && e["value"] == 42.0
    });

    desk.act(
        "set_value",
        json!({"find": {"name": "Count", "role": "spin"}, "value": "7"}),
    )
    .ok();
    fixture.wait_for("the spin button at 7", |e| {
        e["widget"] == "count" && e["value"] == 7.0
    });

    desk.act(
        "set_value",
        json!({"find": {"role": "combobox"}, "value": "Blue"}),
    )
    .ok();
    fixture.wait_for("Blue chosen", |e| {
        e["widget"] == "color" && e["text"] == "Blue"
    });

    let reply = desk
        .act(
            "set_value",
            json!({"find": {"name": "Name", "role": "text"}, "value": "héllo → 世界"}),
        )
        .ok();
    assert!(reply.contains("to \"héllo → 世界\" (read back)"), "{reply}");
    fixture.wait_for("the name", |e| {
        e["widget"] == "name" && e["text"] == "héllo → 世界"
    });

    // Out of range, no such choice: refused, and nothing changed.
    let before = fixture.events().len();
    let run = desk.act(
        "set_value",
        json!({"find": {"name": "Volume"}, "value": 1000}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .starts_with("failed (bad-argument): 1000 is outside the element's range 0 to 100"),
        "a bad argument that names the range: {}",
        run.stdout
    );
    let run = desk.act(
        "set_value",
        json!({"find": {"role": "combobox"}, "value": "Purple"}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.starts_with("failed (not-found)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\"Green\""),
        "lists the choices: {}",
        run.stdout
    );
    assert_eq!(fixture.settled_events(before), Vec::<Value>::new());

    // A password is set but never read back or echoed.
    let run = desk.act(
        "set_value",
        json!({"find": {"name": "Password", "role": "password"}, "value": "s3cr3t-value"}),
    );
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert!(!run.stdout.contains("s3cr3t"), "{}", run.stdout);
    fixture.wait_for("the password length", |e| {
        e["widget"] == "password" && e["length"] == 12
    });
}

#[test]
fn select_walks_a_menu_path_level_by_level_and_fails_closed() {
    let (_turn, desk) = desktop();
    let (fixture, w) = kit(desk, "Menu Fixture");
    let reply = desk
        .act(
            "select",
            json!({"target": w, "path": ["File", "Save As..."]}),
        )
        .ok();
    assert_eq!(
        reply,
        format!(
            "done: selected \"File\" > \"Save As…\" in {w} by opening its menus through accessibility and clicking the item with the pointer\n"
        )
    );
    fixture.wait_for("Save As…", |e| {
        e["event"] == "menu" && e["item"] == "Save As…"
    });

    desk.act(
        "select",
        json!({"target": w, "path": ["File", "Recent", "Open…"]}),
    )
    .ok();
    // The item's event may follow the reply: counted once they have all come.
    let opened = fixture.settled_events(0);
    let before = opened.len();
    assert_eq!(
        opened
            .iter()
            .filter(|e| e["event"] == "menu" && e["item"] == "Open…")
            .count(),
        1,
        "the submenu's item, not File's own Open…: {opened:?}"
    );

    for (path, kind, says) in [
        (
            json!(["Edit", "Undo"]),
            "disabled",
            "\"Edit\" > \"Undo\" is disabled",
        ),
        (
            json!(["Help", "About"]),
            "ambiguous",
            "2 items named \"Help\"",
        ),
        (json!(["File", "Print"]), "not-found", "\"Save As…\""),
        (json!(["Nope"]), "not-found", "no item \"Nope\""),
    ] {
        let doc = desk.act_json("select", json!({"target": w, "path": path}));
        assert_eq!(doc["error"], kind, "{doc}");
        assert!(doc["message"].as_str().unwrap().contains(says), "{doc}");
    }
    desk.act("press", json!({"keys": "Escape"})).ok();
    assert!(
        events_named(&fixture, "menu").len() == 2
            && fixture
                .settled_events(before)
                .iter()
                .all(|e| e["event"] != "menu"),
        "nothing selected by the failed paths: {:?}",
        fixture.events()
    );
}

#[test]
fn windows_are_focused_moved_resized_maximized_minimized_and_closed() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Window Fixture", 2);
    let first = desk.window_id("Window Fixture");
    let second = desk.window_id("Window Fixture 2");

    for w in [&first, &second, &first] {
        let reply = desk.act("focus", json!({"target": w})).ok();
        assert!(reply.starts_with(&format!("done: {w} \"")), "{reply}");
        let listed = window_of(desk, w);
        assert_eq!(listed["focused"], true, "{listed}");
    }

    let reply = desk
        .act(
            "window",
            json!({"target": first, "position": [120, 90], "size": [720, 600]}),
        )
        .ok();
    assert!(reply.contains("is now 120,90 720x600 normal"), "{reply}");
    let bounds = &window_of(desk, &first)["bounds"];
    assert_eq!(
        (
            bounds["x"].as_i64(),
            bounds["y"].as_i64(),
            bounds["width"].as_u64(),
            bounds["height"].as_u64()
        ),
        (Some(120), Some(90), Some(720), Some(600)),
        "{bounds}"
    );

    let reply = desk
        .act("window", json!({"target": first, "state": "maximized"}))
        .ok();
    assert!(reply.ends_with(" maximized\n"), "{reply}");
    let listed = window_of(desk, &first);
    assert!(
        listed["bounds"]["width"].as_u64().unwrap() > 720,
        "{listed}"
    );
    desk.act("window", json!({"target": first, "state": "normal"}))
        .ok();
    let reply = desk
        .act("window", json!({"target": first, "state": "minimized"}))
        .ok();
    assert!(reply.ends_with(" minimized\n"), "{reply}");
    assert_eq!(window_of(desk, &first)["minimized"], true);
    desk.act("focus", json!({"target": first})).ok();
    assert_eq!(window_of(desk, &first)["minimized"], false);

    let bad = desk.act_json("window", json!({"target": first, "size": [0, 10]}));
    assert_eq!(bad["error"], "bad-argument", "{bad}");
    let bad = desk.act_json("close", json!({}));
    assert_eq!(bad["error"], "bad-argument", "{bad}");

    let reply = desk.act("close", json!({"target": second})).ok();
    assert_eq!(reply, format!("done: closed {second}\n"));
    fixture.wait_for("window 2 closing", |e| {
        e["event"] == "closed" && e["window"] == 2
    });
    let gone = desk.act_json("focus", json!({"target": second}));
    assert_eq!(gone["error"], "surface-gone", "{gone}");
}

fn window_of(desk: &Desktop, id: &str) -> Value {
    desk.act_json("windows", json!({}))["data"]["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not listed"))
        .clone()
}

#[test]
fn pointer_gestures_hover_press_move_release_and_drag_through_points() {
    let (_turn, desk) = desktop();
    let (fixture, w) = kit(desk, "Pointer Fixture");
    let text = desk
        .act("observe", json!({"target": w, "points": true}))
        .ok();
    let canvas = ref_of(&text, &["\"Canvas\""]);
    let point = |line: &str| -> (f64, f64) {
        let at = line.rsplit('@').next().unwrap();
        let (x, y) = at.trim().split_once(',').unwrap();
        (x.parse().unwrap(), y.parse().unwrap())
    };
    let line = text
        .lines()
        .find(|l| l.contains(&format!("{canvas} ")))
        .unwrap();
    let (cx, cy) = point(line);

    let before = fixture.events().len();
    desk.act(
        "down",
        json!({"target": w, "x": cx - 20.0, "y": cy, "modifiers": ["shift"]}),
    )
    .ok();
    desk.act("hover", json!({"target": w, "x": cx, "y": cy + 10.0}))
        .ok();
    desk.act("hover", json!({"target": w, "x": cx + 20.0, "y": cy}))
        .ok();
    let reply = desk.act("up", json!({"modifiers": ["shift"]})).ok();
    assert!(
        reply.starts_with("done: released the left button where the pointer is"),
        "{reply}"
    );
    let drag = fixture.wait_for("the gesture", |e| e["event"] == "drag");
    assert!(drag["motions"].as_u64().unwrap() >= 2, "{drag}");
    assert!(
        drag["to"][0].as_i64().unwrap() > drag["from"][0].as_i64().unwrap(),
        "{drag}"
    );

    desk.act(
        "drag",
        json!({"target": w, "from": [cx - 30.0, cy], "to": [cx + 30.0, cy], "via": [[cx, cy - 20.0], [cx, cy + 20.0]], "duration_ms": 400}),
    )
    .ok();
    let drags: Vec<Value> = fixture
        .settled_events(before)
        .into_iter()
        .filter(|e| e["event"] == "drag")
        .collect();
    assert_eq!(drags.len(), 2, "{drags:?}");
    assert!(drags[1]["motions"].as_u64().unwrap() >= 4, "{drags:?}");
    // No key stays held after the gesture: a plain key press carries no modifier.
    desk.act("press", json!({"keys": "a"})).ok();
    let key = fixture.wait_for("the key", |e| {
        e["event"] == "key" && e["keyval_name"] == "a"
    });
    assert_eq!(key["state"], json!([]), "{key}");
}

/// The small things a new user ran into: `desktop --help`, options before the action, a held
/// wait for a window that is already gone names it, a `new_window` wait outlives the current
/// window closing, and the private desktop keeps its own state directory (the audit log).
#[test]
fn small_things_a_new_user_ran_into() {
    let (_turn, desk) = desktop();
    let help = desk.run(&["desktop", "--help"]);
    assert_eq!(help.code, 0, "{}{}", help.stdout, help.stderr);
    assert!(
        help.stdout.contains("deskhand desktop start"),
        "{}",
        help.stdout
    );

    let json_first = desk.run(&["--json", "windows"]);
    assert_eq!(
        json_first.code, 0,
        "{}{}",
        json_first.stdout, json_first.stderr
    );
    let doc: Value = serde_json::from_str(&json_first.stdout).expect("JSON");
    assert!(doc["data"]["windows"].is_array(), "{doc}");

    let state = desk
        .env
        .iter()
        .find(|(key, _)| key == "XDG_STATE_HOME")
        .map(|(_, value)| value.clone())
        .expect("the desktop sets XDG_STATE_HOME");
    assert!(std::path::Path::new(&state).is_dir(), "{state}");

    let (fixture, w) = kit(desk, "Small Things");
    desk.act(
        "click",
        json!({"target": w, "find": {"name": "Open later"}}),
    )
    .ok();
    fixture.wait_for("the later window", |e| e["event"] == "opened");
    let later = desk.window_id("Later window");
    // The later window becomes the current surface, then closes: a batch's wait for it to be
    // gone names it.
    desk.act("observe", json!({"target": later})).ok();
    desk.act("close", json!({"target": later})).ok();
    fixture.wait_for("the later window closing", |e| e["event"] == "closed_extra");
    let batch = desk
        .act(
            "batch",
            json!({"steps": [{"action": "wait", "until": {"gone": true}}]}),
        )
        .ok();
    assert!(batch.contains(&format!("wait {later} · held")), "{batch}");
    // With the current window gone, a wait for a new window watches the whole screen.
    desk.act(
        "click",
        json!({"find": {"name": "Open later"}, "target": desk.window_id("Small Things")}),
    )
    .ok();
    let opened = desk.act_json(
        "wait",
        json!({"until": {"new_window": true}, "timeout_ms": 5000}),
    );
    assert_eq!(opened["data"]["held"], true, "{opened}");
}

/// An observe narrowed by `query` lists only what matches, and the refs the full observe before
/// it issued for unchanged elements it did not list still act: "Press me" is clicked by its
/// ref from the full observe.
#[test]
fn a_narrowed_observe_keeps_the_refs_of_the_elements_it_did_not_list() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Narrow Fixture", 1);
    let w = desk.window_id("Narrow Fixture");
    let full = desk.act("observe", json!({"target": w})).ok();
    let press = ref_of(&full, &["button \"Press me\""]);
    let narrowed = desk
        .act("observe", json!({"target": w, "query": "other"}))
        .ok();
    assert!(!narrowed.contains("Press me"), "{narrowed}");
    let clicked = desk.act("click", json!({"ref": press})).ok();
    assert!(clicked.starts_with("done"), "{clicked}");
    fixture.wait_for("the Press me click", |e| e["widget"] == "press_me");
}

/// Qt's drop-downs: `set_value` chooses in one, a click by ref on an item of its open list
/// chooses that item (the box's own log says so), and a disabled drop-down is never acted on,
/// by `set_value` or through an item of its list, which is not left selected either.
#[test]
fn qt_drop_downs_are_chosen_by_set_value_and_by_their_open_list_and_never_when_disabled() {
    let (_turn, desk) = desktop();
    let combos = desk.python_fixture("qt_combos.py", "Qt Combos", &[]);
    let w = desk.window_id("Qt Combos");
    let text = desk.act("observe", json!({"target": w})).ok();
    let autosave = ref_of(&text, &["combobox \"Every minute\""]);
    let backup = ref_of(&text, &["combobox \"Daily\"", "disabled"]);
    let weekly = ref_of(&text, &["listitem \"Weekly\""]);

    let set = desk
        .act("set_value", json!({"ref": autosave, "value": "Never"}))
        .ok();
    assert!(set.starts_with("done"), "{set}");
    combos.wait_for("Never chosen", |e| {
        e["widget"] == "autosave" && e["text"] == "Never"
    });

    for (action, args) in [
        ("set_value", json!({"ref": backup, "value": "Weekly"})),
        ("click", json!({"ref": weekly})),
    ] {
        let run = desk.act(action, args);
        assert_eq!(run.code, 1, "{action}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.starts_with("failed (disabled)"),
            "{action}: {}",
            run.stdout
        );
    }
    let after = desk.act("observe", json!({"target": w})).ok();
    assert!(
        !after
            .lines()
            .any(|l| l.contains("listitem \"Weekly\"") && l.contains("selected")),
        "a disabled drop-down's item was left selected:\n{after}"
    );

    // Its list is closed: the item is not on screen, and nothing is clicked.
    let hourly = ref_of(&text, &["listitem \"Every hour\""]);
    let closed = desk.act("click", json!({"ref": hourly}));
    assert!(
        closed.stdout.starts_with("failed (element-gone)"),
        "{}{}",
        closed.stdout,
        closed.stderr
    );
    desk.act("click", json!({"ref": autosave})).ok();
    let chosen = common::wait_until(std::time::Duration::from_secs(10), || {
        let run = desk.act("click", json!({"ref": hourly}));
        run.stdout.starts_with("done").then_some(run.stdout)
    });
    assert!(chosen.is_some(), "the open list's item was never chosen");
    combos.wait_for("Every hour chosen", |e| {
        e["widget"] == "autosave" && e["text"] == "Every hour"
    });
    let events = combos.events();
    assert!(
        events.iter().all(|e| e["widget"] != "backup"),
        "the disabled drop-down changed: {events:?}"
    );
}
