//! End to end on Windows' side of the contract: `deskhand.exe mcp` and the CLI, run under Wine on
//! the headless X desktop, drive the Win32 fixture app, whose log says what really arrived.
//!
//! They need the Windows build and a prepared Wine prefix, so they are ignored in a plain
//! `cargo test` and run by `scripts/wine-test`, which builds both, starts the desktop and passes
//! `--ignored`. Under Wine 8 there is no UI Automation: these tests cover windows, input,
//! pixels, the clipboard, apps and safety; the tree is covered by the UIA unit tests and, under
//! Wine 10, by `wine10.rs`.
#![cfg(target_os = "linux")]

mod wine_common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine;
use rmcp::model::CallToolResult;
use serde_json::json;

use wine_common::*;

/// The fixture's controls, in client pixels (see the fixture's layout).
const PRESS_ME: (i32, i32) = (80, 35);
const DIALOG: (i32, i32) = (220, 35);
const REMEMBER: (i32, i32) = (310, 35);
const EDIT: (i32, i32) = (150, 85);
const EMPTY: (i32, i32) = (250, 300);
const RED: (i32, i32) = (350, 170);

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn windows_are_listed_with_their_process_and_focused_moved_resized_and_closed() {
    let fixture = Fixture::start("Geometry Fixture", (120, 140));
    let mcp = Mcp::start().await;
    let window = mcp.window("Geometry Fixture").await;
    assert_eq!(window.app, "deskhand-fixture", "{window:?}");
    assert!(window.width > 400 && window.height > 300, "{window:?}");

    mcp.ok(json!({"action": "focus", "target": window.id}))
        .await;
    let listed = mcp.ok(json!({"action": "windows"})).await;
    let line = listed
        .lines()
        .find(|line| line.contains("\"Geometry Fixture\""))
        .expect("listed");
    assert!(line.contains("· focused"), "{listed}");

    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "window", "target": window.id, "position": [200, 150]}))
        .await;
    fixture.wait_after(mark, "a move", |line| line.starts_with("moved "));
    let moved = mcp
        .window_until("Geometry Fixture", |w| (w.x, w.y) == (200, 150))
        .await;
    assert_eq!((moved.x, moved.y), (200, 150), "{moved:?}");

    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "window", "target": window.id, "size": [420, 310]}))
        .await;
    fixture.expect_after(mark, "sized 420x310");
    let resized = mcp
        .window_until("Geometry Fixture", |w| (w.width, w.height) == (420, 310))
        .await;
    assert_eq!((resized.width, resized.height), (420, 310), "{resized:?}");

    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "close", "target": window.id}))
        .await;
    fixture.expect_after(mark, "close requested");
    fixture.expect_after(mark, "destroyed");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn typed_text_arrives_exactly_and_chords_arrive_as_their_keys() {
    let fixture = Fixture::start("Keys Fixture", (140, 120));
    let mcp = Mcp::start().await;
    let window = mcp.window("Keys Fixture").await;
    mcp.ok(window.click(EDIT.0, EDIT.1)).await;

    let text = "héllo 世界 ✓ 😀 ok";
    let typed = mcp
        .ok(json!({"action": "type", "target": window.id, "text": text}))
        .await;
    assert!(
        !typed.contains(text),
        "the reply echoes no typed text: {typed}"
    );
    fixture.wait_for("the whole text in the edit", |line| {
        line == format!("edit text={text:?}")
    });

    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "press", "keys": "ctrl+s"})).await;
    fixture.expect_after(mark, "accelerator ctrl+s");
    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "press", "keys": "ctrl+shift+s"}))
        .await;
    fixture.expect_after(mark, "accelerator ctrl+shift+s");

    // The scan code and extended flag arrive with the virtual key.
    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "press", "keys": "Left"})).await;
    fixture.expect_after(mark, "key down vk=0x25 scan=0x4B extended=1");
    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "press", "keys": "BackSpace"}))
        .await;
    fixture.wait_after(mark, "the character before the caret deleted", |line| {
        line == format!("edit text={:?}", "héllo 世界 ✓ 😀 k")
    });
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn the_pointer_clicks_buttons_checks_and_lists_and_scrolls_and_drags() {
    let fixture = Fixture::start("Pointer Fixture", (160, 100));
    let mcp = Mcp::start().await;
    let window = mcp.window("Pointer Fixture").await;

    mcp.ok(window.click(PRESS_ME.0, PRESS_ME.1)).await;
    fixture.wait_for("the button's click", |l| l == "button Press me clicked");
    mcp.ok(window.click(REMEMBER.0, REMEMBER.1)).await;
    fixture.wait_for("the check box on", |l| l == "check Remember on");
    mcp.ok(window.click(REMEMBER.0, REMEMBER.1)).await;
    fixture.wait_for("the check box off", |l| l == "check Remember off");
    // The list's rows start at its top edge (y 120) and are a font's height apart.
    mcp.ok(window.click(60, 124)).await;
    fixture.wait_for("the first row selected", |l| l == "list selected=Alpha");

    let mark = fixture.lines().len();
    let [x, y] = window.at(EMPTY.0, EMPTY.1);
    mcp.ok(
        json!({"action": "click", "target": window.id, "x": x, "y": y,
                   "button": "right", "modifiers": ["ctrl"]}),
    )
    .await;
    fixture.expect_after(
        mark,
        &format!("mouse right down {},{} held=ctrl", EMPTY.0, EMPTY.1),
    );

    let mark = fixture.lines().len();
    mcp.ok(
        json!({"action": "scroll", "target": window.id, "x": x, "y": y,
                   "direction": "down", "amount": 2}),
    )
    .await;
    fixture.expect_after(mark, "wheel -120");
    let wheels = fixture.lines()[mark..]
        .iter()
        .filter(|l| *l == "wheel -120")
        .count();
    assert!(wheels <= 2, "{:?}", &fixture.lines()[mark..]);

    let mark = fixture.lines().len();
    let from = window.at(240, 250);
    let to = window.at(450, 320);
    mcp.ok(json!({"action": "drag", "target": window.id, "from": from, "to": to}))
        .await;
    fixture.expect_after(mark, "mouse left down 240,250 held=");
    fixture.expect_after(mark, "mouse left up 450,320 held=");
}

