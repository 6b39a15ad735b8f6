//! `cargo bench -p deskhand --bench http`: serving many agents over Streamable HTTP.
//!
//! Starts `deskhand mcp --http 127.0.0.1:0 --desktop-per-session` and runs sessions at once,
//! each on its own private desktop with gnome-calculator launched through the tool, each doing
//! rounds of `windows`, `observe`, a click by ref and `apps`; then the same rounds over stdio
//! (`deskhand mcp --headless`, one agent) and over HTTP with one session, so the cost HTTP adds
//! to a call shows apart from the cost of load; then the calculator observed again unchanged,
//! round trip, over stdio with live trees and with every observe walked
//! (`DESKHAND_TREE_READER=walk`), and over HTTP. Prints p50/p99 per action, the server's and its
//! desktops' memory after warm-up and at the end, and whether every desktop stopped. Then one
//! desktop by handle, called directly and through HAProxy with `deploy/haproxy.cfg`, in
//! alternating blocks: calls per second each way and their ratio (the balancer's cost), and the
//! memory of that desktop with gnome-calculator on it, every process of it counted. Figures
//! only: targets live in the issue. `DESKHAND_BENCH_SESSIONS` (8) and `DESKHAND_BENCH_CALLS`
//! (200 per session) change the load.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_deskhand");
const ACTIONS: [&str; 4] = ["windows", "observe", "click", "apps"];
/// Rounds before measuring: the app's caches fill, the allocator settles.
const WARM_UP_ROUNDS: usize = 5;

type Client = RunningService<RoleClient, ()>;

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

async fn call(client: &Client, args: Value) -> CallToolResult {
    let args = args.as_object().expect("an object").clone();
    client
        .call_tool(CallToolRequestParams::new("desktop").with_arguments(args))
        .await
        .expect("tools/call")
}

