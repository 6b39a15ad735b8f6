//! `cargo bench -p deskhand --bench displays`: the same steps on each display deskhand drives,
//! side by side: X11 (Xvfb), sway and GNOME Shell on Wayland.
//!
//! For each display the bench brings up a private headless desktop (`deskhand desktop start
//! --owner-pid`, `--wayland sway|gnome`), then runs itself again inside it, where one backend
//! and one session (as the MCP server has) time `observe` of the GTK3 fixture app's window, a
//! pointer click on one of its buttons, a `screenshot` of the window, and typing 1,000
//! characters of mixed Unicode into its name field, checked against what the app itself logs
//! it received; then, with the overlay that shows a person where the agent acts turned on, the
//! click and the screenshot again. Last, it types 1,000 such characters into mousepad's editor,
//! by ref (replacing what it holds) and then as keys (from a session that knows no field to put
//! the text into), and compares the file mousepad saves (ctrl+s) with the text each time; as
//! many into FeatherPad's editor (Qt 5) by ref, its saved file compared; and into a field of a
//! page in Firefox by ref, compared with the page's own value (its length and hash, which the
//! page shows in its title). It prints medians only, and after the table what each typing that
//! did not count answered: targets live in the issue, not here.
//! `DESKHAND_BENCH_DISPLAYS=sway,gnome` measures only those.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deskhand_core::{Config, Outcome, Session};
use deskhand_linux::LinuxBackend;
use serde_json::{Value, json};

mod shared;
use shared::{Desk, TYPED_CHARS, median, mixed_text, ms};

const BIN: &str = env!("CARGO_BIN_EXE_deskhand");
const DISPLAYS: [&str; 3] = ["x11", "sway", "gnome"];
/// Set in the bench's own run inside a desktop: the display it measures.
const CHILD: &str = "DESKHAND_BENCH_CHILD";
/// The uid:gid the fixture runs as, on a desktop of another user (sway's, when root).
const USER: &str = "DESKHAND_BENCH_USER";
const RUNS: usize = 11;
const WARM_UP: usize = 2;
const TYPE_RUNS: usize = 3;
const START: Duration = Duration::from_secs(30);
/// Firefox takes longer on its first start with a new profile.
const FIREFOX_START: Duration = Duration::from_secs(60);
const TITLE: &str = "Bench Fixture";

fn main() {
    match std::env::var(CHILD) {
        Ok(display) => measure(&display),
        Err(_) => compare(),
    }
}

/// Runs the measurement on each display and prints one table.
fn compare() {
    let only: Option<Vec<String>> = std::env::var("DESKHAND_BENCH_DISPLAYS")
        .ok()
        .map(|list| list.split(',').map(|d| d.trim().to_lowercase()).collect());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "displays bench · {RUNS} runs after {WARM_UP} warm-up ({TYPE_RUNS} for typing) · load {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "| display | observe ms | click ms | screenshot ms | type {TYPED_CHARS} chars ms | chars/s | arrived exactly | click, overlay on ms | screenshot, overlay on ms | mousepad, type {TYPED_CHARS} chars by ref ms | as keys ms | by ref ÷ keys | saved exactly (by ref, keys) | FeatherPad (Qt), type {TYPED_CHARS} chars by ref ms | saved exactly | Firefox, type {TYPED_CHARS} chars by ref ms | arrived exactly |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut notes = Vec::new();
    for display in DISPLAYS {
        if only
            .as_ref()
            .is_some_and(|only| !only.iter().any(|d| d == display))
        {
            continue;
        }
        match run_inside(display) {
            Ok((row, said)) => {
                println!("{row}");
                notes.extend(said.into_iter().map(|note| format!("{display}: {note}")));
            }
            Err(why) => println!("| {display} | failed: {why} | | | | | | | | | | | | | | | |"),
        }
    }
    for note in notes {
        println!("{note}");
    }
}

/// A line the run inside prints before its row: what a typing answered where it did not count.
const NOTE: &str = "note: ";

