//! The live tree is never stale. Real apps (GTK 3's widget factory, GTK 4's gnome-calculator and
//! widget factory, whose pages share one place, and a Qt 5 window of item views whose list gains
//! rows) go through random changes: clicks on buttons, tabs, menus and their items, typing, keys,
//! scrolling, dialogs opened and closed, the window moved and resized, and pauses where nothing
//! changes. After each, once the app has settled, every window of the app is read by a backend
//! that keeps live trees and by one that walks at every read, and observed through each from two
//! copies of the same session: the trees must be the same, and the two observations the same byte
//! for byte. The live backend must also have answered some of them from its live trees, and some
//! by reading again only what changed, so the test cannot pass by walking every time.
//!
//! The apps run on X11; with `--skip ::x11`, as `scripts/test` runs it with Wayland, on sway.
//! The seed is printed; `DESKHAND_LIVE_SEED=N` replays one, `DESKHAND_LIVE_STEPS=N` sets the
//! steps per app. Its own `main` (no libtest harness): the backends are made in this process,
//! which takes the private desktop's environment before any thread starts.

mod common;

use std::time::{Duration, Instant};

use deskhand_core::backend::{Accessibility, Windows};
use deskhand_core::model::{Node, Tree, WindowInfo};
use deskhand_core::{Config, Reply, Session, execute, parse_call};
use deskhand_linux::LinuxBackend;
use serde_json::{Value, json};

const STEPS: usize = 25;
const SETTLE_LIMIT: Duration = Duration::from_secs(20);
const SETTLE_GAP: Duration = Duration::from_millis(200);
/// A control named so is never clicked: the app would end.
const SPARED: [&str; 3] = ["quit", "close", "exit"];
const CLICKED_ROLES: [&str; 11] = [
    "button", "toggle", "check", "radio", "menu", "menuitem", "tab", "listitem", "row", "cell",
    "combobox",
];
const TYPED_ROLES: [&str; 2] = ["text", "spin"];
const KEYS: [&str; 7] = ["Tab", "Escape", "Down", "Up", "Return", "space", "Escape"];

/// The two backends, and the session of the agent whose changes the test makes.
struct Desk {
    live: LinuxBackend,
    walked: LinuxBackend,
    session: Session,
    config: Config,
}

impl Desk {
    /// A call through the walking backend, in the agent's session.
    async fn call(&mut self, args: Value) -> Result<Reply, String> {
        let call = parse_call(args).map_err(|e| e.reply_text())?;
        execute(&self.walked, &mut self.session, &self.config, call)
            .await
            .map_err(|e| e.reply_text().trim_end().to_owned())
    }

    /// `window` observed through `backend` from a copy of the agent's session.
    async fn observe_with(&self, backend: &LinuxBackend, window: &WindowInfo) -> Option<Reply> {
        let mut session = self.session.clone();
        let target = format!("w{}", session.window_id(window.key()));
        let call = parse_call(json!({"action": "observe", "target": target})).ok()?;
        execute(backend, &mut session, &self.config, call)
            .await
            .ok()
    }

    fn target(&mut self, window: &WindowInfo) -> String {
        format!("w{}", self.session.window_id(window.key()))
    }
}

/// xorshift64*: the test's choices, replayable from the printed seed.
struct Choices(u64);

