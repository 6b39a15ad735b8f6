//! No secret in any record (issue 42): a password typed into zenity's `--password` dialog (from
//! the CLI) and into a Qt password field (over MCP), each way an agent can reach the field — by
//! ref, by `find`, by clicking it (by ref or by point) and then typing with no ref, in a batch
//! step, by `set_value` — is in no file of the recording folder, the report, the audit log or
//! the memory store; and a replay of the recording refuses before anything runs.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Desktop, Fixture, desktop, ref_where};
use serde_json::{Value, json};

const SETTLE: Duration = Duration::from_secs(15);

fn scratch_dir(desk: &Desktop, name: &str) -> PathBuf {
    let dir = desk.scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Files under `dir`, recursively.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The recording folder, its report, the audit log and the memory store (with its journal):
/// none holds any of `secrets`. The report is written here.
fn assert_kept_nowhere(desk: &Desktop, dir: &Path, secrets: &[&str]) {
    let report = dir.with_extension("html");
    let run = desk.run(&[
        "report",
        dir.to_str().unwrap(),
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut files = walk(dir);
    files.push(report);
    let audit = desk.scratch("audit.jsonl");
    assert!(audit.exists(), "the audit log was not written");
    files.push(audit);
    for entry in std::fs::read_dir(desk.scratch("")).unwrap().flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("memory.sqlite")
        {
            files.push(entry.path());
        }
    }
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        for secret in secrets {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret} is in {}",
                file.display()
            );
        }
    }
}

fn steps(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("steps.jsonl"))
        .expect("steps.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a step is JSON"))
        .collect()
}

/// Each step that typed or set a secret says so, with how many characters.
fn assert_redacted(dir: &Path, secrets: &[&str]) {
    let redacted: Vec<u64> = steps(dir)
        .iter()
        .flat_map(|s| s["redacted"].as_array().cloned().unwrap_or_default())
        .map(|r| r["characters"].as_u64().unwrap())
        .collect();
    let lengths: Vec<u64> = secrets.iter().map(|s| s.len() as u64).collect();
    assert_eq!(redacted, lengths, "{:#?}", steps(dir));
}

/// A replay of the recording refuses, naming every step whose secret was not kept, and does
/// nothing.
fn assert_replay_refused(desk: &Desktop, dir: &Path, secret_steps: usize) -> String {
    let run = desk.run(&["replay", dir.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("typed into a password field")
            && run.stderr.contains("nothing was done"),
        "{}",
        run.stderr
    );
    let named = run.stderr.split("steps ").nth(1).unwrap_or_default();
    let listed = named
        .split(" typed")
        .next()
        .unwrap_or_default()
        .split([',', ' '])
        .filter(|w| w.parse::<u32>().is_ok())
        .count();
    assert_eq!(listed, secret_steps, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "a step ran: {}", run.stdout);
    run.stderr
}

/// zenity's password dialog, from the CLI, one call a process: the field is already focused,
/// and is reached each way in turn.
#[test]
fn a_password_typed_into_zenity_each_way_is_in_no_record() {
    const SECRETS: [&str; 6] = [
        "Zr3f-Secret-1",
        "Zf1nd-Secret-2",
        "Zcl1ck-Secret-3",
        "Zp01nt-Secret-4",
        "Zb4tch-Secret-5",
        "Zs3t-Secret-6",
    ];
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "secret-zenity");
    let _zenity = desk.spawn("zenity", &["--password", "--title", "Unlock secrets"]);
    let w = desk.window_id("Unlock secrets");
    let record = |action: &str, args: Value| {
        let run = desk.run(&["--record", dir.to_str().unwrap(), action, &args.to_string()]);
        assert!(
            run.stdout.starts_with("done") || run.stdout.starts_with("applied but unconfirmed"),
            "{action}: {}\n{}",
            run.stdout,
            run.stderr
        );
        run.stdout
    };
    let tree = desk
        .run(&[
            "--record",
            dir.to_str().unwrap(),
            "observe",
            // No other line reads like the field, so only `points` shows its point.
            &json!({"target": w, "points": true}).to_string(),
        ])
        .stdout;
    let field = ref_where(&tree, "the password field", |l| l.contains(" password "));
    let point: Vec<i64> = tree
        .lines()
        .find(|l| l.contains(&format!("{field} password")))
        .and_then(|l| l.split('@').nth(1))
        .map(|at| at.split(',').map(|n| n.trim().parse().unwrap()).collect())
        .expect("the field's point");
    record("type", json!({"ref": field, "text": SECRETS[0]}));
    record(
        "type",
        json!({"target": w, "find": {"role": "password"}, "text": SECRETS[1]}),
    );
    record("click", json!({"ref": field}));
    record("type", json!({"text": SECRETS[2]}));
    record("click", json!({"target": w, "x": point[0], "y": point[1]}));
    record("type", json!({"text": SECRETS[3]}));
    let batch = desk.run(&[
        "--record",
        dir.to_str().unwrap(),
        "batch",
        &json!({"steps": [{"action": "click", "ref": field}, {"action": "type", "text": SECRETS[4]}]})
            .to_string(),
    ]);
    assert_eq!(batch.code, 0, "{}", batch.stdout);
    record("set_value", json!({"ref": field, "value": SECRETS[5]}));

    assert_redacted(&dir, &SECRETS);
    assert_kept_nowhere(desk, &dir, &SECRETS);
    assert_replay_refused(desk, &dir, 6);
}

