//! End to end under Wine 10, whose UI Automation client is real in part: `deskhand.exe mcp`
//! reads the fixture's own UI Automation providers (`deskhand-fixture --uia`) through Wine's
//! client and acts on what it read, and the fixture's log says what really arrived.
//!
//! Wine 10's client names, places and nests elements and says which has the focus, but reads
//! no pattern, no value and runs no pattern call (`GetCurrentPattern`, `SetFocus` answer
//! `E_NOTIMPL`): clicks by ref go to the element's place with the pointer, typing by ref focuses
//! it with a click, and what only a pattern could do fails with its reason. Run by
//! `scripts/wine-test --wine10`, which makes the Wine 10 tree and passes `--ignored`.
#![cfg(target_os = "linux")]

mod wine_common;

use std::process::Stdio;

use serde_json::json;

use wine_common::*;

/// The ref of the observed element shown as `role "name"`.
fn ref_of(observed: &str, role: &str, name: &str) -> String {
    let shown = format!(" {role} \"{name}\"");
    observed
        .lines()
        .find(|line| line.contains(&shown))
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("no {role} \"{name}\" in the observation:\n{observed}"))
        .to_owned()
}

/// The fixture serving UI Automation, its window listed, and a fresh observation of it.
async fn observed(title: &str, at: (i32, i32)) -> (Fixture, Mcp, Window, String) {
    let fixture = Fixture::start_with(title, at, &["--uia"]);
    let mcp = Mcp::start().await;
    let window = mcp.window(title).await;
    let tree = mcp
        .ok(json!({"action": "observe", "target": window.id}))
        .await;
    (fixture, mcp, window, tree)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine 10: run scripts/wine-test --wine10"]
async fn observe_reads_the_windows_providers_through_wine_ui_automation() {
    let (fixture, _mcp, _window, tree) = observed("UIA Tree Fixture", (100, 100)).await;
    // Each element as the provider names it, nested as it nests them: the form in the window,
    // the rows in the list.
    let lines: Vec<&str> = tree.lines().collect();
    let depth = |role: &str, name: &str| {
        let shown = format!(" {role} \"{name}\"");
        let line = lines
            .iter()
            .find(|line| line.contains(&shown))
            .unwrap_or_else(|| panic!("no {role} \"{name}\" in:\n{tree}"));
        line.len() - line.trim_start().len()
    };
    // The window's line leaves its title to the header, its children start at the left edge
    // under it, and each level below indents one space.
    assert!(
        lines[0].contains(" \"UIA Tree Fixture\" ") && lines[2].starts_with("e1 window"),
        "{tree}"
    );
    let form = depth("generic", "Form");
    for (role, name) in [
        ("button", "Press me"),
        ("button", "Add row"),
        ("text", "Name"),
        ("slider", "Volume"),
        ("list", "Fruits"),
    ] {
        assert_eq!(depth(role, name), form + 1, "{role} {name} in:\n{tree}");
    }
    for row in ["Alpha", "Beta", "Gamma"] {
        assert_eq!(depth("listitem", row), form + 2, "{row} in:\n{tree}");
    }
    assert!(
        !tree.contains("partial"),
        "the whole tree was read:\n{tree}"
    );
    // Read from the window's providers, which UI Automation asked for.
    fixture.wait_for(
        "UI Automation's request for the window's provider",
        |line| line == "uia getobject objid=-25",
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine 10: run scripts/wine-test --wine10"]
async fn a_button_and_a_row_are_clicked_by_ref_with_the_pointer_where_no_pattern_runs() {
    let (fixture, mcp, _window, tree) = observed("UIA Click Fixture", (120, 110)).await;

    let mark = fixture.lines().len();
    let clicked = mcp
        .ok(json!({"action": "click", "ref": ref_of(&tree, "button", "Press me")}))
        .await;
    assert!(clicked.contains("with the pointer"), "{clicked}");
    fixture.expect_after(mark, "button Press me clicked");

    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "click", "ref": ref_of(&tree, "listitem", "Beta")}))
        .await;
    fixture.expect_after(mark, "list selected=Beta");
    // Nothing went through a pattern: Wine's client runs none.
    assert!(
        !fixture
            .lines()
            .iter()
            .any(|line| line.starts_with("uia invoke")),
        "{}",
        fixture.lines().join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine 10: run scripts/wine-test --wine10"]
async fn a_row_held_by_its_index_based_id_fails_closed_once_a_row_is_added_above() {
    let (fixture, mcp, _window, tree) = observed("UIA Rows Fixture", (140, 120)).await;
    let beta = ref_of(&tree, "listitem", "Beta");

    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "click", "ref": ref_of(&tree, "button", "Add row")}))
        .await;
    fixture.expect_after(mark, "row added Aardvark");

    // Beta's runtime id ([…, 4, 1]) now names Alpha: the old ref must not click Alpha.
    let mark = fixture.lines().len();
    let reply = mcp.call(json!({"action": "click", "ref": beta})).await;
    let text = text_of(&reply);
    assert_eq!(reply.is_error, Some(true), "{text}");
    assert!(
        text.contains("observe"),
        "the reply says what to call: {text}"
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        !fixture
            .lines()
            .iter()
            .skip(mark)
            .any(|line| line.starts_with("list selected=")),
        "no row was clicked: {}",
        fixture.lines().join("\n")
    );

    // A fresh observation finds Beta where it is now.
    let window = mcp.window("UIA Rows Fixture").await;
    let tree = mcp
        .ok(json!({"action": "observe", "target": window.id}))
        .await;
    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "click", "ref": ref_of(&tree, "listitem", "Beta")}))
        .await;
    fixture.expect_after(mark, "list selected=Beta");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine 10: run scripts/wine-test --wine10"]
