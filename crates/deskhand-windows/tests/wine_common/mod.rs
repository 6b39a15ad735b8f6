//! What the Wine end-to-end tests share: the Windows build's programs run under Wine (Wine 8 on
//! the host, or Wine 10 in its chroot: `DESKHAND_WINE` names the runner), the fixture app and
//! its log, and `deskhand.exe mcp` as an MCP client sees it.
#![allow(dead_code)] // each test binary uses its own part of this module

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

pub fn exe_dir() -> PathBuf {
    std::env::var_os("DESKHAND_WINE_EXE_DIR")
        .map(PathBuf::from)
        .expect(
            "DESKHAND_WINE_EXE_DIR names the Windows build: run these tests with scripts/wine-test",
        )
}

pub fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deskhand-wine-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// A Unix path as Wine's Windows programs name it: drive Z: is the root.
pub fn windows_path(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

/// A Windows program of the build, run under Wine, audited into the scratch folder.
pub fn wine(program: &str) -> Command {
    let runner = std::env::var_os("DESKHAND_WINE").unwrap_or_else(|| "wine".into());
    let mut command = Command::new(runner);
    command
        .arg(exe_dir().join(program))
        .env(
            "DESKHAND_AUDIT",
            windows_path(&scratch().join("audit.jsonl")),
        )
        .env("DESKHAND_MEMORY", "off")
        .stdin(Stdio::null());
    command
}

/// The fixture app, and its log.
pub struct Fixture {
    pub child: Child,
    pub log: PathBuf,
    pub title: String,
}

impl Fixture {
    pub fn start(title: &str, at: (i32, i32)) -> Fixture {
        Fixture::start_with(title, at, &[])
    }

    pub fn start_with(title: &str, at: (i32, i32), extra: &[&str]) -> Fixture {
        let log = scratch().join(format!("{}.log", title.replace(' ', "-")));
        let _ = std::fs::remove_file(&log);
        let child = wine("deskhand-fixture.exe")
            .args(["--log", &windows_path(&log), "--title", title, "--at"])
            .arg(format!("{},{}", at.0, at.1))
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the fixture under wine");
        let fixture = Fixture {
            child,
            log,
            title: title.to_owned(),
        };
        fixture.wait_for("ready", |line| line.starts_with("ready "));
        fixture
    }

    pub fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The first line from `after` on that passes `test`, within 20 s.
    pub fn wait_after(&self, after: usize, what: &str, test: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(line) = self.lines().iter().skip(after).find(|line| test(line)) {
                return line.clone();
            }
            assert!(
                Instant::now() < deadline,
                "the fixture \"{}\" never logged {what}; it logged:\n{}",
                self.title,
                self.lines().join("\n")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_for(&self, what: &str, test: impl Fn(&str) -> bool) -> String {
        self.wait_after(0, what, test)
    }

    /// Waits for exactly `line` among the lines logged after `after`.
    pub fn expect_after(&self, after: usize, line: &str) {
        self.wait_after(after, line, |logged| logged == line);
    }

    pub fn exited(&mut self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self
                .child
                .try_wait()
                .expect("polling the fixture")
                .is_some()
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `deskhand.exe mcp` under Wine, as an MCP client sees it.
pub struct Mcp {
    pub client: RunningService<RoleClient, ()>,
}

impl Mcp {
    pub async fn start() -> Mcp {
        let command = tokio::process::Command::from(wine("deskhand.exe"));
        let mut command = command;
        command.arg("mcp").stderr(Stdio::inherit());
        let client =
            ().serve(
                TokioChildProcess::new(command).expect("spawning deskhand.exe mcp under wine"),
            )
            .await
            .expect("the MCP handshake with deskhand.exe");
        Mcp { client }
    }

    pub async fn call(&self, arguments: Value) -> CallToolResult {
        self.client
            .call_tool(
                CallToolRequestParams::new("desktop")
                    .with_arguments(arguments.as_object().expect("an object").clone()),
            )
            .await
            .expect("tools/call")
    }

    /// The reply's text, which must not be an error.
    pub async fn ok(&self, arguments: Value) -> String {
        let reply = self.call(arguments.clone()).await;
        let text = text_of(&reply);
        assert_ne!(reply.is_error, Some(true), "{arguments} failed: {text}");
        text
    }

    /// The window titled `title` once `test` holds for it, or as it is after 5 s.
    pub async fn window_until(&self, title: &str, test: impl Fn(&Window) -> bool) -> Window {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let window = self.window(title).await;
            if test(&window) || Instant::now() >= deadline {
                return window;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The window titled `title`, once it is listed (within 10 s): its `wN` and client area.
    pub async fn window(&self, title: &str) -> Window {
        let deadline = Instant::now() + Duration::from_secs(10);
        let window = loop {
            let reply = self.call(json!({"action": "windows"})).await;
            let structured = reply.structured_content.expect("structured content");
            let listed = structured["windows"]
                .as_array()
                .expect("a window list")
                .iter()
                .find(|w| w["title"] == title)
                .cloned();
            match listed {
                Some(window) => break window,
                None if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await
                }
                None => panic!("\"{title}\" is not listed: {}", text_of_value(&structured)),
            }
        };
        let b = &window["bounds"];
        Window {
            id: window["id"].as_str().expect("an id").to_owned(),
            x: b["x"].as_i64().unwrap() as i32,
            y: b["y"].as_i64().unwrap() as i32,
            width: b["width"].as_u64().unwrap() as u32,
            height: b["height"].as_u64().unwrap() as u32,
            app: window["app"].as_str().unwrap_or_default().to_owned(),
        }
    }
}

pub fn text_of_value(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

pub fn text_of(reply: &CallToolResult) -> String {
    reply
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Debug)]
pub struct Window {
    pub id: String,
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub app: String,
}

impl Window {
    /// The 0–1000 point that lands on client pixel `(x, y)`.
    pub fn at(&self, x: i32, y: i32) -> [f64; 2] {
        [
            (x as f64 + 0.5) * 1000.0 / self.width as f64,
            (y as f64 + 0.5) * 1000.0 / self.height as f64,
        ]
    }

    pub fn click(&self, x: i32, y: i32) -> Value {
        let [x, y] = self.at(x, y);
        json!({"action": "click", "target": self.id, "x": x, "y": y})
    }
}
