//! Real-desktop test harness: one private headless desktop per test binary, started through the
//! real `deskhand desktop start` and stopped by its watcher when the test process exits.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

mod apps;
mod lines;
mod mcp;

pub use apps::*;
pub use lines::*;
pub use mcp::*;

/// The `deskhand` binary cargo built beside the running test binary: a test binary runs from
/// `target/<profile>/deps/`, and cargo puts the binaries of the package under test one folder
/// up (where `CARGO_BIN_EXE_deskhand`, known only when the test itself is compiled, points).
pub fn bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let test = std::env::current_exe().expect("the test binary's path");
        let bin = test
            .parent()
            .and_then(Path::parent)
            .map(|profile| profile.join("deskhand"))
            .expect("the test binary runs from target/<profile>/deps");
        assert!(
            bin.is_file(),
            "the deskhand binary is not at {}: build the tests with `cargo test`, which builds it",
            bin.display()
        );
        bin
    })
}

pub struct Desktop {
    pub env: Vec<(String, String)>,
    pub unset: Vec<String>,
    pub display: String,
    scratch: PathBuf,
    /// The uid and gid apps run as on a Wayland desktop whose user is not the test's.
    pub user: Option<(u32, u32)>,
    /// What each deskhand call made through this desktop answered, as an agent reads it.
    replies: std::sync::Mutex<Vec<String>>,
}

static DESKTOP: OnceLock<Desktop> = OnceLock::new();
static SWAY: OnceLock<Desktop> = OnceLock::new();
static GNOME: OnceLock<Desktop> = OnceLock::new();

/// The shared headless sway desktop of this test binary, and its turn guard: it has a pointer
/// and keyboard of its own, so its tests take turns with each other, not with the X11 ones.
pub fn sway() -> (MutexGuard<'static, ()>, &'static Desktop) {
    static TURN: Mutex<()> = Mutex::new(());
    let guard = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    (
        guard,
        SWAY.get_or_init(|| Desktop::start_with(&["--wayland", "sway"])),
    )
}

/// The shared headless GNOME desktop of this test binary, and its turn guard, as [`sway`].
pub fn gnome() -> (MutexGuard<'static, ()>, &'static Desktop) {
    static TURN: Mutex<()> = Mutex::new(());
    let guard = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    (
        guard,
        GNOME.get_or_init(|| Desktop::start_with(&["--wayland", "gnome"])),
    )
}
static SERIAL: Mutex<()> = Mutex::new(());

/// The shared desktop, and a guard: tests that drive one pointer and keyboard take turns.
pub fn desktop() -> (MutexGuard<'static, ()>, &'static Desktop) {
    let guard = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    (guard, DESKTOP.get_or_init(Desktop::start))
}

impl Desktop {
    fn start() -> Desktop {
        Desktop::start_with(&[])
    }

