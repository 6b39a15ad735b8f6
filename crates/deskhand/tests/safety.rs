//! The kill switch, the policy and the audit log on a real headless desktop, through the real
//! CLI and MCP server, with the fixture app's own log as the oracle of what arrived.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use common::{BIN, Desktop, Fixture, Run, desktop, input_events, ref_of};
use serde_json::{Value, json};

const RESUMED_NOTE: &str = "note: deskhand was stopped by the pointer in the top-left corner; it resumed because the pointer left it";

/// `deskhand <action> '<json>' [extra…]` with extra environment.
fn act(desk: &Desktop, env: &[(&str, &Path)], action: &str, args: Value, extra: &[&str]) -> Run {
    let output: Output = desk
        .command(BIN)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .arg(action)
        .arg(args.to_string())
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("running deskhand");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The `@x,y` of the first observation line that contains `needle`.
fn point_of(observation: &str, needle: &str) -> (f64, f64) {
    let line = observation
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle} in\n{observation}"));
    let (x, y) = line.rsplit('@').next().unwrap().split_once(',').unwrap();
    (x.trim().parse().unwrap(), y.trim().parse().unwrap())
}

fn audit_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
        .collect()
}

/// The fixture's name as `apps` lists it.
fn app_name(desk: &Desktop, fixture: &Fixture) -> String {
    let apps = desk.act_json("apps", json!({}));
    apps["data"]["apps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pid"] == fixture.app.pid())
        .and_then(|a| a["name"].as_str())
        .expect("the fixture is listed")
        .to_owned()
}

/// The real pointer, moved from a second process as a person would move it; it leaves the
/// corner when dropped so a failing test cannot stop the tests after it.
struct Pointer<'a> {
    desk: &'a Desktop,
}

impl<'a> Pointer<'a> {
    fn to_corner(desk: &'a Desktop) -> Self {
        let pointer = Pointer { desk };
        pointer.move_to(0, 0);
        pointer
    }

    fn move_to(&self, x: i32, y: i32) {
        let status = self
            .desk
            .command("xdotool")
            .args(["mousemove", &x.to_string(), &y.to_string()])
            .status()
            .expect("running xdotool");
        assert!(status.success(), "xdotool mousemove {x} {y} failed");
        let at = self
            .desk
            .command("xdotool")
            .args(["getmouselocation", "--shell"])
            .output()
            .expect("running xdotool");
        let at = String::from_utf8_lossy(&at.stdout);
        assert!(
            at.contains(&format!("X={x}\n")) && at.contains(&format!("Y={y}\n")),
            "the pointer is not at {x},{y}: {at}"
        );
    }
}

impl Drop for Pointer<'_> {
    fn drop(&mut self) {
        let _ = self
            .desk
            .command("xdotool")
            .args(["mousemove", "640", "480"])
            .status();
    }
}

