//! The apps a test starts on its desktop and what they report: programs, the Python fixtures
//! with their oracle logs, Firefox and Chromium on a page.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::{Desktop, wait_until};

impl Desktop {
    /// Starts a program in this desktop; it is killed when the returned guard drops.
    /// Its standard error goes to a scratch file, so a failing test can say how the app ended.
    pub fn spawn(&self, program: &str, args: &[&str]) -> App {
        self.spawn_with_env(program, args, &[])
    }

    /// [`Desktop::spawn`] with extra environment variables.
    pub fn spawn_with_env(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> App {
        let name = Path::new(program)
            .file_name()
            .map_or_else(|| program.to_owned(), |n| n.to_string_lossy().into_owned());
        let stderr_path = self.scratch(&format!("{name}-{}.stderr", now_ms()));
        let stderr = std::fs::File::create(&stderr_path).expect("app stderr file");
        let mut command = self.command(program);
        // On a Wayland desktop of another user, apps run as that user, as `launch` starts them.
        if let Some((uid, gid)) = self.user {
            use std::os::unix::process::CommandExt;
            command.uid(uid).gid(gid);
        }
        let child = command
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|err| panic!("starting {program}: {err}"));
        App { child, stderr_path }
    }

    /// Starts the fixture app with its own oracle log; waits until it is ready.
    pub fn fixture(&self, title: &str, windows: u32) -> Fixture {
        self.fixture_with(title, windows, &[])
    }

    /// [`Desktop::fixture`] with extra arguments, e.g. `--kit` for its menus, slider, spin
    /// button, combo box and delayed buttons.
    pub fn fixture_with(&self, title: &str, windows: u32, extra: &[&str]) -> Fixture {
        let windows = windows.to_string();
        let mut args = vec!["--windows", &windows];
        args.extend_from_slice(extra);
        self.python_fixture("fixture_app.py", title, &args)
    }

    /// [`Desktop::fixture`] with extra environment variables, e.g. `GDK_SCALE`.
    pub fn fixture_with_env(&self, title: &str, windows: u32, env: &[(&str, &str)]) -> Fixture {
        let windows = windows.to_string();
        self.python_fixture_with_env("fixture_app.py", title, &["--windows", &windows], env)
    }

    /// Starts one of `tests/fixtures/`'s Python apps (`qt_fields.py`, `qt_items.py`) with its
    /// own oracle log and window title, and waits until it reports ready.
    pub fn python_fixture(&self, script: &str, title: &str, extra: &[&str]) -> Fixture {
        self.python_fixture_with_env(script, title, extra, &[])
    }

    fn python_fixture_with_env(
        &self,
        script: &str,
        title: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Fixture {
        let log = self.scratch(&format!(
            "oracle-{}-{}.jsonl",
            title.replace(' ', "_"),
            now_ms()
        ));
        // On a Wayland desktop of another user the fixture runs as that user and writes there.
        if let Some((uid, gid)) = self.user {
            std::fs::File::create(&log).expect("the oracle log");
            std::os::unix::fs::chown(&log, Some(uid), Some(gid)).expect("chown the oracle log");
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(script);
        let mut args = vec![
            script.to_str().expect("utf-8 path"),
            "--log",
            log.to_str().expect("utf-8 path"),
            "--title",
            title,
        ];
        args.extend_from_slice(extra);
        let app = self.spawn_with_env("/usr/bin/python3", &args, env);
        let fixture = Fixture { app, log };
        fixture.wait_for("the fixture to be ready", |e| e["event"] == "ready");
        fixture
    }

    /// Firefox ESR showing one of `tests/fixtures/`'s pages, in a new instance with a fresh
    /// profile of its own (`profile` names its folder in the scratch directory).
    pub fn firefox_on_fixture_page(&self, page: &str, profile: &str) -> App {
        let profile = self.scratch(profile);
        std::fs::create_dir_all(&profile).expect("the Firefox profile's folder");
        // On a Wayland desktop of another user, Firefox runs as that user and writes there.
        if let Some((uid, gid)) = self.user {
            std::os::unix::fs::chown(&profile, Some(uid), Some(gid))
                .expect("the Firefox profile's folder given to the desktop's user");
        }
        let page = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(page)
            .canonicalize()
            .expect("the fixture page");
        self.spawn(
            "firefox-esr",
            &[
                "--new-instance",
                "--profile",
                profile.to_str().expect("utf-8 path"),
                &format!("file://{}", page.display()),
            ],
        )
    }
}

pub struct App {
    pub child: Child,
    stderr_path: PathBuf,
}

impl App {
    /// An app started some other way (its output captured), killed when the guard drops.
    pub fn from_child(child: Child, stderr_path: PathBuf) -> App {
        App { child, stderr_path }
    }

    /// Whether the app still runs, and the end of what it wrote to standard error: evidence for
    /// a failure message when a window vanished.
    pub fn report(&mut self) -> String {
        let status = match self.child.try_wait() {
            Ok(None) => "still running".to_owned(),
            Ok(Some(status)) => format!("exited: {status}"),
            Err(err) => format!("status unknown: {err}"),
        };
        let stderr = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
        let tail: Vec<&str> = stderr.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!(
            "pid {} {status}; stderr ({}):\n{}",
            self.pid(),
            self.stderr_path.display(),
            tail.join("\n")
        )
    }

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

/// How the tests and benches start Chromium: renderer accessibility on, no sandbox, GPU, first
/// run, network chatter or keyring.
pub const CHROMIUM_FLAGS: [&str; 10] = [
    "--force-renderer-accessibility",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // A covered window keeps running its page, as it does for a person on a composited desktop.
    "--disable-backgrounding-occluded-windows",
    "--password-store=basic",
];

/// Starts Chromium with renderer accessibility on, `url` in a 900x700 window.
pub fn chromium(desk: &Desktop, profile: &Path, extra: &[&str], url: &str) -> App {
    let profile = format!("--user-data-dir={}", profile.to_str().expect("utf-8 path"));
    let mut args = CHROMIUM_FLAGS.to_vec();
    args.extend([profile.as_str(), "--window-size=900,700"]);
    args.extend_from_slice(extra);
    args.push(url);
    desk.spawn("chromium", &args)
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default()
}
