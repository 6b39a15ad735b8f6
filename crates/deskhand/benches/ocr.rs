//! Text read from pixels, on a private 1920x1080 headless desktop, warm, in this process (as the
//! MCP server runs it): how long Tesseract takes on a 600x400 window, on the whole screen, and on
//! an unchanged surface again (capture and hash, the cache answers); then how right it is
//! against windows that have a tree, whose visible names and bounds are free ground truth.
//!
//! `cargo bench -p deskhand --bench ocr` (release). Prints medians and a Markdown table.
//! `DESKHAND_BENCH_PARTS=typical,accuracy` runs only those of its parts (`dense`, `typical`,
//! `accuracy`). `DESKHAND_BENCH_SHOW=1` prints every word group read and per app the words
//! missed and the words read that the tree lacks; `DESKHAND_BENCH_SAVE=<dir>` keeps every capture
//! read for speed, and each app's capture and ground truth, there.
#![cfg(target_os = "linux")]

use std::collections::HashSet;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use deskhand_core::backend::{Accessibility, Capture, Windows};
use deskhand_core::model::{Node, Rect, RgbImage, Role, WindowInfo};
use deskhand_core::ocr::{ReadText, WordGroup};
use deskhand_linux::LinuxBackend;
use deskhand_ocr::Tesseract;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_deskhand");
const RUNS: usize = 7;

/// The engine as the server runs it, and one that reads every line with Tesseract, which the
/// first's readings from its memory of glyphs are checked against.
struct Engines {
    reading: Tesseract,
    alone: Tesseract,
}

/// A started app, killed with its process group when dropped.
struct App(Child);

impl App {
    fn spawn(program: &str, args: &[String]) -> App {
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|err| panic!("starting {program}: {err}"));
        App(child)
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Ok(pgid) = i32::try_from(self.0.id()) {
            // SAFETY: kill(2) with the negated id of a process group this bench created.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.0.wait();
    }
}

fn start_desktop() {
    let output = Command::new(BIN)
        .args([
            "desktop",
            "start",
            "--json",
            "--size",
            "1920x1080",
            "--owner-pid",
        ])
        .arg(std::process::id().to_string())
        .stdin(Stdio::null())
        .output()
        .expect("running deskhand desktop start");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let doc: Value = serde_json::from_slice(&output.stdout).expect("desktop start --json");
    // SAFETY: nothing but this main thread exists yet, so no other thread reads the
    // environment while it changes.
    unsafe {
        for name in doc["unset"].as_array().expect("unset") {
            std::env::remove_var(name.as_str().expect("name"));
        }
        for (key, value) in doc["env"].as_object().expect("env") {
            std::env::set_var(key, value.as_str().expect("value"));
        }
    }
}

/// Whether the part named `name` is to run: all of them unless `DESKHAND_BENCH_PARTS` lists
/// some.
fn part(name: &str) -> bool {
    std::env::var("DESKHAND_BENCH_PARTS")
        .ok()
        .is_none_or(|parts| parts.split(',').any(|p| p.trim() == name))
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1000.0
}