/// Starts the display's desktop and the bench inside it; the row it printed, and its notes.
fn run_inside(display: &str) -> Result<(String, Vec<String>), String> {
    let mut start = Command::new(BIN);
    start
        .args(["desktop", "start", "--json", "--owner-pid"])
        .arg(std::process::id().to_string());
    if display != "x11" {
        start.args(["--wayland", display]);
    }
    let output = start
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    let doc: Value = serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    let mut child = Command::new(std::env::current_exe().map_err(|e| e.to_string())?);
    for name in doc["unset"].as_array().into_iter().flatten() {
        child.env_remove(name.as_str().unwrap_or_default());
    }
    child.env_remove("DISPLAY");
    for (key, value) in doc["env"].as_object().into_iter().flatten() {
        child.env(key, value.as_str().unwrap_or_default());
    }
    if let Some(user) = doc["user"].as_object() {
        child.env(USER, format!("{}:{}", user["uid"], user["gid"]));
    }
    let ran = child
        .env(CHILD, display)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let _ = Command::new(BIN)
        .args(["desktop", "stop", "--state"])
        .arg(doc["env"]["DESKHAND_DESKTOP"].as_str().unwrap_or_default())
        .output();
    let stdout = String::from_utf8_lossy(&ran.stdout);
    let notes = stdout
        .lines()
        .filter_map(|line| line.strip_prefix(NOTE))
        .map(str::to_owned)
        .collect();
    stdout
        .lines()
        .rfind(|line| line.starts_with('|'))
        .map(|row| (row.to_owned(), notes))
        .ok_or_else(|| {
            format!(
                "the run inside printed no row: {}",
                String::from_utf8_lossy(&ran.stderr).trim()
            )
        })
}

impl Desk {
    /// The median of `RUNS` timed calls after `WARM_UP` untimed ones.
    async fn median_of(&mut self, args: Value) -> Result<f64, String> {
        let mut samples = Vec::new();
        for run in 0..WARM_UP + RUNS {
            let started = Instant::now();
            self.call(args.clone()).await?;
            if run >= WARM_UP {
                samples.push(ms(started.elapsed()));
            }
        }
        Ok(median(&samples))
    }