impl Choices {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// A tree as JSON, each element named by its identity: Qt hands out a new object for a list's
/// row at every ask, so the same row read twice has two addresses and one identity.
fn comparable(tree: &Tree) -> String {
    fn node(n: &Node) -> Value {
        let mut value = element(n);
        value["children"] = n.children.iter().map(node).collect();
        value
    }
    json!({"root": node(&tree.root), "partial": tree.partial}).to_string()
}

/// One element without its children, named by its identity.
fn element(n: &Node) -> Value {
    json!({
        "id": n.handle.identity(), "role": n.role, "name": n.name, "value": n.value,
        "states": n.states, "bounds": n.bounds, "actions": n.actions,
    })
}

/// The elements of two trees that differ, a line each, as live → walked.
fn differences(live: &Tree, walked: &Tree) -> String {
    fn lines(node: &Node, depth: usize, out: &mut Vec<String>) {
        let mut line = element(node).to_string();
        line.insert_str(0, &" ".repeat(depth));
        out.push(line);
        for child in &node.children {
            lines(child, depth + 1, out);
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    lines(&live.root, 0, &mut a);
    lines(&walked.root, 0, &mut b);
    let only_live = a.iter().filter(|line| !b.contains(line));
    let only_walked = b.iter().filter(|line| !a.contains(line));
    only_live
        .map(|line| format!("live:   {line}"))
        .chain(only_walked.map(|line| format!("walked: {line}")))
        .take(12)
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Default)]
struct Tally {
    compared: usize,
    live_answers: usize,
    /// Of those, the ones that read again only what had changed.
    patches: usize,
    /// Of those, the app's main window's.
    main_answers: usize,
}

struct AppUnderTest {
    label: &'static str,
    title: &'static str,
    /// Whether its main window's tree is kept live; else it must be walked at every observe.
    kept: bool,
    /// Whether a change is read by patching the kept tree (else the window is walked again).
    patched: bool,
}

fn main() {
    // As `scripts/test` splits a test binary between its groups: the X11 tests in the suite,
    // the others (here, the same apps on sway) with Wayland.
    let args: Vec<String> = std::env::args().collect();
    let on_sway = args
        .windows(2)
        .any(|pair| pair[0] == "--skip" && pair[1] == "::x11");
    let (_turn, desktop) = if on_sway {
        common::sway()
    } else {
        common::desktop()
    };
    // SAFETY: no thread of this process exists yet (no runtime; the desktop was started by a
    // child process), so nothing reads the environment while it changes.
    unsafe {
        for name in &desktop.unset {
            std::env::remove_var(name);
        }
        for (key, value) in &desktop.env {
            std::env::set_var(key, value);
        }
    }
    let seed = std::env::var("DESKHAND_LIVE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        });
    let steps = std::env::var("DESKHAND_LIVE_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(STEPS);
    let display = if on_sway { "sway" } else { "X11" };
    println!("live tree property test on {display}: seed {seed}, {steps} steps per app");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let mut desk = Desk {
            live: LinuxBackend::connect()
                .expect("connecting to the test desktop")
                .with_live_trees(),
            walked: LinuxBackend::connect().expect("connecting to the test desktop"),
            session: Session::default(),
            config: Config::default(),
        };
        let mut choices = Choices(seed);
        let apps = [
            AppUnderTest {
                label: "gtk3-widget-factory (GTK 3)",
                title: "gtk3-widget-factory",
                kept: true,
                patched: true,
            },
            AppUnderTest {
                label: "gnome-calculator (GTK 4)",
                title: "Calculator",
                kept: true,
                patched: false,
            },
            AppUnderTest {
                label: "gtk4-widget-factory (GTK 4), pages of a stack",
                title: "GTK Widget Factory",
                kept: true,
                patched: false,
            },
            AppUnderTest {
                label: "kcalc (Qt 5, KDE)",
                title: "KCalc",
                kept: true,
                patched: false,
            },
            AppUnderTest {
                label: "item views (Qt 5), rows rewritten and added",
                title: "Live Items",
                kept: false,
                patched: false,
            },
        ];
        for app in &apps {
            let _running: Box<dyn std::any::Any> = match app.title {
                "gtk3-widget-factory" => Box::new(desktop.spawn("gtk3-widget-factory", &[])),
                "Calculator" => Box::new(desktop.spawn("gnome-calculator", &[])),
                "GTK Widget Factory" => Box::new(desktop.spawn("gtk4-widget-factory", &[])),
                "KCalc" => Box::new(desktop.spawn("kcalc", &[])),
                _ => Box::new(desktop.python_fixture("qt_items.py", app.title, &[])),
            };
            let tally = drive(&mut desk, &mut choices, app, steps).await;
            println!(
                "{}: {} observations compared, {} answered from the live tree ({} of them patched), all the same",
                app.label, tally.compared, tally.live_answers, tally.patches
            );
            println!(
                "{}: {} of them of its main window",
                app.label, tally.main_answers
            );
            if app.kept {
                assert!(
                    tally.live_answers > 0,
                    "{}: no observation was answered from the live tree, so nothing was tested of it (seed {seed})",
                    app.label
                );
                assert!(
                    tally.patches > 0 || !app.patched,
                    "{}: no observation read again only what had changed, so patching was not tested (seed {seed})",
                    app.label
                );
            } else {
                assert_eq!(
                    tally.main_answers, 0,
                    "{}: its item views send no event when their rows change, yet its window was answered from a live tree (seed {seed})",
                    app.label
                );
            }
        }
    });
    println!("test live_tree::random_changes ... ok");
}

/// The windows of the app whose main window is `main` (a handle), the main one first; none
/// when the main window stays gone for 5 s (a list read under load can fail once).
async fn windows_of(desk: &Desk, main: u64) -> Vec<WindowInfo> {
    let started = Instant::now();
    let (all, main) = loop {
        if let Ok(all) = desk.walked.windows().await
            && let Some(found) = all.iter().find(|w| w.handle == main).cloned()
        {
            break (all, found);
        }
        if started.elapsed() > Duration::from_secs(5) {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut ours: Vec<WindowInfo> = all
        .into_iter()
        .filter(|w| w.pid == main.pid && w.handle != main.handle && !w.minimized)
        .collect();
    ours.insert(0, main);
    ours
}

async fn drive(desk: &mut Desk, choices: &mut Choices, app: &AppUnderTest, steps: usize) -> Tally {
    let started = Instant::now();
    let main = loop {
        let listed = desk.walked.windows().await.unwrap_or_default();
        if let Some(main) = listed.into_iter().find(|w| w.title == app.title)
            && settled(&desk.walked, &main).await.is_some()
        {
            break main;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} showed no window within 60 s",
            app.label
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let answers_before = desk.live.live_tree_answers();
    let patches_before = desk.live.live_tree_patches();
    let mut tally = Tally::default();
    for step in 0..steps {
        let windows = windows_of(desk, main.handle).await;
        assert!(
            !windows.is_empty(),
            "{}: the window is gone after step {step}",
            app.label
        );
        for window in &windows {
            let answered = desk.live.live_tree_answers();
            compare(desk, window, app.label, step).await;
            if window.handle == main.handle {
                tally.main_answers += desk.live.live_tree_answers() - answered;
            }
            tally.compared += 1;
        }
        let acted_on = &windows[choices.below(windows.len())];
        let done = act(desk, choices, acted_on, &main).await;
        println!("  {} step {step}: {done}", app.label);
    }
    tally.live_answers = desk.live.live_tree_answers() - answers_before;
    tally.patches = desk.live.live_tree_patches() - patches_before;
    tally
}

/// The window's tree once two walks `SETTLE_GAP` apart read the same, or `None` when the window
/// is gone or never settles.
async fn settled(backend: &LinuxBackend, window: &WindowInfo) -> Option<Tree> {
    let started = Instant::now();
    let mut last: Option<(String, Tree)> = None;
    while started.elapsed() < SETTLE_LIMIT {
        let info = backend.window(window.handle).await.ok()??;
        if let Ok(tree) = backend.tree(&info).await {
            let now = comparable(&tree);
            if last.as_ref().is_some_and(|(before, _)| *before == now) && tree.partial.is_none() {
                return Some(tree);
            }
            last = Some((now, tree));
        }
        tokio::time::sleep(SETTLE_GAP).await;
    }
    None
}

/// Reads `window` through both backends once it has settled, and holds them to the same tree
/// and the same observation. A window that changes by itself between the reads is read again.
async fn compare(desk: &Desk, window: &WindowInfo, label: &str, step: usize) {
    for _ in 0..5 {
        let Some(before) = settled(&desk.walked, window).await else {
            return;
        };
        let Ok(Some(info)) = desk.walked.window(window.handle).await else {
            return;
        };
        let (Ok(from_live), Ok(fresh)) =
            (desk.live.tree(&info).await, desk.walked.tree(&info).await)
        else {
            continue;
        };
        if comparable(&fresh) != comparable(&before) {
            continue;
        }
        assert!(
            comparable(&from_live) == comparable(&fresh),
            "{label}, before step {step}: the live tree of \"{}\" is not what a walk reads:\n{}",
            info.title,
            differences(&from_live, &fresh)
        );
        let (Some(seen_live), Some(seen_walked)) = (
            desk.observe_with(&desk.live, &info).await,
            desk.observe_with(&desk.walked, &info).await,
        ) else {
            continue;
        };
        // The app changed between the two observations: neither tells anything.
        let after = desk.walked.tree(&info).await.map(|tree| comparable(&tree));
        if after.as_ref() != Ok(&comparable(&fresh)) {
            continue;
        }
        assert_eq!(
            seen_live.text, seen_walked.text,
            "{label}, before step {step}: observing \"{}\" from the live tree answered other words than a walk",
            info.title
        );
        assert_eq!(
            seen_live.data, seen_walked.data,
            "{label}, before step {step}"
        );
        return;
    }
    panic!(
        "{label}, before step {step}: \"{}\" never held still long enough to compare",
        window.title
    );
}

/// One random change through the walking desk, described for the log.
async fn act(
    desk: &mut Desk,
    choices: &mut Choices,
    window: &WindowInfo,
    main: &WindowInfo,
) -> String {
    let target = desk.target(window);
    let Ok(seen) = desk
        .call(json!({"action": "observe", "target": target}))
        .await
    else {
        return "the window could not be observed".into();
    };
    let elements: Vec<&Value> = seen.data["elements"]
        .as_array()
        .map(|all| all.iter().collect())
        .unwrap_or_default();
    let pick = |roles: &[&str], choices: &mut Choices| {
        let fit: Vec<&&Value> = elements
            .iter()
            .filter(|e| {
                let name = e["name"].as_str().unwrap_or_default().to_lowercase();
                roles.contains(&e["role"].as_str().unwrap_or_default())
                    && !SPARED.iter().any(|spared| name.contains(spared))
                    && e["ref"].is_string()
            })
            .collect();
        (!fit.is_empty()).then(|| (*fit[choices.below(fit.len())]).clone())
    };
    let call = match choices.below(11) {
        0..=3 => pick(&CLICKED_ROLES, choices)
            .map(|e| json!({"action": "click", "ref": e["ref"]})),
        4 => pick(&TYPED_ROLES, choices).map(|e| {
            json!({"action": "type", "ref": e["ref"], "text": format!("{}", choices.below(1000))})
        }),
        5 => Some(json!({"action": "press", "keys": KEYS[choices.below(KEYS.len())]})),
        8 => Some(json!({"action": "type", "text": format!("{}+", choices.below(100))})),
        6 => Some(json!({"action": "scroll", "target": target, "x": 500, "y": 500,
                         "direction": if choices.below(2) == 0 { "down" } else { "up" }})),
        7 if window.handle == main.handle => {
            let (x, y) = (40 + choices.below(200), 40 + choices.below(200));
            let (w, h) = (600 + choices.below(300), 500 + choices.below(300));
            Some(json!({"action": "window", "target": target,
                        "position": [x, y], "size": [w, h]}))
        }
        _ => None,
    };
    match call {
        Some(call) => {
            let said = match desk.call(call.clone()).await {
                Ok(reply) => reply.text.lines().next().unwrap_or_default().to_owned(),
                Err(err) => err.lines().next().unwrap_or_default().to_owned(),
            };
            format!("{call} → {said}")
        }
        None => "nothing done (the trees must still hold)".into(),
    }
}
