//! The contract on Wayland: a headless sway started by `deskhand desktop start --wayland sway`,
//! real GTK3 and GTK4 apps on it (run as the desktop's user), driven through the real CLI and
//! MCP server. The same cases run on X11 in `apps.rs`, `contract.rs` and `safety.rs`.

mod common;

use common::{
    Desktop, element_lines, line_of, observe_until, ref_of, sway, wait_until, window_where,
};
use serde_json::json;
use std::time::Duration;

const GTK_START: Duration = Duration::from_secs(20);
const SETTLE: Duration = Duration::from_secs(10);

/// The `@x,y` point of an observation line, 0–1000 of its surface.
fn point_of(line: &str) -> (f64, f64) {
    let (x, y) = line
        .rsplit_once('@')
        .and_then(|(_, p)| p.split_once(','))
        .unwrap_or_else(|| panic!("no point in {line:?}"));
    (x.trim().parse().expect("x"), y.trim().parse().expect("y"))
}

/// Observes `w` until the line of `reference` satisfies `wanted`.
fn wait_for_line(
    desk: &Desktop,
    w: &str,
    reference: &str,
    what: &str,
    wanted: impl Fn(&str) -> bool,
) {
    observe_until(desk, w, SETTLE, what, |text| {
        element_lines(text)
            .find(|l| l.trim_start().split(' ').next() == Some(reference))
            .is_some_and(&wanted)
    });
}

#[test]
fn desktop_start_and_stop_on_sway_end_exactly_what_started() {
    let desk = Desktop::start_own_sway();
    let var = |name: &str| {
        desk.env
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{name} is not in the desktop's environment"))
    };
    assert_eq!(var("XDG_SESSION_TYPE"), "wayland");
    assert_eq!(var("GDK_BACKEND"), "wayland");
    assert!(
        desk.unset.iter().any(|k| k == "DISPLAY"),
        "{:?}",
        desk.unset
    );
    let socket = std::path::Path::new(&var("XDG_RUNTIME_DIR")).join(var("WAYLAND_DISPLAY"));
    assert_eq!(desk.display, socket.to_string_lossy());
    assert!(socket.exists(), "no Wayland socket at {}", socket.display());
    let names: Vec<String> = desk.processes().into_iter().map(|(name, _)| name).collect();
    for wanted in [
        "dbus-daemon",
        "at-spi-bus-launcher",
        "sway",
        "a11y-listener",
    ] {
        assert!(
            names.iter().any(|n| n == wanted),
            "{wanted} not in {names:?}"
        );
    }
    // sway refuses root, so a root caller's desktop runs as a user of its own.
    let sway_pid = desk
        .processes()
        .into_iter()
        .find(|(name, _)| name == "sway")
        .expect("sway")
        .1;
    let owner = std::fs::metadata(format!("/proc/{sway_pid}"))
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .expect("sway's /proc entry");
    assert_ne!(owner, 0, "sway runs as root");
    assert_eq!(desk.user.map(|(uid, _)| uid).unwrap_or(owner), owner);

    let listed = desk.run(&["windows"]).ok();
    assert!(listed.starts_with("windows · 0 windows"), "{listed}");
    let screen = desk.act_json("screenshot", json!({"target": "screen"}));
    assert_eq!(screen["data"]["surface"], "screen", "{screen}");
    assert!(
        screen["data"]["pixels"]["width"].as_u64() > Some(0),
        "{screen}"
    );

    let pids: Vec<u32> = desk.processes().into_iter().map(|(_, pid)| pid).collect();
    desk.stop().ok();
    let gone = wait_until(Duration::from_secs(5), || {
        pids.iter()
            .all(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
                    stat.rsplit_once(") ")
                        .is_some_and(|(_, rest)| rest.starts_with('Z'))
                })
            })
            .then_some(())
    });
    assert!(gone.is_some(), "some of {pids:?} outlived desktop stop");
    assert!(!socket.exists(), "the Wayland socket outlived desktop stop");
}