/// The Qt fixture's form over MCP: the Name field has the focus when observed, so only the
/// moment of typing tells that the click moved it to the password field.
#[test]
fn a_password_typed_into_a_qt_field_each_way_is_in_no_record() {
    const SECRETS: [&str; 6] = [
        "Qr3f-Secret-1",
        "Qf1nd-Secret-2",
        "Qcl1ck-Secret-3",
        "Qp01nt-Secret-4",
        "Qb4tch-Secret-5",
        "Qs3t-Secret-6",
    ];
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "secret-qt");
    let log = desk.scratch("secret-qt-fields.jsonl");
    let _ = std::fs::remove_file(&log);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/qt_fields.py");
    let app = desk.spawn(
        "/usr/bin/python3",
        &[
            script.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--title",
            "Secret form",
        ],
    );
    let fixture = Fixture { app, log };
    fixture.wait_for("the form to be ready", |e| e["event"] == "ready");
    let mcp = desk.mcp_with(&[("DESKHAND_RECORD", dir.to_str().unwrap())]);
    let w = mcp.window_id("Secret form", SETTLE);
    let call = |args: Value| {
        let reply = mcp.call(args.clone());
        assert!(!reply.is_error, "{args}: {}", reply.text);
        reply.text
    };
    let tree = call(json!({"action": "observe", "target": w}));
    assert!(tree.contains("text \"Name\" focused"), "{tree}");
    let name = ref_where(&tree, "Name", |l| l.contains("text \"Name\""));
    let field = ref_where(&tree, "Password", |l| l.contains("password \"Password\""));
    // The observation shows no point for a named field; its structured form has one.
    let seen = desk.act_json("observe", json!({"target": desk.window_id("Secret form")}));
    let point = seen["data"]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["role"] == "password")
        .map(|e| e["point"].clone())
        .expect("the field's point");
    call(json!({"action": "type", "ref": field, "text": SECRETS[0]}));
    call(
        json!({"action": "type", "target": w, "find": {"role": "password", "name": "Password"}, "text": SECRETS[1]}),
    );
    call(json!({"action": "click", "ref": name}));
    call(json!({"action": "click", "ref": field}));
    call(json!({"action": "type", "text": SECRETS[2]}));
    call(json!({"action": "click", "ref": name}));
    call(json!({"action": "click", "target": w, "x": point[0], "y": point[1]}));
    call(json!({"action": "type", "text": SECRETS[3]}));
    call(json!({"action": "batch", "steps": [
        {"action": "click", "ref": name},
        {"action": "type", "text": "plain name"},
        {"action": "click", "ref": field},
        {"action": "type", "text": SECRETS[4]},
    ]}));
    call(json!({"action": "set_value", "ref": field, "value": SECRETS[5]}));
    mcp.close();
    // Every secret reached the field: the app logs its length after each change.
    let typed: usize = SECRETS[..5].iter().map(|s| s.len()).sum();
    fixture.wait_for("the typed password", |e| {
        e["event"] == "password" && e["length"] == typed
    });
    fixture.wait_for("the set password", |e| {
        e["event"] == "password" && e["length"] == SECRETS[5].len()
    });
    let recorded = steps(&dir);
    let batch = recorded.iter().find(|s| s["action"] == "batch").unwrap();
    assert_eq!(batch["args"]["steps"][1]["text"], "plain name");
    assert_eq!(batch["redacted"][0]["field"], "steps[3].text");

    assert_redacted(&dir, &SECRETS);
    assert_kept_nowhere(desk, &dir, &SECRETS);
    assert_replay_refused(desk, &dir, 6);
}