    /// A desktop from `deskhand desktop start` with extra arguments (`--wayland sway`).
    fn start_with(extra: &[&str]) -> Desktop {
        let output = Command::new(bin())
            .args(["desktop", "start", "--json", "--owner-pid"])
            .arg(std::process::id().to_string())
            .args(extra)
            .output()
            .expect("running deskhand desktop start");
        assert!(
            output.status.success(),
            "deskhand desktop start failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let doc: Value = serde_json::from_slice(&output.stdout).expect("desktop start --json");
        let env = doc["env"]
            .as_object()
            .expect("env object")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("string value").to_owned()))
            .collect();
        let unset = doc["unset"]
            .as_array()
            .expect("unset array")
            .iter()
            .map(|v| v.as_str().expect("string").to_owned())
            .collect();
        // One folder per desktop: the same scenario runs on every display at once, and its files
        // (a zoom's PNG) must not be written over by its twin on another display.
        static DESKTOPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let nth = DESKTOPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let scratch =
            std::env::temp_dir().join(format!("deskhand-test-{}-{nth}", std::process::id()));
        std::fs::create_dir_all(&scratch).expect("scratch dir");
        let user = doc["user"].as_object().map(|user| {
            let id = |key: &str| user[key].as_u64().expect("a numeric id") as u32;
            (id("uid"), id("gid"))
        });
        Desktop {
            env,
            unset,
            display: doc["display"].as_str().expect("display").to_owned(),
            scratch,
            user,
            replies: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// What `program` with `args` printed, run on this desktop: it must succeed, and its
    /// error output is shown when it does not.
    pub fn output_of(&self, program: &str, args: &[&str]) -> Vec<u8> {
        let output = self
            .command(program)
            .args(args)
            .output()
            .unwrap_or_else(|err| panic!("running {program}: {err}"));
        assert!(
            output.status.success(),
            "{program} {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    }

    /// A command that runs inside this desktop's environment.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        for name in &self.unset {
            command.env_remove(name);
        }
        command.env_remove("DISPLAY");
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        // Test actions are audited and remembered here, not in the user's own files.
        command.env("DESKHAND_AUDIT", self.scratch("audit.jsonl"));
        command.env("DESKHAND_MEMORY", self.scratch("memory.sqlite"));
        command
    }

    pub fn scratch(&self, name: &str) -> PathBuf {
        self.scratch.join(name)
    }

    /// Runs `deskhand <args>` and returns its exit code and stdout.
    pub fn run(&self, args: &[&str]) -> Run {
        let output: Output = self
            .command(bin())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("running deskhand");
        let run = Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        // An agent reads a reply's text; `--json` wraps the same text in data a test parses.
        let read = if args.contains(&"--json") {
            serde_json::from_str::<Value>(&run.stdout)
                .ok()
                .and_then(|doc| {
                    doc.get("text")
                        .or_else(|| doc.get("message"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| run.stdout.clone())
        } else {
            run.stdout.clone()
        };
        self.replies.lock().expect("not poisoned").push(read);
        run
    }

    /// The text of every reply to a deskhand call made through this desktop since the last
    /// take, in order: what a task cost an agent, in calls and in what it read.
    pub fn take_replies(&self) -> Vec<String> {
        std::mem::take(&mut *self.replies.lock().expect("not poisoned"))
    }

    /// `deskhand <action> '<json>'`.
    pub fn act(&self, action: &str, args: Value) -> Run {
        self.run(&[action, &args.to_string()])
    }

    /// `deskhand <action> '<json>' --json`, parsed.
    pub fn act_json(&self, action: &str, args: Value) -> Value {
        let run = self.run(&[action, &args.to_string(), "--json"]);
        serde_json::from_str(&run.stdout)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {} / {}", run.stdout, run.stderr))
    }

    /// The `w` id of the window whose title is exactly `title`, waiting for it to appear.
    pub fn window_id(&self, title: &str) -> String {
        let found = wait_until(Duration::from_secs(20), || {
            let listed = self.act_json("windows", serde_json::json!({}));
            listed["data"]["windows"].as_array()?.iter().find_map(|w| {
                (w["title"] == title).then(|| w["id"].as_str().expect("id").to_owned())
            })
        });
        found.unwrap_or_else(|| panic!("no window titled {title:?} appeared"))
    }

    /// Raises and focuses a window by title, as a person would before typing into it.
    pub fn activate(&self, title: &str) {
        let focused = || {
            let listed = self.act_json("windows", serde_json::json!({}));
            listed["data"]["windows"].as_array().is_some_and(|all| {
                all.iter()
                    .any(|w| w["title"] == title && w["focused"] == true)
            })
        };
        // Asked again while it is not focused: a window of another test app that maps a moment
        // later takes the focus from it, as a new window does.
        for _ in 0..5 {
            if self.compositor().is_some() {
                // No wmctrl on Wayland: deskhand's own focus, checked by the listing.
                let w = self.window_id(title);
                self.act("focus", serde_json::json!({"target": w})).ok();
            } else {
                let status = self
                    .command("wmctrl")
                    .args(["-F", "-a", title])
                    .status()
                    .expect("running wmctrl");
                assert!(status.success(), "wmctrl could not activate {title:?}");
            }
            if wait_until(Duration::from_secs(1), || focused().then_some(())).is_some() {
                return;
            }
        }
        panic!("{title:?} never became the focused window");
    }
}

/// A display a desktop of these tests can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    X11,
    Sway,
    Gnome,
}

impl Display {
    /// This test binary's shared desktop of this display, and its turn.
    pub fn desktop(self) -> (MutexGuard<'static, ()>, &'static Desktop) {
        match self {
            Display::X11 => desktop(),
            Display::Sway => sway(),
            Display::Gnome => gnome(),
        }
    }

    /// This test binary's shared desktop of this display with two monitors of 1280x800 side
    /// by side, the left one primary (`desktop start --monitors 2`), and its turn: a desktop of
    /// its own, so the one-monitor tests keep their plain screen.
    pub fn two_monitors(self) -> (MutexGuard<'static, ()>, &'static Desktop) {
        static TURN: Mutex<()> = Mutex::new(());
        static DESKTOPS: [OnceLock<Desktop>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let guard = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (slot, wayland): (usize, &[&str]) = match self {
            Display::X11 => (0, &[]),
            Display::Sway => (1, &["--wayland", "sway"]),
            Display::Gnome => (2, &["--wayland", "gnome"]),
        };
        let desktop = DESKTOPS[slot].get_or_init(|| {
            let mut args = vec!["--monitors", "2", "--size", "1280x800"];
            args.extend(wayland);
            Desktop::start_with(&args)
        });
        (guard, desktop)
    }
}

/// One test per display for each scenario, named after it: `scenario::x11`, `::sway`,
/// `::gnome`; each scenario is a function taking the [`Display`].
#[macro_export]
macro_rules! on_every_display {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[test]
            fn x11() {
                super::$scenario($crate::Display::X11);
            }
            #[test]
            fn sway() {
                super::$scenario($crate::Display::Sway);
            }
            #[test]
            fn gnome() {
                super::$scenario($crate::Display::Gnome);
            }
        }
    )*};
}

impl Desktop {
    /// The Wayland compositor of this desktop (`sway`, `gnome`); `None` on X11.
    pub fn compositor(&self) -> Option<&'static str> {
        let var = |name: &str| {
            self.env
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if var("SWAYSOCK").is_some() {
            Some("sway")
        } else if var("XDG_CURRENT_DESKTOP") == Some("GNOME") {
            Some("gnome")
        } else {
            None
        }
    }

