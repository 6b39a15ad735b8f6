#![cfg(target_os = "linux")]
//! GNOME on Wayland, headless: the desktop deskhand brings up, its shell extension, and input
//! through Mutter's remote desktop, checked against the GTK3 fixture app's own log and an
//! independent accessibility reader (libatspi).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use deskhand_core::model::{MouseButton, Point, Rect};
use deskhand_linux::desktop::{self, Compositor, Desktop, StartOptions};
use deskhand_linux::gnome::remote::RemoteInput;
use deskhand_linux::gnome::shell::{Shell, ShellWindow};

const TIMEOUT: Duration = Duration::from_secs(3);
const START: Duration = Duration::from_secs(30);

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

fn command(desk: &Desktop, program: &str) -> Command {
    let mut command = Command::new(program);
    command.envs(desk.env.iter().map(|(k, v)| (k, v)));
    for key in &desk.unset {
        command.env_remove(key);
    }
    command
}

fn bus_address(desk: &Desktop) -> String {
    desk.env
        .iter()
        .find(|(key, _)| key == "DBUS_SESSION_BUS_ADDRESS")
        .map(|(_, value)| value.clone())
        .expect("the desktop names its session bus")
}

async fn connect(desk: &Desktop) -> zbus::Connection {
    zbus::connection::Builder::address(bus_address(desk).as_str())
        .unwrap()
        .method_timeout(TIMEOUT)
        .build()
        .await
        .unwrap()
}

struct Stopped<'a>(&'a Desktop, Child);

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        let _ = self.1.kill();
        let _ = self.1.wait();
        desktop::stop(&self.0.state_file).expect("the desktop stops");
    }
}

fn log_lines(log: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

async fn until<T>(what: &str, probe: impl AsyncFnMut() -> Option<T>) -> T {
    until_or(what, String::new, probe).await
}

async fn until_or<T>(
    what: &str,
    context: impl Fn() -> String,
    mut probe: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + START;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what} {}",
            context()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The canvas's extents relative to its window, as libatspi reads them.
fn canvas_extents(desk: &Desktop) -> Option<[i32; 4]> {
    let out = command(desk, "/usr/bin/python3")
        .arg(fixture("atspi_probe.py"))
        .args(["fixture_app", "drawing area", "Canvas"])
        .output()
        .ok()?;
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    serde_json::from_value(found.get("window_extents")?.clone()).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gnome_lists_focuses_types_clicks_at_reported_points_and_shows_pixels() {
    let desk = desktop::start(&StartOptions {
        width: 1280,
        height: 800,
        wayland: Some(Compositor::Gnome),
        ..StartOptions::default()
    })
    .expect("a headless GNOME Shell starts");
    let log = Path::new(&desk.state_file).with_file_name("fixture.jsonl");
    let app = command(&desk, "python3")
        .arg(fixture("fixture_app.py"))
        .args(["--log", log.to_str().unwrap(), "--title", "GNOME Fixture"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the fixture app starts");
    let app_pid = app.id();
    let _stop = Stopped(&desk, app);

    let shell = Shell::new(connect(&desk).await, TIMEOUT);
    let window: ShellWindow = until("the fixture's window with a size", async || {
        shell
            .windows()
            .await
            .ok()?
            .into_iter()
            .find(|w| w.title == "GNOME Fixture")
    })
    .await;
    assert_eq!(window.pid, app_pid, "{window:?}");
    assert!(!window.x11, "a native Wayland window: {window:?}");
    let (frame, buffer) = (window.frame_rect(), window.buffer_rect());
    // GTK3 draws its own shadow around a floating window: the buffer holds the frame.
    assert!(
        buffer.x <= frame.x
            && buffer.y <= frame.y
            && buffer.width >= frame.width
            && buffer.height >= frame.height,
        "{window:?}"
    );

    assert!(shell.activate(window.id).await.unwrap());
    until("the fixture's window to take the focus", async || {
        shell
            .windows()
            .await
            .ok()?
            .into_iter()
            .find(|w| w.id == window.id && w.focused)
    })
    .await;

    let input = RemoteInput::start(connect(&desk).await, TIMEOUT)
        .await
        .expect("a remote-desktop session starts");
    assert_eq!(input.screen(), Rect::new(0, 0, 1280, 800));
    for keysym in [xkeysym::key::h, xkeysym::key::i] {
        input.key(keysym, true).await.unwrap();
        input.key(keysym, false).await.unwrap();
    }
    let logged = || format!("(the fixture logged {:?})", log_lines(&log));
    until_or("the fixture to log both keys", logged, async || {
        let keys: Vec<String> = log_lines(&log)
            .iter()
            .filter(|e| e["event"] == "key")
            .filter_map(|e| e["keyval_name"].as_str().map(str::to_owned))
            .collect();
        (keys.iter().any(|k| k == "h") && keys.iter().any(|k| k == "i")).then_some(())
    })
    .await;

    // GTK3's window-relative extents count from its surface, shadow included: the buffer rect.
    let [x, y, width, height] = until("the canvas's extents", async || {
        canvas_extents(&desk).filter(|e| e[2] > 0)
    })
    .await;
    let (cx, cy) = (width / 2, height / 2);
    // Read again: mutter may place a window after it first shows it.
    let placed = shell
        .windows()
        .await
        .unwrap()
        .into_iter()
        .find(|w| w.id == window.id)
        .expect("the fixture's window is still there");
    let (frame, buffer) = (placed.frame_rect(), placed.buffer_rect());
    let at = Point {
        x: buffer.x + x + cx,
        y: buffer.y + y + cy,
    };
    input.move_to(at).await.unwrap();
    input.clicks(MouseButton::Left, 1).await.unwrap();
    assert_eq!(shell.pointer().await.unwrap(), (at.x, at.y));
    let clicked = || {
        format!(
            "(clicked {at:?} for canvas extents {:?} in frame {frame:?}, buffer {buffer:?}; the fixture logged {:?})",
            [x, y, width, height],
            log_lines(&log)
        )
    };
    let landed = until_or("the canvas to log the click", clicked, async || {
        log_lines(&log).into_iter().find(|e| e["event"] == "drag")
    })
    .await;
    let from: [i32; 2] = serde_json::from_value(landed["from"].clone()).unwrap();
    assert!(
        (from[0] - cx).abs() <= 2 && (from[1] - cy).abs() <= 2,
        "clicked pixel {at:?} for the canvas center {cx},{cy}; it logged {landed}"
    );

    let pixels = shell
        .screenshot(frame)
        .await
        .expect("a screenshot of the frame");
    assert_eq!((pixels.width, pixels.height), (frame.width, frame.height));
    let first = &pixels.data[..3];
    assert!(
        pixels.data.chunks_exact(3).any(|p| p != first),
        "the window's pixels are not one colour"
    );
}
