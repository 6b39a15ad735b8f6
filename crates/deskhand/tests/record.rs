//! Recording, replay and report (issue 33) on real apps: a task recorded over MCP is replayed
//! on a fresh headless desktop and checked by the app's own log; the same recording against an
//! app whose button was renamed stops at exactly that step with nothing after it run; the report
//! is opened in headless Chromium; a password typed while recording is nowhere in the folder or
//! the report; and a folder that cannot be used is refused before anything is done.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::{Desktop, Fixture, desktop, ref_where, wait_until};
use serde_json::{Value, json};

const SETTLE: Duration = Duration::from_secs(15);

/// The counter fixture (tests/fixtures/counter_app.py) titled `title`, with its buttons renamed
/// by `env`.
fn counter(desk: &Desktop, title: &str, env: &[(&str, &str)]) -> Fixture {
    let log = desk.scratch(&format!(
        "counter-{}-{}.jsonl",
        title.replace(' ', "_"),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/counter_app.py");
    let app = desk.spawn_with_env(
        "/usr/bin/python3",
        &[
            script.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--title",
            title,
        ],
        env,
    );
    let fixture = Fixture { app, log };
    fixture.wait_for("the counter to be ready", |e| e["event"] == "ready");
    fixture
}

fn steps(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("steps.jsonl"))
        .expect("steps.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a step is JSON"))
        .collect()
}

/// Waits until every screenshot the steps name is on disk: the last is written after the
/// server's last reply.
fn shots_written(dir: &Path) -> Vec<Value> {
    let all = steps(dir);
    let files: Vec<PathBuf> = all
        .iter()
        .flat_map(|s| [&s["before"], &s["after"]])
        .filter_map(|shot| shot["file"].as_str())
        .map(|file| dir.join("shots").join(file))
        .collect();
    let written = wait_until(SETTLE, || files.iter().all(|f| f.exists()).then_some(()));
    assert!(written.is_some(), "screenshots missing of {files:?}");
    all
}

fn totals(fixture: &Fixture) -> Vec<i64> {
    fixture
        .settled_events(0)
        .iter()
        .filter(|e| e["event"] == "total")
        .map(|e| e["value"].as_i64().expect("a total"))
        .collect()
}