fn decode_png(reply: &CallToolResult) -> (u32, u32, Vec<u8>) {
    let image = reply
        .content
        .iter()
        .find_map(|content| content.as_image().map(|image| image.data.clone()))
        .expect("an image in the reply");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image)
        .expect("base64");
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    let channels = info.color_type.samples();
    (
        info.width,
        info.height,
        pixels
            .chunks(channels)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
    )
}

fn pixel(image: &(u32, u32, Vec<u8>), window: &Window, at: (i32, i32)) -> [u8; 3] {
    let (width, height, data) = image;
    let x = (at.0 as u64 * *width as u64 / window.width as u64) as usize;
    let y = (at.1 as u64 * *height as u64 / window.height as u64) as usize;
    let i = (y * *width as usize + x) * 3;
    [data[i], data[i + 1], data[i + 2]]
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn a_screenshot_shows_the_window_and_is_whole_when_another_covers_it() {
    let _fixture = Fixture::start("Capture Fixture", (60, 60));
    let mcp = Mcp::start().await;
    let window = mcp.window("Capture Fixture").await;
    mcp.ok(json!({"action": "focus", "target": window.id}))
        .await;
    let shot = mcp
        .call(json!({"action": "screenshot", "target": window.id}))
        .await;
    assert_ne!(shot.is_error, Some(true), "{}", text_of(&shot));
    let image = decode_png(&shot);
    assert_eq!(pixel(&image, &window, RED), [255, 0, 0]);
    assert_ne!(pixel(&image, &window, EMPTY), [255, 0, 0]);

    // Another window over the red block. On Windows the capture then comes from the window
    // itself (PrintWindow); Wine 8 cannot paint into another process's device context, so
    // there deskhand falls back to the screen, and this checks only that the capture is whole.
    let _cover = Fixture::start("Cover Fixture", (window.x + 250, window.y + 20));
    let cover = mcp.window("Cover Fixture").await;
    mcp.ok(json!({"action": "focus", "target": cover.id})).await;
    let covered = mcp
        .call(json!({"action": "screenshot", "target": window.id}))
        .await;
    assert_ne!(covered.is_error, Some(true), "{}", text_of(&covered));
    let (width, height, _) = decode_png(&covered);
    assert_eq!((width, height), (window.width, window.height));
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn the_clipboard_carries_text_both_ways_between_deskhand_and_an_edit() {
    let fixture = Fixture::start("Clipboard Fixture", (100, 160));
    let mcp = Mcp::start().await;
    let window = mcp.window("Clipboard Fixture").await;

    mcp.ok(json!({"action": "clipboard", "text": "pasted ✓ by deskhand"}))
        .await;
    mcp.ok(window.click(EDIT.0, EDIT.1)).await;
    mcp.ok(json!({"action": "press", "keys": "ctrl+v"})).await;
    fixture.wait_for("the pasted text", |l| {
        l == format!("edit text={:?}", "pasted ✓ by deskhand")
    });

    mcp.ok(json!({"action": "clipboard", "text": "something else"}))
        .await;
    let mark = fixture.lines().len();
    mcp.ok(json!({"action": "press", "keys": "End shift+Home ctrl+c"}))
        .await;
    // Input is queued, not awaited: the copy has run once the edit has seen the C come up.
    fixture.expect_after(mark, "key up vk=0x43 scan=0x2E extended=0");
    let read = mcp.ok(json!({"action": "clipboard"})).await;
    assert!(read.contains("pasted ✓ by deskhand"), "{read}");
    assert!(read.contains("CF_UNICODETEXT"), "{read}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn a_modal_dialog_is_listed_and_answers_keys_and_an_app_can_be_killed() {
    let mut fixture = Fixture::start("Dialog Fixture", (80, 80));
    let mcp = Mcp::start().await;
    let window = mcp.window("Dialog Fixture").await;
    mcp.ok(window.click(DIALOG.0, DIALOG.1)).await;
    fixture.wait_for("the dialog", |l| l == "dialog opened");
    let dialog = mcp.window("Fixture dialog").await;
    mcp.ok(json!({"action": "focus", "target": dialog.id}))
        .await;
    mcp.ok(json!({"action": "press", "keys": "Return"})).await;
    fixture.wait_for("the dialog answered OK", |l| l == "dialog closed result=1");

    mcp.ok(json!({"action": "kill", "target": window.id})).await;
    assert!(
        fixture.exited(Duration::from_secs(10)),
        "the killed fixture still runs"
    );
}

/// The prefix's user folder, as a Unix path.
fn wine_user() -> PathBuf {
    let users =
        PathBuf::from(std::env::var_os("WINEPREFIX").expect("WINEPREFIX")).join("drive_c/users");
    std::fs::read_dir(&users)
        .expect("the prefix's users")
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.join("AppData/Roaming").is_dir() && !path.ends_with("Public"))
        .expect("the prefix's user")
}

/// The Start menu folder of the prefix's user.
fn start_menu() -> PathBuf {
    wine_user().join("AppData/Roaming/Microsoft/Windows/Start Menu/Programs")
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn a_start_menu_shortcut_is_listed_as_installed_and_launches() {
    let menu = start_menu();
    std::fs::create_dir_all(&menu).expect("the Start menu folder");
    let shortcut = menu.join("Deskhand Launch Fixture.lnk");
    let log = scratch().join("launched.log");
    let _ = std::fs::remove_file(&log);
    let status = wine("deskhand-fixture.exe")
        .arg("--shortcut")
        .arg(windows_path(&shortcut))
        .args(["--log", &windows_path(&log), "--title", "Launched-Fixture"])
        .status()
        .expect("writing the shortcut");
    assert!(status.success());

    let mcp = Mcp::start().await;
    let installed = mcp.ok(json!({"action": "apps", "installed": true})).await;
    assert!(installed.contains("Deskhand Launch Fixture"), "{installed}");
    let launched = mcp
        .ok(json!({"action": "launch", "app": "Deskhand Launch Fixture"}))
        .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .any(|line| line.starts_with("ready "))
    {
        assert!(
            Instant::now() < deadline,
            "the launched fixture never started: {launched}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let window = mcp.window("Launched-Fixture").await;
    mcp.ok(json!({"action": "close", "target": window.id}))
        .await;
    let _ = std::fs::remove_file(&shortcut);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn a_stale_shortcut_fails_with_its_reason_and_leaves_the_shell_thread_free() {
    let menu = start_menu();
    std::fs::create_dir_all(&menu).expect("the Start menu folder");
    let shortcut = menu.join("Deskhand Stale Fixture.lnk");
    // A shortcut to a copy of the fixture that is then deleted: its target is gone.
    let program = scratch().join("stale-fixture.exe");
    std::fs::copy(exe_dir().join("deskhand-fixture.exe"), &program).expect("the copy");
    // `wine` joins the exe folder with the path, which an absolute one replaces.
    let status = wine(program.to_str().expect("a UTF-8 path"))
        .arg("--shortcut")
        .arg(windows_path(&shortcut))
        .status()
        .expect("writing the shortcut");
    assert!(status.success());
    std::fs::remove_file(&program).expect("deleting the shortcut's target");

    let mcp = Mcp::start().await;
    let started = Instant::now();
    let reply = mcp
        .call(json!({"action": "launch", "app": "Deskhand Stale Fixture"}))
        .await;
    let text = text_of(&reply);
    assert_eq!(reply.is_error, Some(true), "{text}");
    assert!(
        text.starts_with("failed") && text.contains("Starting \"Deskhand Stale Fixture\""),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "an error box held the launch: {text}"
    );
    // The shell thread is free: the next listing answers.
    let installed = mcp.ok(json!({"action": "apps", "installed": true})).await;
    assert!(installed.contains("Deskhand Stale Fixture"), "{installed}");
    let _ = std::fs::remove_file(&shortcut);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn a_packaged_app_id_says_the_apps_folder_cannot_be_read_where_there_is_none() {
    let mcp = Mcp::start().await;
    // Wine 8 has no Apps folder: the installed list is the Start menu's, and a Store app's id
    // is refused with the reason before anything is started.
    let installed = mcp.ok(json!({"action": "apps", "installed": true})).await;
    assert!(!installed.contains('!'), "{installed}");
    let header = installed.lines().next().unwrap_or_default();
    assert!(
        header.contains(" · not listed: the Apps folder (shell:AppsFolder) could not be read")
            && header.contains("HRESULT 0x80070002"),
        "{installed}"
    );
    let aumid = "Microsoft.WindowsCalculator_8wekyb3d8bbwe!App";
    let reply = mcp.call(json!({"action": "launch", "app": aumid})).await;
    let text = text_of(&reply);
    assert_eq!(reply.is_error, Some(true), "{text}");
    assert!(
        text.starts_with("failed (not-found): ")
            && text.contains(aumid)
            && text.contains("the Apps folder (shell:AppsFolder) could not be read")
            && text.contains("HRESULT 0x80070002"),
        "{text}"
    );
    // An id that is neither a shortcut nor a packaged app says both were looked for.
    let reply = mcp
        .call(json!({"action": "launch", "app": "No Such App"}))
        .await;
    let text = text_of(&reply);
    assert!(
        text.starts_with("failed (not-found): ")
            && text.contains("no Start menu shortcut or packaged app"),
        "{text}"
    );
}

fn cli(args: &[&str]) -> (i32, String) {
    let output = wine("deskhand.exe")
        .args(args)
        .output()
        .expect("running deskhand.exe");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.code().unwrap_or(-1), text)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn the_cli_keeps_its_session_under_localappdata_and_policy_kill_switch_audit_and_the_missing_uia_hold()
 {
    let fixture = Fixture::start("CLI Fixture", (200, 200));
    let (code, listed) = cli(&["windows"]);
    assert_eq!(code, 0, "{listed}");
    let id = listed
        .lines()
        .find(|line| line.contains("\"CLI Fixture\""))
        .and_then(|line| line.split(' ').next())
        .unwrap_or_else(|| panic!("the fixture is listed: {listed}"))
        .to_owned();
    let (code, clicked) = cli(&[
        "click",
        &format!(r#"{{"target": "{id}", "x": 161, "y": 95}}"#),
    ]);
    assert_eq!(code, 0, "{clicked}");
    fixture.wait_for("the CLI's click on Press me", |l| {
        l == "button Press me clicked"
    });

    let sessions = wine_user().join("AppData/Local/deskhand");
    assert!(
        std::fs::read_dir(&sessions)
            .map(|dir| dir
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".json")))
            .unwrap_or(false),
        "no session file in {}",
        sessions.display()
    );

    // The policy judges the app by its Windows process name.
    let policy = scratch().join("policy.toml");
    std::fs::write(&policy, "deny_apps = [\"deskhand-fixture\"]\n").expect("the policy");
    let mark = fixture.lines().len();
    let (code, denied) = cli(&[
        "--policy",
        &windows_path(&policy),
        "click",
        &format!(r#"{{"target": "{id}", "x": 161, "y": 95}}"#),
    ]);
    assert_eq!(code, 1, "{denied}");
    assert!(denied.starts_with("failed (denied): "), "{denied}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        fixture.lines()[mark..]
            .iter()
            .all(|l| !l.starts_with("button")),
        "a denied click reached the app: {:?}",
        &fixture.lines()[mark..]
    );

    // Wine 8 has no UI Automation: observe says so, and offers no made-up tree.
    let (code, observed) = cli(&["observe", &format!(r#"{{"target": "{id}"}}"#)]);
    assert_eq!(code, 1, "{observed}");
    assert!(
        observed.starts_with("failed (no-accessibility): ")
            && observed.contains("CUIAutomation class is not registered"),
        "{observed}"
    );

    let (code, desktop) = cli(&["desktop", "start"]);
    assert_ne!(code, 0);
    assert!(desktop.contains("only Linux has"), "{desktop}");

    // The pointer in the top-left corner stops every action until it leaves.
    let status = Command::new("xdotool")
        .args(["mousemove", "0", "0"])
        .status()
        .expect("xdotool");
    assert!(status.success());
    let (code, stopped) = cli(&[
        "click",
        &format!(r#"{{"target": "{id}", "x": 161, "y": 95}}"#),
    ]);
    assert_eq!(code, 1, "{stopped}");
    assert!(stopped.starts_with("failed (stopped)"), "{stopped}");
    Command::new("xdotool")
        .args(["mousemove", "600", "500"])
        .status()
        .expect("xdotool");

    let audit = std::fs::read_to_string(scratch().join("audit.jsonl")).expect("the audit log");
    assert!(
        audit.lines().any(|line| line.contains("\"click\"")),
        "{audit}"
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn observe_asks_a_chromium_renderer_for_its_accessibility_once() {
    let fixture = Fixture::start("Renderer Fixture", (160, 160));
    let mcp = Mcp::start().await;
    let window = mcp.window("Renderer Fixture").await;
    let asked = |fixture: &Fixture| {
        fixture
            .lines()
            .iter()
            .filter(|line| *line == "getobject objid=1")
            .count()
    };
    for _ in 0..2 {
        // Wine 8 has no UI Automation, so the tree itself fails; the question went out before.
        let reply = mcp
            .call(json!({"action": "observe", "target": window.id}))
            .await;
        assert_eq!(reply.is_error, Some(true), "{}", text_of(&reply));
    }
    fixture.wait_for("WM_GETOBJECT at the renderer", |line| {
        line == "getobject objid=1"
    });
    assert_eq!(
        asked(&fixture),
        1,
        "a renderer is asked once, not at every observe: {:?}",
        fixture.lines()
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the Windows build under Wine: run scripts/wine-test"]
async fn a_store_apps_frame_is_listed_as_the_app_inside_it() {
    let fixture = Fixture::start_with("Store Fixture", (180, 180), &["--frame-host"]);
    let core = fixture.wait_for("the app's window inside the frame", |line| {
        line.starts_with("core pid=")
    });
    let frame_host = fixture.wait_for("the frame", |line| line.starts_with("ready "));
    let core_pid: u64 = core["core pid=".len()..].parse().expect("a pid");
    let frame_pid: u64 = frame_host
        .rsplit_once("pid=")
        .and_then(|(_, pid)| pid.parse().ok())
        .expect("the frame's pid");
    assert_ne!(core_pid, frame_pid);
    let mcp = Mcp::start().await;
    mcp.window("Store Fixture").await;
    // Apps are the windows grouped by process: the frame's window counts for the app inside.
    let reply = mcp.call(json!({"action": "apps"})).await;
    let structured = reply.structured_content.expect("structured content");
    let apps = structured["apps"].as_array().expect("an app list");
    let pids: Vec<u64> = apps.iter().filter_map(|a| a["pid"].as_u64()).collect();
    assert!(
        pids.contains(&core_pid) && !pids.contains(&frame_pid),
        "the window is the app's (pid {core_pid}), not the frame host's (pid {frame_pid}): {}",
        text_of_value(&structured)
    );
}