fn scratch_dir(desk: &Desktop, name: &str) -> PathBuf {
    let dir = desk.scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_pointer_in_the_corner_stops_a_click_until_it_leaves() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Stop Fixture", 1);
    desk.activate("Stop Fixture");
    let w = desk.window_id("Stop Fixture");
    let log = scratch_dir(desk, "stop").join("audit.jsonl");
    let env = [("DESKHAND_AUDIT", log.as_path())];
    let tree = act(
        desk,
        &env,
        "observe",
        json!({"target": w, "points": true}),
        &[],
    )
    .ok();
    let (x, y) = point_of(&tree, "button \"Press me\"");
    let click = json!({"target": w, "x": x, "y": y});

    let pointer = Pointer::to_corner(desk);
    let before = fixture.events().len();
    let refused = act(desk, &env, "click", click.clone(), &[]);
    assert_eq!(refused.code, 1, "{}{}", refused.stdout, refused.stderr);
    assert_eq!(
        refused.stdout,
        "failed (stopped): the user moved the pointer to the top-left corner of the primary monitor to stop deskhand; nothing was done; ask the user before continuing: deskhand resumes once the pointer leaves the corner\n"
    );
    // Reads still work while stopped.
    let again = act(desk, &env, "observe", json!({"target": w}), &[]).ok();
    assert!(again.starts_with(&format!("observe {w} ")), "{again}");
    let seen = fixture.settled_events(before);
    assert!(
        input_events(&seen).is_empty(),
        "the fixture received input while deskhand was stopped: {seen:?}"
    );

    pointer.move_to(640, 480);
    let resumed = act(desk, &env, "click", click.clone(), &[]).ok();
    let mut lines = resumed.lines();
    assert_eq!(lines.next(), Some(RESUMED_NOTE), "{resumed}");
    assert!(
        lines.next().unwrap().starts_with("done: clicked at"),
        "{resumed}"
    );
    fixture.wait_for("the click after resuming", |e| {
        e["event"] == "clicked" && e["widget"] == "press_me"
    });
    // Said once only.
    let next = act(desk, &env, "click", click, &[]).ok();
    assert!(next.starts_with("done: clicked at"), "{next}");

    let audited = audit_lines(&log);
    assert_eq!(audited.len(), 3, "{audited:?}");
    assert_eq!(audited[0]["result"], "failed");
    assert_eq!(audited[0]["kind"], "stopped");
    assert_eq!(audited[1]["result"], "done");
    assert_eq!(audited[1]["resumed"], true);
    assert_eq!(audited[2]["result"], "done");
    assert!(audited[2].get("resumed").is_none());
}

#[test]
fn a_click_and_a_password_are_audited_without_the_text() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Audit Fixture", 1);
    desk.activate("Audit Fixture");
    let w = desk.window_id("Audit Fixture");
    let app = app_name(desk, &fixture);
    let log = scratch_dir(desk, "audit").join("nested/audit.jsonl");
    let env = [("DESKHAND_AUDIT", log.as_path())];
    let tree = act(desk, &env, "observe", json!({"target": w}), &[]).ok();
    let press = ref_of(&tree, &["button \"Press me\""]);
    let password = ref_of(&tree, &["password \"Password\""]);
    assert!(audit_lines(&log).is_empty(), "reads are not audited");

    act(desk, &env, "click", json!({"ref": press}), &[]).ok();
    fixture.wait_for("the click", |e| e["event"] == "clicked");
    let audited = audit_lines(&log);
    assert_eq!(audited.len(), 1, "{audited:?}");
    let click = &audited[0];
    for (field, wanted) in [
        ("action", json!("click")),
        ("target", json!(w)),
        ("app", json!(app)),
        ("ref", json!(press)),
        ("role", json!("button")),
        ("name", json!("Press me")),
        ("result", json!("done")),
    ] {
        assert_eq!(click[field], wanted, "{field} in {click}");
    }
    let ts = click["ts"].as_str().expect("a timestamp");
    assert!(
        ts.len() == 24 && ts.ends_with('Z') && ts.starts_with("20"),
        "{ts}"
    );

    let secret = "hunter2-Ω";
    act(
        desk,
        &env,
        "type",
        json!({"ref": password, "text": secret}),
        &[],
    )
    .ok();
    fixture.wait_for("the password typed", |e| {
        e["widget"] == "password" && e["length"] == 9
    });
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("hunter2"), "{text}");
    let audited = audit_lines(&log);
    assert_eq!(audited.len(), 2, "{audited:?}");
    let typed = &audited[1];
    assert_eq!(typed["action"], "type");
    assert_eq!(typed["characters"], 9);
    assert_eq!(typed["role"], "password");
    assert_eq!(typed["result"], "done");
    assert!(
        typed.get("name").is_none() && typed.get("text").is_none(),
        "{typed}"
    );
}