async fn window(backend: &LinuxBackend, wanted: &dyn Fn(&str) -> bool) -> Option<WindowInfo> {
    let until = Instant::now() + Duration::from_secs(45);
    while Instant::now() < until {
        if let Ok(windows) = backend.windows().await
            && let Some(w) = windows.into_iter().find(|w| wanted(&w.title))
        {
            return Some(w);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    None
}

/// Words as compared: lower case, without the punctuation around them.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// What an element shows as text: its name, else (static text, a paragraph) its value.
fn shown(node: &Node) -> Option<&str> {
    let text = match &node.value {
        Some(v) if node.name.trim().is_empty() => v.as_str(),
        _ => node.name.as_str(),
    };
    (!text.trim().is_empty()).then_some(text)
}

/// Roles whose name is drawn as text on the element (an icon button's name is not, so buttons
/// count only with a label child, which is itself listed).
fn shows_its_name(role: Role) -> bool {
    matches!(
        role,
        Role::Label
            | Role::Link
            | Role::Check
            | Role::Radio
            | Role::Tab
            | Role::Menuitem
            | Role::Heading
            | Role::Paragraph
            | Role::Listitem
            | Role::Cell
    )
}

struct Truth {
    /// Visible elements that show their name, with their text and bounds.
    elements: Vec<(String, Rect)>,
    /// Every word any visible element of the tree carries (name or value).
    vocabulary: HashSet<String>,
}

fn truth(tree: &Node, window: &Rect) -> Truth {
    fn walk(node: &Node, window: &Rect, truth: &mut Truth) {
        if !node.states.visible {
            return;
        }
        let inside = node
            .bounds
            .filter(|b| !b.is_empty() && b.intersect(window) == Some(*b));
        if inside.is_some() {
            truth.vocabulary.extend(words(&node.name));
            truth
                .vocabulary
                .extend(words(node.value.as_deref().unwrap_or_default()));
        }
        if let (Some(bounds), Some(text)) = (inside, shown(node))
            && shows_its_name(node.role)
        {
            truth.elements.push((text.to_owned(), bounds));
        }
        for child in &node.children {
            walk(child, window, truth);
        }
    }
    let mut truth = Truth {
        elements: Vec::new(),
        vocabulary: HashSet::new(),
    };
    walk(tree, window, &mut truth);
    truth
}

struct Score {
    recall: f64,
    precision: f64,
    centers: f64,
    truth_words: usize,
    ocr_words: usize,
    matched_groups: usize,
}

fn score(truth: &Truth, groups: &[WordGroup]) -> Score {
    let truth_words: HashSet<String> = truth.elements.iter().flat_map(|(t, _)| words(t)).collect();
    let read: Vec<String> = groups.iter().flat_map(|g| words(&g.text)).collect();
    let read_set: HashSet<&String> = read.iter().collect();
    let found = truth_words.iter().filter(|w| read_set.contains(w)).count();
    let right = read
        .iter()
        .filter(|w| truth.vocabulary.contains(*w))
        .count();
    let (mut matched, mut inside) = (0, 0);
    for group in groups {
        let text = words(&group.text).join(" ");
        if text.chars().count() < 2 {
            continue;
        }
        let owners: Vec<&Rect> = truth
            .elements
            .iter()
            .filter(|(t, _)| {
                let t = words(t).join(" ");
                t == text || (text.len() >= 4 && t.contains(&text))
            })
            .map(|(_, b)| b)
            .collect();
        if owners.is_empty() {
            continue;
        }
        matched += 1;
        if owners.iter().any(|b| b.contains(group.bounds.center())) {
            inside += 1;
        }
    }
    let share = |n: usize, of: usize| {
        if of == 0 {
            f64::NAN
        } else {
            n as f64 * 100.0 / of as f64
        }
    };
    Score {
        recall: share(found, truth_words.len()),
        precision: share(right, read.len()),
        centers: share(inside, matched),
        truth_words: truth_words.len(),
        ocr_words: read.len(),
        matched_groups: matched,
    }
}

/// What the tree shows that was not read, and what was read that the tree does not carry: where
/// recall and precision are lost.
fn show_misses(label: &str, truth: &Truth, groups: &[WordGroup]) {
    let read: HashSet<String> = groups.iter().flat_map(|g| words(&g.text)).collect();
    let mut missed: Vec<String> = truth
        .elements
        .iter()
        .flat_map(|(t, _)| words(t))
        .filter(|w| !read.contains(w))
        .collect();
    missed.sort();
    missed.dedup();
    let wrong: Vec<String> = groups
        .iter()
        .flat_map(|g| words(&g.text))
        .filter(|w| !truth.vocabulary.contains(w))
        .collect();
    println!("{label}: missed {missed:?}");
    println!("{label}: not in the tree {wrong:?}");
}

/// The window's tree once what it shows has settled: a browser exposes its page a while after
/// the window shows, and a tree read before that lacks words the pixels already show (Firefox's
/// heading was missing from it in some runs). Settled is the same visible names in two reads a
/// second apart, or 20 s gone.
async fn settled_tree(
    backend: &LinuxBackend,
    window: &WindowInfo,
) -> deskhand_core::Result<deskhand_core::model::Tree> {
    let names = |tree: &deskhand_core::model::Tree| {
        let mut names = truth(&tree.root, &window.bounds).elements;
        names.sort_by(|a, b| a.0.cmp(&b.0));
        names
    };
    let until = Instant::now() + Duration::from_secs(20);
    let mut tree = backend.tree(window).await?;
    loop {
        if Instant::now() >= until {
            return Ok(tree);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let again = backend.tree(window).await?;
        if names(&again) == names(&tree) {
            return Ok(again);
        }
        tree = again;
    }
}

/// Keeps an app's capture (PNG) and its ground truth (JSON: the window's bounds, the elements
/// that show their name with their bounds, every word of the tree) in `dir`, so a change to
/// the engine can be tried on the same pixels again.
fn save(dir: &std::path::Path, label: &str, image: &RgbImage, window: &Rect, truth: &Truth) {
    let name = save_capture(dir, label, image);
    let mut vocabulary: Vec<&String> = truth.vocabulary.iter().collect();
    vocabulary.sort();
    let doc = serde_json::json!({
        "window": window,
        "elements": truth.elements,
        "vocabulary": vocabulary,
    });
    std::fs::write(
        dir.join(format!("{name}.json")),
        serde_json::to_string_pretty(&doc).expect("JSON"),
    )
    .expect("saving the ground truth");
}

/// Keeps a capture (PNG) in `dir`, named after `label`; returns the name without `.png`.
fn save_capture(dir: &std::path::Path, label: &str, image: &RgbImage) -> String {
    let name: String = label
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect();
    std::fs::create_dir_all(dir).expect("the folder to save in");
    let png = deskhand_core::image::encode_png(image).expect("the capture as PNG");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("saving the capture");
    name
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deskhand-ocr-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

const PAGE: &str =
    "<!doctype html><title>OCR Bench Page</title><body style='font-family:sans-serif'>
<h1>Quarterly report</h1><p>Revenue grew in every region this quarter.</p>
<p>Shipping times fell from five days to three.</p><a href='#'>Read the full report</a>
<h2>Next steps</h2><ul><li>Hire two engineers</li><li>Open the Lisbon office</li></ul>
<button>Download summary</button></body>";

const FORM: &str =
    "<!doctype html><title>OCR Bench Form</title><body style='font-family:sans-serif'>
<h1>Create your account</h1><form><p><label for=n>Full name</label> <input id=n></p>
<p><label for=e>Email address</label> <input id=e></p><p><label for=c>Country</label>
<select id=c><option>Portugal</option><option>Norway</option></select></p>
<p><input type=checkbox id=t><label for=t>I accept the terms</label></p>
<button type=button>Sign up</button></form></body>";

fn main() {
    // As the binary does before its first thread (see its `main`): the MCP server reads pixels
    // with one OpenMP thread per engine and two malloc arenas, and so must what is measured
    // for it. Without the limit the 600x400 dense window took 4.9 s here (load 7), with it
    // 1.3 s (load 3.8).
    // SAFETY: nothing but this main thread exists yet, so no other thread reads the
    // environment or allocates while this changes.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        if std::env::var_os("OMP_THREAD_LIMIT").is_none() {
            std::env::set_var("OMP_THREAD_LIMIT", "1");
        }
    }
    start_desktop();
    let dir = scratch();
    std::fs::write(dir.join("page.html"), PAGE).expect("page");
    std::fs::write(dir.join("form.html"), FORM).expect("form");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(run(dir));
}

async fn run(dir: PathBuf) {
    let backend = LinuxBackend::connect().expect("connecting to the bench desktop");
    let engines = Engines {
        reading: Tesseract::default(),
        alone: Tesseract::default().tesseract_only(),
    };
    let engine = &engines.reading;
    println!(
        "# OCR benchmark ({} build, warm, OMP_THREAD_LIMIT={})",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        std::env::var("OMP_THREAD_LIMIT").unwrap_or_else(|_| "unset".into())
    );
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "{nproc} cores, load {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!();

    let s = |v: &str| v.to_string();
    let chromium_args = vec![
        s("--force-renderer-accessibility"),
        s("--no-sandbox"),
        s("--disable-gpu"),
        s("--no-first-run"),
        s("--no-default-browser-check"),
        s("--password-store=basic"),
        format!("--user-data-dir={}", dir.join("chromium").display()),
        s("--window-size=900,700"),
        format!("file://{}", dir.join("page.html").display()),
    ];
    std::fs::create_dir_all(dir.join("firefox")).expect("firefox profile");
    let firefox_args = vec![
        s("--new-instance"),
        s("--profile"),
        dir.join("firefox").to_string_lossy().into_owned(),
        format!("file://{}", dir.join("form.html").display()),
    ];
    type Wanted = Box<dyn Fn(&str) -> bool>;
    let apps: Vec<(&str, &str, Vec<String>, Wanted)> = vec![
        (
            "gtk3-widget-factory",
            "gtk3-widget-factory",
            vec![],
            Box::new(|t| t == "gtk3-widget-factory"),
        ),
        (
            "gnome-calculator",
            "gnome-calculator",
            vec![],
            Box::new(|t| t == "Calculator"),
        ),
        (
            "mousepad",
            "mousepad",
            vec![],
            Box::new(|t| t.ends_with("Mousepad")),
        ),
        (
            "Chromium page",
            "chromium",
            chromium_args,
            Box::new(|t| t.starts_with("OCR Bench Page")),
        ),
        (
            "Firefox form",
            "firefox-esr",
            firefox_args,
            Box::new(|t| t.starts_with("OCR Bench Form")),
        ),
    ];

    speed(&backend, &engines, &dir).await;
    if !part("accuracy") {
        return;
    }
    let mut rows = Vec::new();
    for (label, program, args, wanted) in &apps {
        let _app = App::spawn(program, args);
        let Some(window) = window(&backend, wanted.as_ref()).await else {
            rows.push(format!("| {label} | did not start | | | | |"));
            continue;
        };
        // Browsers build their page (and its tree) a moment after the window shows.
        tokio::time::sleep(Duration::from_secs(
            if *program == "chromium" || *program == "firefox-esr" {
                6
            } else {
                2
            },
        ))
        .await;
        let window = backend
            .windows()
            .await
            .ok()
            .and_then(|ws| ws.into_iter().find(|w| w.handle == window.handle))
            .unwrap_or(window);
        if let Err(err) = backend.activate(&window).await {
            println!("{label}: could not raise its window: {}", err.message);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let tree = match settled_tree(&backend, &window).await {
            Ok(tree) => tree,
            Err(err) => {
                rows.push(format!("| {label} | no tree: {} | | | | |", err.message));
                continue;
            }
        };
        let image = backend.capture(window.bounds).await.expect("capture");
        engine.clear_cache();
        let groups: Vec<WordGroup> = engine
            .read(&image)
            .expect("read")
            .into_iter()
            .map(|mut g| {
                g.bounds.x += window.bounds.x;
                g.bounds.y += window.bounds.y;
                g
            })
            .collect();
        let truth = truth(&tree.root, &window.bounds);
        if let Some(dir) = std::env::var_os("DESKHAND_BENCH_SAVE") {
            save(&PathBuf::from(dir), label, &image, &window.bounds, &truth);
        }
        if std::env::var_os("DESKHAND_BENCH_SHOW").is_some() {
            show_misses(label, &truth, &groups);
        }
        let scored = score(&truth, &groups);
        rows.push(format!(
            "| {label} ({}x{}) | {:.0} % of {} | {:.0} % of {} | {:.0} % of {} |",
            window.bounds.width,
            window.bounds.height,
            scored.recall,
            scored.truth_words,
            scored.precision,
            scored.ocr_words,
            scored.centers,
            scored.matched_groups,
        ));
    }
    println!(
        "## accuracy against the tree's visible names (targets: recall ≥ 90 %, precision ≥ 95 %, centers inside ≥ 95 %)"
    );
    println!();
    println!(
        "| app (window px) | word recall | word precision | OCR'd names centered in their element |"
    );
    println!("|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
}

/// Lines of `columns` characters repeating one sentence with the line's number in it: the
/// fewest distinct glyphs dense text can have.
fn invoice_text(width: u32, height: u32) -> String {
    let lines = (height / 18).max(1);
    let columns = (width / 8).max(10) as usize;
    let mut text = String::new();
    for n in 0..lines {
        let line = format!(
            "Line {n}: the quick brown fox jumps over the lazy dog, invoice 4{n:03} paid. "
        );
        text.push_str(&line.repeat(columns / line.len() + 1)[..columns]);
        text.push('\n');
    }
    text
}

/// Lines of `text` from line `first` on, tabs as spaces: real prose or source code, whose
/// glyphs a reader meets as they come.
fn document_text(text: &str, first: usize) -> String {
    text.lines()
        .skip(first)
        .map(|line| line.replace('\t', "    ") + "\n")
        .collect()
}

/// A Tk window of `width`x`height` showing `text` in a monospace font, from its top-left, and
/// nothing that moves (no caret, no spinner), so that "unchanged" is what the cache sees.
fn text_window(dir: &std::path::Path, title: &str, width: u32, height: u32, text: &str) -> App {
    let name = title.replace(' ', "-");
    let text_file = dir.join(format!("{name}.txt"));
    std::fs::write(&text_file, text).expect("the window's text");
    let script = dir.join(format!("{name}.tcl"));
    std::fs::write(
        &script,
        format!(
            "wm title . {{{title}}}\nwm geometry . {width}x{height}+0+0\nset file [open {{{}}}]\nset text [read $file]\nclose $file\nlabel .t -justify left -anchor nw -font {{DejaVuSansMono 10}} -text $text\npack .t -fill both -expand 1\n",
            text_file.display()
        ),
    )
    .expect("the Tk script");
    App::spawn("wish", &[script.to_string_lossy().into_owned()])
}

/// Reads `rect` `RUNS` times as for the first time (no line cached, no glyph known), then, with
/// `taught`, `RUNS` times with only the glyphs of that other capture known (a font seen before),
/// then captures and reads it again unchanged `RUNS` times, and prints the medians; and how
/// many word groups read differ from what Tesseract alone (`alone`) reads.
async fn measure(
    backend: &LinuxBackend,
    engines: &Engines,
    what: &str,
    rect: Rect,
    taught: Option<&RgbImage>,
) {
    let engine = &engines.reading;
    let image = backend.capture(rect).await.expect("capture");
    if let Some(dir) = std::env::var_os("DESKHAND_BENCH_SAVE") {
        save_capture(&PathBuf::from(dir), what, &image);
    }
    engine.read(&image).expect("warm-up read");
    let mut cold = Vec::new();
    let mut groups = Vec::new();
    let mut from_memory = (0.0, 0.0);
    for _ in 0..RUNS {
        engine.clear_cache();
        engine.forget_glyphs();
        let before = engine.lines_read();
        let started = Instant::now();
        groups = engine.read(&image).expect("read");
        cold.push(started.elapsed());
        from_memory = engine.lines_read().shares_from_glyphs_since(&before);
    }
    let mut seen = String::new();
    if let Some(taught) = taught {
        let mut times = Vec::new();
        let mut share = (0.0, 0.0);
        for _ in 0..RUNS {
            engine.clear_cache();
            engine.forget_glyphs();
            engine.read(taught).expect("read the other text");
            engine.clear_cache();
            let before = engine.lines_read();
            let started = Instant::now();
            engine.read(&image).expect("read");
            times.push(started.elapsed());
            share = engine.lines_read().shares_from_glyphs_since(&before);
        }
        seen = format!(
            "; font seen before {:.0} ms ({})",
            median(times),
            memory_shares(share)
        );
    }
    let mut again = Vec::new();
    let mut captures = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let image = backend.capture(rect).await.expect("capture");
        captures.push(started.elapsed());
        engine.read(&image).expect("read");
        again.push(started.elapsed());
    }
    engines.alone.clear_cache();
    let started = Instant::now();
    let alone = engines.alone.read(&image).expect("read by Tesseract alone");
    let alone_took = started.elapsed();
    let (ours_only, theirs_only) = word_differences(&groups, &alone);
    println!(
        "{what} ({}x{}): read {:.0} ms median of {RUNS} ({} word groups, {}){seen}; unchanged again (capture + hash) {:.1} ms, of which the capture {:.1} ms; Tesseract alone {:.0} ms, {} word groups; words read differently: {} of ours, {} of its",
        image.width,
        image.height,
        median(cold),
        groups.len(),
        memory_shares(from_memory),
        median(again),
        median(captures),
        alone_took.as_secs_f64() * 1000.0,
        alone.len(),
        ours_only.len(),
        theirs_only.len(),
    );
    if std::env::var_os("DESKHAND_BENCH_SHOW").is_some() {
        for group in &groups {
            println!(
                "    {:?} at {:?} ({} %)",
                group.text, group.bounds, group.confidence
            );
        }
        println!("    words only we read: {ours_only:?}; only Tesseract alone: {theirs_only:?}");
    }
}

/// How many of the lines read came wholly and partly from memory of glyphs.
fn memory_shares((wholly, partly): (f64, f64)) -> String {
    format!(
        "lines from memory: {:.0} % wholly, {:.0} % partly",
        wholly * 100.0,
        partly * 100.0
    )
}

/// The words (as many times as read) that only `ours` has, and those only `theirs` has.
fn word_differences(ours: &[WordGroup], theirs: &[WordGroup]) -> (Vec<String>, Vec<String>) {
    let all = |groups: &[WordGroup]| -> Vec<String> {
        let mut words: Vec<String> = groups
            .iter()
            .flat_map(|g| g.text.split_whitespace().map(str::to_owned))
            .collect();
        words.sort();
        words
    };
    let (mut ours, mut theirs) = (all(ours), all(theirs));
    let shared: Vec<String> = {
        let mut left = theirs.clone();
        ours.iter()
            .filter(|w| match left.binary_search(w) {
                Ok(i) => {
                    left.remove(i);
                    true
                }
                Err(_) => false,
            })
            .cloned()
            .collect()
    };
    for word in &shared {
        if let Ok(i) = ours.binary_search(word) {
            ours.remove(i);
        }
        if let Ok(i) = theirs.binary_search(word) {
            theirs.remove(i);
        }
    }
    (ours, theirs)
}

/// Where a window is on the screen, once it shows.
async fn showing(backend: &LinuxBackend, title: &str) -> Option<Rect> {
    let window = window(backend, &|t| t == title).await?;
    // A window is mapped a moment before it is drawn.
    tokio::time::sleep(Duration::from_secs(1)).await;
    Some(window.bounds)
}

async fn speed(backend: &LinuxBackend, engines: &Engines, dir: &std::path::Path) {
    let screen = backend.screen().await.expect("screen");
    if part("dense") {
        dense(backend, engines, dir, screen).await;
    }
    if part("typical") {
        typical(backend, engines, screen).await;
    }
}

/// Prose for the dense windows: the GPL's text, which every Debian system has.
const PROSE: &str = "/usr/share/common-licenses/GPL-3";

async fn dense(backend: &LinuxBackend, engines: &Engines, dir: &std::path::Path, screen: Rect) {
    println!("## dense text, the worst case");
    println!();
    let prose = std::fs::read_to_string(PROSE).unwrap_or_else(|err| panic!("{PROSE}: {err}"));
    let code = include_str!("../../deskhand-ocr/src/regions.rs");
    // What "a font seen before" has seen: another part of the prose, in the same font.
    let teacher_title = "OCR text seen before";
    let teacher = {
        let _window = text_window(dir, teacher_title, 600, 400, &document_text(&prose, 400));
        match showing(backend, teacher_title).await {
            Some(bounds) => Some(backend.capture(bounds).await.expect("capture")),
            None => {
                println!("the Tk window of other text did not show");
                None
            }
        }
    };
    let windows = [
        ("600x400 window", 600, 400, invoice_text(600, 400)),
        (
            "whole screen",
            screen.width,
            screen.height,
            invoice_text(screen.width, screen.height),
        ),
        (
            "600x400 window of prose",
            600,
            400,
            document_text(&prose, 0),
        ),
        (
            "600x400 window of source code",
            600,
            400,
            document_text(code, 0),
        ),
        (
            "whole screen of prose",
            screen.width,
            screen.height,
            document_text(&prose, 0),
        ),
    ];
    for (what, width, height, text) in windows {
        let title = format!("OCR {what}");
        let _window = text_window(dir, &title, width, height, &text);
        let Some(bounds) = showing(backend, &title).await else {
            println!("{what}: the Tk window did not show");
            continue;
        };
        let rect = if width == screen.width {
            screen
        } else {
            bounds
        };
        measure(backend, engines, what, rect, teacher.as_ref()).await;
    }
    println!();
}

async fn typical(backend: &LinuxBackend, engines: &Engines, screen: Rect) {
    let engine = &engines.reading;
    println!("## typical surfaces");
    println!();
    let s = |v: &str| v.to_string();
    let dialog = App::spawn(
        "zenity",
        &[
            s("--question"),
            s("--title=OCR Dialog"),
            s("--text=Save changes to report.txt before closing?"),
            s("--width=600"),
            s("--height=400"),
        ],
    );
    if let Some(bounds) = showing(backend, "OCR Dialog").await {
        measure(backend, engines, "zenity question dialog", bounds, None).await;
    }
    // xmessage draws its captions inside oval borders, touching distance from them: Tesseract's
    // own page layout lost all three and the "Save" beside its icon.
    let message = App::spawn(
        "xmessage",
        &[
            s("-buttons"),
            s("Save,Discard,Cancel"),
            s("-title"),
            s("OCR Message"),
            s("Save changes to report.txt before closing?"),
        ],
    );
    if let Some(bounds) = showing(backend, "OCR Message").await {
        measure(backend, engines, "xmessage", bounds, None).await;
        let image = backend.capture(bounds).await.expect("capture");
        let read: HashSet<String> = engine
            .read(&image)
            .expect("read")
            .iter()
            .flat_map(|g| words(&g.text))
            .collect();
        let expected = words("Save changes to report.txt before closing? Save Discard Cancel");
        let missed: Vec<&String> = expected.iter().filter(|w| !read.contains(*w)).collect();
        println!("  xmessage words missed: {missed:?}");
    }
    let factory = App::spawn("gtk3-widget-factory", &[]);
    if window(backend, &|t| t == "gtk3-widget-factory")
        .await
        .is_some()
    {
        tokio::time::sleep(Duration::from_secs(2)).await;
        measure(
            backend,
            engines,
            "whole screen: widget factory, a dialog and a message",
            screen,
            None,
        )
        .await;
    }
    drop((dialog, message, factory));
    println!();
}
