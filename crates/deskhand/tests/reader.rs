//! The fast tree reader (the application's cache first, then only what it lacks) lists exactly
//! what a plain element-by-element walk lists, on every kind of app the tests drive.

mod common;

use common::{Desktop, desktop, wait_until};
use serde_json::{Value, json};
use std::time::Duration;

/// The listed elements of one observation, without refs (the two readers share a session, so
/// refs match too, but the comparison should not depend on it).
fn listing(desk: &Desktop, w: &str, plain: bool) -> Vec<Value> {
    try_listing(desk, w, plain).unwrap_or_else(|doc| panic!("{doc}"))
}

/// [`listing`], or the reply when the observe failed (an app whose window shows before it is on
/// the accessibility bus).
fn try_listing(desk: &Desktop, w: &str, plain: bool) -> Result<Vec<Value>, Value> {
    let mut command = desk.command(common::BIN);
    command.args([
        "observe",
        &json!({"target": w, "limit": 5000}).to_string(),
        "--json",
    ]);
    if plain {
        command.env("DESKHAND_TREE_READER", "plain");
    }
    let output = command.output().expect("running deskhand");
    let doc: Value = serde_json::from_slice(&output.stdout).expect("JSON reply");
    if doc["ok"] != true {
        return Err(doc);
    }
    assert!(
        doc["data"]["partial"].as_array().unwrap().is_empty(),
        "{doc}"
    );
    Ok(doc["data"]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            json!({"depth": e["depth"], "role": e["role"], "name": e["name"], "value": e["value"],
                   "states": e["states"], "point": e["point"]})
        })
        .collect())
}

fn same_listing(desk: &Desktop, title: &str) {
    let w = desk.window_id(title);
    // The readers are compared while nothing changes: a settled listing, the plain walk, then
    // the fast reader, which must still see the settled listing. An app may change on its own
    // between reads (Chromium names a tab "… - Memory usage - 22.2 MB" once it has measured the
    // tab, pointer or not), so a comparison the app changed under is made again.
    let mut changed = None;
    for _ in 0..5 {
        let settled = wait_until(Duration::from_secs(20), || {
            let first = try_listing(desk, &w, false).ok()?;
            (first.len() > 3 && Ok(&first) == try_listing(desk, &w, false).as_ref())
                .then_some(first)
        })
        .unwrap_or_else(|| panic!("{title} never settled"));
        let plain = listing(desk, &w, true);
        let fast = listing(desk, &w, false);
        if fast != settled {
            changed = Some((settled, fast));
            continue;
        }
        assert_eq!(
            fast.len(),
            plain.len(),
            "{title}: the fast reader listed {} elements, the plain walk {}",
            fast.len(),
            plain.len()
        );
        for (f, p) in fast.iter().zip(&plain) {
            assert_eq!(f, p, "{title}: the readers disagree");
        }
        return;
    }
    let (settled, fast) = changed.expect("a comparison was made");
    assert_eq!(
        fast, settled,
        "{title} changed while it was compared, five times"
    );
}

#[test]
fn fast_and_plain_readers_list_the_same_elements() {
    let (_turn, desk) = desktop();
    let _fixture = desk.fixture("Reader Fixture", 1);
    same_listing(desk, "Reader Fixture");

    let _gtk3 = desk.spawn("gtk3-widget-factory", &[]);
    same_listing(desk, "gtk3-widget-factory");

    let _calculator = desk.spawn("gnome-calculator", &[]);
    same_listing(desk, "Calculator");

    let file = desk.scratch("reader-notes.txt");
    std::fs::write(&file, "fast and plain\n").unwrap();
    let _mousepad = desk.spawn("mousepad", &[file.to_str().unwrap()]);
    same_listing(desk, &format!("{} - Mousepad", file.display()));

    let profile = desk.scratch("reader-chromium");
    let form =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/form.html");
    let url = format!("file://{}", form.canonicalize().unwrap().display());
    // Chromium names a tab after its hover card while the pointer rests on it: the pointer
    // waits in the far corner, away from every window's title.
    let parked = desk
        .command("xdotool")
        .args(["mousemove", "10000", "10000"])
        .status();
    assert!(parked.is_ok_and(|status| status.success()), "xdotool");
    let _chromium = common::chromium(desk, &profile, &[], &url);
    same_listing(desk, "Deskhand Form - Chromium");
}