#[test]
fn a_policy_denies_by_rule_and_the_app_receives_nothing() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Policy Fixture", 1);
    desk.activate("Policy Fixture");
    let w = desk.window_id("Policy Fixture");
    let app = app_name(desk, &fixture);
    let dir = scratch_dir(desk, "policy");
    let read_only = dir.join("read-only.toml");
    std::fs::write(&read_only, "# no actions\nread_only = true\n").unwrap();
    let deny_app = dir.join("deny-app.json");
    std::fs::write(&deny_app, json!({"deny_apps": [app]}).to_string()).unwrap();
    let config = dir.join("config");
    std::fs::create_dir_all(config.join("deskhand")).unwrap();
    std::fs::write(
        config.join("deskhand/policy.toml"),
        "deny_keys = [\"ctrl+s\", \"ctrl+alt+Delete\"]\n",
    )
    .unwrap();
    let log = dir.join("audit.jsonl");

    let tree = desk.act("observe", json!({"target": w})).ok();
    let press = ref_of(&tree, &["button \"Press me\""]);
    let before = fixture.events().len();

    // read_only, from --policy: actions refused, reads work.
    let env = [("DESKHAND_AUDIT", log.as_path())];
    let policy_flag = ["--policy", read_only.to_str().unwrap()];
    let denied = act(desk, &env, "click", json!({"ref": press}), &policy_flag);
    assert_eq!(denied.code, 1, "{}{}", denied.stdout, denied.stderr);
    assert!(
        denied.stdout.starts_with(&format!(
            "failed (denied): denied by policy {}: read_only = true; nothing was done;",
            read_only.display()
        )),
        "{}",
        denied.stdout
    );
    let observed = act(desk, &env, "observe", json!({"target": w}), &policy_flag).ok();
    assert!(observed.contains(&press), "{observed}");

    // deny_apps, from DESKHAND_POLICY, a JSON file.
    let env_json = [
        ("DESKHAND_AUDIT", log.as_path()),
        ("DESKHAND_POLICY", deny_app.as_path()),
    ];
    let denied = act(desk, &env_json, "click", json!({"ref": press}), &[]);
    assert_eq!(denied.code, 1, "{}", denied.stdout);
    assert!(
        denied.stdout.starts_with(&format!(
            "failed (denied): denied by policy {}: deny_apps contains {app:?}, the application of {press} in {w};",
            deny_app.display()
        )),
        "{}",
        denied.stdout
    );
    let denied = act(desk, &env_json, "press", json!({"keys": "a"}), &[]);
    assert!(
        denied.stdout.contains("the focused window"),
        "{}",
        denied.stdout
    );

    // deny_keys, from the XDG default file.
    let env_xdg = [
        ("DESKHAND_AUDIT", log.as_path()),
        ("XDG_CONFIG_HOME", config.as_path()),
    ];
    let denied = act(desk, &env_xdg, "press", json!({"keys": "Control+S"}), &[]);
    assert_eq!(denied.code, 1, "{}", denied.stdout);
    assert!(
        denied
            .stdout
            .contains("deny_keys contains \"ctrl+s\", which \"Control+S\" presses"),
        "{}",
        denied.stdout
    );

    let seen = fixture.settled_events(before);
    assert!(
        input_events(&seen).is_empty(),
        "a denied call reached the app: {seen:?}"
    );
    let audited = audit_lines(&log);
    assert_eq!(audited.len(), 4, "{audited:?}");
    assert!(audited.iter().all(|e| e["kind"] == "denied"), "{audited:?}");

    // A call no rule covers goes through under the same policy.
    act(desk, &env_xdg, "click", json!({"ref": press}), &[]).ok();
    fixture.wait_for("the click with an allowing policy", |e| {
        e["event"] == "clicked"
    });
}