    /// The id of the first window whose title satisfies `wanted`, waiting up to `limit` for it.
    async fn window_where(
        &mut self,
        what: &str,
        limit: Duration,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<String, String> {
        let started = Instant::now();
        loop {
            let listed = self.call(json!({"action": "windows"})).await?;
            let found = listed.data["windows"].as_array().and_then(|all| {
                all.iter()
                    .find(|w| w["title"].as_str().is_some_and(&wanted))
                    .and_then(|w| w["id"].as_str().map(str::to_owned))
            });
            if let Some(w) = found {
                return Ok(w);
            }
            if started.elapsed() > limit {
                return Err(format!("{what}'s window did not appear within {limit:?}"));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The ref of the first text field in the latest observation of `w`, observing again until
    /// the app lists one.
    async fn text_field_of(&mut self, what: &str, w: &str) -> Result<String, String> {
        let started = Instant::now();
        loop {
            let observed = self.call(json!({"action": "observe", "target": w})).await?;
            let field = observed.text.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                let reference = words.next()?;
                (words.next() == Some("text")).then(|| reference.to_owned())
            });
            match field {
                Some(field) => return Ok(field),
                None if started.elapsed() > START => {
                    return Err(format!("{what}'s editor is not in its tree"));
                }
                None => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }

    /// The ref of the first line of the latest observation of `w` that holds `needle`.
    async fn ref_of(&mut self, w: &str, needle: &str) -> Result<String, String> {
        let observed = self.call(json!({"action": "observe", "target": w})).await?;
        observed
            .text
            .lines()
            .find(|l| l.contains(needle))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_owned)
            .ok_or_else(|| format!("no {needle} in the observation of {w}"))
    }
}

/// The fixture's log: the texts its name field held, last one last.
fn logged_texts(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|e| e["event"] == "text" && e["widget"] == "name")
        .filter_map(|e| e["text"].as_str().map(str::to_owned))
        .collect()
}

/// The uid and gid apps run as, on a desktop of another user.
fn desktop_user() -> Option<(u32, u32)> {
    let user = std::env::var(USER).ok()?;
    let (uid, gid) = user.split_once(':')?;
    Some((uid.parse().ok()?, gid.parse().ok()?))
}

/// An empty file of this name in the temp folder that the desktop's apps can write.
fn scratch_file(name: &str) -> PathBuf {
    let file = std::env::temp_dir().join(format!("deskhand-bench-{}-{name}", std::process::id()));
    std::fs::write(&file, "").expect("a scratch file");
    if let Some((uid, gid)) = desktop_user() {
        std::os::unix::fs::chown(&file, Some(uid), Some(gid)).expect("chown a scratch file");
    }
    file
}

/// `program` with `args`, run as the desktop's user, its output dropped.
fn app_command(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some((uid, gid)) = desktop_user() {
        use std::os::unix::process::CommandExt;
        command.uid(uid).gid(gid);
    }
    command
}

/// The run inside one desktop: prints its table row.
fn measure(display: &str) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let log = scratch_file("fixture.jsonl");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fixture_app.py");
    let script = script.to_str().expect("utf-8 path");
    let mut app = app_command(
        "/usr/bin/python3",
        &[
            script,
            "--log",
            log.to_str().expect("utf-8 path"),
            "--title",
            TITLE,
        ],
    )
    .spawn()
    .expect("the fixture app starts");
    let row = runtime.block_on(async {
        let mut desk = Desk {
            // Typing into Firefox on X11 pastes, and the clipboard is put back by a holder:
            // the deskhand binary, not this bench.
            backend: LinuxBackend::connect()
                .map_err(|e| e.message)?
                .with_clipboard_holder(BIN),
            session: Session::default(),
            config: Config::default(),
        };
        measure_in(&mut desk, display, &log).await
    });
    let _ = app.kill();
    let _ = app.wait();
    let _ = std::fs::remove_file(&log);
    match row {
        Ok(row) => println!("{row}"),
        Err(why) => println!("| {display} | failed: {why} | | | | | | | | | | | | | | | |"),
    }
}

async fn measure_in(desk: &mut Desk, display: &str, log: &Path) -> Result<String, String> {
    let started = Instant::now();
    let w = loop {
        let listed = desk.call(json!({"action": "windows"})).await?;
        let found = listed.data["windows"].as_array().and_then(|all| {
            all.iter()
                .find(|w| w["title"] == TITLE)
                .and_then(|w| w["id"].as_str().map(str::to_owned))
        });
        if let Some(w) = found {
            break w;
        }
        if started.elapsed() > START {
            return Err(format!(
                "the fixture's window did not appear within {START:?}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    desk.call(json!({"action": "focus", "target": w})).await?;

    let observe = desk
        .median_of(json!({"action": "observe", "target": w}))
        .await?;
    let points = desk
        .call(json!({"action": "observe", "target": w, "points": true}))
        .await?;
    let other = points
        .text
        .lines()
        .find(|l| l.contains("button \"Other\""))
        .and_then(|l| l.rsplit_once('@'))
        .and_then(|(_, at)| at.trim().split_once(','))
        .and_then(|(x, y)| Some((x.parse::<f64>().ok()?, y.parse::<f64>().ok()?)))
        .ok_or("no point for the Other button")?;
    let click = desk
        .median_of(json!({"action": "click", "target": w, "x": other.0, "y": other.1}))
        .await?;
    let screenshot = desk
        .median_of(json!({"action": "screenshot", "target": w}))
        .await?;

    let mut typing = Vec::new();
    let mut exact = 0;
    for run in 0..TYPE_RUNS {
        let name = desk.ref_of(&w, "text \"Name\"").await?;
        desk.call(json!({"action": "click", "ref": name})).await?;
        desk.call(json!({"action": "press", "keys": "ctrl+a Delete"}))
            .await?;
        let text = mixed_text(run * 7);
        let started = Instant::now();
        let reply = desk.call(json!({"action": "type", "text": text})).await?;
        typing.push(ms(started.elapsed()));
        let arrived = async {
            for _ in 0..40 {
                if logged_texts(log).last() == Some(&text) {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            false
        };
        if reply.outcome == Outcome::Done && arrived.await {
            exact += 1;
        } else {
            println!(
                "{NOTE}fixture typing {}: answered \"{}\"; {}",
                run + 1,
                reply.text.lines().next().unwrap_or_default(),
                difference(logged_texts(log).last().map_or("", String::as_str), &text)
            );
        }
    }
    let typed = median(&typing);

    let with_overlay = match desk.backend.show_overlay() {
        Ok(()) => {
            let click = desk
                .median_of(json!({"action": "click", "target": w, "x": other.0, "y": other.1}))
                .await?;
            let screenshot = desk
                .median_of(json!({"action": "screenshot", "target": w}))
                .await?;
            format!("{click:.1} | {screenshot:.1}")
        }
        Err(why) => format!("– ({why}) | –"),
    };
    let into_mousepad = match into_mousepad(desk).await {
        Ok(Mousepad {
            by_ref,
            as_keys,
            saved,
        }) => format!(
            "{by_ref:.0} | {as_keys:.0} | {:.3}x | {}/{TYPE_RUNS}, {}/{TYPE_RUNS}",
            by_ref / as_keys,
            saved.0,
            saved.1
        ),
        Err(why) => format!("– ({why}) | – | – | –"),
    };
    let into_featherpad = match into_featherpad(desk).await {
        Ok((typed, exact)) => format!("{typed:.0} | {exact}/{TYPE_RUNS}"),
        Err(why) => format!("– ({why}) | –"),
    };
    let into_firefox = match into_firefox(desk).await {
        Ok((typed, exact)) => format!("{typed:.0} | {exact}/{TYPE_RUNS}"),
        Err(why) => format!("– ({why}) | –"),
    };
    Ok(format!(
        "| {display} | {observe:.1} | {click:.1} | {screenshot:.1} | {typed:.0} | {:.0} | {exact}/{TYPE_RUNS} | {with_overlay} | {into_mousepad} | {into_featherpad} | {into_firefox} |",
        TYPED_CHARS as f64 / (typed / 1000.0)
    ))
}

/// Typing 1,000 characters into mousepad: the medians of the `type` calls by ref and as keys,
/// and how many of each one's saved files held exactly the text.
struct Mousepad {
    by_ref: f64,
    as_keys: f64,
    saved: (usize, usize),
}

/// An editor started on a scratch file of its own: killed and the file removed when dropped.
struct EditorOnFile {
    editor: std::process::Child,
    file: PathBuf,
}

impl EditorOnFile {
    /// Starts `program` with `args` and then the file's path.
    fn start(program: &str, args: &[&str], file_name: &str) -> Result<Self, String> {
        let file = scratch_file(file_name);
        let path = file.to_str().expect("utf-8 path").to_owned();
        let args: Vec<&str> = args.iter().copied().chain([path.as_str()]).collect();
        let editor = app_command(program, &args)
            .spawn()
            .map_err(|e| format!("{program} did not start: {e}"))?;
        Ok(Self { editor, file })
    }

    /// The editor's window, the one whose title names the file.
    async fn window(&self, desk: &mut Desk, what: &str) -> Result<String, String> {
        let name = self
            .file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        desk.window_where(what, START, |t| t.contains(&name)).await
    }

    /// Saves the file (ctrl+s) and reads it until `saved_form` of it is `text`, for up to 4 s:
    /// `saved_form` of what it holds last.
    async fn saved(
        &self,
        desk: &mut Desk,
        text: &str,
        saved_form: fn(&str) -> &str,
    ) -> Result<String, String> {
        desk.call(json!({"action": "press", "keys": "ctrl+s"}))
            .await?;
        let mut held = String::new();
        for _ in 0..40 {
            held = std::fs::read_to_string(&self.file).unwrap_or_default();
            if saved_form(&held) == text {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(saved_form(&held).to_owned())
    }
}

impl Drop for EditorOnFile {
    fn drop(&mut self) {
        let _ = self.editor.kill();
        let _ = self.editor.wait();
        let _ = std::fs::remove_file(&self.file);
    }
}

/// Starts mousepad on a file of its own and types 1,000 mixed characters into its editor
/// `TYPE_RUNS` times by ref, each replacing what it holds, then as many times as keys, each
/// time saving the file and comparing it with the text.
async fn into_mousepad(desk: &mut Desk) -> Result<Mousepad, String> {
    let mousepad = EditorOnFile::start("mousepad", &[], "mousepad.txt")?;
    let as_saved: fn(&str) -> &str = |held| held;
    let w = mousepad.window(desk, "mousepad").await?;
    let mut by_ref = Vec::new();
    let mut saved = (0, 0);
    for run in 0..TYPE_RUNS {
        let editor = desk.text_field_of("mousepad", &w).await?;
        let text = mixed_text(run * 11);
        let began = Instant::now();
        let reply = desk
            .call(json!({"action": "type", "ref": editor, "text": text, "replace": true}))
            .await?;
        by_ref.push(ms(began.elapsed()));
        if mousepad.saved(desk, &text, as_saved).await? == text && reply.outcome == Outcome::Done {
            saved.0 += 1;
        }
    }
    // The same typing as keys, for the ratio: a session that has observed nothing knows no
    // field to put the text into, so it types into the focused editor key by key.
    let observed = std::mem::take(&mut desk.session);
    let mut as_keys = Vec::new();
    for run in 0..TYPE_RUNS {
        desk.call(json!({"action": "press", "keys": "ctrl+a Delete"}))
            .await?;
        let text = mixed_text(run * 13);
        let began = Instant::now();
        let reply = desk.call(json!({"action": "type", "text": text})).await?;
        as_keys.push(ms(began.elapsed()));
        if mousepad.saved(desk, &text, as_saved).await? == text && reply.outcome == Outcome::Done {
            saved.1 += 1;
        }
    }
    desk.session = observed;
    Ok(Mousepad {
        by_ref: median(&by_ref),
        as_keys: median(&as_keys),
        saved,
    })
}

/// Starts FeatherPad (Qt 5) on a file of its own and types 1,000 mixed characters into its
/// editor by ref `TYPE_RUNS` times, each replacing what it holds, saving the file after each
/// and comparing it with the text: the median of the `type` calls, and how many were done and
/// saved exactly.
async fn into_featherpad(desk: &mut Desk) -> Result<(f64, usize), String> {
    let featherpad = EditorOnFile::start("featherpad", &["--standalone"], "featherpad.txt")?;
    // FeatherPad ends a saved file with a newline.
    let as_saved: fn(&str) -> &str = |held| held.trim_end_matches('\n');
    let w = featherpad.window(desk, "FeatherPad").await?;
    let mut typing = Vec::new();
    let mut exact = 0;
    for run in 0..TYPE_RUNS {
        let editor = desk.text_field_of("FeatherPad", &w).await?;
        let text = mixed_text(run * 19);
        let began = Instant::now();
        let reply = desk
            .call(json!({"action": "type", "ref": editor, "text": text, "replace": true}))
            .await?;
        typing.push(ms(began.elapsed()));
        let held = featherpad.saved(desk, &text, as_saved).await?;
        if reply.outcome == Outcome::Done && held == text {
            exact += 1;
        } else {
            println!(
                "{NOTE}FeatherPad typing {}: answered \"{}\"; saved: {}",
                run + 1,
                reply.text.lines().next().unwrap_or_default(),
                difference(&held, &text)
            );
        }
    }
    Ok((median(&typing), exact))
}

/// What the person's clipboard holds while the bench types into Firefox: on X11 the text is
/// pasted, and the clipboard put back afterwards is part of each typing's cost.
const PERSONS_CLIPBOARD: &str = "the person's own clipboard ✓";

/// Starts Firefox on a page of two fields and types 1,000 mixed characters into its name field
/// by ref `TYPE_RUNS` times, each replacing what it holds, with the person's clipboard holding
/// text: the median of the `type` calls, and how many times the reply was done, the field then
/// held exactly the text and the clipboard held the person's text again.
async fn into_firefox(desk: &mut Desk) -> Result<(f64, usize), String> {
    let profile = scratch_file("firefox-profile");
    std::fs::remove_file(&profile).map_err(|e| e.to_string())?;
    std::fs::create_dir(&profile).map_err(|e| e.to_string())?;
    if let Some((uid, gid)) = desktop_user() {
        std::os::unix::fs::chown(&profile, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
    }
    let page =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/typing_fields.html");
    let page = page.canonicalize().map_err(|e| e.to_string())?;
    let mut firefox = app_command(
        "firefox-esr",
        &[
            "--new-instance",
            "--profile",
            profile.to_str().expect("utf-8 path"),
            &format!("file://{}", page.display()),
        ],
    )
    .spawn()
    .map_err(|e| format!("Firefox did not start: {e}"))?;
    let typed = async {
        let started = Instant::now();
        let w = desk
            .window_where("Firefox", FIREFOX_START, |t| t.starts_with("Typing Fields"))
            .await?;
        desk.call(json!({"action": "clipboard", "text": PERSONS_CLIPBOARD}))
            .await?;
        let mut typing = Vec::new();
        let mut exact = 0;
        for run in 0..TYPE_RUNS {
            let name = loop {
                match desk.ref_of(&w, "text \"Name\"").await {
                    Ok(name) => break name,
                    Err(why) if started.elapsed() > FIREFOX_START => return Err(why),
                    Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            };
            let text = mixed_text(run * 17);
            let began = Instant::now();
            let reply = desk
                .call(json!({"action": "type", "ref": name, "text": text, "replace": true}))
                .await?;
            typing.push(ms(began.elapsed()));
            // The page's own value, outside the accessibility tree: its title says the field's
            // length and hash.
            let wanted = page_checksum(&text);
            let mut held = false;
            for _ in 0..40 {
                let listed = desk.call(json!({"action": "windows"})).await?;
                held = listed.data["windows"].as_array().is_some_and(|all| {
                    all.iter().any(|window| {
                        window["id"] == w.as_str()
                            && window["title"].as_str().and_then(|t| t.split(" — ").next())
                                == Some(wanted.as_str())
                    })
                });
                if held {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let clipboard = desk.call(json!({"action": "clipboard"})).await?;
            let put_back = clipboard.data["text"] == PERSONS_CLIPBOARD;
            if !put_back {
                println!(
                    "{NOTE}Firefox typing {}: the clipboard holds {} afterwards",
                    run + 1,
                    clipboard.data["text"]
                );
            }
            if reply.outcome == Outcome::Done && held && put_back {
                exact += 1;
            } else {
                // Gecko's accessible text holds a U+FEFF after each emoji that the field has not.
                let read = desk.call(json!({"action": "read", "ref": name})).await?;
                let holds = read.data["text"]
                    .as_str()
                    .map(|t| t.replace('\u{feff}', ""))
                    .unwrap_or_default();
                println!(
                    "{NOTE}Firefox typing {}: answered \"{}\"; {}",
                    run + 1,
                    reply.text.lines().next().unwrap_or_default(),
                    difference(&holds, &text)
                );
            }
        }
        Ok((median(&typing), exact))
    }
    .await;
    let _ = firefox.kill();
    let _ = firefox.wait();
    let _ = std::fs::remove_dir_all(&profile);
    typed
}

/// What `typing_fields.html` puts in its title for the text its name field holds: the length in
/// UTF-16 units and the FNV-1a hash over them, from the page's own value.
fn page_checksum(text: &str) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let hash = units.iter().fold(0x811c_9dc5_u32, |hash, unit| {
        (hash ^ u32::from(*unit)).wrapping_mul(0x0100_0193)
    });
    format!("Typing Fields · name {} {hash:08x}", units.len())
}

/// Where the text a field `holds` first differs from the text `typed`, and both lengths.
fn difference(holds: &str, typed: &str) -> String {
    let (held, wanted): (Vec<char>, Vec<char>) = (holds.chars().collect(), typed.chars().collect());
    let lengths = format!(
        "the field holds {} characters, {} were typed",
        held.len(),
        wanted.len()
    );
    match held.iter().zip(&wanted).position(|(h, w)| h != w) {
        None if held.len() == wanted.len() => format!("{lengths}, the same text"),
        None => format!("{lengths}; one is the start of the other"),
        Some(at) => {
            let around = |chars: &[char]| chars[at..].iter().take(12).collect::<String>();
            format!(
                "{lengths}; they first differ at character {at}: the field has {:?} where {:?} was typed",
                around(&held),
                around(&wanted)
            )
        }
    }
}
