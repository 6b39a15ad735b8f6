//! `cargo bench -p deskhand-linux --bench gnome_capture`: one capture on headless GNOME through
//! each route deskhand has there, the shell extension's `Screenshot` and Mutter's screen cast
//! over PipeWire (a recording kept between captures, and one started for each), of the whole
//! 1280×800 screen and of a 400×300 region, with the GTK3 fixture app on the screen. It prints
//! medians only: which route is the default is decided from them in `gnome/desk.rs`.

#[cfg(target_os = "linux")]
mod bench {
    use std::path::Path;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use deskhand_core::model::{Rect, RgbImage};
    use deskhand_linux::desktop::{self, Compositor, StartOptions};
    use deskhand_linux::gnome::cast::Recording;
    use deskhand_linux::gnome::remote::monitors_of;
    use deskhand_linux::gnome::shell::Shell;

    const RUNS: usize = 11;
    const WARM_UP: usize = 2;
    const TIMEOUT: Duration = Duration::from_secs(3);

    fn median(mut samples: Vec<Duration>) -> f64 {
        samples.sort();
        samples[samples.len() / 2].as_secs_f64() * 1000.0
    }

    async fn timed<F, Fut>(mut capture: F) -> f64
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = RgbImage>,
    {
        for _ in 0..WARM_UP {
            capture().await;
        }
        let mut samples = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            let image = capture().await;
            samples.push(start.elapsed());
            assert!(image.width > 0 && image.height > 0);
        }
        median(samples)
    }

    pub fn start() -> desktop::Desktop {
        let desk = desktop::start(&StartOptions {
            width: 1280,
            height: 800,
            wayland: Some(Compositor::Gnome),
            ..StartOptions::default()
        })
        .expect("a headless GNOME Shell starts");
        // PipeWire clients of this process find the desktop's daemon through its environment;
        // set while this process has one thread.
        for (key, value) in &desk.env {
            unsafe { std::env::set_var(key, value) };
        }
        for key in &desk.unset {
            unsafe { std::env::remove_var(key) };
        }
        desk
    }

    pub async fn run(desk: desktop::Desktop) {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fixture_app.py");
        let log = Path::new(&desk.state_file).with_file_name("bench.jsonl");
        let mut app = Command::new("python3")
            .arg(&fixture)
            .args(["--log", log.to_str().unwrap(), "--title", "Capture Bench"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the fixture app starts");
        let address = desk
            .env
            .iter()
            .find(|(key, _)| key == "DBUS_SESSION_BUS_ADDRESS")
            .map(|(_, value)| value.clone())
            .expect("the desktop names its session bus");
        let conn = zbus::connection::Builder::address(address.as_str())
            .unwrap()
            .method_timeout(TIMEOUT)
            .build()
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_secs(3)).await;
        let screen = Rect::new(0, 0, 1280, 800);
        let region = Rect::new(300, 200, 400, 300);
        let shell = Shell::new(conn.clone(), TIMEOUT);
        let monitors = monitors_of(&conn, TIMEOUT).await.unwrap();
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "gnome capture bench · {RUNS} runs after {WARM_UP} warm-up · load {}",
            load.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!("| route | 1280x800 ms | 400x300 ms |");
        println!("|---|---|---|");
        let shot = |rect| {
            let shell = &shell;
            move || async move { shell.screenshot(rect).await.expect("a shell screenshot") }
        };
        println!(
            "| shell extension Screenshot | {:.1} | {:.1} |",
            timed(shot(screen)).await,
            timed(shot(region)).await
        );
        let kept = Recording::start(conn.clone(), &monitors, TIMEOUT)
            .await
            .expect("a screen cast starts");
        let cast = |rect| {
            let kept = &kept;
            move || async move {
                kept.capture(rect, TIMEOUT)
                    .await
                    .expect("a screen-cast frame")
            }
        };
        println!(
            "| screen cast, recording kept | {:.1} | {:.1} |",
            timed(cast(screen)).await,
            timed(cast(region)).await
        );
        kept.stop().await;
        let fresh = |rect| {
            let (conn, monitors) = (&conn, &monitors);
            move || async move {
                let recording = Recording::start(conn.clone(), monitors, TIMEOUT)
                    .await
                    .expect("a screen cast starts");
                let image = recording
                    .capture(rect, TIMEOUT)
                    .await
                    .expect("a screen-cast frame");
                recording.stop().await;
                image
            }
        };
        println!(
            "| screen cast, recording per capture | {:.1} | {:.1} |",
            timed(fresh(screen)).await,
            timed(fresh(region)).await
        );
        let _ = app.kill();
        let _ = app.wait();
        desktop::stop(&desk.state_file).expect("the desktop stops");
    }
}

fn main() {
    #[cfg(target_os = "linux")]
    {
        let desk = bench::start();
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(bench::run(desk));
    }
}
