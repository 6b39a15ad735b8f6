//! `cargo bench -p deskhand --bench desktop`: what deskhand costs on real apps, in one command.
//!
//! The bench brings up its own private headless desktop (`deskhand desktop start --owner-pid`,
//! so the desktop goes when the bench process does), starts GTK3, GTK4, Chromium, LibreOffice
//! Calc and Firefox in it, and measures the executor in-process (one runtime, one
//! `LinuxBackend`, one `Session`): `observe` per app (latency, D-Bus calls, nodes walked,
//! elements listed, o200k_base tokens of the reply and which lines they go to, the app's memory
//! while it is observed), where an observation's time goes, `screenshot`, `zoom`, a click by
//! ref (with the overlay off, then on) and typing 1,000 characters of mixed Unicode. Calc gets a few numbers and a formula typed
//! first, so its cells have values; Firefox shows a page of 2,000 paragraphs, whose visible
//! text the reply must carry. It prints figures only: targets live in the issue, not here.
//!
//! `DESKHAND_BENCH_ROWS` overrides the number of list items of the generated Chromium page
//! (800: about 5,000 accessible objects in Chromium 156); `DESKHAND_BENCH_APPS=calc,firefox`
//! measures only the apps whose label has one of the words (the actions need mousepad and
//! gnome-calculator). It prints the tool definition's tokens too; `DESKHAND_BENCH_REPLIES=DIR`
//! writes each app's last observe reply there.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use deskhand_core::backend::{Accessibility, Windows};
use deskhand_core::model::WindowInfo;
use deskhand_core::{Config, Outcome, Reply, Session};
use deskhand_linux::LinuxBackend;
use deskhand_linux::atspi::Atspi;
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;

mod shared;
use shared::{Desk, TYPED_CHARS, median, mixed_text, ms};

const BIN: &str = env!("CARGO_BIN_EXE_deskhand");
/// Measured runs of each timed call, after the warm-up runs.
const RUNS: usize = 11;
const WARM_UP: usize = 2;
/// Typing is slow (about a character per X round trip), so fewer runs.
const TYPE_RUNS: usize = 3;
const DEFAULT_ROWS: usize = 800;
const GTK_START: Duration = Duration::from_secs(30);
const CHROMIUM_START: Duration = Duration::from_secs(60);
/// LibreOffice with a fresh profile, and Firefox building the tree of a long page, are slow to
/// start, the more so with every other app starting beside them on two cores.
const CALC_START: Duration = Duration::from_secs(90);
const FIREFOX_START: Duration = Duration::from_secs(120);
/// How long Calc may take to show its "Tip of the Day" once its main window is there.
const CALC_TIP: Duration = Duration::from_secs(20);
/// Typed into Calc's first cells before it is observed: two numbers and a formula over them.
const CALC_INPUT: &str = "5\n7\n=A1+A2\n";
/// The cells `CALC_INPUT` fills, with the values a person sees in them.
const CALC_CELLS: [(&str, &str); 3] = [("A1", "5"), ("A2", "7"), ("A3", "12")];
const PARAGRAPHS: usize = 2_000;
const PARAGRAPH_TITLE: &str = "Two Thousand Paragraphs";

/// The environment `deskhand desktop start --json` hands back.
struct DesktopEnv {
    env: Vec<(String, String)>,
    unset: Vec<String>,
    display: String,
}

fn start_desktop() -> DesktopEnv {
    let output = Command::new(BIN)
        .args(["desktop", "start", "--json", "--owner-pid"])
        .arg(std::process::id().to_string())
        .stdin(Stdio::null())
        .output()
        .expect("running deskhand desktop start");
    assert!(
        output.status.success(),
        "deskhand desktop start failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc: Value = serde_json::from_slice(&output.stdout).expect("desktop start --json");
    DesktopEnv {
        env: doc["env"]
            .as_object()
            .expect("env object")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("string").to_owned()))
            .collect(),
        unset: doc["unset"]
            .as_array()
            .expect("unset array")
            .iter()
            .map(|v| v.as_str().expect("string").to_owned())
            .collect(),
        display: doc["display"].as_str().unwrap_or_default().to_owned(),
    }
}

/// A started app, killed with its whole process group when dropped.
struct App {
    child: Child,
}

impl App {
    fn spawn(program: &str, args: &[&str]) -> std::io::Result<App> {
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group, so Chromium's helpers go with it.
            .process_group(0)
            .spawn()?;
        Ok(App { child })
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Ok(pgid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) with the negated id of a process group this bench created.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// The Chromium page: `rows` list items, each a link, a button and plain text.
fn big_page(rows: usize) -> String {
    let mut html = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Deskhand Big Page</title></head>\n<body>\n<h1>Inventory</h1>\n<ul>\n",
    );
    for i in 1..=rows {
        html.push_str(&format!(
            "<li><a href=\"#item-{i}\">Item {i}</a> <button type=\"button\">Open {i}</button> \
             stock {} units, shelf {}</li>\n",
            (i * 37) % 500,
            i % 40
        ));
    }
    html.push_str("</ul>\n</body></html>\n");
    html
}

/// The words of the Firefox page's paragraph `i`: distinct for every paragraph, so the reply's
/// text can be checked line by line.
fn paragraph_text(i: usize) -> String {
    format!(
        "Paragraph {i}: the quick brown fox jumps over the lazy dog while {} crows watch from fence {}.",
        (i * 7) % 97,
        i % 50
    )
}

/// The Firefox page: `PARAGRAPHS` plain paragraphs, nothing else.
fn paragraph_page() -> String {
    let mut html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{PARAGRAPH_TITLE}</title></head>\n<body>\n"
    );
    for i in 1..=PARAGRAPHS {
        html.push_str(&format!("<p>{}</p>\n", paragraph_text(i)));
    }
    html.push_str("</body></html>\n");
    html
}

/// A process's resident memory in kB, from `/proc/<pid>/status`.
fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// Nearest-rank 90th percentile.
fn p90(samples: &[f64]) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let rank = ((0.9 * s.len() as f64).ceil() as usize).clamp(1, s.len());
    s[rank - 1]
}