    /// What the user does to a window from outside deskhand, through the window manager's own
    /// tools: wmctrl on X11, swaymsg on sway, GNOME Shell (through deskhand's extension, as its
    /// window menu would) on GNOME. `close` closes it; `Some((x, y))` moves it there.
    pub fn act_outside(&self, title: &str, move_to: Option<(i32, i32)>) {
        let status = match self.compositor() {
            None => {
                let mut wmctrl = self.command("wmctrl");
                wmctrl.args(["-F"]);
                match move_to {
                    None => wmctrl.args(["-c", title]),
                    Some((x, y)) => wmctrl.args(["-r", title, "-e", &format!("0,{x},{y},-1,-1")]),
                };
                wmctrl.status()
            }
            Some("sway") => {
                let command = match move_to {
                    None => "kill".to_owned(),
                    Some((x, y)) => format!("floating enable, move absolute position {x} {y}"),
                };
                self.command("swaymsg")
                    .arg(format!("[title=\"^{title}$\"] {command}"))
                    .stdout(Stdio::null())
                    .status()
            }
            Some(_) => {
                let listed: Value = serde_json::from_str(
                    self.command("gdbus")
                        .args(["call", "--session", "--dest", "dev.deskhand.Shell"])
                        .args(["--object-path", "/dev/deskhand/Shell"])
                        .args(["--method", "dev.deskhand.Shell.Windows"])
                        .output()
                        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
                        .ok()
                        .and_then(|reply| {
                            let start = reply.find('[')?;
                            let end = reply.rfind(']')?;
                            Some(reply[start..=end].replace("\\\"", "\""))
                        })
                        .unwrap_or_default()
                        .as_str(),
                )
                .unwrap_or(Value::Null);
                let window = listed
                    .as_array()
                    .and_then(|all| all.iter().find(|w| w["title"] == title))
                    .unwrap_or_else(|| panic!("GNOME Shell lists no window {title:?}: {listed}"));
                let id = window["id"].to_string();
                let mut gdbus = self.command("gdbus");
                gdbus
                    .args(["call", "--session", "--dest", "dev.deskhand.Shell"])
                    .args(["--object-path", "/dev/deskhand/Shell"]);
                match move_to {
                    None => gdbus.args(["--method", "dev.deskhand.Shell.Close", &id]),
                    Some((x, y)) => gdbus.args([
                        "--method",
                        "dev.deskhand.Shell.MoveResize",
                        &id,
                        &x.to_string(),
                        &y.to_string(),
                        &window["frame"][2].to_string(),
                        &window["frame"][3].to_string(),
                    ]),
                };
                gdbus.stdout(Stdio::null()).status()
            }
        };
        assert!(
            status.is_ok_and(|s| s.success()),
            "the window manager's own tool did not act on {title:?}"
        );
    }
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(self) -> String {
        assert_eq!(
            self.code, 0,
            "deskhand failed: {}{}",
            self.stdout, self.stderr
        );
        self.stdout
    }
}

pub fn wait_until<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Desktop {
    /// A private desktop for this caller alone, not the shared one: for tests that break it
    /// (kill its X server or accessibility bus). Its watcher stops it when the test process
    /// exits; [`Desktop::stop`] stops it sooner.
    pub fn start_own() -> Desktop {
        Desktop::start()
    }

    /// [`Desktop::start_own`] on a Wayland compositor (`sway`, `gnome`).
    pub fn start_own_wayland(compositor: &str) -> Desktop {
        Desktop::start_with(&["--wayland", compositor])
    }

    /// Stops this desktop's processes, as `deskhand desktop stop` does.
    pub fn stop(&self) -> Run {
        self.run(&["desktop", "stop"])
    }

    /// The processes `desktop start` recorded, by name (`Xvfb`, `dbus-daemon`,
    /// `at-spi-bus-launcher`, `openbox`, `watcher`) and pid; each leads its own process group.
    pub fn processes(&self) -> Vec<(String, u32)> {
        let state = self
            .env
            .iter()
            .find(|(k, _)| k == "DESKHAND_DESKTOP")
            .map(|(_, v)| v.clone())
            .expect("DESKHAND_DESKTOP in the desktop's environment");
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&state).expect("the state file"))
                .expect("the state file is JSON");
        doc["processes"]
            .as_array()
            .expect("processes")
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().expect("name").to_owned(),
                    p["pid"].as_u64().expect("pid") as u32,
                )
            })
            .collect()
    }

    /// `deskhand mcp` on this desktop, driven by a real MCP client.
    pub fn mcp(&self) -> Mcp {
        self.mcp_with(&[])
    }

    /// `deskhand mcp` with extra environment variables.
    pub fn mcp_with(&self, env: &[(&str, &str)]) -> Mcp {
        use rmcp::ServiceExt;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let mut command = self.command(bin());
        command.arg("mcp").envs(env.iter().copied());
        let _inside = runtime.enter();
        let transport =
            rmcp::transport::TokioChildProcess::new(tokio::process::Command::from(command))
                .expect("spawning deskhand mcp");
        let pid = transport.id().expect("the server's pid");
        let client = runtime
            .block_on(mcp::Listener::default().serve(transport))
            .expect("MCP handshake");
        Mcp {
            runtime,
            client: Some(client),
            pid,
        }
    }
}