#[test]
fn a_malformed_policy_stops_the_cli_and_the_server_at_startup() {
    let (_turn, desk) = desktop();
    let dir = scratch_dir(desk, "malformed");
    let bad = dir.join("policy.toml");
    std::fs::write(&bad, "readonly = true\n").unwrap();
    let run = act(
        desk,
        &[],
        "windows",
        json!({}),
        &["--policy", bad.to_str().unwrap()],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with(&format!(
            "deskhand: the policy file {} is not valid TOML",
            bad.display()
        )),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("readonly"), "{}", run.stderr);

    let missing = dir.join("missing.toml");
    let server = desk
        .command(BIN)
        .args(["mcp"])
        .env("DESKHAND_POLICY", &missing)
        .stdin(Stdio::null())
        .output()
        .expect("running deskhand mcp");
    assert_eq!(server.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&server.stderr);
    assert!(
        stderr.starts_with(&format!(
            "deskhand: the policy file {} cannot be read",
            missing.display()
        )),
        "{stderr}"
    );
}

#[test]
fn the_server_keeps_the_policy_it_started_with() {
    let (_turn, desk) = desktop();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            use rmcp::ServiceExt;
            use rmcp::model::CallToolRequestParams;
            let dir = scratch_dir(desk, "fixed");
            let policy = dir.join("policy.toml");
            std::fs::write(&policy, "read_only = true\n").unwrap();
            let mut command = tokio::process::Command::from(desk.command(BIN));
            command.args([
                "mcp",
                "--policy",
                policy.to_str().unwrap(),
                "--audit",
                "off",
            ]);
            let client =
                ().serve(rmcp::transport::TokioChildProcess::new(command).unwrap())
                    .await
                    .expect("MCP handshake");
            let call = |args: Value| {
                let client = &client;
                async move {
                    client
                        .call_tool(
                            CallToolRequestParams::new("desktop")
                                .with_arguments(args.as_object().unwrap().clone()),
                        )
                        .await
                        .expect("tools/call")
                }
            };
            let action = json!({"action": "press", "keys": "Escape"});
            let first = call(action.clone()).await;
            assert_eq!(first.is_error, Some(true));
            assert_eq!(
                first.structured_content.as_ref().unwrap()["error"],
                "denied"
            );
            // The user edits the file while the server runs: the server keeps what it read.
            std::fs::write(&policy, "read_only = false\n").unwrap();
            let second = call(action).await;
            assert_eq!(second.is_error, Some(true));
            assert_eq!(
                second.structured_content.as_ref().unwrap()["error"],
                "denied"
            );
            let windows = call(json!({"action": "windows"})).await;
            assert_ne!(windows.is_error, Some(true));
            client.cancel().await.expect("clean shutdown");
        });
}

/// `deskhand <action> '<json>'` started in the background, with its output kept.
fn spawn_act(desk: &Desktop, action: &str, args: Value) -> std::process::Child {
    desk.command(BIN)
        .arg(action)
        .arg(args.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting deskhand")
}

/// Waits for a background call to end; returns its exit code, stdout, and how long it ran on
/// after `since`.
fn finish(child: std::process::Child, since: std::time::Instant) -> (i32, String, f64) {
    let output = child.wait_with_output().expect("waiting for deskhand");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        since.elapsed().as_secs_f64(),
    )
}

