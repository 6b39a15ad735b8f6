//! Two monitors on a scripted desktop: `windows` names them and says where each window is, a
//! monitor is a surface of its own for pixels and points, and the kill switch is the primary
//! monitor's top-left corner, wherever that is in the desktop's coordinates.

mod common;

use common::{Desk, el, png_size, tree, window};
use deskhand_core::ErrorKind;
use deskhand_core::fake::{FakeDesktop, Received};
use deskhand_core::model::{Monitor, MouseButton, Point, Rect, Role};
use serde_json::json;

/// A 1280x1024 monitor left of the primary 1920x1080 one, whose top-left is 0,0: the left one
/// has negative coordinates. An editor on the left, a terminal on the primary.
fn desk() -> Desk {
    let fake = FakeDesktop::new(
        Rect::new(-1280, 0, 3200, 1080),
        vec![
            (
                window(
                    0x100,
                    "Editor",
                    100,
                    "editor",
                    Rect::new(-1200, 100, 800, 600),
                    false,
                ),
                tree(el(
                    ":1.10/0",
                    Role::Window,
                    "Editor",
                    (-1200, 100, 800, 600),
                )),
            ),
            (
                window(
                    0x200,
                    "Terminal",
                    200,
                    "terminal",
                    Rect::new(300, 200, 900, 500),
                    true,
                ),
                tree(el(
                    ":1.20/0",
                    Role::Window,
                    "Terminal",
                    (300, 200, 900, 500),
                )),
            ),
        ],
    );
    *fake.monitors.lock().unwrap() = vec![
        Monitor {
            name: "DP-2".into(),
            bounds: Rect::new(-1280, 0, 1280, 1024),
            scale: 1.0,
            primary: false,
        },
        Monitor {
            name: "eDP-1".into(),
            bounds: Rect::new(0, 0, 1920, 1080),
            scale: 2.0,
            primary: true,
        },
    ];
    Desk::new(fake)
}

#[tokio::test]
async fn windows_names_the_monitors_and_the_one_each_window_is_on() {
    let mut d = desk();
    let listed = d.ok(json!({"action": "windows"})).await;
    let lines: Vec<&str> = listed.text.lines().collect();
    assert_eq!(
        lines[1],
        "monitors · m1 \"eDP-1\" 1920x1080 at 0,0 scale 2 primary · m2 \"DP-2\" 1280x1024 at -1280,0",
        "{}",
        listed.text
    );
    assert!(
        lines[2].contains("\"Terminal\"") && lines[2].ends_with("300,200 900x500 on m1 · focused"),
        "{}",
        listed.text
    );
    assert!(
        lines[3].contains("\"Editor\"") && lines[3].ends_with("on m2"),
        "{}",
        listed.text
    );
    assert_eq!(listed.data["monitors"][1]["bounds"]["x"], -1280);
    assert_eq!(listed.data["windows"][1]["monitor"], "m2");
}

#[tokio::test]
async fn one_monitor_costs_no_line() {
    let mut d = desk();
    d.fake.monitors.lock().unwrap().clear();
    let listed = d.ok(json!({"action": "windows"})).await;
    assert!(!listed.text.contains("monitors"), "{}", listed.text);
    assert!(!listed.text.contains(" on m"), "{}", listed.text);
    assert!(listed.data.get("monitors").is_none());
}

#[tokio::test]
async fn a_monitor_is_a_surface_for_pixels_and_points() {
    let mut d = desk();
    d.ok(json!({"action": "windows"})).await;
    let zoom = d
        .ok(json!({"action": "zoom", "target": "m2", "region": [0, 0, 1000, 1000]}))
        .await;
    assert_eq!(png_size(zoom.image.as_ref().unwrap()), (1280, 1024));
    d.take();
    // The middle of the left monitor, in the desktop's coordinates.
    d.ok(json!({"action": "click", "target": "m2", "x": 500, "y": 500}))
        .await;
    assert_eq!(
        d.take(),
        vec![Received::Click(
            Point { x: -640, y: 512 },
            MouseButton::Left,
            1
        )]
    );
    let gone = d
        .fail(json!({"action": "zoom", "target": "m7", "region": [0, 0, 10, 10]}))
        .await;
    assert_eq!(gone.kind, ErrorKind::BadArgument, "{}", gone.message);
    assert!(gone.message.contains("call `windows`"), "{}", gone.message);
    d.fake.monitors.lock().unwrap().remove(0);
    let unplugged = d
        .fail(json!({"action": "zoom", "target": "m2", "region": [0, 0, 10, 10]}))
        .await;
    assert_eq!(
        unplugged.kind,
        ErrorKind::SurfaceGone,
        "{}",
        unplugged.message
    );
}

#[tokio::test]
async fn the_kill_switch_is_the_primary_monitors_corner_and_nowhere_else() {
    let mut d = desk();
    d.ok(json!({"action": "windows"})).await;
    let click = json!({"action": "click", "target": "m1", "x": 500, "y": 500});
    // The left monitor's whole top row has x below the primary's: none of it is the corner.
    for pointer in [
        Point { x: -1280, y: 0 },
        Point { x: -5, y: 1 },
        Point { x: 3, y: 0 },
    ] {
        d.fake.move_pointer(pointer);
        d.ok(click.clone()).await;
    }
    d.take();
    d.fake.move_pointer(Point { x: 1, y: 2 });
    let stopped = d.fail(click.clone()).await;
    assert_eq!(stopped.kind, ErrorKind::Stopped, "{}", stopped.message);
    assert_eq!(d.take(), vec![]);
}

#[tokio::test]
async fn a_window_moves_to_another_monitor_at_the_same_place_keeping_its_size_where_it_fits() {
    let mut d = desk();
    d.ok(json!({"action": "windows"})).await;
    let terminal = d.window_id("Terminal").await;
    // 300,200 900x500 on the primary: the same offset from the left monitor's corner.
    let moved = d
        .ok(json!({"action": "window", "target": terminal, "monitor": "m2"}))
        .await;
    assert!(moved.text.starts_with("done:"), "{}", moved.text);
    let listed = d.ok(json!({"action": "windows"})).await;
    let row = listed
        .text
        .lines()
        .find(|l| l.contains("\"Terminal\""))
        .unwrap()
        .to_owned();
    assert!(row.contains("-980,200 900x500 on m2"), "{}", listed.text);
    // Too wide for the left monitor: cut to it, at its left edge.
    let wide = d
        .ok(json!({"action": "window", "target": terminal, "monitor": "m1", "size": [1900, 600]}))
        .await;
    assert!(wide.text.starts_with("done:"), "{}", wide.text);
    let back = d
        .ok(json!({"action": "window", "target": terminal, "monitor": "m2"}))
        .await;
    assert!(back.text.starts_with("done:"), "{}", back.text);
    let listed = d.ok(json!({"action": "windows"})).await;
    assert!(
        listed.text.contains("-1280,200 1280x600 on m2"),
        "{}",
        listed.text
    );
    let refused = d
        .fail(json!({"action": "window", "target": terminal, "monitor": "w2"}))
        .await;
    assert_eq!(refused.kind, ErrorKind::BadArgument, "{}", refused.message);
}