/// Launches the calculator and waits for its keypad; its window id.
async fn prepare(client: &Client) -> String {
    let launched = call(
        client,
        json!({"action": "launch", "app": "org.gnome.Calculator"}),
    )
    .await;
    let data = launched.structured_content.expect("structured");
    let w = data["window"]
        .as_str()
        .unwrap_or_else(|| panic!("no window launched: {data}"))
        .to_owned();
    let started = Instant::now();
    loop {
        let text = text_of(&call(client, json!({"action": "observe", "target": w})).await);
        if text.contains("button \"7\"") {
            return w;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no keypad:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// `rounds` rounds of the four actions; each call's time by action.
async fn rounds(client: &Client, w: &str, rounds: usize) -> [Vec<Duration>; 4] {
    let mut times: [Vec<Duration>; 4] = Default::default();
    for round in 0..rounds {
        let started = Instant::now();
        call(client, json!({"action": "windows"})).await;
        times[0].push(started.elapsed());
        let started = Instant::now();
        let observed = text_of(&call(client, json!({"action": "observe", "target": w})).await);
        times[1].push(started.elapsed());
        // A digit, then clear on the next round's digit: the display stays short.
        let label = if round % 2 == 0 { "7" } else { "C" };
        let button = observed
            .lines()
            .find(|l| l.contains(&format!("button \"{label}\"")))
            .or_else(|| observed.lines().find(|l| l.contains("button \"7\"")))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("no button in:\n{observed}"))
            .to_owned();
        let started = Instant::now();
        let clicked = call(client, json!({"action": "click", "ref": button})).await;
        times[2].push(started.elapsed());
        assert_ne!(clicked.is_error, Some(true), "{}", text_of(&clicked));
        let started = Instant::now();
        call(client, json!({"action": "apps"})).await;
        times[3].push(started.elapsed());
    }
    times
}

/// A stdio server on a private desktop of its own; `reader` sets `DESKHAND_TREE_READER`.
async fn stdio_client(reader: Option<&str>) -> Client {
    let mut command = tokio::process::Command::new(BIN);
    command
        .args(["mcp", "--headless", "--audit", "off", "--memory", "off"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    match reader {
        Some(reader) => command.env("DESKHAND_TREE_READER", reader),
        None => command.env_remove("DESKHAND_TREE_READER"),
    };
    ().serve(TokioChildProcess::new(command).expect("spawning deskhand mcp"))
        .await
        .expect("stdio handshake")
}

/// Observes of `w` with nothing done in between, after a first one and a moment for the last
/// click's redraw to end: what an agent pays to look again at a window that did not change.
async fn observes_unchanged(client: &Client, w: &str) -> Vec<Duration> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    call(client, json!({"action": "observe", "target": w})).await;
    let mut times = Vec::new();
    for _ in 0..UNCHANGED_OBSERVES {
        let started = Instant::now();
        call(client, json!({"action": "observe", "target": w})).await;
        times.push(started.elapsed());
    }
    times
}

/// Observes per unchanged-window series.
const UNCHANGED_OBSERVES: usize = 41;

fn report_unchanged([mut live, mut walked]: [Vec<Duration>; 2], mut over_http: Vec<Duration>) {
    println!(
        "observe of the unchanged calculator, round trip, p50 / p99 over {UNCHANGED_OBSERVES}:"
    );
    let live_p50 = percentile(&mut live, 0.5);
    let walked_p50 = percentile(&mut walked, 0.5);
    println!(
        "  stdio, live trees (the default)  {live_p50:>7.2} / {:>7.2} ms",
        percentile(&mut live, 0.99)
    );
    println!(
        "  stdio, DESKHAND_TREE_READER=walk {walked_p50:>7.2} / {:>7.2} ms (live ÷ walk {:.3}x)",
        percentile(&mut walked, 0.99),
        live_p50 / walked_p50
    );
    println!(
        "  HTTP, 1 session, live trees      {:>7.2} / {:>7.2} ms",
        percentile(&mut over_http, 0.5),
        percentile(&mut over_http, 0.99)
    );
}

fn percentile(times: &mut [Duration], p: f64) -> f64 {
    times.sort();
    let index = ((times.len() as f64 - 1.0) * p).round() as usize;
    times[index].as_secs_f64() * 1000.0
}

fn report(label: &str, times: &mut [Vec<Duration>; 4]) {
    print!("{label:<34}");
    for (action, times) in ACTIONS.iter().zip(times.iter_mut()) {
        print!(
            " | {action} {:>7.2} / {:>7.2} ms",
            percentile(times, 0.5),
            percentile(times, 0.99)
        );
    }
    println!(" ({} calls)", times.iter().map(Vec::len).sum::<usize>());
}

/// Resident memory of `pid` and of every process under it, in MiB.
fn rss_mib(pid: u32) -> (f64, f64) {
    let rss = rss_mib_of;
    let mut children = 0.0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if parent == Some(pid) {
            children += rss(child);
        }
    }
    (rss(pid), children)
}

struct Server {
    child: Child,
    url: String,
    log: mpsc::Receiver<String>,
}

fn start_server(args: &[&str]) -> Server {
    let mut child = Command::new(BIN)
        .args([
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--audit",
            "off",
            "--memory",
            "off",
        ])
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("DESKHAND_LOG", "info")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting deskhand mcp --http");
    let (lines, log) = mpsc::channel();
    let stderr = child.stderr.take().expect("piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let url = loop {
        let line = log
            .recv_timeout(Duration::from_secs(60))
            .expect("the server says where it serves");
        if let Some(url) = line.strip_prefix("deskhand: serving MCP on ") {
            break url.to_owned();
        }
    };
    Server { child, url, log }
}

impl Server {
    fn stop(mut self) -> (bool, Vec<String>) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let ok = self.child.wait().is_ok_and(|s| s.success());
        (ok, self.log.try_iter().collect())
    }
}

async fn http_client(url: &str) -> Client {
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .expect("an MCP session over HTTP")
}

fn main() {
    let sessions: usize = std::env::var("DESKHAND_BENCH_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let calls: usize = std::env::var("DESKHAND_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let per_session = calls / ACTIONS.len();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    println!(
        "{} cores, load {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!("p50 / p99 per action:");

    // One agent over stdio: the reference. Then the calculator observed again and again
    // unchanged, by this server (which keeps live trees) and by one that walks every time.
    let unchanged = runtime.block_on(async {
        let client = stdio_client(None).await;
        let w = prepare(&client).await;
        rounds(&client, &w, WARM_UP_ROUNDS).await;
        let mut times = rounds(&client, &w, per_session).await;
        report("stdio, 1 agent", &mut times);
        let unchanged = observes_unchanged(&client, &w).await;
        client.cancel().await.expect("closing stdio");
        let client = stdio_client(Some("walk")).await;
        let w = prepare(&client).await;
        let walked = observes_unchanged(&client, &w).await;
        client.cancel().await.expect("closing stdio");
        [unchanged, walked]
    });

    // One session over HTTP, on its own desktop: what HTTP adds.
    let server = start_server(&["--desktop-per-session", "--max-desktops", "1"]);
    runtime.block_on(async {
        let client = http_client(&server.url).await;
        let w = prepare(&client).await;
        rounds(&client, &w, WARM_UP_ROUNDS).await;
        let mut times = rounds(&client, &w, per_session).await;
        report("HTTP, 1 session", &mut times);
        let over_http = observes_unchanged(&client, &w).await;
        client.cancel().await.expect("closing");
        report_unchanged(unchanged, over_http);
    });
    let (stopped, _) = server.stop();
    assert!(stopped, "the one-session server did not stop cleanly");

    // Many sessions at once, each on its own desktop.
    let server = start_server(&[
        "--desktop-per-session",
        "--max-desktops",
        &sessions.to_string(),
        "--max-calls",
        &(sessions * 2).to_string(),
    ]);
    let pid = server.child.id();
    let url = server.url.clone();
    let (mut times, warm, end, elapsed) = runtime.block_on(async {
        let clients = futures::future::join_all((0..sessions).map(|_| http_client(&url))).await;
        let windows = futures::future::join_all(clients.iter().map(prepare)).await;
        futures::future::join_all(
            clients
                .iter()
                .zip(&windows)
                .map(|(c, w)| rounds(c, w, WARM_UP_ROUNDS)),
        )
        .await;
        let warm = rss_mib(pid);
        let started = Instant::now();
        let all = futures::future::join_all(
            clients
                .iter()
                .zip(&windows)
                .map(|(c, w)| rounds(c, w, per_session)),
        )
        .await;
        let elapsed = started.elapsed();
        let end = rss_mib(pid);
        let mut times: [Vec<Duration>; 4] = Default::default();
        for session in all {
            for (into, from) in times.iter_mut().zip(session) {
                into.extend(from);
            }
        }
        for client in clients {
            let _ = client.cancel().await;
        }
        (times, warm, end, elapsed)
    });
    report(&format!("HTTP, {sessions} sessions at once"), &mut times);
    let total: usize = times.iter().map(Vec::len).sum();
    println!(
        "{sessions} sessions: {total} calls in {:.1} s, {:.0} calls/s",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
    println!(
        "memory after warm-up: server {:.1} MiB, its {sessions} deskhand children {:.1} MiB (their X servers and apps not counted); at the end: {:.1} / {:.1} MiB",
        warm.0, warm.1, end.0, end.1
    );
    let (stopped, log) = server.stop();
    // Every private desktop's X server, by the display its child said it started.
    let displays: Vec<String> = log
        .iter()
        .filter_map(|l| l.split("started a headless desktop on ").nth(1))
        .map(|d| format!("Xvfb {} ", d.trim()))
        .collect();
    let left = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| displays.iter().any(|d| c.contains(d.as_str())))
        .count();
    println!(
        "stop (SIGTERM): exit {}, {} desktops started, X servers left {left}",
        if stopped { "0" } else { "non-zero" },
        displays.len()
    );

    behind_the_balancer(&runtime, calls);
}

/// One desktop by handle, called directly and through HAProxy in alternating blocks of
/// `windows`; then that desktop's memory with gnome-calculator on it.
fn behind_the_balancer(runtime: &tokio::runtime::Runtime, calls: usize) {
    let server = start_server(&[
        "--desktop-per-session",
        "--max-desktops",
        "1",
        "--host-id",
        "h1",
    ]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let unused = |n: u16| format!("127.0.0.1:{}", port.wrapping_add(n));
    let host = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../deploy/haproxy.cfg");
    let mut balancer = Command::new("haproxy")
        .args(["-db", "-f", config])
        .env("LB_ADDR", format!("127.0.0.1:{port}"))
        .env("HOST_1", &host)
        .env("HOST_2", unused(1))
        .env("HOST_3", unused(2))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting haproxy");
    std::thread::sleep(Duration::from_millis(2500));
    let through = format!("http://127.0.0.1:{port}/mcp");
    let (direct_rate, balanced_rate, memory) = runtime.block_on(async {
        let http = reqwest::Client::new();
        let post = |url: String, id: usize, args: Value| {
            let http = http.clone();
            async move {
                let body = json!({
                    "jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": "desktop", "arguments": args, "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}}},
                });
                let text = http
                    .post(url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", "desktop")
                    .body(body.to_string())
                    .send()
                    .await
                    .expect("an answer")
                    .text()
                    .await
                    .expect("a body");
                text.lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                    .or_else(|| serde_json::from_str(&text).ok())
                    .unwrap_or_else(|| panic!("no reply in {text}"))["result"]
                    .clone()
            }
        };
        let started = post(
            server.url.clone(),
            1,
            json!({"desktop": "new", "action": "launch", "app": "org.gnome.Calculator"}),
        )
        .await;
        let handle = started["structuredContent"]["desktop"]
            .as_str()
            .unwrap_or_else(|| panic!("no handle: {started}"))
            .to_owned();
        let windows = json!({"desktop": handle, "action": "windows"});
        let block = calls.max(20) / 4;
        let (mut direct, mut balanced) = (Vec::new(), Vec::new());
        for round in 0..4 {
            for (url, into) in [(&server.url, &mut direct), (&through, &mut balanced)] {
                let started = Instant::now();
                for id in 0..block {
                    let reply = post(url.clone(), id, windows.clone()).await;
                    assert_ne!(reply["isError"], true, "round {round}: {reply}");
                }
                into.push(block as f64 / started.elapsed().as_secs_f64());
            }
        }
        let memory = desktop_memory(server.child.id());
        let median = |rates: &mut Vec<f64>| {
            rates.sort_by(f64::total_cmp);
            (rates[1] + rates[2]) / 2.0
        };
        (median(&mut direct), median(&mut balanced), memory)
    });
    println!(
        "one desktop by handle, `windows` over stateless HTTP: {direct_rate:.0} calls/s directly, {balanced_rate:.0} through HAProxy ({:.2}x the direct rate; medians of 4 alternating blocks)",
        balanced_rate / direct_rate
    );
    println!(
        "memory of that desktop with gnome-calculator on it: {memory:.0} MiB (every process of it: deskhand's child, the X server, buses, window manager, the app)"
    );
    let _ = balancer.kill();
    let _ = balancer.wait();
    let (stopped, _) = server.stop();
    assert!(stopped, "the balanced server did not stop cleanly");
}

/// The resident memory of the one private desktop `server` runs: its deskhand child, the
/// processes its desktop's state file lists, and every process on its display.
fn desktop_memory(server: u32) -> f64 {
    let processes: Vec<u32> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .collect();
    let parent_of = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()?
            .rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse::<u32>()
            .ok()
    };
    let environ = |pid: u32| std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    let child = processes
        .iter()
        .copied()
        .find(|&pid| parent_of(pid) == Some(server))
        .expect("the desktop's deskhand process");
    // The child's desktop: the state file whose owner it is.
    let state = std::fs::read_dir("/tmp")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("state.json"))
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .filter_map(|text| serde_json::from_str::<Value>(&text).ok())
        .find(|state| state["owner"]["pid"].as_u64() == Some(u64::from(child)))
        .expect("the desktop's state file");
    let display = state["display"].as_str().expect("a display").to_owned();
    let mut counted: Vec<u32> = state["processes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["pid"].as_u64().and_then(|pid| u32::try_from(pid).ok()))
        .collect();
    counted.push(child);
    let marker = format!("DISPLAY={display}\0");
    for &pid in &processes {
        let on_display = environ(pid)
            .windows(marker.len())
            .any(|w| w == marker.as_bytes());
        let under = parent_of(pid).is_some_and(|parent| counted.contains(&parent));
        if (on_display || under) && !counted.contains(&pid) {
            counted.push(pid);
        }
    }
    counted.iter().map(|&pid| rss_mib_of(pid)).sum()
}

fn rss_mib_of(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}