#[test]
fn the_pointer_in_the_corner_stops_a_running_wait_and_a_running_batch() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Stop Wait Fixture", 1);
    desk.activate("Stop Wait Fixture");
    let w = desk.window_id("Stop Wait Fixture");
    desk.act("observe", json!({"target": w})).ok();
    let never = json!({"name": "Never there"});

    let waiting = spawn_act(
        desk,
        "wait",
        json!({"target": w, "until": never, "timeout_ms": 20000}),
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let pointer = Pointer::to_corner(desk);
    let (code, stdout, after) = finish(waiting, std::time::Instant::now());
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.starts_with(&format!("failed (stopped): the wait on {w} stopped after ")),
        "{stdout}"
    );
    assert!(
        after < 5.0,
        "the wait went on {after:.1} s after the pointer moved"
    );

    pointer.move_to(640, 480);
    let before = fixture.events().len();
    let batch = spawn_act(
        desk,
        "batch",
        json!({"steps": [
            {"action": "wait", "target": w, "until": never, "timeout_ms": 20000},
            {"action": "click", "target": w, "find": {"name": "Press me"}},
        ]}),
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    pointer.move_to(0, 0);
    let (code, stdout, after) = finish(batch, std::time::Instant::now());
    assert_eq!(code, 1, "nothing was changed: {stdout}");
    assert!(
        stdout.starts_with("batch · 0 of 2 steps completed · stopped at step 0"),
        "{stdout}"
    );
    assert!(stdout.contains("[0] failed (stopped)"), "{stdout}");
    assert!(
        after < 5.0,
        "the batch went on {after:.1} s after the pointer moved"
    );
    assert!(
        input_events(&fixture.settled_events(before)).is_empty(),
        "the batch's click ran after the stop"
    );

    pointer.move_to(640, 480);
    let resumed = desk
        .act("click", json!({"target": w, "find": {"name": "Press me"}}))
        .ok();
    assert!(resumed.starts_with(RESUMED_NOTE), "{resumed}");
    fixture.wait_for("the click after resuming", |e| {
        e["event"] == "clicked" && e["widget"] == "press_me"
    });
}

/// An xmessage window, which sets no `_NET_WM_PID`, and its `w` id once listed.
fn message_window(desk: &Desktop, text: &str) -> (common::App, String) {
    let app = desk.spawn("xmessage", &["-title", "Same Title", text]);
    let (w, _) = common::window_where(desk, MESSAGE_SHOWS, "the message", |t| t == "Same Title");
    (app, w)
}

const MESSAGE_SHOWS: std::time::Duration = std::time::Duration::from_secs(30);

/// The ref of a word of a message window's text, read from its pixels.
fn word_ref(desk: &Desktop, w: &str, word: &str) -> String {
    let observed = common::observe_until(desk, w, MESSAGE_SHOWS, word, |t| t.contains(word));
    common::ref_where(&observed, word, |l| l.contains(word))
}

/// A window closed and another of the same app and title opened under the same X window id, by
/// an app that sets no process id: the closed window's id and refs never name the new window,
/// whether the window was closed through deskhand or behind its back, and nothing is clicked.
#[test]
fn a_closed_windows_id_and_refs_never_name_the_next_window_of_the_same_title() {
    let (_turn, desk) = desktop();
    let (_first, w1) = message_window(desk, "First message apples");
    let apples = word_ref(desk, &w1, "apples");
    desk.act("close", json!({"target": w1})).ok();
    let (second, w2) = message_window(desk, "Second note pears");
    assert_ne!(w2, w1, "the new window took the closed one's id");
    for action in ["hover", "click"] {
        let run = desk.act(action, json!({"ref": apples}));
        assert_eq!(run.code, 1, "{action}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.starts_with("failed (surface-gone)"),
            "{action}: {}",
            run.stdout
        );
    }
    let refused = desk.act("observe", json!({"target": w1}));
    assert!(
        refused.stdout.starts_with("failed (surface-gone)"),
        "{}",
        refused.stdout
    );

    // Closed behind deskhand's back, with no `windows` call before the next window shows: the
    // X server still tells the two processes apart.
    let pears = word_ref(desk, &w2, "pears");
    drop(second);
    let _third = desk.spawn("xmessage", &["-title", "Same Title", "Third line plums"]);
    common::wait_until(MESSAGE_SHOWS, || {
        let shown = desk
            .command("xwininfo")
            .args(["-root", "-tree"])
            .output()
            .ok()?;
        String::from_utf8_lossy(&shown.stdout)
            .contains("Same Title")
            .then_some(())
    })
    .expect("the third message shows");
    let run = desk.act("hover", json!({"ref": pears}));
    assert!(
        run.stdout.starts_with("failed (surface-gone)"),
        "{}",
        run.stdout
    );
}
