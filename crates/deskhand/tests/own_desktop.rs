//! A person's own desktop, as it differs from the tests' plain one (two monitors are a scenario
//! of every display, in `displays.rs`):
//! - an app that scales itself on X11 (`GDK_SCALE=2`, as HiDPI X11 sessions run GTK apps): a
//!   pointer click by ref lands on its element (the app's own display says so).

mod common;

use std::time::Duration;

use common::{desktop, observe_until, window_where};
use serde_json::json;

const GTK_START: Duration = Duration::from_secs(20);

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