impl Desk {
    /// The `w` id and the window whose title satisfies `wanted`, waiting for it to appear.
    async fn window(
        &mut self,
        limit: Duration,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<(String, WindowInfo), String> {
        let started = Instant::now();
        loop {
            let listed = self.call(json!({"action": "windows"})).await?;
            let found = listed.data["windows"].as_array().and_then(|all| {
                all.iter().find_map(|w| {
                    let title = w["title"].as_str()?;
                    let id = w["id"].as_str()?;
                    wanted(title).then(|| (id.to_owned(), title.to_owned()))
                })
            });
            if let Some((id, title)) = found {
                let windows = self.backend.windows().await.map_err(|e| e.message)?;
                if let Some(info) = windows.into_iter().find(|w| w.title == title) {
                    return Ok((id, info));
                }
            }
            if started.elapsed() > limit {
                return Err(format!("no window appeared within {} s", limit.as_secs()));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Observes until the walked node and element counts hold still for three reads in a row
    /// with at least `min_elements` listed: the app has finished building its tree.
    async fn settle(
        &mut self,
        id: &str,
        min_elements: usize,
        limit: Duration,
    ) -> Result<(), String> {
        let started = Instant::now();
        let mut last = (0, 0);
        let mut same = 0;
        loop {
            let counts = match self.call(json!({"action": "observe", "target": id})).await {
                Ok(reply) => (
                    reply.data["nodes"].as_u64().unwrap_or(0),
                    reply.data["elements"].as_array().map_or(0, Vec::len),
                ),
                Err(_) => (0, 0),
            };
            if counts == last && counts.1 >= min_elements {
                same += 1;
                if same >= 2 {
                    return Ok(());
                }
            } else {
                same = 0;
            }
            last = counts;
            if started.elapsed() > limit {
                return Err(format!(
                    "its tree never settled within {} s (last {} nodes, {} elements)",
                    limit.as_secs(),
                    last.0,
                    last.1
                ));
            }
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
    }
}

struct Spec {
    label: &'static str,
    program: &'static str,
    args: Vec<String>,
    title: Box<dyn Fn(&str) -> bool>,
    min_elements: usize,
    start: Duration,
}

/// One app's observe figures.
struct Observed {
    label: &'static str,
    median: f64,
    p90: f64,
    /// D-Bus calls to the accessibility bus per observe, the mean over the measured runs.
    calls: f64,
    nodes: u64,
    elements: usize,
    /// What the tree had to list, when a listing limit cut the elements short.
    elements_total: Option<u64>,
    tokens: usize,
    partial: String,
    /// What being observed costs the app's memory.
    rss: Option<Rss>,
    breakdown: Breakdown,
    /// The last measured reply, for the checks and the token breakdown.
    reply: Reply,
}

/// The resident memory of the window's process, in kB.
struct Rss {
    before_runs: u64,
    after_runs: u64,
    /// After the breakdown's rounds too (as many observes again, and as many tree reads).
    after_breakdown: u64,
}

/// Where one observation's time goes, medians in ms.
struct Breakdown {
    windows: f64,
    window: f64,
    frames: f64,
    tree: f64,
    observe: f64,
    /// observe - window() - tree(), paired per round: rendering, refs, the reply.
    rest: f64,
}

/// A window found and settled, ready to measure.
struct Ready {
    spec_index: usize,
    id: String,
    info: WindowInfo,
    /// Calc: soffice's resident memory before its main window was first observed, in kB.
    rss_unobserved_kb: Option<u64>,
}

async fn observe_app(
    desk: &mut Desk,
    atspi: &Atspi,
    tokenizer: &tiktoken_rs::CoreBPE,
    label: &'static str,
    ready: &Ready,
) -> Result<Observed, String> {
    let args = json!({"action": "observe", "target": ready.id});
    let rss_before = ready.info.pid.and_then(rss_kb);
    for _ in 0..WARM_UP {
        desk.call(args.clone()).await?;
    }
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    let calls_before = desk.backend.accessibility_calls();
    for _ in 0..RUNS {
        let (reply, took) = desk.timed(args.clone()).await?;
        times.push(took);
        last = Some(reply);
    }
    let calls = (desk.backend.accessibility_calls() - calls_before) as f64 / RUNS as f64;
    let rss_after = ready.info.pid.and_then(rss_kb);
    let reply = last.expect("at least one run");
    let partial = reply.data["partial"]
        .as_array()
        .map(|why| {
            why.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .filter(|why| !why.is_empty())
        .map_or_else(|| "no".to_owned(), |why| format!("yes: {why}"));
    let breakdown = breakdown(desk, atspi, &ready.info, &ready.id).await?;
    let rss = match (rss_before, rss_after, ready.info.pid.and_then(rss_kb)) {
        (Some(before_runs), Some(after_runs), Some(after_breakdown)) => Some(Rss {
            before_runs,
            after_runs,
            after_breakdown,
        }),
        _ => None,
    };
    Ok(Observed {
        label,
        median: median(&times),
        p90: p90(&times),
        calls,
        nodes: reply.data["nodes"].as_u64().unwrap_or(0),
        elements: reply.data["elements"].as_array().map_or(0, Vec::len),
        elements_total: reply.data["elements_total"].as_u64(),
        tokens: tokenizer.encode_ordinary(&reply.text).len(),
        partial,
        rss,
        breakdown,
        reply,
    })
}

/// Where a reply's tokens go.
struct TokenSplit {
    /// The header line and the fence after it.
    header: usize,
    /// The element lines by role, the costliest role first: (role, lines, tokens).
    roles: Vec<(String, usize, usize)>,
    /// The one line that costs the most, with its tokens.
    costliest: (usize, String),
}

fn token_split(tokenizer: &tiktoken_rs::CoreBPE, text: &str) -> TokenSplit {
    let count = |line: &str| tokenizer.encode_ordinary(&format!("{line}\n")).len();
    let mut lines = text.lines();
    let header = lines.by_ref().take(2).map(count).sum();
    let mut roles: Vec<(String, usize, usize)> = Vec::new();
    let mut costliest = (0, String::new());
    for line in lines {
        // `  e12 button "Save" …`: the role follows the ref; anything else is a note.
        let mut words = line.split_whitespace();
        let role = match (words.next(), words.next()) {
            (Some(reference), Some(role))
                if reference.len() > 1
                    && reference.starts_with('e')
                    && reference[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                role.to_owned()
            }
            _ => "(notes)".to_owned(),
        };
        let tokens = count(line);
        if tokens > costliest.0 {
            costliest = (tokens, line.trim().to_owned());
        }
        match roles.iter_mut().find(|(r, _, _)| *r == role) {
            Some((_, n, t)) => {
                *n += 1;
                *t += tokens;
            }
            None => roles.push((role, 1, tokens)),
        }
    }
    roles.sort_by_key(|(_, _, tokens)| std::cmp::Reverse(*tokens));
    TokenSplit {
        header,
        roles,
        costliest,
    }
}

/// The paragraph lines of a Firefox observation, in order: the paragraph's number (0 when the
/// line is no paragraph of the page) and whether the line carries exactly its text.
fn listed_paragraphs(data: &Value) -> Vec<(usize, bool)> {
    data["elements"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|e| e["role"] == "paragraph")
                .map(|e| {
                    let value = e["value"].as_str().unwrap_or_default();
                    let number = value
                        .strip_prefix("Paragraph ")
                        .and_then(|rest| rest.split_once(':'))
                        .and_then(|(n, _)| n.parse().ok())
                        .unwrap_or(0);
                    (number, number > 0 && value == paragraph_text(number))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Times the parts of an observation separately, in rounds: the observe itself, listing windows,
/// re-reading the one window (what resolving a target does), the accessibility registry plus the
/// process's frames (the D-Bus part of matching the window to its frame, on a second bus
/// connection) and the backend's tree (frame match + walk).
async fn breakdown(
    desk: &mut Desk,
    atspi: &Atspi,
    info: &WindowInfo,
    id: &str,
) -> Result<Breakdown, String> {
    let (mut windows, mut window, mut frames, mut tree, mut observe, mut rest) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for round in 0..WARM_UP + RUNS {
        let (_, observed) = desk
            .timed(json!({"action": "observe", "target": id}))
            .await?;

        let (_, listed) = desk.timed(json!({"action": "windows"})).await?;

        let started = Instant::now();
        desk.backend
            .window(info.handle)
            .await
            .map_err(|e| e.message)?;
        let reread = ms(started.elapsed());

        let started = Instant::now();
        let apps = atspi.applications().await.map_err(|e| e.to_string())?;
        for app in apps.iter().filter(|a| a.pid.is_some() && a.pid == info.pid) {
            atspi.frames(app).await.map_err(|e| e.to_string())?;
        }
        let framed = ms(started.elapsed());

        let started = Instant::now();
        desk.backend.tree(info).await.map_err(|e| e.message)?;
        let walked = ms(started.elapsed());

        if round >= WARM_UP {
            observe.push(observed);
            windows.push(listed);
            window.push(reread);
            frames.push(framed);
            tree.push(walked);
            rest.push(observed - reread - walked);
        }
    }
    Ok(Breakdown {
        windows: median(&windows),
        window: median(&window),
        frames: median(&frames),
        tree: median(&tree),
        observe: median(&observe),
        rest: median(&rest),
    })
}

/// How many accessible objects the window's frame really has, off-screen content included,
/// counted with nothing but `GetChildren` on a bus connection of its own (independent of
/// deskhand's walk, which does not descend into hidden or off-screen subtrees); and how long
/// that takes.
async fn count_all(atspi: &Atspi, info: &WindowInfo) -> Result<(usize, f64), String> {
    let apps = atspi.applications().await.map_err(|e| e.to_string())?;
    let mut root = None;
    for app in apps.iter().filter(|a| a.pid.is_some() && a.pid == info.pid) {
        let frames = atspi.frames(app).await.map_err(|e| e.to_string())?;
        if let Some(frame) = frames.into_iter().find(|f| f.name == info.title) {
            root = Some(frame.object);
        }
    }
    let root = root.ok_or("no accessible frame has the window's title")?;
    let session = zbus::Connection::session()
        .await
        .map_err(|e| e.to_string())?;
    let address: String = session
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.a11y.Bus"),
            "GetAddress",
            &(),
        )
        .await
        .and_then(|reply| reply.body().deserialize())
        .map_err(|e| e.to_string())?;
    let bus = zbus::connection::Builder::address(address.as_str())
        .map(|b| b.method_timeout(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut count = 0;
    let mut level = vec![(root.bus, root.path)];
    while !level.is_empty() {
        count += level.len();
        let mut next = Vec::new();
        for chunk in level.chunks(64) {
            let replies = futures::future::join_all(chunk.iter().map(|(name, path)| {
                bus.call_method(
                    Some(name.as_str()),
                    path.as_str(),
                    Some("org.a11y.atspi.Accessible"),
                    "GetChildren",
                    &(),
                )
            }))
            .await;
            for reply in replies.into_iter().flatten() {
                let children: Vec<(String, zbus::zvariant::OwnedObjectPath)> =
                    reply.body().deserialize().unwrap_or_default();
                next.extend(
                    children
                        .into_iter()
                        .filter(|(name, path)| {
                            !name.is_empty() && path.as_str() != "/org/a11y/atspi/null"
                        })
                        .map(|(name, path)| (name, path.as_str().to_owned())),
                );
            }
        }
        level = next;
    }
    Ok((count, ms(started.elapsed())))
}

/// Reads the clipboard of the desktop, as a person pasting would.
fn clipboard() -> Option<String> {
    let output = Command::new("timeout")
        .args(["5", "xclip", "-o", "-selection", "clipboard"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The characters `wanted` has more of than `got`, with how many are short: `ε×12 ω×3`.
fn missing(wanted: &str, got: &str) -> String {
    let mut short: Vec<(char, i64)> = Vec::new();
    for c in wanted.chars() {
        match short.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => short.push((c, 1)),
        }
    }
    for c in got.chars() {
        if let Some((_, n)) = short.iter_mut().find(|(k, _)| *k == c) {
            *n -= 1;
        }
    }
    let listed: Vec<String> = short
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| format!("{c}×{n}"))
        .collect();
    if listed.is_empty() {
        "none (order or extra characters differ)".to_owned()
    } else {
        listed.join(" ")
    }
}

fn activate(title: &str) -> bool {
    Command::new("wmctrl")
        .args(["-F", "-a", title])
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Raises and focuses the window, as a person would before typing into it.
async fn focus(desk: &Desk, handle: u64) -> Result<(), String> {
    for _ in 0..40 {
        let Some(now) = desk.backend.window(handle).await.map_err(|e| e.message)? else {
            return Err("mousepad's window is gone".to_owned());
        };
        if now.focused {
            return Ok(());
        }
        activate(&now.title);
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    Err("mousepad's window never took the focus".to_owned())
}

struct Typed {
    times: Vec<f64>,
    exact: usize,
    notes: Vec<String>,
}

/// Types 1,000 mixed characters into mousepad `TYPE_RUNS` times, reading each back through the
/// clipboard and clearing the editor between runs.
async fn typing(desk: &mut Desk, info: &WindowInfo) -> Result<Typed, String> {
    focus(desk, info.handle).await?;
    desk.call(json!({"action": "press", "keys": "ctrl+a Delete"}))
        .await?;
    let mut typed = Typed {
        times: Vec::new(),
        exact: 0,
        notes: Vec::new(),
    };
    for run in 0..TYPE_RUNS {
        focus(desk, info.handle).await?;
        let text = mixed_text(run * 7);
        let (reply, took) = desk.timed(json!({"action": "type", "text": text})).await?;
        typed.times.push(took);
        if reply.outcome != Outcome::Done {
            typed
                .notes
                .push(format!("run {}: {}", run + 1, reply.text.trim_end()));
        }
        desk.call(json!({"action": "press", "keys": "ctrl+a ctrl+c"}))
            .await?;
        let mut got = None;
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            got = clipboard();
            if got.as_deref() == Some(text.as_str()) {
                break;
            }
        }
        match got {
            Some(got) if got == text => typed.exact += 1,
            Some(got) => {
                let at = got
                    .chars()
                    .zip(text.chars())
                    .position(|(a, b)| a != b)
                    .unwrap_or_else(|| got.chars().count().min(text.chars().count()));
                typed.notes.push(format!(
                    "run {}: {} chars back, first difference at char {at} (wanted {:?}, got {:?}); wanted but missing: {}",
                    run + 1,
                    got.chars().count(),
                    text.chars().nth(at).unwrap_or(' '),
                    got.chars().nth(at).unwrap_or(' '),
                    missing(&text, &got)
                ));
            }
            None => typed
                .notes
                .push(format!("run {}: the clipboard could not be read", run + 1)),
        }
        desk.call(json!({"action": "press", "keys": "ctrl+a Delete"}))
            .await?;
    }
    Ok(typed)
}

fn main() {
    let started_at = command_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]);
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into());
    let nproc = command_line("nproc", &[]);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_owned())
        })
        .unwrap_or_default();

    let desktop = start_desktop();
    // SAFETY: nothing but this main thread exists yet (no runtime, no thread spawned), so no
    // other thread can read the environment while it changes.
    unsafe {
        for name in &desktop.unset {
            std::env::remove_var(name);
        }
        for (key, value) in &desktop.env {
            std::env::set_var(key, value);
        }
    }

    let scratch =
        Scratch(std::env::temp_dir().join(format!("deskhand-bench-{}", std::process::id())));
    std::fs::create_dir_all(&scratch.0).expect("scratch dir");
    let rows = std::env::var("DESKHAND_BENCH_ROWS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(DEFAULT_ROWS);
    let files = Files {
        page: scratch.0.join("big_page.html"),
        chromium_profile: scratch.0.join("chromium-profile"),
        editor_file: scratch.0.join("bench-typing.txt"),
        calc_profile: scratch.0.join("libreoffice-profile"),
        paragraphs: scratch.0.join("paragraphs.html"),
        firefox_profile: scratch.0.join("firefox-profile"),
    };
    std::fs::write(&files.page, big_page(rows)).expect("writing the page");
    std::fs::write(&files.paragraphs, paragraph_page()).expect("writing the paragraphs");
    // Fresh, empty profiles: nothing of the user's settings, sessions or extensions.
    for profile in [
        &files.chromium_profile,
        &files.calc_profile,
        &files.firefox_profile,
    ] {
        std::fs::create_dir_all(profile).expect("profile dir");
    }

    println!("# deskhand desktop bench");
    println!(
        "{started_at} · nproc {nproc} · load average at start {load} · {cpu} · display {} (Xvfb 1920x1080 + openbox) · bench profile (release)",
        desktop.display
    );
    println!();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(run(&files, rows));
    drop(runtime);
    drop(scratch);
}

/// The files the apps open, in the bench's scratch directory.
struct Files {
    page: PathBuf,
    chromium_profile: PathBuf,
    editor_file: PathBuf,
    calc_profile: PathBuf,
    paragraphs: PathBuf,
    firefox_profile: PathBuf,
}

fn specs(files: &Files) -> Vec<Spec> {
    let editor_name = files
        .editor_file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    vec![
        Spec {
            label: "gtk3-widget-factory (GTK3)",
            program: "gtk3-widget-factory",
            args: vec![],
            title: Box::new(|t| t == "gtk3-widget-factory"),
            min_elements: 20,
            start: GTK_START,
        },
        Spec {
            label: "gnome-calculator (GTK4)",
            program: "gnome-calculator",
            args: vec![],
            title: Box::new(|t| t == "Calculator"),
            min_elements: 20,
            start: GTK_START,
        },
        Spec {
            label: "gtk4-widget-factory (GTK4)",
            program: "gtk4-widget-factory",
            args: vec![],
            title: Box::new(|t| t == "GTK Widget Factory"),
            min_elements: 50,
            start: GTK_START,
        },
        Spec {
            label: "mousepad (GTK3)",
            program: "mousepad",
            args: vec![files.editor_file.to_string_lossy().into_owned()],
            title: Box::new(move |t| t.contains(&editor_name) && t.ends_with("Mousepad")),
            min_elements: 5,
            start: GTK_START,
        },
        Spec {
            label: "chromium, big page",
            program: "chromium",
            args: deskhand_testkit::CHROMIUM_FLAGS
                .iter()
                .map(|s| s.to_string())
                .chain([
                    format!("--user-data-dir={}", files.chromium_profile.display()),
                    "--window-size=1200,900".to_owned(),
                    format!("file://{}", files.page.display()),
                ])
                .collect(),
            title: Box::new(|t| t == "Deskhand Big Page - Chromium"),
            min_elements: 100,
            start: CHROMIUM_START,
        },
        Spec {
            label: "LibreOffice Calc, 3 cells filled",
            program: "soffice",
            args: vec![
                "--norestore".to_owned(),
                "--calc".to_owned(),
                format!(
                    "-env:UserInstallation=file://{}",
                    files.calc_profile.display()
                ),
            ],
            title: Box::new(|t| t.ends_with("LibreOffice Calc")),
            min_elements: 50,
            start: CALC_START,
        },
        Spec {
            label: "Firefox ESR, 2,000 paragraphs",
            program: "firefox-esr",
            args: vec![
                "--new-instance".to_owned(),
                "--profile".to_owned(),
                files.firefox_profile.to_string_lossy().into_owned(),
                format!("file://{}", files.paragraphs.display()),
            ],
            title: Box::new(|t| t.starts_with(PARAGRAPH_TITLE)),
            min_elements: 20,
            start: FIREFOX_START,
        },
    ]
}

/// What the tool definition costs: it goes with every model request.
fn tool_definition(tokenizer: &tiktoken_rs::CoreBPE) {
    let tool = deskhand_mcp::tool();
    let count = |text: &str| tokenizer.encode_ordinary(text).len();
    let whole = serde_json::to_string(&tool).expect("the tool serializes");
    let schema = serde_json::to_string(&*tool.input_schema).expect("the schema serializes");
    println!("## the tool definition (o200k tokens of the compact JSON that tools/list sends)");
    println!();
    println!(
        "{} tokens in all: the description {}, the input schema {} ({} characters)",
        count(&whole),
        count(tool.description.as_deref().unwrap_or_default()),
        count(&schema),
        schema.chars().count()
    );
    let by_handle = serde_json::to_string(&deskhand_mcp::tool_with_desktops_by_handle())
        .expect("the tool serializes");
    println!(
        "{} tokens as a server of desktops by handle lists it (`desktop` and `end_desktop` added)",
        count(&by_handle)
    );
    println!();
}

async fn run(files: &Files, rows: usize) {
    // `DESKHAND_BENCH_APPS=calc,firefox` measures only the apps whose label has one of the words.
    let only: Option<Vec<String>> = std::env::var("DESKHAND_BENCH_APPS")
        .ok()
        .map(|apps| apps.split(',').map(|a| a.trim().to_lowercase()).collect());
    let specs: Vec<Spec> = specs(files)
        .into_iter()
        .filter(|spec| {
            only.as_ref()
                .is_none_or(|only| only.iter().any(|o| spec.label.to_lowercase().contains(o)))
        })
        .collect();
    let tokenizer = tiktoken_rs::o200k_base().expect("the o200k_base vocabulary");
    tool_definition(&tokenizer);
    let mut desk = Desk {
        backend: LinuxBackend::connect().expect("connecting to the bench desktop"),
        session: Session::default(),
        config: Config::default(),
    };
    let atspi = Atspi::connect(Duration::from_millis(1500))
        .await
        .expect("connecting to the accessibility bus");

    // Every app is started first, so none starts while another is measured.
    let mut apps = Vec::new();
    let mut ready = Vec::new();
    let mut failed: Vec<(usize, String)> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let args: Vec<&str> = spec.args.iter().map(String::as_str).collect();
        match App::spawn(spec.program, &args) {
            Ok(app) => apps.push(app),
            Err(err) => failed.push((i, format!("could not start {}: {err}", spec.program))),
        }
    }
    for (i, spec) in specs.iter().enumerate() {
        if failed.iter().any(|(f, _)| *f == i) {
            continue;
        }
        let found = async {
            let (id, info) = desk.window(spec.start, &*spec.title).await?;
            // Calc is filled in and its memory read before anything observes its main window.
            let rss_unobserved_kb = if spec.program == "soffice" {
                prepare_calc(&mut desk, &id).await?;
                info.pid.and_then(rss_kb)
            } else {
                None
            };
            desk.settle(&id, spec.min_elements, spec.start).await?;
            Ok::<_, String>(Ready {
                spec_index: i,
                id,
                info,
                rss_unobserved_kb,
            })
        }
        .await;
        match found {
            Ok(r) => ready.push(r),
            Err(err) => failed.push((i, err)),
        }
    }

    let mut observed = Vec::new();
    for r in &ready {
        let spec = &specs[r.spec_index];
        match observe_app(&mut desk, &atspi, &tokenizer, spec.label, r).await {
            Ok(o) => observed.push(o),
            Err(err) => failed.push((r.spec_index, err)),
        }
    }

    println!(
        "## observe ({WARM_UP} warm-up + {RUNS} runs per app, in-process: one runtime, one LinuxBackend, one Session)"
    );
    println!();
    println!(
        "| app | median ms | p90 ms | D-Bus calls per observe | nodes walked | elements listed | tokens (o200k) | tokens/element | app RSS growth over the {} observes | partial |",
        WARM_UP + RUNS
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for o in &observed {
        println!(
            "| {} | {:.1} | {:.1} | {:.0} | {} | {} | {} | {:.1} | {} | {} |",
            o.label,
            o.median,
            o.p90,
            o.calls,
            o.nodes,
            o.elements_total.map_or_else(
                || o.elements.to_string(),
                |total| format!("{} of {total}", o.elements)
            ),
            o.tokens,
            o.tokens as f64 / o.elements.max(1) as f64,
            o.rss.as_ref().map_or_else(
                || "?".to_owned(),
                |rss| format!("{:+.1} MB", mb(rss.after_runs) - mb(rss.before_runs))
            ),
            o.partial
        );
    }
    for (i, err) in &failed {
        println!("| {} | failed: {err} | | | | | | | | |", specs[*i].label);
    }
    let tokens: usize = observed.iter().map(|o| o.tokens).sum();
    let elements: usize = observed.iter().map(|o| o.elements).sum();
    println!();
    println!(
        "All {} apps measured together: {tokens} tokens for {elements} listed elements, {:.1} tokens per element.",
        observed.len(),
        tokens as f64 / elements.max(1) as f64
    );
    println!();
    println!("## where an observe's time goes (medians of {RUNS} rounds, ms)");
    println!();
    println!(
        "Each round times, back to back: `observe`; the `windows` action (X listing + app names from the \
         accessibility registry); `window()`, re-reading the one window as resolving a target does; `frames`, \
         the registry plus the process's frames (the D-Bus part of matching the window to its frame); \
         `tree()`, the backend's frame match + walk; `rest` = observe - window() - tree() in the same round \
         (rendering, refs, the reply; noise can make it negative)."
    );
    println!();
    println!("| app | observe | windows | window() | frames | tree() | rest |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for o in &observed {
        let b = &o.breakdown;
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            o.label, b.observe, b.windows, b.window, b.frames, b.tree, b.rest
        );
    }
    live_trees(&ready, &specs).await;
    println!();
    println!("## where the tokens go (the last measured reply of each app, o200k)");
    println!();
    println!(
        "The header is the first line and the fence after it; the roles are those of the element lines, \
         the three that cost the most tokens: lines, tokens, tokens per line; then the line that costs the most."
    );
    println!();
    println!("| app | header | by role | costliest line |");
    println!("|---|---:|---|---|");
    // `DESKHAND_BENCH_REPLIES=DIR` keeps each app's last reply whole, to read where its tokens go.
    let replies_dir = std::env::var_os("DESKHAND_BENCH_REPLIES").map(PathBuf::from);
    for o in &observed {
        if let Some(dir) = &replies_dir {
            let file = dir.join(format!("{}.txt", o.label.replace(['/', ' ', ','], "_")));
            if let Err(err) =
                std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&file, &o.reply.text))
            {
                println!("could not keep the reply in {}: {err}", file.display());
            }
        }
        let split = token_split(&tokenizer, &o.reply.text);
        let top: Vec<String> = split
            .roles
            .iter()
            .take(3)
            .map(|(role, lines, tokens)| {
                format!(
                    "{role}: {lines} lines, {tokens} tokens, {:.1} per line",
                    *tokens as f64 / (*lines).max(1) as f64
                )
            })
            .collect();
        println!(
            "| {} | {} | {} | {} tokens: `{}` |",
            o.label,
            split.header,
            top.join(" · "),
            split.costliest.0,
            // A bar inside the line would end its table cell.
            split.costliest.1.replace('|', "\\|")
        );
    }
    println!();

    // The measured window of the app `program` and its figures, if it got that far.
    let measured = |program: &str| {
        ready
            .iter()
            .find(|r| specs[r.spec_index].program == program)
            .map(|r| {
                let label = specs[r.spec_index].label;
                (r, observed.iter().find(|o| o.label == label))
            })
    };

    if let Some((r, o)) = measured("chromium") {
        match count_all(&atspi, &r.info).await {
            Ok((nodes, took)) => println!(
                "Chromium page: {rows} list items (a link, a button and text each). Its window has {nodes} accessible objects in all \
                 (GetChildren alone, off-screen included, {took:.0} ms); observe walked {} of them: off-screen items are counted, not descended into.",
                o.map_or_else(|| "?".to_owned(), |o| o.nodes.to_string())
            ),
            Err(err) => {
                println!("Chromium page: {rows} list items; counting its objects failed: {err}")
            }
        }
        println!();
    }

    println!("## LibreOffice Calc");
    println!();
    match measured("soffice") {
        Some((r, Some(o))) => {
            let cells: Vec<String> = CALC_CELLS
                .iter()
                .map(|(cell, wanted)| {
                    let got = o.reply.data["elements"].as_array().and_then(|all| {
                        all.iter()
                            .find(|e| e["role"] == "cell" && e["name"] == *cell)
                            .map(|e| e["value"].as_str().unwrap_or_default())
                    });
                    match got {
                        Some(got) if got == *wanted => format!("{cell} = \"{got}\""),
                        Some(got) => format!("{cell} = \"{got}\" (wanted \"{wanted}\")"),
                        None => format!("{cell} not listed (wanted \"{wanted}\")"),
                    }
                })
                .collect();
            println!(
                "- typed {CALC_INPUT:?} into the new sheet; the reply lists {}",
                cells.join(", ")
            );
            let process = r.info.pid.map_or_else(
                || "no pid".to_owned(),
                |pid| {
                    let comm =
                        std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                    format!("pid {pid}, {}", comm.trim())
                },
            );
            match (r.rss_unobserved_kb, &o.rss) {
                (Some(unobserved), Some(rss)) => println!(
                    "- RSS of the window's process ({process}): {:.1} MB before its main window was first observed; \
                     {:.1} MB once its tree had settled (the bench's first observes); {:.1} MB after the {WARM_UP} warm-up + {RUNS} measured \
                     observes; {:.1} MB after the breakdown's {} more observes and as many tree reads. Growth: {:+.1} MB over the \
                     measured observes, {:+.1} MB from before the first observe to the end.",
                    mb(unobserved),
                    mb(rss.before_runs),
                    mb(rss.after_runs),
                    mb(rss.after_breakdown),
                    WARM_UP + RUNS,
                    mb(rss.after_runs) - mb(rss.before_runs),
                    mb(rss.after_breakdown) - mb(unobserved)
                ),
                _ => println!("- RSS of the window's process ({process}) could not be read"),
            }
        }
        Some((_, None)) => println!("- its window settled but could not be measured"),
        None => println!("- did not start: see the observe table"),
    }
    println!();

    println!("## Firefox, {PARAGRAPHS} paragraphs");
    println!();
    match measured("firefox-esr") {
        Some((r, Some(o))) => {
            let paragraphs = listed_paragraphs(&o.reply.data);
            let exact = paragraphs.iter().filter(|(_, exact)| *exact).count();
            // The visible paragraphs are the first ones, each whole: 1..=n, nothing skipped.
            let in_order = paragraphs
                .iter()
                .enumerate()
                .all(|(at, (number, _))| *number == at + 1);
            println!(
                "- {} paragraph lines listed ({}), {exact} with exactly their paragraph's text; {} hidden elements counted, not listed",
                paragraphs.len(),
                match (paragraphs.first(), paragraphs.last(), in_order) {
                    (Some((first, _)), Some((last, _)), true) => {
                        format!("paragraphs {first}–{last}, none skipped")
                    }
                    (Some(_), Some(_), false) => format!(
                        "not the first ones in order: {:?}",
                        paragraphs.iter().map(|(n, _)| *n).collect::<Vec<_>>()
                    ),
                    _ => "none".to_owned(),
                },
                o.reply.data["hidden"]
            );
            if let Some(line) = o
                .reply
                .text
                .lines()
                .find(|line| line.contains(" paragraph value="))
            {
                println!("- a paragraph's line: `{}`", line.trim());
            }
            match desk
                .call(json!({"action": "observe", "target": r.id, "hidden": true}))
                .await
            {
                Ok(all) => {
                    let hidden = all.data["elements"].as_array().map_or(0, |all| {
                        all.iter()
                            .filter(|e| {
                                e["role"] == "paragraph"
                                    && e["states"]
                                        .as_array()
                                        .is_some_and(|s| s.iter().any(|s| s == "hidden"))
                            })
                            .count()
                    });
                    println!(
                        "- `hidden: true` lists {hidden} paragraphs marked hidden; the other {} paragraphs are neither listed nor counted hidden",
                        PARAGRAPHS.saturating_sub(paragraphs.len() + hidden)
                    );
                }
                Err(err) => println!("- observe with `hidden: true` failed: {err}"),
            }
            match count_all(&atspi, &r.info).await {
                Ok((nodes, took)) => println!(
                    "- its window has {nodes} accessible objects in all (GetChildren alone, off-screen included, {took:.0} ms); observe walked {}",
                    o.nodes
                ),
                Err(err) => println!("- counting its objects failed: {err}"),
            }
        }
        Some((_, None)) => println!("- its window settled but could not be measured"),
        None => println!("- did not start: see the observe table"),
    }
    println!();

    // Pixels.
    let mut shots = Vec::new();
    let mut shot_facts = String::new();
    let mut zooms = Vec::new();
    for round in 0..WARM_UP + RUNS {
        match desk
            .timed(json!({"action": "screenshot", "target": "screen"}))
            .await
        {
            Ok((reply, took)) => {
                if round >= WARM_UP {
                    shots.push(took);
                }
                shot_facts = format!(
                    "PNG {} bytes · scaled to {}x{}",
                    reply.image.as_ref().map_or(0, Vec::len),
                    reply.data["width"],
                    reply.data["height"]
                );
            }
            Err(err) => shot_facts = format!("failed: {err}"),
        }
        // 300x200 px of the 1920x1080 screen.
        match desk
            .timed(json!({"action": "zoom", "target": "screen", "region": [100.0, 100.0, 256.25, 285.19]}))
            .await
        {
            Ok((reply, took)) => {
                if round >= WARM_UP {
                    zooms.push(took);
                }
                if round == 0 {
                    shot_facts.push_str(&format!(
                        " · zoom region {}x{} px, PNG {} bytes",
                        reply.data["width"],
                        reply.data["height"],
                        reply.image.as_ref().map_or(0, Vec::len)
                    ));
                }
            }
            Err(err) => shot_facts.push_str(&format!(" · zoom failed: {err}")),
        }
    }
    println!();
    println!("## actions (medians of {RUNS} runs after {WARM_UP} warm-up)");
    println!();
    println!("| action | median ms | p90 ms | notes |");
    println!("|---|---:|---:|---|");
    println!(
        "| screenshot, 1920x1080 screen | {:.1} | {:.1} | {shot_facts} |",
        median(&shots),
        p90(&shots)
    );
    println!(
        "| zoom, 300x200 px region | {:.1} | {:.1} | native resolution |",
        median(&zooms),
        p90(&zooms)
    );

    // Click by ref on the calculator's "7"; its medians, action and pointer, for the overlay's.
    let mut overlay_off = None;
    match ready
        .iter()
        .find(|r| specs[r.spec_index].program == "gnome-calculator")
    {
        Some(r) => match click_seven(&mut desk, &r.id).await {
            Ok(clicks) => {
                overlay_off = Some((median(&clicks.by_action), median(&clicks.by_pointer)));
                println!(
                    "| click by ref, gnome-calculator \"7\" and \"8\" in turn | {:.1} | {:.1} | path: {} |",
                    median(&clicks.by_action),
                    p90(&clicks.by_action),
                    clicks.path
                );
                println!(
                    "| right-click by ref, the same buttons | {:.1} | {:.1} | path: pointer |",
                    median(&clicks.by_pointer),
                    p90(&clicks.by_pointer)
                );
                println!(
                    "| of each, confirming the ref still names its element | {:.2} | {:.2} | role and name asked again |",
                    median(&clicks.identity),
                    p90(&clicks.identity)
                );
                println!(
                    "| of a pointer click, the hit test at the element's center | {:.2} | {:.2} | its parent's element at the point |",
                    median(&clicks.hit_test),
                    p90(&clicks.hit_test)
                );
            }
            Err(err) => println!("| click by ref | – | – | failed: {err} |"),
        },
        None => println!("| click by ref | – | – | gnome-calculator did not start |"),
    }
    // The same clicks with the overlay that shows a person where the agent acts: what it adds
    // to an action is the cost of showing it.
    if let Some(r) = ready
        .iter()
        .find(|r| specs[r.spec_index].program == "gnome-calculator")
    {
        let shown = desk.backend.show_overlay();
        match (shown, click_seven(&mut desk, &r.id).await) {
            (Ok(()), Ok(clicks)) => {
                println!(
                    "| click by ref, the same, overlay on | {:.1} | {:.1} | path: {} |",
                    median(&clicks.by_action),
                    p90(&clicks.by_action),
                    clicks.path
                );
                println!(
                    "| right-click by ref, the same, overlay on | {:.1} | {:.1} | path: pointer |",
                    median(&clicks.by_pointer),
                    p90(&clicks.by_pointer)
                );
                if let Some((by_action, by_pointer)) = overlay_off {
                    println!(
                        "| of a click by ref, what the overlay adds (median on − median off) | {:+.2} | – | right-click: {:+.2} ms |",
                        median(&clicks.by_action) - by_action,
                        median(&clicks.by_pointer) - by_pointer
                    );
                }
            }
            (Err(why), _) => println!("| click by ref, overlay on | – | – | no overlay: {why} |"),
            (_, Err(err)) => println!("| click by ref, overlay on | – | – | failed: {err} |"),
        }
    }

    // Typing into mousepad.
    match ready
        .iter()
        .find(|r| specs[r.spec_index].program == "mousepad")
    {
        Some(r) => match typing(&mut desk, &r.info).await {
            Ok(typed) => {
                let m = median(&typed.times);
                println!(
                    "| type {TYPED_CHARS} mixed-Unicode chars into mousepad ({TYPE_RUNS} runs) | {m:.0} | {:.0} | {:.0} chars/s · arrived exactly (read back via the clipboard): {}/{TYPE_RUNS} |",
                    p90(&typed.times),
                    TYPED_CHARS as f64 / (m / 1000.0),
                    typed.exact,
                );
                if !typed.notes.is_empty() {
                    println!();
                    for note in &typed.notes {
                        println!("- typing {note}");
                    }
                }
            }
            Err(err) => println!("| type into mousepad | – | – | failed: {err} |"),
        },
        None => println!("| type into mousepad | – | – | mousepad did not start |"),
    }
    println!();
    drop(apps);
}

/// Closes Calc's "Tip of the Day" by clicking its OK by ref, then types `CALC_INPUT` into the
/// new sheet, whose cursor starts in A1; the main window itself is not observed.
async fn prepare_calc(desk: &mut Desk, id: &str) -> Result<(), String> {
    let is_tip = |t: &str| t.starts_with("Tip of the Day");
    // A LibreOffice that shows no tip at its first start is fine too: it only has nothing to close.
    if let Ok((tip, _)) = desk.window(CALC_TIP, &is_tip).await {
        let reply = desk
            .call(json!({"action": "observe", "target": tip}))
            .await?;
        let ok = reply.data["elements"]
            .as_array()
            .and_then(|all| {
                all.iter()
                    .find(|e| e["role"] == "button" && e["name"] == "OK")
                    .and_then(|e| e["ref"].as_str())
            })
            .ok_or("no button \"OK\" in Calc's Tip of the Day")?
            .to_owned();
        desk.call(json!({"action": "click", "ref": ok})).await?;
        // Typing while the dialog is still up would type into the dialog.
        let started = Instant::now();
        loop {
            let windows = desk.backend.windows().await.map_err(|e| e.message)?;
            if !windows.iter().any(|w| is_tip(&w.title)) {
                break;
            }
            if started.elapsed() > CALC_TIP {
                return Err("Calc's Tip of the Day did not close on OK".to_owned());
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
    desk.call(json!({"action": "type", "target": id, "text": CALC_INPUT}))
        .await?;
    Ok(())
}

/// What clicks by ref cost, in ms per click or check.
struct Clicks {
    by_action: Vec<f64>,
    path: String,
    by_pointer: Vec<f64>,
    /// The check, before any action by ref, that the ref still names its element.
    identity: Vec<f64>,
    /// The check, before a pointer click by ref, that the point reaches the element.
    hit_test: Vec<f64>,
}

/// Observes the calculator once, then times plain clicks and right-clicks by ref on its "7"
/// and "8" buttons, and the checks each makes before it acts.
async fn click_seven(desk: &mut Desk, id: &str) -> Result<Clicks, String> {
    let reply = desk
        .call(json!({"action": "observe", "target": id}))
        .await?;
    let button = |name: &str| {
        reply.data["elements"]
            .as_array()
            .and_then(|all| {
                all.iter()
                    .find(|e| e["role"] == "button" && e["name"] == name)
                    .and_then(|e| e["ref"].as_str())
            })
            .map(str::to_owned)
            .ok_or(format!(
                "no button \"{name}\" in the calculator's observation"
            ))
    };
    // The same button is activated again only 400 ms after its last activation (GTK ignores a
    // repeat while it shows the previous one): the pause before each click keeps that wait out
    // of the timing, which would measure it instead of the click.
    let keys = [button("7")?, button("8")?];
    let pause = || tokio::time::sleep(Duration::from_millis(450));
    let mut clicks = Clicks {
        by_action: Vec::new(),
        path: String::new(),
        by_pointer: Vec::new(),
        identity: Vec::new(),
        hit_test: Vec::new(),
    };
    for round in 0..1 + RUNS {
        let key = &keys[round % 2];
        pause().await;
        let (reply, took) = desk.timed(json!({"action": "click", "ref": key})).await?;
        if round >= 1 {
            clicks.by_action.push(took);
        }
        clicks.path = reply.data["path"].as_str().unwrap_or("?").to_owned();
    }
    for round in 0..1 + RUNS {
        let key = &keys[round % 2];
        pause().await;
        let (_, took) = desk
            .timed(json!({"action": "click", "ref": key, "button": "right"}))
            .await?;
        if round >= 1 {
            clicks.by_pointer.push(took);
        }
    }
    let number = |key: &str| key.trim_start_matches('e').parse::<u32>().ok();
    let seven = number(&keys[0]).ok_or("a ref is e and a number")?;
    let (_, entry) = desk
        .session
        .resolve_ref(deskhand_core::action::RefId(seven))
        .map_err(|e| e.message)?;
    let handle = entry.handle.clone();
    let windows = desk.backend.windows().await.map_err(|e| e.message)?;
    let window = windows
        .into_iter()
        .find(|w| w.key() == entry.window)
        .ok_or("the calculator's window is gone")?;
    let center = desk
        .backend
        .element_bounds(&window, &handle)
        .await
        .map_err(|e| e.message)?
        .ok_or("the \"7\" button has no place")?
        .center();
    for _ in 0..RUNS {
        let started = Instant::now();
        desk.backend
            .element_identity(&window, &handle)
            .await
            .map_err(|e| e.message)?;
        clicks.identity.push(ms(started.elapsed()));
        let started = Instant::now();
        desk.backend
            .reaches(&window, &handle, center)
            .await
            .map_err(|e| e.message)?;
        clicks.hit_test.push(ms(started.elapsed()));
    }
    Ok(clicks)
}

/// One app's figures with live trees, beside the walk of the same rounds.
struct Live {
    walk: Vec<f64>,
    unchanged: Vec<f64>,
    /// D-Bus calls per unchanged observe, and how many were answered from the live tree.
    unchanged_calls: f64,
    answered: usize,
    changed: Vec<f64>,
    /// How many observes after a change read again only what changed.
    patched: usize,
    change: String,
}

/// Observing with live trees (a second `LinuxBackend` that keeps them, as a server does, and a
/// session of its own), in rounds against the walk: an unchanged window, then the same window
/// right after one click that changes it (a calculator's "7", a check box toggled).
async fn live_trees(ready: &[Ready], specs: &[Spec]) {
    println!();
    println!("## live trees ({WARM_UP} warm-up + {RUNS} rounds per app, medians in ms)");
    println!();
    println!(
        "Each round observes the unchanged window through the walking backend and through one that keeps \
         live trees; then clicks the changing element through the live one and observes again: a GTK 3 \
         window reads again only what the app's events name (patched), others are walked again."
    );
    println!();
    println!(
        "| app | walk | observe unchanged (live) | live ÷ walk | D-Bus calls, unchanged | answered from the live tree | observe after one change | patched | the change |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let Ok(backend) = LinuxBackend::connect() else {
        println!("| all | failed: no second backend | | | | | | | |");
        return;
    };
    let mut walked = Desk {
        backend: LinuxBackend::connect().expect("connected once already"),
        session: Session::default(),
        config: Config::default(),
    };
    let mut live = Desk {
        backend: backend.with_live_trees(),
        session: Session::default(),
        config: Config::default(),
    };
    for r in ready {
        let label = specs[r.spec_index].label;
        if !["gtk3", "calculator", "mousepad", "gtk4"]
            .iter()
            .any(|app| label.contains(app))
        {
            continue;
        }
        match live_rounds(&mut walked, &mut live, &r.info).await {
            Ok(l) => println!(
                "| {label} | {:.2} | {:.2} | {:.3}x | {:.1} | {} of {} | {} | {} of {} | {} |",
                median(&l.walk),
                median(&l.unchanged),
                median(&l.unchanged) / median(&l.walk),
                l.unchanged_calls,
                l.answered,
                RUNS,
                if l.changed.is_empty() {
                    "–".to_owned()
                } else {
                    format!("{:.2}", median(&l.changed))
                },
                l.patched,
                l.changed.len(),
                l.change
            ),
            Err(err) => println!("| {label} | failed: {err} | | | | | | | |"),
        }
    }
}

async fn live_rounds(
    walked: &mut Desk,
    live: &mut Desk,
    info: &WindowInfo,
) -> Result<Live, String> {
    let walk_target = format!("w{}", walked.session.window_id(info.key()));
    let live_target = format!("w{}", live.session.window_id(info.key()));
    let seen = live
        .call(json!({"action": "observe", "target": live_target}))
        .await?;
    let elements = seen.data["elements"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let enabled = |e: &&Value| !e["states"].to_string().contains("disabled");
    let described = |e: &Value, verb: &str| {
        format!(
            "{verb} {} \"{}\"",
            e["role"].as_str().unwrap_or("?"),
            e["name"].as_str().unwrap_or("")
        )
    };
    // One change an agent makes: a calculator's "7", a check box toggled, a letter typed.
    let changing = elements
        .iter()
        .find(|e| e["role"] == "button" && e["name"] == "7")
        .or_else(|| {
            elements
                .iter()
                .filter(enabled)
                .find(|e| e["role"] == "check")
        })
        .map(|e| {
            (
                json!({"action": "click", "ref": e["ref"]}),
                described(e, "click"),
            )
        })
        .or_else(|| {
            elements
                .iter()
                .filter(enabled)
                .find(|e| e["role"] == "text")
                .map(|e| {
                    (
                        json!({"action": "type", "ref": e["ref"], "text": "x"}),
                        described(e, "type \"x\" into"),
                    )
                })
        });
    let mut l = Live {
        walk: Vec::new(),
        unchanged: Vec::new(),
        unchanged_calls: 0.0,
        answered: 0,
        changed: Vec::new(),
        patched: 0,
        change: changing
            .as_ref()
            .map_or_else(|| "none found".to_owned(), |(_, what)| what.clone()),
    };
    let mut calls = 0;
    for round in 0..WARM_UP + RUNS {
        let (_, walk) = walked
            .timed(json!({"action": "observe", "target": walk_target}))
            .await?;
        let (calls_before, answered_before) = (
            live.backend.accessibility_calls(),
            live.backend.live_tree_answers(),
        );
        let (_, unchanged) = live
            .timed(json!({"action": "observe", "target": live_target}))
            .await?;
        if round >= WARM_UP {
            calls += live.backend.accessibility_calls() - calls_before;
            l.answered += live.backend.live_tree_answers() - answered_before;
            l.walk.push(walk);
            l.unchanged.push(unchanged);
        }
        if let Some((change, _)) = &changing {
            live.call(change.clone()).await?;
            let patches_before = live.backend.live_tree_patches();
            let (_, changed) = live
                .timed(json!({"action": "observe", "target": live_target}))
                .await?;
            if round >= WARM_UP {
                l.changed.push(changed);
                l.patched += live.backend.live_tree_patches() - patches_before;
            }
        }
    }
    l.unchanged_calls = calls as f64 / RUNS as f64;
    Ok(l)
}
