//! `cargo bench -p deskhand-linux --bench gnome_capture`: one capture on headless GNOME through
//! each route deskhand has there, the shell extension's `Screenshot` and Mutter's screen cast
//! over PipeWire (a recording kept between captures, and one started for each, and the screen
//! cast with the pointer kept connected, which keeps the latest picture), of the whole
//! 1280×800 screen and of a 400×300 region, with the GTK3 fixture app on the screen; then one
//! read of the pointer through the extension and through the screen cast with the pointer. It
//! prints medians only: which route is the default is decided from them in `gnome/desk.rs`.

#[cfg(target_os = "linux")]
mod bench {
    use std::path::Path;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use deskhand_core::model::{Rect, RgbImage};
    use deskhand_linux::desktop::{self, Compositor, StartOptions};
    use deskhand_linux::gnome::cast::{CursorMode, Recording};
    use deskhand_linux::gnome::cursor::CursorWatch;
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

    async fn timed_read<F, Fut>(mut read: F) -> f64
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        for _ in 0..WARM_UP {
            read().await;
        }
        let mut samples = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            read().await;
            samples.push(start.elapsed());
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

    /// gnome-shell's CPU time in ms (user and system), from /proc.
    fn shell_cpu_ms(pid: u32) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit_once(") ")
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        let ticks: f64 = fields
            .get(11..13)
            .map(|t| t.iter().filter_map(|n| n.parse::<f64>().ok()).sum())
            .unwrap_or(0.0);
        ticks * 1000.0 / 100.0
    }

    fn shell_pid(desk: &desktop::Desktop) -> u32 {
        let state: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&desk.state_file).unwrap()).unwrap();
        state["processes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "gnome-shell")
            .and_then(|p| p["pid"].as_u64())
            .expect("the desktop's gnome-shell") as u32
    }

    /// gnome-shell's CPU over a few seconds of a spinning GTK spinner on the screen: with no
    /// screen-cast client connected (a kept recording alone), and with one connected all along.
    async fn compositor_cost(
        desk: &desktop::Desktop,
        conn: &zbus::Connection,
        monitors: &[(String, Rect)],
    ) {
        const LONG: Duration = Duration::from_secs(5);
        let mut spinner = Command::new("gtk3-widget-factory")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("gtk3-widget-factory starts");
        tokio::time::sleep(Duration::from_secs(4)).await;
        let pid = shell_pid(desk);
        let recording = Recording::start(conn.clone(), monitors, CursorMode::Hidden, TIMEOUT)
            .await
            .expect("a screen cast starts");
        let before = shell_cpu_ms(pid);
        tokio::time::sleep(LONG).await;
        let idle = shell_cpu_ms(pid) - before;
        let node = recording.monitors[0].node;
        let before = shell_cpu_ms(pid);
        let frames = tokio::task::spawn_blocking(move || super::client::stay_connected(node, LONG))
            .await
            .unwrap();
        let connected = shell_cpu_ms(pid) - before;
        recording.stop().await;
        println!(
            "gnome-shell CPU over {} s with a spinner on the screen: {idle:.0} ms with a recording and no client, {connected:.0} ms with a client connected ({frames} frames)",
            LONG.as_secs()
        );
        let _ = spinner.kill();
        let _ = spinner.wait();
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
        let kept = Recording::start(conn.clone(), &monitors, CursorMode::Hidden, TIMEOUT)
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
        // Behind a lock, as deskhand holds it, for the timed closures to share.
        let watch = tokio::sync::Mutex::new(
            CursorWatch::start(conn.clone(), &monitors, TIMEOUT)
                .await
                .expect("a screen cast with the pointer starts"),
        );
        let mut watched = Vec::new();
        for rect in [screen, region] {
            watched.push(
                timed(|| {
                    let (conn, watch) = (&conn, &watch);
                    async move {
                        // As deskhand does it: the layout read, which is also the round trip
                        // to Mutter that makes the look current, then the look.
                        monitors_of(conn, TIMEOUT).await.unwrap();
                        watch
                            .lock()
                            .await
                            .capture(rect, TIMEOUT)
                            .await
                            .expect("a kept screen-cast frame")
                    }
                })
                .await,
            );
        }
        println!(
            "| screen cast with the pointer, kept connected | {:.1} | {:.1} |",
            watched[0], watched[1]
        );
        let fresh = |rect| {
            let (conn, monitors) = (&conn, &monitors);
            move || async move {
                let recording =
                    Recording::start(conn.clone(), monitors, CursorMode::Hidden, TIMEOUT)
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
        println!();
        println!("| pointer read | ms |");
        println!("|---|---|");
        let shell_pointer = timed_read(|| async {
            shell.pointer().await.expect("the shell's pointer");
        })
        .await;
        println!("| shell extension Pointer | {shell_pointer:.1} |");
        let kept_pointer = timed_read(|| {
            let (conn, watch) = (&conn, &watch);
            async move {
                monitors_of(conn, TIMEOUT).await.unwrap();
                watch.lock().await.look(TIMEOUT).await.expect("the pointer");
            }
        })
        .await;
        println!("| screen cast with the pointer, kept connected | {kept_pointer:.1} |");
        watch.into_inner().stop().await;
        let first_pointer = timed_read(|| {
            let (conn, monitors) = (&conn, &monitors);
            async move {
                let mut watch = CursorWatch::start(conn.clone(), monitors, TIMEOUT)
                    .await
                    .expect("a screen cast with the pointer starts");
                watch.look(TIMEOUT).await.expect("the pointer");
                watch.stop().await;
            }
        })
        .await;
        println!(
            "| screen cast with the pointer, started for the read (a CLI call's first) | {first_pointer:.1} |"
        );
        compositor_cost(&desk, &conn, &monitors).await;
        let _ = app.kill();
        let _ = app.wait();
        desktop::stop(&desk.state_file).expect("the desktop stops");
    }
}

#[cfg(target_os = "linux")]
mod client {
    //! A screen-cast client that stays connected, as one that kept the stream open and took the
    //! latest frame would: what that costs the compositor.
    use std::cell::Cell;
    use std::rc::Rc;
    use std::time::{Duration, Instant};

    use pipewire as pw;
    use pw::spa;

    /// Stays connected to `node` for `long`, taking every frame; how many came.
    pub fn stay_connected(node: u32, long: Duration) -> usize {
        pw::init();
        let main_loop = pw::main_loop::MainLoopBox::new(None).unwrap();
        let context = pw::context::ContextBox::new(main_loop.loop_(), None).unwrap();
        let core = context.connect(None).unwrap();
        let stream = pw::stream::StreamBox::new(
            &core,
            "deskhand-bench",
            pw::properties::properties! {
                *pw::keys::MEDIA_TYPE => "Video",
                *pw::keys::MEDIA_CATEGORY => "Capture",
                *pw::keys::MEDIA_ROLE => "Screen",
            },
        )
        .unwrap();
        let frames = Rc::new(Cell::new(0));
        let counted = frames.clone();
        let _listener = stream
            .add_local_listener_with_user_data(())
            .process(move |stream, _| {
                if let Some(mut buffer) = stream.dequeue_buffer()
                    && buffer
                        .datas_mut()
                        .first()
                        .is_some_and(|d| d.chunk().size() > 0)
                {
                    counted.set(counted.get() + 1);
                }
            })
            .register()
            .unwrap();
        let format = spa::pod::object!(
            spa::utils::SpaTypes::ObjectParamFormat,
            spa::param::ParamType::EnumFormat,
            spa::pod::property!(
                spa::param::format::FormatProperties::MediaType,
                Id,
                spa::param::format::MediaType::Video
            ),
            spa::pod::property!(
                spa::param::format::FormatProperties::MediaSubtype,
                Id,
                spa::param::format::MediaSubtype::Raw
            ),
            spa::pod::property!(
                spa::param::format::FormatProperties::VideoFormat,
                Choice,
                Enum,
                Id,
                spa::param::video::VideoFormat::BGRx,
                spa::param::video::VideoFormat::BGRx,
                spa::param::video::VideoFormat::BGRA
            ),
        );
        let bytes = spa::pod::serialize::PodSerializer::serialize(
            std::io::Cursor::new(Vec::new()),
            &spa::pod::Value::Object(format),
        )
        .unwrap()
        .0
        .into_inner();
        stream
            .connect(
                spa::utils::Direction::Input,
                Some(node),
                pw::stream::StreamFlags::AUTOCONNECT | pw::stream::StreamFlags::MAP_BUFFERS,
                &mut [spa::pod::Pod::from_bytes(&bytes).unwrap()],
            )
            .unwrap();
        let until = Instant::now() + long;
        while Instant::now() < until {
            main_loop
                .loop_()
                .iterate(pw::loop_::Timeout::Finite(Duration::from_millis(50)));
        }
        let _ = stream.disconnect();
        frames.get()
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
