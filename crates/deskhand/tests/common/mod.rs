//! Real-desktop test harness: one private headless desktop per test binary, started through the
//! real `deskhand desktop start` and stopped by its watcher when the test process exits.
#![allow(dead_code)] // Each test binary uses a different part of the harness.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_deskhand");

pub struct Desktop {
    pub env: Vec<(String, String)>,
    pub unset: Vec<String>,
    pub display: String,
    scratch: PathBuf,
}

static DESKTOP: OnceLock<Desktop> = OnceLock::new();
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
        let output = Command::new(BIN)
            .args(["desktop", "start", "--json", "--owner-pid"])
            .arg(std::process::id().to_string())
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
        let scratch = std::env::temp_dir().join(format!("deskhand-test-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).expect("scratch dir");
        Desktop {
            env,
            unset,
            display: doc["display"].as_str().expect("display").to_owned(),
            scratch,
        }
    }

    /// A command that runs inside this desktop's environment.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        for name in &self.unset {
            command.env_remove(name);
        }
        command.env_remove("DISPLAY");
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    pub fn scratch(&self, name: &str) -> PathBuf {
        self.scratch.join(name)
    }

    /// Runs `deskhand <args>` and returns its exit code and stdout.
    pub fn run(&self, args: &[&str]) -> Run {
        let output: Output = self
            .command(BIN)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("running deskhand");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
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

    /// Starts a program in this desktop; it is killed when the returned guard drops.
    pub fn spawn(&self, program: &str, args: &[&str]) -> App {
        let child = self
            .command(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("starting {program}: {err}"));
        App { child }
    }

    /// Starts the fixture app with its own oracle log; waits until it is ready.
    pub fn fixture(&self, title: &str, windows: u32) -> Fixture {
        let log = self.scratch(&format!(
            "oracle-{}-{}.jsonl",
            title.replace(' ', "_"),
            now_ms()
        ));
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fixture_app.py");
        let app = self.spawn(
            "/usr/bin/python3",
            &[
                script.to_str().expect("utf-8 path"),
                "--log",
                log.to_str().expect("utf-8 path"),
                "--title",
                title,
                "--windows",
                &windows.to_string(),
            ],
        );
        let fixture = Fixture { app, log };
        fixture.wait_for("the fixture to be ready", |e| e["event"] == "ready");
        fixture
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
        let status = self
            .command("wmctrl")
            .args(["-F", "-a", title])
            .status()
            .expect("running wmctrl");
        assert!(status.success(), "wmctrl could not activate {title:?}");
        let focused = wait_until(Duration::from_secs(5), || {
            let listed = self.act_json("windows", serde_json::json!({}));
            listed["data"]["windows"]
                .as_array()?
                .iter()
                .any(|w| w["title"] == title && w["focused"] == true)
                .then_some(())
        });
        assert!(
            focused.is_some(),
            "{title:?} never became the focused window"
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

pub struct App {
    pub child: Child,
}

impl App {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Fixture {
    pub app: App,
    pub log: PathBuf,
}

impl Fixture {
    /// Everything the fixture has reported so far.
    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// Waits until an event matching `wanted` is reported, and returns it.
    pub fn wait_for(&self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        wait_until(Duration::from_secs(15), || {
            self.events().into_iter().find(&wanted)
        })
        .unwrap_or_else(|| {
            panic!(
                "the fixture never reported {what}; it saw {:?}",
                self.events()
            )
        })
    }

    /// The events after the first `skip`, once nothing new arrives for a moment.
    pub fn settled_events(&self, skip: usize) -> Vec<Value> {
        let mut last = usize::MAX;
        loop {
            std::thread::sleep(Duration::from_millis(300));
            let events = self.events();
            if events.len() == last {
                return events.into_iter().skip(skip).collect();
            }
            last = events.len();
        }
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

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default()
}

/// The ref of the first observation line that contains every one of `needles`.
pub fn ref_of(observation: &str, needles: &[&str]) -> String {
    observation
        .lines()
        .skip(1)
        .find(|line| needles.iter().all(|n| line.contains(n)))
        .and_then(|line| line.trim_start().split(' ').next())
        .unwrap_or_else(|| panic!("no line with {needles:?} in:\n{observation}"))
        .to_owned()
}
