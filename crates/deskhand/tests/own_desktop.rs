//! A person's own desktop, as it differs from the tests' plain one:
//! - two monitors: headless sway with a second output beside the first, as a laptop with a
//!   screen plugged in. `windows` names them and the one each window is on, a monitor's pixels
//!   are that monitor, and a click at x/y of a monitor lands there (the fixture app's own log);
//! - an app that scales itself on X11 (`GDK_SCALE=2`, as HiDPI X11 sessions run GTK apps): a
//!   pointer click by ref lands on its element (the app's own display says so).

mod common;

use std::time::Duration;

use common::{desktop, observe_until, sway, window_where};
use serde_json::json;

const GTK_START: Duration = Duration::from_secs(20);

/// Adds an output right of the first, once per binary: a second `create_output` would add a
/// third.
fn second_output(desk: &common::Desktop) -> String {
    let outputs = || {
        let listed = desk
            .command("swaymsg")
            .args(["-t", "get_outputs", "-r"])
            .output()
            .expect("swaymsg");
        let listed: serde_json::Value =
            serde_json::from_slice(&listed.stdout).expect("swaymsg's outputs are JSON");
        listed
            .as_array()
            .expect("a list of outputs")
            .iter()
            .map(|o| o["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    if outputs().len() < 2 {
        let made = desk
            .command("swaymsg")
            .arg("create_output")
            .status()
            .expect("swaymsg");
        assert!(made.success(), "swaymsg create_output failed");
    }
    let second = outputs()
        .into_iter()
        .find(|name| name != "HEADLESS-1")
        .expect("a second output");
    let placed = desk
        .command("swaymsg")
        .args([
            "output",
            second.as_str(),
            "resolution",
            "1280x1024",
            "pos",
            "1920",
            "0",
        ])
        .status()
        .expect("swaymsg");
    assert!(placed.success(), "placing {second} failed");
    // sway lays out an output with no position of its own after the others.
    let kept = desk
        .command("swaymsg")
        .args(["output", "HEADLESS-1", "pos", "0", "0"])
        .status()
        .expect("swaymsg");
    assert!(kept.success(), "placing HEADLESS-1 failed");
    second
}

/// The row `windows` lists for window `w`, as JSON.
fn window_row(desk: &common::Desktop, w: &str) -> serde_json::Value {
    let listed = desk.act_json("windows", json!({}));
    listed["data"]["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .find(|row| row["id"] == w)
        .unwrap_or_else(|| panic!("{w} is not listed: {listed}"))
        .clone()
}

#[test]
fn sway_outputs_are_monitors_and_each_is_a_surface() {
    let (_turn, desk) = sway();
    let second = second_output(desk);
    let listed = desk.act("windows", json!({})).ok();
    let monitors = listed.lines().nth(1).unwrap_or_default();
    assert_eq!(
        monitors,
        format!(
            "monitors · m1 \"HEADLESS-1\" 1920x1080 at 0,0 primary · m2 \"{second}\" 1280x1024 at 1920,0"
        ),
        "{listed}"
    );
    let zoom = desk.act_json(
        "zoom",
        json!({"target": "m2", "region": [0, 0, 1000, 1000]}),
    );
    assert_eq!(zoom["data"]["width"], 1280, "{zoom}");
    assert_eq!(zoom["data"]["height"], 1024, "{zoom}");

    // The fixture moved onto the second monitor by `window`, and clicked there by x/y of it.
    let fixture = desk.fixture("Monitor Fixture", 1);
    let w = desk.window_id("Monitor Fixture");
    let moved = desk
        .act("window", json!({"target": w, "monitor": "m2"}))
        .ok();
    assert!(moved.starts_with("done:"), "{moved}");
    let row = window_row(desk, &w);
    assert_eq!(row["monitor"], "m2", "{row}");
    let tree = desk.act_json("observe", json!({"target": w, "points": true}));
    let point = tree["data"]["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .find(|e| e["name"] == "Press me")
        .unwrap_or_else(|| panic!("no Press me in {tree}"))["point"]
        .clone();
    let bounds = &row["bounds"];
    let pixel = |axis: usize, origin: &str, size: &str| {
        bounds[origin].as_f64().unwrap()
            + point[axis].as_f64().unwrap() * bounds[size].as_f64().unwrap() / 1000.0
    };
    let (x, y) = (pixel(0, "x", "width"), pixel(1, "y", "height"));
    let on_monitor =
        |pixel: f64, origin: f64, size: f64| ((pixel - origin) * 1000.0 / size).round();
    let clicked = desk.act(
        "click",
        json!({"target": "m2", "x": on_monitor(x, 1920.0, 1280.0), "y": on_monitor(y, 0.0, 1024.0)}),
    );
    assert!(clicked.ok().starts_with("done: clicked at"));
    fixture.wait_for("the click at x/y of m2", |e| {
        e["event"] == "clicked" && e["widget"] == "press_me"
    });

    // And back to the first monitor through `window`.
    let moved = desk
        .act("window", json!({"target": w, "monitor": "m1"}))
        .ok();
    assert!(moved.starts_with("done:"), "{moved}");
    let row = window_row(desk, &w);
    assert_eq!(row["monitor"], "m1", "{row}");
}

#[test]
fn a_gtk_app_scaled_by_gdk_scale_on_x11_is_clicked_by_ref_where_its_buttons_are() {
    let (_turn, desk) = desktop();
    let _calculator = desk.spawn_with_env("gnome-calculator", &[], &[("GDK_SCALE", "2")]);
    let (w, _) = window_where(desk, GTK_START, "gnome-calculator", |t| t == "Calculator");
    let text = observe_until(desk, &w, GTK_START, "the keypad", |t| {
        t.contains("button \"7\"") && t.contains("button \"8\"")
    });
    let button = |label: &str| {
        text.lines()
            .find(|l| l.trim_end().ends_with(&format!("button \"{label}\"")))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("no button {label} in\n{text}"))
            .to_owned()
    };
    // A double click goes by the pointer, never by an accessibility action: it must land.
    for label in ["7", "8"] {
        let clicked = desk
            .act("click", json!({"ref": button(label), "count": 2}))
            .ok();
        assert!(clicked.starts_with("done: double-clicked"), "{clicked}");
    }
    let shown = observe_until(
        desk,
        &w,
        Duration::from_secs(5),
        "the display showing 7788",
        |t| t.contains("value=\"7788\""),
    );
    assert!(!shown.contains("value=\"(("), "{shown}");
}