async fn typing_by_ref_arrives_and_what_wine_cannot_read_or_set_is_never_done() {
    let (fixture, mcp, _window, tree) = observed("UIA Type Fixture", (160, 130)).await;
    let name = ref_of(&tree, "text", "Name");

    // Wine's client cannot focus the edit: deskhand clicks it, and the keys land there.
    let text = "héllo wine ✓";
    let typed = mcp
        .ok(json!({"action": "type", "ref": name, "text": text}))
        .await;
    assert!(typed.contains("focused by a click"), "{typed}");
    fixture.wait_for("the whole text in the edit", |line| {
        line == format!("edit text={text:?}")
    });

    // Setting the text types it (no Value pattern runs), and Wine reads no value back: the reply
    // says the value is unconfirmed, never that it was set.
    let set = mcp
        .call(json!({"action": "set_value", "ref": name, "value": "set"}))
        .await;
    let said = text_of(&set);
    assert!(said.contains("unconfirmed"), "{said}");
    assert!(said.contains("reads back no value"), "{said}");
    assert!(!said.starts_with("done"), "{said}");

    // The slider's number can only be set through its RangeValue pattern, which Wine's client
    // cannot reach: a failure with its reason, and nothing reaches the app.
    let mark = fixture.lines().len();
    let slider = mcp
        .call(json!({"action": "set_value", "ref": ref_of(&tree, "slider", "Volume"), "value": 70}))
        .await;
    let said = text_of(&slider);
    assert_eq!(slider.is_error, Some(true), "{said}");
    assert!(said.contains("nothing was set"), "{said}");
    assert!(said.contains("Wine"), "the reason is named: {said}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !fixture
            .lines()
            .iter()
            .skip(mark)
            .any(|line| line.starts_with("uia volume")),
        "{}",
        fixture.lines().join("\n")
    );
}

#[test]
#[ignore = "needs the Windows build under Wine 10: run scripts/wine-test --wine10"]
fn deskhand_exe_embeds_a_per_monitor_v2_manifest_and_the_doctor_sees_it() {
    // The manifest as the Windows loader reads it from the executable.
    let output = wine("deskhand-fixture.exe")
        .arg("--manifest-of")
        .arg(windows_path(&exe_dir().join("deskhand.exe")))
        .stderr(Stdio::inherit())
        .output()
        .expect("running the fixture under wine");
    let manifest = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{manifest}");
    assert!(
        manifest.contains(
            "<dpiAwareness xmlns=\"http://schemas.microsoft.com/SMI/2016/WindowsSettings\">permonitorv2</dpiAwareness>"
        ),
        "{manifest}"
    );
    assert!(manifest.contains("level=\"asInvoker\""), "{manifest}");

    let output = wine("deskhand.exe")
        .arg("doctor")
        .output()
        .expect("running the doctor under wine");
    let report = String::from_utf8_lossy(&output.stdout);
    let dpi = report
        .lines()
        .find(|line| line.contains("dpi awareness"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(dpi.trim_start().starts_with("ok"), "{report}");
    assert!(dpi.contains("per-monitor (v2)"), "{report}");
}