#[test]
fn gtk3_on_sway_clicks_at_reported_points_types_unicode_and_shows_pixels() {
    let (_turn, desk) = sway();
    let _factory = desk.spawn("gtk3-widget-factory", &[]);
    let (w, _) = window_where(desk, GTK_START, "gtk3-widget-factory", |t| {
        t == "gtk3-widget-factory"
    });
    desk.act("focus", json!({"target": w})).ok();
    let text = observe_until(desk, &w, GTK_START, "the pages and the entry", |t| {
        t.contains("radio \"Page 2\"") && t.contains("text value=\"entry\" @")
    });

    // A pointer click at the point reported for "Page 2": AT-SPI extents on Wayland are
    // relative to the window, so this lands only if they were mapped with sway's window origin.
    let page2 = ref_of(&text, &["radio \"Page 2\""]);
    let placed = desk
        .act("observe", json!({"target": w, "points": true}))
        .ok();
    let (x, y) = point_of(line_of(&placed, &page2));
    let reply = desk.act("click", json!({"target": w, "x": x, "y": y})).ok();
    assert!(reply.contains("with the pointer"), "{reply}");
    wait_for_line(desk, &w, &page2, "Page 2 checked", |l| {
        l.contains(" checked")
    });
    let page1 = ref_of(&placed, &["radio \"Page 1\""]);
    let (x, y) = point_of(line_of(&placed, &page1));
    desk.act("click", json!({"target": w, "x": x, "y": y})).ok();
    wait_for_line(desk, &w, &page1, "Page 1 checked", |l| {
        l.contains(" checked")
    });

    // Typing characters no keyboard layout here has, into the entry, by ref.
    let text = observe_until(desk, &w, SETTLE, "the entry", |t| {
        t.contains("text value=\"entry\" @")
    });
    let entry = ref_of(&text, &["text value=\"entry\" @"]);
    desk.act("click", json!({"ref": entry})).ok();
    let typed = " Hé€😀中 ÄÖ→ž";
    let reply = desk.act("type", json!({"text": typed})).ok();
    assert!(reply.starts_with("done: typed 11 characters"), "{reply}");
    wait_for_line(desk, &w, &entry, "the typed text", |l| {
        l.contains(&format!("value=\"entry{typed}\""))
    });
    let line = line_of(&desk.act("observe", json!({"target": w})).ok(), &entry).to_owned();
    assert!(line.contains(" focused"), "{line}");

    // The window's pixels at its place and size, and a zoom of a quarter of it at native size.
    let listed = desk.act_json("windows", json!({}));
    let window = listed["data"]["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .find(|x| x["id"] == w.as_str())
        .expect("the window")
        .clone();
    let shot = desk.act_json("screenshot", json!({"target": w}));
    for key in ["x", "y", "width", "height"] {
        assert_eq!(shot["data"]["pixels"][key], window["bounds"][key], "{shot}");
    }
    let out = desk.scratch("sway-zoom.png");
    let reply = desk.run(&[
        "zoom",
        &json!({"target": w, "region": [0, 0, 500, 500]}).to_string(),
        "--json",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let doc: serde_json::Value = serde_json::from_str(&reply.stdout).expect("zoom --json");
    let width = window["bounds"]["width"].as_u64().expect("width");
    assert_eq!(doc["data"]["width"], width.div_ceil(2), "{doc}");
    let png = std::fs::read(&out).expect("the zoom file");
    assert_eq!(&png[1..4], b"PNG");
    assert_eq!(
        u64::from(u32::from_be_bytes(png[16..20].try_into().expect("4 bytes"))),
        width.div_ceil(2)
    );
}

#[test]
fn gtk4_calculator_on_sway_takes_pointer_clicks_at_reported_points_and_keys() {
    let (_turn, desk) = sway();
    let _calculator = desk.spawn("gnome-calculator", &[]);
    let (w, _) = window_where(desk, GTK_START, "gnome-calculator", |t| t == "Calculator");
    desk.act("focus", json!({"target": w})).ok();
    let text = observe_until(desk, &w, GTK_START, "the keypad", |t| {
        t.contains("button \"7\"") && t.contains("button \"=\"")
    });
    let display = common::first_of_role(&text, "text");
    let placed = desk
        .act("observe", json!({"target": w, "points": true}))
        .ok();
    for label in ["7", "×", "3"] {
        let button = ref_of(&placed, &[&format!("button \"{label}\"")]);
        let (x, y) = point_of(line_of(&placed, &button));
        let reply = desk.act("click", json!({"target": w, "x": x, "y": y})).ok();
        assert!(reply.contains("with the pointer"), "{reply}");
    }
    wait_for_line(desk, &w, &display, "7×3 on the display", |l| {
        l.contains("value=\"7×3\"")
    });
    desk.act("press", json!({"keys": "Return"})).ok();
    wait_for_line(desk, &w, &display, "21 on the display", |l| {
        l.contains("value=\"21\"")
    });
}

#[test]
fn the_pointer_in_the_corner_stops_actions_on_sway() {
    let (_turn, desk) = sway();
    let mcp = desk.mcp();
    let moved = mcp.call(json!({"action": "hover", "x": 500, "y": 500}));
    assert!(!moved.is_error, "{}", moved.text);
    let cornered = mcp.call(json!({"action": "hover", "x": 0, "y": 0}));
    assert!(!cornered.is_error, "{}", cornered.text);
    let stopped = mcp.call(json!({"action": "click", "x": 500, "y": 500}));
    assert_eq!(stopped.kind(), Some("stopped"), "{}", stopped.text);
    mcp.close();
}