fn scratch_dir(desk: &Desktop, name: &str) -> PathBuf {
    let dir = desk.scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The counter task, with a dialog: Add, Add, Double, then Settings sets the step to 5 and
/// Add adds it: 9. Recorded over MCP, then replayed on a fresh desktop.
#[test]
fn a_task_recorded_over_mcp_replays_on_a_fresh_desktop_and_stops_where_the_app_changed() {
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "recording-counter");
    let fixture = counter(desk, "Counter", &[]);
    let mcp = desk.mcp_with(&[("DESKHAND_RECORD", dir.to_str().unwrap())]);
    let w = mcp.window_id("Counter", SETTLE);
    let tree = mcp.call(json!({"action": "observe", "target": w})).text;
    let button = |tree: &str, name: &str| {
        ref_where(tree, name, |l| l.contains(&format!("button \"{name}\"")))
    };
    for name in ["Add", "Add", "Double", "Settings"] {
        let reply = mcp.call(json!({"action": "click", "ref": button(&tree, name)}));
        assert!(!reply.is_error, "{}", reply.text);
    }
    let dialog = mcp.window_id("Counter settings", SETTLE);
    let settings = mcp
        .call(json!({"action": "observe", "target": dialog}))
        .text;
    let step = ref_where(&settings, "the Step entry", |l| l.contains("text \"Step\""));
    let typed = mcp.call(json!({"action": "type", "ref": step, "text": "5", "replace": true}));
    assert!(!typed.is_error, "{}", typed.text);
    mcp.call(json!({"action": "click", "ref": button(&settings, "Apply")}));
    fixture.wait_for("the step of 5", |e| e["event"] == "step" && e["value"] == 5);
    // A model's pause: the screenshot after the Apply is in hand before the next action.
    std::thread::sleep(Duration::from_millis(400));
    let tree = mcp.call(json!({"action": "observe", "target": w})).text;
    mcp.call(json!({"action": "click", "ref": button(&tree, "Add")}));
    let end = wait_until(SETTLE, || {
        let seen = mcp.call(json!({"action": "observe", "target": w})).text;
        seen.contains("text \"Total\" value=9").then_some(seen)
    });
    assert!(end.is_some(), "the recorded task did not reach 9");
    mcp.close();
    assert_eq!(totals(&fixture), [1, 2, 4, 9]);
    drop(fixture);

    let recorded = shots_written(&dir);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["format"], 1);
    let apply = recorded
        .iter()
        .find(|s| s["elements"][0]["name"] == "Apply")
        .expect("the Apply click was recorded");
    assert_eq!(apply["elements"][0]["role"], "button");
    assert_eq!(apply["elements"][0]["window"]["title"], "Counter settings");
    assert_eq!(apply["elements"][0]["ancestors"][0]["role"], "dialog");
    assert!(apply["elements"][0]["bounds"]["width"].as_u64() > Some(0));
    assert!(apply["before"]["file"].is_string() && apply["after"]["file"].is_string());
    assert_eq!(apply["outcome"], "done");
    assert!(apply["ms"].is_u64() && apply["text"].as_str().unwrap().starts_with("done"));

    // A fresh desktop where the app starts afresh: the replay makes the same total.
    let fresh = Desktop::start_own();
    let again = counter(&fresh, "Counter", &[]);
    // A dry run resolves what is there and acts on nothing, so the dialog the Settings click
    // opens is never there to resolve.
    let dry = fresh.run(&["replay", dir.to_str().unwrap(), "--dry-run", "--wait", "2"]);
    assert_eq!(dry.code, 1, "{}\n{}", dry.stdout, dry.stderr);
    assert!(
        dry.stdout.contains("(click) resolved: button \"Double\""),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout
            .contains("looked for window \"Counter settings\" of counter_app.py"),
        "{}",
        dry.stdout
    );
    assert!(
        again
            .settled_events(0)
            .iter()
            .all(|e| e["event"] == "ready")
    );
    let run = fresh.run(&["replay", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("shows what was recorded"),
        "{}",
        run.stdout
    );
    assert_eq!(totals(&again), [1, 2, 4, 9], "{}", run.stdout);
    drop(again);

    // The same recording against a counter whose Double button is now "Twice": it stops at the
    // Double click, after the two Adds, and nothing after it runs.
    let changed = counter(&fresh, "Counter", &[("DESKHAND_COUNTER_DOUBLE", "Twice")]);
    let double = recorded
        .iter()
        .find(|s| s["elements"][0]["name"] == "Double")
        .expect("the Double click was recorded")["index"]
        .as_u64()
        .unwrap();
    let rerun = scratch_dir(desk, "recording-counter-rerun");
    let run = fresh.run(&[
        "replay",
        dir.to_str().unwrap(),
        "--wait",
        "3",
        "--record",
        rerun.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let said = run
        .stdout
        .lines()
        .find(|l| l.starts_with("replay stopped"))
        .unwrap_or_default();
    assert!(
        said.starts_with(&format!("replay stopped at step {double} (click)")),
        "{said}"
    );
    assert!(said.contains("button \"Double\""), "{said}");
    assert!(said.contains("\"Twice\""), "{said}");
    assert!(
        said.contains(&format!("nothing after step {double} was run")),
        "{said}"
    );
    assert_eq!(totals(&changed), [1, 2], "{}", run.stdout);
    // Per step: the Adds the same, the Double different and why, the rest not run.
    let summary: Vec<&str> = run.stdout.lines().filter(|l| l.contains(": ")).collect();
    assert!(
        summary.contains(&format!("step {}: same", double - 1).as_str()),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "step {double}: different: it looked for button \"Double\""
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("step {}: not run", double + 1)),
        "{}",
        run.stdout
    );
    // The rerun recorded itself: the two Add clicks it made, as an agent's would be.
    let rerun_steps = shots_written(&rerun);
    let clicks: Vec<&Value> = rerun_steps
        .iter()
        .filter(|s| s["action"] == "click")
        .collect();
    assert_eq!(clicks.len(), 2, "{rerun_steps:#?}");
    assert!(clicks.iter().all(|c| c["elements"][0]["name"] == "Add"));
    assert!(
        !changed.events().iter().any(|e| e["event"] == "step"),
        "a step after the stop ran"
    );
    // Its report sets each rerun step beside the step it reran, and says how every step of
    // the original went, the Double click with why.
    let adds: Vec<u64> = recorded
        .iter()
        .filter(|s| s["elements"][0]["name"] == "Add")
        .map(|s| s["index"].as_u64().unwrap())
        .take(2)
        .collect();
    assert_eq!(
        clicks
            .iter()
            .map(|c| c["replays"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        adds
    );
    let page = fresh.run(&["report", rerun.to_str().unwrap()]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    let page = std::fs::read_to_string(rerun.join("report.html")).unwrap();
    assert!(
        page.contains("<h2>A replay of recording-counter, recorded "),
        "{page}"
    );
    for add in &adds {
        assert!(
            page.contains(&format!(
                "<h3>original step {add}: <span class=\"outcome\">done</span></h3>"
            )),
            "{page}"
        );
    }
    let row = page
        .split("<tr class=\"different\">")
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("a row for the step that differed");
    assert!(
        row.starts_with(&format!("<td>{double}. click</td>"))
            && row.contains("different: it looked for button &quot;Double&quot;")
            && row.contains("&quot;Twice&quot;"),
        "{row}"
    );
    for after in double + 1..=recorded.len() as u64 {
        assert!(
            page.contains(&format!("<tr class=\"not-run\"><td>{after}. ")),
            "step {after}: {page}"
        );
    }
    fresh.stop();
}

/// Recorded from the CLI: a PIN typed into a password field is nowhere in the folder or the
/// report, and the report loads in headless Chromium with every step, its images and the box
/// of the acted element.
#[test]
fn a_report_opens_in_chromium_and_no_password_is_kept() {
    const SECRET: &str = "Tr0ub4dor-s3cret";
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "recording-pin");
    let _fixture = counter(desk, "PIN counter", &[]);
    let record = |action: &str, args: Value| {
        let run = desk.run(&["--record", dir.to_str().unwrap(), action, &args.to_string()]);
        assert!(run.code == 0, "{action}: {}\n{}", run.stdout, run.stderr);
        run.stdout
    };
    let w = desk.window_id("PIN counter");
    let tree = record("observe", json!({"target": w}));
    let add = ref_where(&tree, "Add", |l| l.contains("button \"Add\""));
    let pin = ref_where(&tree, "PIN", |l| l.contains("password \"PIN\""));
    record("click", json!({"ref": add}));
    record("type", json!({"ref": pin, "text": SECRET}));
    record("click", json!({"ref": add}));
    record("observe", json!({"target": w}));
    let recorded = shots_written(&dir);
    assert_eq!(recorded.len(), 5);
    let typed = &recorded[2];
    assert_eq!(typed["redacted"][0]["characters"], SECRET.len());
    assert!(typed["args"]["text"].is_null());

    let report = desk.scratch("recording-pin.html");
    let run = desk.run(&[
        "report",
        dir.to_str().unwrap(),
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut files = vec![report.clone()];
    for entry in walk(&dir) {
        files.push(entry);
    }
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        assert!(
            !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "the password is in {}",
            file.display()
        );
    }
    let size = std::fs::metadata(&report).unwrap().len();
    assert!(size < 3 * 1024 * 1024, "a 5-step report of {size} bytes");

    let dom = dom_in_chromium(desk, &report);
    assert_eq!(dom.matches("<section class=\"step").count(), 5, "{dom}");
    let images = dom.matches("<img ").count();
    assert!(images >= 4, "{images} images");
    assert_eq!(
        dom.matches("src=\"data:image/png;base64,").count(),
        images,
        "an image has no data: the page's script did not set it"
    );
    // Two clicks on Add and the PIN, each with a before and an after.
    assert_eq!(dom.matches("class=\"box\"").count(), 6, "{dom}");
    assert!(!dom.contains("http://") && !dom.contains("https://"));

    let red = red_box_pixels(&page_in_chromium(desk, &report));
    assert!(red > 100, "only {red} pixels of the box's red on the page");
}

/// Headless Chromium on `page`, with `args`.
fn chromium_on(desk: &Desktop, page: &Path, args: &[&str]) -> std::process::Output {
    let profile = desk.scratch("chromium-report");
    desk.command("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args([
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1366,3000",
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .output()
        .expect("running chromium")
}

/// The page's DOM once its script ran, in headless Chromium, which logged no console message.
fn dom_in_chromium(desk: &Desktop, page: &Path) -> String {
    let dumped = chromium_on(desk, page, &["--dump-dom"]);
    let console = String::from_utf8_lossy(&dumped.stderr);
    assert!(
        !console
            .lines()
            .any(|l| l.contains("CONSOLE") || l.contains("Uncaught")),
        "console messages: {console}"
    );
    String::from_utf8_lossy(&dumped.stdout).into_owned()
}

/// A screenshot of the page as headless Chromium draws it.
fn page_in_chromium(desk: &Desktop, page: &Path) -> PathBuf {
    let shot = page.with_extension("png");
    let took = chromium_on(desk, page, &[&format!("--screenshot={}", shot.display())]);
    assert!(
        took.status.success(),
        "{}",
        String::from_utf8_lossy(&took.stderr)
    );
    shot
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

/// How many pixels two PNGs of the same size differ in; all of them when the sizes differ.
fn pixels_apart(a: &Path, b: &Path) -> usize {
    let decode = |path: &Path| {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(path).expect("a screenshot"),
        ));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        buf.truncate(info.buffer_size());
        (info.width, info.height, info.color_type.samples(), buf)
    };
    let (a, b) = (decode(a), decode(b));
    if (a.0, a.1, a.2) != (b.0, b.1, b.2) {
        return (a.0 * a.1).max(b.0 * b.1) as usize;
    }
    a.3.chunks_exact(a.2)
        .zip(b.3.chunks_exact(b.2))
        .filter(|(p, q)| p != q)
        .count()
}

/// Pixels of the page in the box's colour (#e53935), which nothing else on the page uses.
fn red_box_pixels(png_path: &Path) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).expect("the page's screenshot"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    buf[..info.buffer_size()]
        .chunks_exact(channels)
        .filter(|p| {
            p[0].abs_diff(0xe5) < 12 && p[1].abs_diff(0x39) < 12 && p[2].abs_diff(0x35) < 12
        })
        .count()
}

/// A folder that cannot be recorded into or replayed is refused with a sentence, before
/// anything is done.
#[test]
fn folders_that_cannot_be_used_are_refused_before_anything_is_done() {
    let (_guard, desk) = desktop();
    let base = scratch_dir(desk, "recording-bad");
    std::fs::create_dir_all(&base).unwrap();
    let file = base.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let inside_file = file.join("rec");
    let path = |p: &Path| p.to_str().unwrap().to_owned();

    let run = desk.run(&["--record", &path(&inside_file), "windows"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("cannot record into"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "the call ran: {}", run.stdout);
    let run = desk.run(&["mcp", "--record", &path(&inside_file)]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("cannot record into"), "{}", run.stderr);

    let other = base.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let run = desk.run(&["--record", &path(&other), "windows"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("is not a deskhand recording"),
        "{}",
        run.stderr
    );
    for command in ["replay", "report"] {
        let run = desk.run(&[command, &path(&other)]);
        assert_eq!(run.code, 1, "{command}");
        assert!(
            run.stderr.contains("is not a deskhand recording"),
            "{}",
            run.stderr
        );
    }

    let newer = base.join("newer");
    std::fs::create_dir_all(&newer).unwrap();
    std::fs::write(
        newer.join("manifest.json"),
        r#"{"format": 99, "deskhand": "9.0.0", "started_ms": 0}"#,
    )
    .unwrap();
    std::fs::write(newer.join("steps.jsonl"), "").unwrap();
    for command in ["replay", "report"] {
        let run = desk.run(&[command, &path(&newer)]);
        assert_eq!(run.code, 1, "{command}");
        assert!(
            run.stderr.contains("format 99, newer than the 1"),
            "{}",
            run.stderr
        );
    }

    // A recording that launches an app this machine lacks, then clicks in a window that is
    // here: refused before the click.
    let fixture = counter(desk, "Missing app", &[]);
    let absent = base.join("absent");
    std::fs::create_dir_all(&absent).unwrap();
    std::fs::write(
        absent.join("manifest.json"),
        r#"{"format": 1, "deskhand": "0.1.0", "started_ms": 0}"#,
    )
    .unwrap();
    let window = json!({"id": "w1", "app": "counter_app.py", "title": "Missing app", "bounds": {"x": 0, "y": 0, "width": 10, "height": 10}});
    let lines = [
        json!({"index": 1, "at_ms": 0, "ms": 1, "action": "launch", "args": {"action": "launch", "app": "deskhand-no-such-app"}, "outcome": "done", "text": "done", "data": {}}),
        json!({"index": 2, "at_ms": 0, "ms": 1, "action": "click", "args": {"action": "click", "ref": "e3"}, "outcome": "done", "text": "done", "data": {},
            "elements": [{"field": "ref", "ref": "e3", "role": "button", "name": "Add", "ancestors": [{"role": "window", "name": "Missing app"}], "window": window}]}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(absent.join("steps.jsonl"), text).unwrap();
    let run = desk.run(&["replay", &path(&absent)]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("launches \"deskhand-no-such-app\", which is not installed here")
            && run.stderr.contains("nothing was done"),
        "{}",
        run.stderr
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !fixture.events().iter().any(|e| e["event"] == "total"),
        "the click after the missing launch ran"
    );
}

/// What libatspi reads of the first `role` element of `app` named `name` (the fixture's
/// independent reader, not deskhand).
fn probe(desk: &Desktop, app: &str, role: &str, name: &str) -> Value {
    let output = desk
        .command("/usr/bin/python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/atspi_probe.py"))
        .args([app, role, name])
        .stderr(Stdio::null())
        .output()
        .expect("running atspi_probe.py");
    serde_json::from_slice(&output.stdout).unwrap_or(Value::Null)
}

fn kcalc_shows(desk: &Desktop, number: &str) -> bool {
    wait_until(SETTLE, || {
        (probe(desk, "kcalc", "frame", number)["name"] == number).then_some(())
    })
    .is_some()
}

/// The calculator task of the matrix (KCalc, Qt 5): launched, 12 × 12 = clicked key by key
/// and read, over MCP; replayed on a fresh desktop, where the replay launches KCalc itself, and
/// pasted there as the one `batch` the recording turns into. The display is read by libatspi.
#[test]
fn a_calculator_task_replays_on_a_fresh_desktop_and_as_one_batch() {
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "recording-kcalc");
    let mcp = desk.mcp_with(&[("DESKHAND_RECORD", dir.to_str().unwrap())]);
    let launched = mcp.call(json!({"action": "launch", "app": "org.kde.kcalc"}));
    assert!(!launched.is_error, "{}", launched.text);
    let w = mcp.window_id("KCalc", SETTLE);
    let keypad = wait_until(SETTLE, || {
        let tree = mcp.call(json!({"action": "observe", "target": w})).text;
        tree.contains("button \"=\"").then_some(tree)
    })
    .expect("KCalc's keypad");
    for key in ["1", "2", "×", "1", "2", "="] {
        let key = ref_where(&keypad, key, |l| l.contains(&format!("button \"{key}\"")));
        let reply = mcp.call(json!({"action": "click", "ref": key}));
        assert!(!reply.is_error, "{}", reply.text);
    }
    assert!(
        kcalc_shows(desk, "144"),
        "the recorded task did not reach 144"
    );
    let shown = mcp.call(json!({"action": "observe", "target": w})).text;
    assert!(shown.contains("\"144\""), "{shown}");
    mcp.close();
    desk.act("close", json!({"target": w}));
    shots_written(&dir);

    let fresh = Desktop::start_own();
    let run = fresh.run(&["replay", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("step 1 (launch) done"),
        "{}",
        run.stdout
    );
    assert!(
        kcalc_shows(&fresh, "144"),
        "the replay did not reach 144: {}",
        run.stdout
    );
    let (w, _) = common::window_where(&fresh, SETTLE, "KCalc", |t| t == "KCalc");
    fresh.act("close", json!({"target": w}));

    let exported = fresh.run(&["replay", dir.to_str().unwrap(), "--as-batch"]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    let batch: Value = serde_json::from_str(&exported.stdout).expect("one JSON call");
    assert_eq!(batch["action"], "batch");
    assert!(!exported.stdout.contains("\"ref\""), "{}", exported.stdout);
    let agent = fresh.mcp();
    let reply = agent.call(batch);
    assert!(!reply.is_error, "{}", reply.text);
    assert!(
        kcalc_shows(&fresh, "144"),
        "the batch did not reach 144: {}",
        reply.text
    );
    agent.close();
    fresh.stop();
}

/// What the CLI's observe of gnome-calculator's window shows: the display reaching `number`.
fn calculator_shows(desk: &Desktop, number: &str) -> bool {
    wait_until(SETTLE, || {
        let (w, _) = common::window_where(desk, SETTLE, "gnome-calculator", |t| t == "Calculator");
        let seen = desk.act("observe", json!({"target": w})).stdout;
        seen.lines()
            .any(|l| l.contains(&format!("\"{number}\"")) && !l.contains("button"))
            .then_some(())
    })
    .is_some()
}

/// gnome-calculator launched by its program name (which `launch` takes, and is not its
/// desktop-file id or its name), with a `wait` on a ref, recorded over MCP: replayed on a fresh
/// desktop it is launched again, and its `--as-batch` passes the batch check there and reaches
/// the same result.
#[test]
fn a_calculator_launched_by_program_name_with_a_wait_on_a_ref_replays_and_batches() {
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "recording-gnome-calculator");
    let mcp = desk.mcp_with(&[("DESKHAND_RECORD", dir.to_str().unwrap())]);
    let launched = mcp.call(json!({"action": "launch", "app": "gnome-calculator"}));
    assert!(!launched.is_error, "{}", launched.text);
    let w = mcp.window_id("Calculator", SETTLE);
    let keypad = wait_until(SETTLE, || {
        let tree = mcp.call(json!({"action": "observe", "target": w})).text;
        tree.contains("button \"=\"").then_some(tree)
    })
    .expect("the calculator's keypad");
    let key = |name: &str| ref_where(&keypad, name, |l| l.contains(&format!("button \"{name}\"")));
    let waited = mcp.call(json!({"action": "wait", "until": {"ref": key("="), "is": "enabled"}}));
    assert!(!waited.is_error, "{}", waited.text);
    for name in ["7", "×", "6", "="] {
        let reply = mcp.call(json!({"action": "click", "ref": key(name)}));
        assert!(!reply.is_error, "{}", reply.text);
    }
    mcp.close();
    assert!(
        calculator_shows(desk, "42"),
        "the recorded task did not reach 42"
    );
    let recorded = shots_written(&dir);
    let wait = recorded.iter().find(|s| s["action"] == "wait").unwrap();
    assert_eq!(wait["elements"][0]["field"], "until.ref");
    let (w, _) = common::window_where(desk, SETTLE, "gnome-calculator", |t| t == "Calculator");
    desk.act("close", json!({"target": w}));

    let fresh = Desktop::start_own();
    let run = fresh.run(&["replay", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(calculator_shows(&fresh, "42"), "the replay: {}", run.stdout);
    let (w, _) = common::window_where(&fresh, SETTLE, "gnome-calculator", |t| t == "Calculator");
    fresh.act("close", json!({"target": w}));

    let exported = fresh.run(&["replay", dir.to_str().unwrap(), "--as-batch"]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    let batch: Value = serde_json::from_str(&exported.stdout).expect("one JSON call");
    assert!(!exported.stdout.contains("\"ref\""), "{}", exported.stdout);
    let agent = fresh.mcp();
    let reply = agent.call(batch);
    assert!(!reply.is_error, "{}", reply.text);
    agent.close();
    assert!(calculator_shows(&fresh, "42"), "the batch: {}", reply.text);
    fresh.stop();
}

/// Forty-odd steps on gnome-calculator recorded over MCP, clicking by ref, by `find` and by
/// point, waiting on the display and observing: every screenshot after the launch shows the
/// calculator's window and a margin, not the screen; the "after" of each "=" is what the window
/// kept (the same pixels a look taken well after it saw), not a frame before it redrew; a wait
/// has a screenshot of what held; and the report stays under 2 MB, opens in headless Chromium
/// without a console message, holds every step, rings each point clicked where it landed and
/// boxes each element found as it boxes one named by ref.
#[test]
fn a_forty_step_report_shows_the_window_acted_on_and_stays_under_two_megabytes() {
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "recording-forty");
    let mcp = desk.mcp_with(&[("DESKHAND_RECORD", dir.to_str().unwrap())]);
    let launched = mcp.call(json!({"action": "launch", "app": "gnome-calculator"}));
    assert!(!launched.is_error, "{}", launched.text);
    let w = launched.data["window"]
        .as_str()
        .expect("the window")
        .to_owned();
    mcp.call(json!({"action": "windows"}));
    let waited =
        mcp.call(json!({"action": "wait", "target": w, "until": {"name": "=", "role": "button"}}));
    assert!(!waited.is_error, "{}", waited.text);
    let mut seen = mcp.call(json!({"action": "observe", "target": w}));
    let mut replies = Vec::new();
    for round in 1..=5 {
        let tree = &seen.text;
        let key = |name: &str| ref_where(tree, name, |l| l.contains(&format!("button \"{name}\"")));
        let three = seen.data["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "3")
            .expect("the 3 key");
        let (x, y) = (&three["point"][0], &three["point"][1]);
        for call in [
            json!({"action": "click", "ref": key("Clear Display [Escape]")}),
            json!({"action": "click", "target": w, "find": {"role": "button", "name": "1"}}),
            json!({"action": "click", "ref": key("+")}),
            json!({"action": "click", "target": w, "x": x, "y": y}),
            json!({"action": "click", "ref": key("=")}),
            json!({"action": "wait", "target": w, "until": {"ref": key("="), "is": "enabled"}}),
        ] {
            let reply = mcp.call(call.clone());
            assert!(!reply.is_error, "{call}: {}", reply.text);
            replies.push(format!("{call} -> {}", reply.text));
            // A model takes this long at least before its next call.
            std::thread::sleep(Duration::from_millis(800));
        }
        seen = mcp.call(json!({"action": "observe", "target": w}));
        // Clicks by accessibility, by find and by point each landed: 1 + 3 is 4.
        let display = seen
            .text
            .lines()
            .filter(|l| !l.contains("button"))
            .any(|l| l.contains("\"4\""));
        assert!(
            display,
            "round {round}: the calculator does not show 4\n{}\n{}",
            replies.join("\n"),
            seen.text
        );
    }
    let cleared = mcp.call(json!({"action": "press", "keys": "Escape"}));
    assert!(!cleared.is_error, "{}", cleared.text);
    mcp.close();
    let recorded = shots_written(&dir);
    assert_eq!(recorded.len(), 40, "{recorded:#?}");
    let (close, _) = common::window_where(desk, SETTLE, "gnome-calculator", |t| t == "Calculator");
    desk.act("close", json!({"target": close}));

    let window = recorded
        .iter()
        .find_map(|s| s["elements"][0]["window"]["bounds"].as_object())
        .map(|b| Value::Object(b.clone()))
        .expect("a step named an element");
    let (width, height) = (
        window["width"].as_i64().unwrap(),
        window["height"].as_i64().unwrap(),
    );
    assert!(recorded[0]["before"].is_null(), "{:#}", recorded[0]);
    for step in &recorded {
        for shot in [&step["before"], &step["after"]] {
            if shot.is_null() {
                continue;
            }
            let area = &shot["screen"];
            assert!(
                area["width"].as_i64().unwrap() <= width + 80
                    && area["height"].as_i64().unwrap() <= height + 80,
                "step {} shows {area} for a window of {window}",
                step["index"]
            );
        }
    }
    let shot = |shot: &Value| dir.join("shots").join(shot["file"].as_str().unwrap());
    for (at, step) in recorded.iter().enumerate() {
        if step["action"] != "click" || step["elements"][0]["name"] != "=" {
            continue;
        }
        // The wait after it, 800 ms on: nothing changed the window in between. (The observe
        // after that has no screenshot of its own: the next click comes at once.)
        let later = &recorded[at + 1];
        assert_eq!(later["action"], "wait");
        // A text cursor's blink is all that may differ.
        let differ = pixels_apart(&shot(&step["after"]), &shot(&later["after"]));
        assert!(
            differ < 100,
            "the screenshot after step {} (=) is not what the window kept: {differ} pixels differ",
            step["index"]
        );
    }
    // Each wait of the rounds shows what held; the first one, followed at once by the observe
    // and a click, has no screenshot and says why.
    let waits: Vec<&Value> = recorded.iter().filter(|s| s["action"] == "wait").collect();
    assert!(
        waits[1..].iter().all(|s| s["after"]["file"].is_string()),
        "{waits:#?}"
    );
    assert!(
        waits[0]["after"]["file"].is_string()
            || waits[0]["no_after"]
                .as_str()
                .is_some_and(|why| why.starts_with("the next action began")),
        "{:#}",
        waits[0]
    );
    let finds: Vec<&Value> = recorded
        .iter()
        .filter(|s| s["args"]["find"].is_object())
        .collect();
    assert_eq!(finds.len(), 5);
    assert!(
        finds
            .iter()
            .all(|s| s["found"][0]["name"] == "1" && s["found"][0]["bounds"].is_object()),
        "{finds:#?}"
    );

    let report = desk.scratch("recording-forty.html");
    let run = desk.run(&[
        "report",
        dir.to_str().unwrap(),
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let size = std::fs::metadata(&report).unwrap().len();
    assert!(
        size < 2 * 1024 * 1024,
        "a {}-step report of {size} bytes",
        recorded.len()
    );
    let dom = dom_in_chromium(desk, &report);
    assert_eq!(
        dom.matches("<section class=\"step").count(),
        recorded.len(),
        "{dom}"
    );
    // A box for each element named or found, on each of its step's screenshots; a ring on each
    // screenshot of a click by point.
    let shots_of =
        |s: &Value| usize::from(s["before"].is_object()) + usize::from(s["after"].is_object());
    let boxes: usize = recorded
        .iter()
        .map(|s| {
            let named = s["elements"].as_array().map_or(0, Vec::len)
                + s["found"].as_array().map_or(0, Vec::len);
            named * shots_of(s)
        })
        .sum();
    assert_eq!(dom.matches("class=\"box\"").count(), boxes);
    let rings: usize = recorded
        .iter()
        .filter(|s| s["args"]["x"].is_number())
        .map(shots_of)
        .sum();
    assert_eq!(rings, 10);
    assert_eq!(dom.matches("class=\"point\"").count(), rings);
    assert_eq!(dom.matches("found <b>button \"1\"").count(), 5);
    let red = red_box_pixels(&page_in_chromium(desk, &report));
    assert!(red > 100, "only {red} pixels of the boxes' red on the page");
}

/// A file `path` comes to hold exactly `text`, as its app wrote it.
fn file_holds(path: &Path, text: &str) -> bool {
    wait_until(SETTLE, || {
        (std::fs::read_to_string(path).ok()?.trim_end() == text).then_some(())
    })
    .is_some()
}

/// Every window of `desk` and what each lists, to say where a replay stopped short.
fn what_shows(desk: &Desktop) -> String {
    let windows = desk.run(&["windows"]).stdout;
    let mut shown = windows.clone();
    for id in windows
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| word.starts_with('w') && word[1..].parse::<u32>().is_ok())
    {
        shown.push_str(&desk.run(&["observe", id]).stdout);
    }
    shown
}

/// The window whose title `title` accepts, closed from outside the recording.
fn close_window_of(desk: &Desktop, what: &str, title: impl Fn(&str) -> bool) {
    let (w, _) = common::window_where(desk, SETTLE, what, title);
    desk.act("close", json!({"target": w}));
}

/// Launches `app` through the tool and types `text` into the first text field of its window;
/// the window's id.
fn launch_and_type(mcp: &common::Mcp, app: &str, text: &str) -> String {
    let launched = mcp.call(json!({"action": "launch", "app": app}));
    assert!(!launched.is_error, "{}", launched.text);
    let w = launched.data["window"]
        .as_str()
        .expect("its window")
        .to_owned();
    // An agent looks until the editor has the keyboard focus, as a new window's takes it a
    // moment after the window is there; what it saw focused is what `--as-batch` types into.
    let editor = wait_until(SETTLE, || {
        let tree = mcp.call(json!({"action": "observe", "target": w})).text;
        let editor = common::first_of_role(&tree, "text");
        let line = tree
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{editor} ")))?;
        common::has_state(line, "focused").then_some(editor)
    })
    .expect("the editor with the keyboard focus");
    let typed = mcp.call(json!({"action": "type", "ref": editor, "text": text}));
    assert!(!typed.is_error, "{}", typed.text);
    w
}

/// Replays the recording in `dir` on a fresh desktop with `file` gone: the replay succeeds and
/// writes `file` with `text` again. Then, on another fresh desktop with `file` gone again, the
/// recording exported with `--as-batch`, every step kept, passes the batch check as one call
/// and writes the same file. What the replay printed.
fn replays_the_save(dir: &std::path::Path, file: &std::path::Path, text: &str) -> String {
    std::fs::remove_file(file).unwrap();
    let fresh = Desktop::start_own();
    let run = fresh.run(&["replay", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        file_holds(file, text),
        "the replay: {}\nthen the desktop showed:\n{}",
        run.stdout,
        what_shows(&fresh)
    );
    fresh.stop();

    std::fs::remove_file(file).unwrap();
    let fresh = Desktop::start_own();
    let exported = fresh.run(&["replay", dir.to_str().unwrap(), "--as-batch"]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    assert!(!exported.stderr.contains("left out"), "{}", exported.stderr);
    let batch: Value = serde_json::from_str(&exported.stdout).expect("one JSON call");
    assert!(!exported.stdout.contains("\"ref\""), "{}", exported.stdout);
    let agent = fresh.mcp();
    let reply = agent.call(batch);
    assert!(!reply.is_error, "{}\n{}", reply.text, exported.stdout);
    agent.close();
    assert!(
        file_holds(file, text),
        "the batch: {}\n{}\nthen the desktop showed:\n{}",
        reply.text,
        exported.stdout,
        what_shows(&fresh)
    );
    fresh.stop();
    run.stdout
}

/// FeatherPad (Qt 5) answers the click on its Save button only once the modal file dialog it
/// opened closes. Recorded over MCP: launched, text typed, Save clicked (the reply says the app
/// answers once that window closes), the dialog's name field filled and Return pressed write
/// the file. Replayed on a fresh desktop with the file gone, the replay launches FeatherPad,
/// waits for the dialog as the recorded reply did, and the same file is written.
#[test]
fn a_qt_save_through_its_modal_file_dialog_replays_on_a_fresh_desktop() {
    const TEXT: &str = "written through a modal dialog";
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "recording-featherpad");
    let file = desk.scratch("featherpad-replayed.txt");
    let _ = std::fs::remove_file(&file);
    let mcp = desk.mcp_with(&[("DESKHAND_RECORD", dir.to_str().unwrap())]);
    let w = launch_and_type(&mcp, "featherpad", TEXT);
    let save = json!({"action": "click", "target": w, "find": {"role": "button", "name": "Save"}});
    let clicked = mcp.call(save);
    assert!(
        clicked
            .text
            .contains("the app answers the request only once that window closes"),
        "{}",
        clicked.text
    );
    let dialog = mcp.window_id("Save as...", SETTLE);
    // Qt answers nothing until its dialog is up: an agent observes again.
    let seen = wait_until(SETTLE, || {
        let seen = mcp
            .call(json!({"action": "observe", "target": dialog}))
            .text;
        seen.contains("text \"File name:\"").then_some(seen)
    })
    .expect("the dialog's name field");
    let name = ref_where(&seen, "the name field", |l| {
        l.contains("text \"File name:\"")
    });
    let path = file.to_str().unwrap();
    let named = mcp.call(json!({"action": "type", "ref": name, "text": path, "replace": true}));
    assert!(!named.is_error, "{}", named.text);
    let pressed = mcp.call(json!({"action": "press", "keys": "Return"}));
    assert!(!pressed.is_error, "{}", pressed.text);
    mcp.close();
    assert!(file_holds(&file, TEXT), "FeatherPad did not save the file");
    shots_written(&dir);
    close_window_of(desk, "featherpad", |t| {
        t.ends_with("featherpad-replayed.txt")
    });

    let replayed = replays_the_save(&dir, &file, TEXT);
    assert!(
        replayed.contains("only once that window closes"),
        "{replayed}"
    );
}

/// Mousepad (GTK 3) saving a new file through its Save As dialog, recorded over MCP: launched,
/// text typed, ctrl+s pressed, the dialog's name field filled and Return pressed. Replayed on a
/// fresh desktop with the file gone, the same file is written with the same text.
#[test]
fn a_gtk3_editor_saving_a_file_replays_on_a_fresh_desktop() {
    const TEXT: &str = "saved by a recorded agent";
    let (_guard, desk) = desktop();
    let dir = scratch_dir(desk, "recording-mousepad");
    let file = desk.scratch("mousepad-replayed.txt");
    let _ = std::fs::remove_file(&file);
    let mcp = desk.mcp_with(&[("DESKHAND_RECORD", dir.to_str().unwrap())]);
    let _ = launch_and_type(&mcp, "mousepad", TEXT);
    let saved = mcp.call(json!({"action": "press", "keys": "ctrl+s"}));
    assert!(!saved.is_error, "{}", saved.text);
    let dialog = mcp.window_id("Save As", SETTLE);
    // The name field takes the keyboard focus a moment after the dialog is there.
    let name = wait_until(SETTLE, || {
        let seen = mcp
            .call(json!({"action": "observe", "target": dialog}))
            .text;
        seen.lines()
            .find(|l| {
                l.trim_start().split(' ').nth(1) == Some("text") && common::has_state(l, "focused")
            })
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_owned)
    })
    .expect("the dialog's name field with the keyboard focus");
    let path = file.to_str().unwrap();
    let named = mcp.call(json!({"action": "type", "ref": name, "text": path, "replace": true}));
    assert!(!named.is_error, "{}", named.text);
    // A model's pause: GTK's file chooser lets a Return that comes at once go by.
    std::thread::sleep(Duration::from_millis(800));
    let pressed = mcp.call(json!({"action": "press", "keys": "Return"}));
    assert!(!pressed.is_error, "{}", pressed.text);
    mcp.close();
    assert!(file_holds(&file, TEXT), "mousepad did not save the file");
    shots_written(&dir);
    close_window_of(desk, "mousepad", |t| t.contains("mousepad-replayed.txt"));

    replays_the_save(&dir, &file, TEXT);
}