/// A numeric field of `/proc/<pid>/status` (`VmRSS` in kB, `Threads`, …).
pub fn proc_status(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Observes `target` until `ready` holds for the observation, and returns it.
pub fn observe_until(
    desk: &Desktop,
    target: &str,
    limit: Duration,
    what: &str,
    ready: impl Fn(&str) -> bool,
) -> String {
    observe_with_until(
        desk,
        serde_json::json!({"target": target}),
        limit,
        what,
        ready,
    )
}

/// [`observe_until`] with the observe's own arguments.
pub fn observe_with_until(
    desk: &Desktop,
    args: Value,
    limit: Duration,
    what: &str,
    ready: impl Fn(&str) -> bool,
) -> String {
    let mut last = String::new();
    let found = wait_until(limit, || {
        let run = desk.act("observe", args.clone());
        let good = run.code == 0 && ready(&run.stdout);
        last = format!("{}{}", run.stdout, run.stderr);
        good.then_some(run.stdout)
    });
    found.unwrap_or_else(|| panic!("observing {args} never showed {what}; last:\n{last}"))
}

/// The `w` id and title of the first window whose title satisfies `wanted`, waiting for it.
pub fn window_where(
    desk: &Desktop,
    limit: Duration,
    what: &str,
    wanted: impl Fn(&str) -> bool,
) -> (String, String) {
    wait_until(limit, || {
        let listed = desk.act_json("windows", serde_json::json!({}));
        listed["data"]["windows"].as_array()?.iter().find_map(|w| {
            let title = w["title"].as_str()?;
            wanted(title).then(|| (w["id"].as_str().expect("id").to_owned(), title.to_owned()))
        })
    })
    .unwrap_or_else(|| {
        panic!(
            "no window for {what} appeared; windows:\n{}",
            desk.run(&["windows"]).stdout
        )
    })
}

/// What a pointer or keyboard would have left in a fixture's oracle log.
pub fn input_events(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| {
            matches!(
                e["event"].as_str(),
                Some("button" | "clicked" | "key" | "text" | "toggled" | "scroll" | "drag")
            )
        })
        .collect()
}
