//! `deskhand mcp --http`: the real binary, driven over HTTP by rmcp's Streamable HTTP client and
//! by raw requests, on the shared desktop and on a private desktop per session.

mod browser;
mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{BIN, desktop, first_of_role, line_of, ref_of, wait_until};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const TOKEN: &str = "http-test-token-0123456789";
/// GTK4's calculator can take many seconds to show its keypad on a loaded two-core machine.
const CALCULATOR_START: Duration = Duration::from_secs(60);

/// A `deskhand mcp --http 127.0.0.1:0` process; its stderr is kept, it is stopped with SIGTERM.
struct Server {
    child: Child,
    url: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(mut command: Command, args: &[&str]) -> Server {
        command
            .args(["mcp", "--http", "127.0.0.1:0"])
            .args(args)
            .env("DESKHAND_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("starting deskhand mcp --http");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (found, url) = std::sync::mpsc::channel();
        {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if let Some(url) = line.strip_prefix("deskhand: serving MCP on ") {
                        let _ = found.send(url.to_owned());
                    }
                    log.lock().unwrap().push(line);
                }
            });
        }
        let url = url
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the server never said where it serves: {:?}", log));
        Server { child, url, log }
    }

    fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_owned()
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// What `GET /healthz` answers, as JSON.
    async fn health(&self) -> Value {
        reqwest::get(format!("{}/healthz", self.base()))
            .await
            .expect("health")
            .json()
            .await
            .expect("JSON")
    }

    /// SIGTERM, as an orchestrator stops it; true when it exited 0 within `limit`.
    fn stop(&mut self, limit: Duration) -> bool {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let exited = wait_until(limit, || self.child.try_wait().ok().flatten());
        exited.is_some_and(|status| status.success())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.stop(Duration::from_secs(40));
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

type Client = RunningService<RoleClient, ()>;

async fn connect(url: &str, token: Option<&str>) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("an MCP session over HTTP")
}

async fn call(client: &Client, args: Value) -> CallToolResult {
    let args = args.as_object().expect("an object").clone();
    client
        .call_tool(CallToolRequestParams::new("desktop").with_arguments(args))
        .await
        .expect("tools/call")
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Launches the calculator through the tool, then works out `a op b =` by clicking its buttons
/// by ref, and returns the window and what its display shows.
async fn calculate(
    client: &Client,
    a: &str,
    op: &str,
    b: &str,
    expected: &str,
) -> (String, String) {
    let launched = call(
        client,
        json!({"action": "launch", "app": "org.gnome.Calculator"}),
    )
    .await;
    assert_ne!(launched.is_error, Some(true), "{}", text_of(&launched));
    let data = launched.structured_content.clone().expect("structured");
    let w = data["window"]
        .as_str()
        .expect("the launched window")
        .to_owned();
    let started = Instant::now();
    let keypad = loop {
        let observed = call(client, json!({"action": "observe", "target": w})).await;
        let text = text_of(&observed);
        if text.contains(&format!("button \"{a}\"")) && text.contains("button \"=\"") {
            break text;
        }
        assert!(
            started.elapsed() < CALCULATOR_START,
            "the keypad never showed:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    for label in [a, op, b, "="] {
        let button = ref_of(&keypad, &[&format!("button \"{label}\"")]);
        let clicked = call(client, json!({"action": "click", "ref": button})).await;
        assert!(
            text_of(&clicked).starts_with(&format!("done: clicked {button}")),
            "{}",
            text_of(&clicked)
        );
    }
    // The display shows the expression as the app takes each click ("7", "7×", "7×2") before
    // the result, later on a loaded machine: it is read until it shows the result expected.
    let started = Instant::now();
    loop {
        // Refs expire on the next observe: the display's ref is read anew each time.
        let observed = text_of(&call(client, json!({"action": "observe", "target": w})).await);
        let display = first_of_role(&observed, "text");
        let line = line_of(&observed, &display).to_owned();
        // A number shows without quotes (`value=14`), other text in them.
        let value = line
            .split_once(" value=")
            .and_then(|(_, v)| match v.strip_prefix('"') {
                Some(quoted) => quoted.split('"').next(),
                None => v.split(' ').next(),
            })
            .unwrap_or_default()
            .to_owned();
        if value == expected || started.elapsed() >= Duration::from_secs(20) {
            return (w, value);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The display numbers of the private desktops the server's children started.
fn private_displays(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|line| line.split("started a headless desktop on ").nth(1))
        .map(|display| display.trim().to_owned())
        .collect()
}

/// The moment now, in the clock ticks since boot that `/proc/<pid>/stat` gives start times in.
fn ticks_since_boot() -> u64 {
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .expect("/proc/uptime")
        .split_whitespace()
        .next()
        .and_then(|secs| secs.parse().ok())
        .expect("seconds since boot");
    let per_second: f64 = String::from_utf8(
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .expect("getconf")
            .stdout,
    )
    .ok()
    .and_then(|ticks| ticks.trim().parse().ok())
    .expect("clock ticks per second");
    (uptime * per_second) as u64
}

/// When process `pid` started, in clock ticks since boot.
fn started_at(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// Processes whose environment names `display` that started before `before` (ticks since
/// boot): a desktop's server, its helpers and its apps. Other test binaries start desktops of
/// their own, which may take the display's number once it is free.
fn processes_on(display: &str, before: u64) -> Vec<String> {
    let wanted = format!("DISPLAY={display}\0");
    let own_x = format!("Xvfb {display} ");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let path = entry.path();
        let pid = entry.file_name().to_string_lossy().into_owned();
        if started_at(&pid).is_none_or(|start| start > before) {
            continue;
        }
        let environ = std::fs::read(path.join("environ")).unwrap_or_default();
        let cmdline = std::fs::read(path.join("cmdline"))
            .unwrap_or_default()
            .iter()
            .map(|b| if *b == 0 { ' ' } else { *b as char })
            .collect::<String>();
        let environ = String::from_utf8_lossy(&environ);
        if environ.contains(&wanted)
            || cmdline.starts_with(&own_x)
            || cmdline.contains(&format!("/Xvfb {display} "))
        {
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

#[test]
fn a_session_on_the_shared_desktop_drives_the_calculator_by_refs_and_is_audited() {
    let (_turn, desk) = desktop();
    let audit = desk.scratch("http-audit.jsonl");
    let _ = std::fs::remove_file(&audit);
    let recordings = desk.scratch("http-recordings");
    let _ = std::fs::remove_dir_all(&recordings);
    let mut command = desk.command(BIN);
    command.env("DESKHAND_AUDIT", &audit);
    let mut server = Server::start(command, &["--record", recordings.to_str().unwrap()]);
    runtime().block_on(async {
        let client = connect(&server.url, None).await;
        let info = client.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().expect("identity").name,
            "deskhand"
        );
        let tools = client.list_all_tools().await.expect("tools/list");
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].name, "desktop");
        assert!(
            tools[0]
                .description
                .as_deref()
                .unwrap_or_default()
                .contains("refs expire on the next observe")
        );
        let (w, value) = calculate(&client, "7", "×", "2", "14").await;
        assert_eq!(value, "14");
        call(&client, json!({"action": "close", "target": w})).await;
        client.cancel().await.expect("the session ends");
    });
    // Every action of the session is in the audit log, under its session id.
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .expect("the audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let clicks: Vec<&Value> = lines.iter().filter(|l| l["action"] == "click").collect();
    assert_eq!(clicks.len(), 4, "{lines:?}");
    let session = clicks[0]["session"].as_str().expect("the session is named");
    assert!(!session.is_empty());
    assert!(lines.iter().all(|l| l["session"] == session), "{lines:?}");
    assert!(
        server.log().contains(&format!("session={session}")),
        "{}",
        server.log()
    );
    assert!(server.stop(Duration::from_secs(30)), "{}", server.log());
    // The session was recorded into a folder of its own, every click a step.
    let folders = session_folders(&recordings);
    assert_eq!(folders.len(), 1, "{folders:?}");
    let steps = steps_of(&folders[0]);
    assert_eq!(
        steps.iter().filter(|s| s["action"] == "click").count(),
        4,
        "{steps:?}"
    );
}

/// The session folders an HTTP server with `--record` wrote under `root`.
fn session_folders(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut folders: Vec<_> = std::fs::read_dir(root)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    folders.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("session-"))
    });
    folders.sort();
    folders
}

fn steps_of(folder: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(folder.join("steps.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a step is a JSON line"))
        .collect()
}

#[test]
fn two_sessions_on_private_desktops_work_in_parallel_without_cross_talk_and_leave_nothing() {
    let (_turn, desk) = desktop();
    let recordings = desk.scratch("http-private-recordings");
    let _ = std::fs::remove_dir_all(&recordings);
    let mut server = Server::start(
        desk.command(BIN),
        &[
            "--desktop-per-session",
            "--max-desktops",
            "2",
            "--record",
            recordings.to_str().unwrap(),
        ],
    );
    let url = server.url.clone();
    let ending = runtime().block_on(async {
        let (first, second) = tokio::join!(connect(&url, None), connect(&url, None));
        let (one, two) = tokio::join!(
            calculate(&first, "7", "×", "2", "14"),
            calculate(&second, "9", "−", "3", "6")
        );
        assert_eq!(one.1, "14");
        assert_eq!(two.1, "6");
        // Each session sees its own desktop: one calculator each, and the other's window ids
        // mean nothing there.
        for (client, own) in [(&first, &one.0), (&second, &two.0)] {
            let apps = call(client, json!({"action": "apps"})).await;
            let listed = apps.structured_content.clone().expect("structured");
            assert_eq!(listed["apps"].as_array().map(Vec::len), Some(1), "{listed}");
            let windows = text_of(&call(client, json!({"action": "windows"})).await);
            assert!(
                windows.contains(&format!("{own} \"Calculator\"")),
                "{windows}"
            );
        }
        let health = server.health().await;
        assert_eq!(health["desktops"], 2, "{health}");
        // One session ends: its desktop stops; the other keeps working on its own.
        let ending = ticks_since_boot();
        first.cancel().await.expect("the first session ends");
        let stopped = wait_until(Duration::from_secs(30), || {
            server
                .log()
                .contains("private desktop stopped")
                .then_some(())
        });
        assert!(stopped.is_some(), "{}", server.log());
        let still = call(&second, json!({"action": "windows"})).await;
        assert!(text_of(&still).contains(&two.0), "{}", text_of(&still));
        // The other is still open when the server is told to stop.
        drop(second);
        ending
    });
    let displays = private_displays(&server.log());
    assert_eq!(displays.len(), 2, "{}", server.log());
    assert!(server.stop(Duration::from_secs(40)), "{}", server.log());
    for display in &displays {
        let left = processes_on(display, ending);
        assert!(
            left.is_empty(),
            "left on {display}: {left:?}\n{}",
            server.log()
        );
    }
    // Each session was recorded by its own desktop's process, into a folder of its own.
    let folders = session_folders(&recordings);
    assert_eq!(folders.len(), 2, "{folders:?}");
    for folder in &folders {
        let clicks = steps_of(folder)
            .iter()
            .filter(|s| s["action"] == "click")
            .count();
        assert_eq!(clicks, 4, "{}", folder.display());
    }
}

/// A raw POST of `body` to the MCP endpoint.
async fn post(
    url: &str,
    headers: &[(&str, &str)],
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("an HTTP answer")
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const APPS: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"desktop","arguments":{"action":"apps"}}}"#;

#[test]
fn bad_requests_are_refused_clearly_and_change_nothing() {
    let (_turn, desk) = desktop();
    let audit = desk.scratch("http-bad-audit.jsonl");
    let _ = std::fs::remove_file(&audit);
    let mut command = desk.command(BIN);
    command
        .env("DESKHAND_TOKEN", TOKEN)
        .env("DESKHAND_AUDIT", &audit);
    let mut server = Server::start(
        command,
        &[
            "--desktop-per-session",
            "--max-desktops",
            "1",
            "--max-calls",
            "1",
            "--max-body",
            "4096",
        ],
    );
    let url = server.url.clone();
    let bearer = format!("Bearer {TOKEN}");
    let auth = [("authorization", bearer.as_str())];
    runtime().block_on(async {
        // No token, a wrong token: 401, and the answer says what to send.
        for headers in [
            vec![],
            vec![("authorization", "Bearer not-the-token-at-all")],
        ] {
            let refused = post(&url, &headers, INITIALIZE).await;
            assert_eq!(refused.status(), 401);
            assert!(refused.headers().contains_key("www-authenticate"));
            let body = refused.text().await.unwrap();
            assert!(body.contains("Authorization: Bearer"), "{body}");
        }
        // A page of another site, or a name that rebinds to this machine: 403.
        let foreign = post(
            &url,
            &[auth[0], ("origin", "http://evil.example")],
            INITIALIZE,
        )
        .await;
        assert_eq!(foreign.status(), 403);
        let said = foreign.text().await.unwrap();
        assert!(
            said.contains("--allow-origin http://evil.example"),
            "{said}"
        );
        let rebound = post(&url, &[auth[0], ("host", "evil.example")], INITIALIZE).await;
        assert_eq!(rebound.status(), 403);
        let said = rebound.text().await.unwrap();
        assert!(said.contains("--allow-host evil.example"), "{said}");
        // The scheme's case is not the token's (RFC 7235).
        let lower = format!("bearer {TOKEN}");
        let accepted = post(&url, &[("authorization", lower.as_str())], INITIALIZE).await;
        assert_eq!(accepted.status(), 200);
        // Over the body limit: 413.
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
            "x".repeat(8192)
        );
        assert_eq!(post(&url, &auth, big).await.status(), 413);
        // Not JSON: JSON-RPC's Parse error, HTTP 400; JSON but not JSON-RPC: Invalid Request.
        let malformed = post(&url, &auth, r#"{"jsonrpc":"2.0","id":1,"method":"#).await;
        assert_eq!(malformed.status(), 400);
        let said: Value = malformed.json().await.unwrap();
        assert_eq!(said["error"]["code"], -32700, "{said}");
        let not_rpc = post(&url, &auth, r#"{"hello":"world"}"#).await;
        assert_eq!(not_rpc.status(), 400);
        let said: Value = not_rpc.json().await.unwrap();
        assert_eq!(said["error"]["code"], -32600, "{said}");
        // A session that never existed: 404.
        let unknown = post(
            &url,
            &[auth[0], ("mcp-session-id", "no-such-session")],
            APPS,
        )
        .await;
        assert_eq!(unknown.status(), 404);
        let said = unknown.text().await.unwrap();
        assert!(said.contains("has no session no-such-session"), "{said}");

        // The desktop cap: the first session holds the one private desktop, the second is
        // told so, and gets nothing started.
        let first = connect(&url, Some(TOKEN)).await;
        let second = connect(&url, Some(TOKEN)).await;
        let apps = call(&first, json!({"action": "apps"})).await;
        assert_ne!(apps.is_error, Some(true), "{}", text_of(&apps));
        // The doctor of the session's own private desktop.
        let listed = first.list_resources(None).await.expect("resources/list");
        assert!(
            listed
                .resources
                .iter()
                .any(|r| r.uri == deskhand_mcp::DOCTOR_URI),
            "{listed:?}"
        );
        let doctor = first
            .read_resource(rmcp::model::ReadResourceRequestParams::new(
                deskhand_mcp::DOCTOR_URI,
            ))
            .await
            .expect("resources/read");
        let report = serde_json::to_value(&doctor).unwrap().to_string();
        assert!(report.contains("accessibility"), "{report}");
        let capped = call(&second, json!({"action": "apps"})).await;
        assert_eq!(capped.is_error, Some(true));
        assert!(
            text_of(&capped)
                .starts_with("failed (busy): this server already runs its 1 private desktops"),
            "{}",
            text_of(&capped)
        );
        assert!(
            text_of(&capped).contains("no request for 300 s, the server's --idle-timeout"),
            "{}",
            text_of(&capped)
        );

        // The call cap: while the first session's launch runs, any other call is busy.
        let launching = call(
            &first,
            json!({"action": "launch", "app": "org.gnome.Calculator"}),
        );
        let busy = async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            call(&second, json!({"action": "apps"})).await
        };
        let (launched, busy) = tokio::join!(launching, busy);
        assert_ne!(launched.is_error, Some(true), "{}", text_of(&launched));
        assert!(
            text_of(&busy).starts_with("failed (busy): the server already runs 1 calls"),
            "{}",
            text_of(&busy)
        );

        // A call after the session ended: 404, nothing run.
        let opened = post(&url, &auth, INITIALIZE).await;
        assert_eq!(opened.status(), 200);
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let ended = reqwest::Client::new()
            .delete(&url)
            .header("authorization", &bearer)
            .header("mcp-session-id", &session)
            .send()
            .await
            .expect("DELETE");
        assert_eq!(ended.status(), 204);
        let after = post(
            &url,
            &[
                auth[0],
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            APPS,
        )
        .await;
        assert_eq!(after.status(), 404);
        let said = after.text().await.unwrap();
        assert!(said.contains("ended by its client (a DELETE)"), "{said}");
        first.cancel().await.expect("the first session ends");
        drop(second);
    });
    // Only the first session's own actions are in the audit log: the launch.
    let audited = std::fs::read_to_string(&audit).unwrap_or_default();
    let actions: Vec<Value> = audited
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(actions.len(), 1, "{audited}");
    assert_eq!(actions[0]["action"], "launch");
    assert!(
        actions[0]["session"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "{audited}"
    );
    assert!(server.stop(Duration::from_secs(40)), "{}", server.log());
}

#[test]
fn a_stateless_request_is_served_and_health_answers_without_a_token() {
    let (_turn, desk) = desktop();
    // A token file others can read: accepted, with a warning.
    let token_file = desk.scratch("http-token-open");
    std::fs::write(&token_file, TOKEN).unwrap();
    std::fs::set_permissions(
        &token_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let mut command = desk.command(BIN);
    command.env_remove("DESKHAND_TOKEN");
    let mut server = Server::start(
        command,
        &[
            "--token-file",
            token_file.to_str().unwrap(),
            "--idle-timeout",
            "2",
        ],
    );
    assert!(
        wait_until(Duration::from_secs(5), || server
            .log()
            .contains("can be read by other users")
            .then_some(()))
        .is_some(),
        "{}",
        server.log()
    );
    assert!(server.log().contains("chmod 600"), "{}", server.log());
    let bearer = format!("Bearer {TOKEN}");
    runtime().block_on(async {
        let health = reqwest::get(format!("{}/healthz", server.base())).await.expect("health");
        assert_eq!(health.status(), 200);
        let said: Value = health.json().await.unwrap();
        assert_eq!((&said["calls"], &said["max_calls"]), (&json!(0), &json!(16)), "{said}");
        // A session left idle past --idle-timeout: its next request is told so.
        let opened = post(&server.url, &[("authorization", &bearer)], INITIALIZE).await;
        assert_eq!(opened.status(), 200);
        let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let late = post(
            &server.url,
            &[
                ("authorization", &bearer),
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            APPS,
        )
        .await;
        assert_eq!(late.status(), 404);
        let said = late.text().await.unwrap();
        assert!(said.contains("after 2 s without a request (its --idle-timeout)"), "{said}");
        let list = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let answer = post(
            &server.url,
            &[
                ("authorization", &bearer),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/list"),
            ],
            list,
        )
        .await;
        assert_eq!(answer.status(), 200);
        assert!(answer.headers().get("mcp-session-id").is_none());
        let body = answer.text().await.unwrap();
        assert!(body.contains("\"name\":\"desktop\""), "{body}");
        // One shared desktop: the fields that name private ones are not offered.
        assert!(!body.contains("end_desktop"), "{body}");
    });
    assert!(server.stop(Duration::from_secs(30)), "{}", server.log());
}

#[test]
fn an_open_bind_without_a_token_is_refused_at_start() {
    let output = Command::new(BIN)
        .args(["mcp", "--http", "0.0.0.0:0"])
        .env_remove("DESKHAND_TOKEN")
        .output()
        .expect("running deskhand");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("--token-file"), "{said}");
}

/// A client that hands every progress notification it receives to the test.
struct ProgressWatcher(tokio::sync::mpsc::UnboundedSender<rmcp::model::ProgressNotificationParam>);

impl rmcp::ClientHandler for ProgressWatcher {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params);
    }
}

#[test]
fn a_private_desktops_progress_reaches_the_client_and_a_cancel_reaches_the_desktop() {
    use rmcp::model::{CallToolRequest, ClientRequest};
    use rmcp::service::PeerRequestOptions;

    let (_turn, desk) = desktop();
    let mut server = Server::start(desk.command(BIN), &["--desktop-per-session"]);
    runtime().block_on(async {
        let (sender, mut progress) = tokio::sync::mpsc::unbounded_channel();
        let client = ProgressWatcher(sender)
            .serve(StreamableHttpClientTransport::from_uri(server.url.clone()))
            .await
            .expect("an MCP session over HTTP");
        let tools = client.list_all_tools().await.expect("tools/list");
        let properties = &tools[0].input_schema["properties"];
        assert!(
            properties.get("desktop").is_some() && properties.get("end_desktop").is_some(),
            "a server of private desktops offers their handles: {properties}"
        );
        // A condition that never holds, with a long timeout: only the cancel can end it soon.
        let wait = CallToolRequestParams::new("desktop").with_arguments(
            json!({
                "action": "wait",
                "target": "screen",
                "until": {"name": "deskhand never shows this", "role": "button"},
                "timeout_ms": 30000,
            })
            .as_object()
            .unwrap()
            .clone(),
        );
        let handle = client
            .send_cancellable_request(
                ClientRequest::CallToolRequest(CallToolRequest::new(wait)),
                PeerRequestOptions::no_options(),
            )
            .await
            .expect("tools/call sent");
        let token = handle.progress_token.clone();
        let first = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let note = progress.recv().await.expect("the client still runs");
                if note.progress_token == token {
                    return note;
                }
            }
        })
        .await
        .expect("no progress notification for the wait within 30 s");
        let message = first.message.clone().unwrap_or_default();
        assert!(message.starts_with("waiting on screen: "), "{message:?}");
        handle
            .cancel(Some("the test cancels the wait".into()))
            .await
            .expect("notifications/cancelled sent");
        let asked = Instant::now();
        let windows = tokio::time::timeout(
            Duration::from_secs(30),
            client.call_tool(
                CallToolRequestParams::new("desktop")
                    .with_arguments(json!({"action": "windows"}).as_object().unwrap().clone()),
            ),
        )
        .await
        .expect("windows never answered")
        .expect("tools/call windows");
        assert!(
            text_of(&windows).starts_with("windows · "),
            "{}",
            text_of(&windows)
        );
        assert!(
            asked.elapsed() < Duration::from_secs(10),
            "windows took {:?} after the cancel: the wait kept running on the desktop",
            asked.elapsed()
        );
        client.cancel().await.expect("the session ends");
    });
    assert!(server.stop(Duration::from_secs(30)), "{}", server.log());
}

#[test]
fn sigterm_lets_a_call_under_way_finish_and_audit_then_stops_its_desktop() {
    let (_turn, desk) = desktop();
    let audit = desk.scratch("http-stop-audit.jsonl");
    let _ = std::fs::remove_file(&audit);
    let mut command = desk.command(BIN);
    command.env("DESKHAND_AUDIT", &audit);
    let mut server = Server::start(command, &["--desktop-per-session"]);
    let pid = server.child.id().to_string();
    let typed = "1234567890".repeat(20);
    let (reply, stop_asked) = runtime().block_on(async {
        let client = connect(&server.url, None).await;
        let launched = call(
            &client,
            json!({"action": "launch", "app": "org.gnome.Calculator"}),
        )
        .await;
        assert_ne!(launched.is_error, Some(true), "{}", text_of(&launched));
        // Typing 200 characters takes a while: the stop comes while it runs.
        let typing = call(&client, json!({"action": "type", "text": typed}));
        let stop = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let asked = ticks_since_boot();
            let _ = Command::new("kill").args(["-TERM", &pid]).status();
            asked
        };
        let (reply, asked) =
            tokio::join!(tokio::time::timeout(Duration::from_secs(60), typing), stop);
        (reply.expect("the typing call was answered"), asked)
    });
    assert_ne!(reply.is_error, Some(true), "{}", text_of(&reply));
    let exited = wait_until(Duration::from_secs(60), || {
        server.child.try_wait().ok().flatten()
    });
    assert!(exited.is_some_and(|s| s.success()), "{}", server.log());
    let log = server.log();
    // The stop came while the typing ran, and the typing was still answered.
    let stopping = log.find("stopping: new calls are refused");
    let answered = log
        .lines()
        .filter(|l| l.contains("action=type") && l.contains("call answered"))
        .map(|l| log.find(l).unwrap_or(0))
        .next();
    assert!(stopping.is_some() && answered > stopping, "{log}");
    assert!(log.contains("private desktop stopped"), "{log}");
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .expect("the audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let typed_line = lines.iter().find(|l| l["action"] == "type");
    assert_eq!(
        typed_line.map(|l| l["characters"].clone()),
        Some(json!(200)),
        "{lines:?}"
    );
    for display in private_displays(&log) {
        let left = processes_on(&display, stop_asked);
        assert!(left.is_empty(), "left on {display}: {left:?}");
    }
}

/// A stateless `tools/call` of revision 2026-07-28 (no session, no `initialize`), as plain HTTP
/// with its headers; the reply's result.
async fn stateless_call(url: &str, id: u32, args: Value) -> Value {
    stateless_call_as(url, None, id, args).await
}

/// [`stateless_call`] with the server's bearer token.
async fn stateless_call_as(url: &str, token: Option<&str>, id: u32, args: Value) -> Value {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {
            "name": "desktop",
            "arguments": args,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let bearer = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "desktop"),
    ];
    if let Some(bearer) = &bearer {
        headers.push(("authorization", bearer));
    }
    let answer = post(url, &headers, body.to_string()).await;
    assert_eq!(answer.status(), 200, "{args}");
    assert!(answer.headers().get("mcp-session-id").is_none());
    let text = answer.text().await.expect("a body");
    let message = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .or_else(|| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC reply in {text}"));
    message["result"].clone()
}

fn reply_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

#[test]
fn private_desktops_by_handle_serve_stateless_calls_apart_and_end() {
    let (_turn, desk) = desktop();
    let mut server = Server::start(
        desk.command(BIN),
        &[
            "--desktop-per-session",
            "--max-desktops",
            "2",
            "--idle-timeout",
            "6",
        ],
    );
    let url = server.url.clone();
    runtime().block_on(async {
        // Two desktops by handle, each with its own calculator task, from separate requests.
        let first = stateless_call(&url, 1, json!({"desktop": "new", "action": "launch", "app": "gnome-calculator"})).await;
        let first_text = reply_text(&first);
        let handle = first["structuredContent"]["desktop"]
            .as_str()
            .unwrap_or_else(|| panic!("no handle in {first}"))
            .to_owned();
        assert!(handle.starts_with("desk-") && handle.len() == 37, "{handle}");
        assert!(
            first_text.starts_with(&format!("desktop {handle} started")),
            "{first_text}"
        );
        assert!(first_text.contains("launched"), "{first_text}");
        let second = stateless_call(&url, 2, json!({"desktop": "new", "action": "windows"})).await;
        let other = second["structuredContent"]["desktop"]
            .as_str()
            .expect("a second handle")
            .to_owned();
        assert_ne!(handle, other);
        assert!(reply_text(&second).contains("0 windows"), "{second}");

        // The first desktop's calculator, driven by refs across stateless calls.
        let mut keypad = String::new();
        for _ in 0..60 {
            let observed = stateless_call(&url, 3, json!({"desktop": handle, "action": "observe"})).await;
            keypad = reply_text(&observed);
            if keypad.contains("button \"7\"") {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        for label in ["7", "×", "6", "="] {
            let button = ref_of(&keypad, &[&format!("button \"{label}\"")]);
            let clicked = stateless_call(&url, 4, json!({"desktop": handle, "action": "click", "ref": button})).await;
            assert!(reply_text(&clicked).starts_with("done:"), "{clicked}");
        }
        let shown = stateless_call(
            &url,
            5,
            json!({"desktop": handle, "action": "wait", "until": {"role": "text", "value": "42"}, "timeout_ms": 10000}),
        )
        .await;
        assert!(reply_text(&shown).contains("held"), "{shown}");

        // The second desktop saw none of it: no window, and the first desktop's refs mean
        // nothing there.
        let apart = stateless_call(&url, 6, json!({"desktop": other, "action": "windows"})).await;
        assert!(reply_text(&apart).contains("0 windows"), "{apart}");
        let button = ref_of(&keypad, &["button \"7\""]);
        let foreign = stateless_call(&url, 7, json!({"desktop": other, "action": "click", "ref": button})).await;
        assert!(reply_text(&foreign).starts_with("failed ("), "{foreign}");

        // The cap holds: a third desktop is refused while two run.
        let third = stateless_call(&url, 8, json!({"desktop": "new", "action": "windows"})).await;
        assert!(reply_text(&third).starts_with("failed (busy)"), "{third}");

        // Ended by the client: the handle is refused from then on, and its place frees.
        let ended = stateless_call(&url, 9, json!({"desktop": handle, "end_desktop": true})).await;
        assert!(reply_text(&ended).contains(&format!("desktop {handle} ended")), "{ended}");
        let gone = stateless_call(&url, 10, json!({"desktop": handle, "action": "windows"})).await;
        assert!(reply_text(&gone).starts_with("failed (surface-gone)"), "{gone}");
        let unknown = stateless_call(&url, 11, json!({"desktop": "desk-0123", "action": "windows"})).await;
        assert!(reply_text(&unknown).starts_with("failed (surface-gone)"), "{unknown}");

        // Ended by the idle timeout: the second desktop, left alone for longer than it.
        tokio::time::sleep(Duration::from_secs(9)).await;
        let idle = stateless_call(&url, 12, json!({"desktop": other, "action": "windows"})).await;
        assert!(reply_text(&idle).starts_with("failed (surface-gone)"), "{idle}");
        let health = server.health().await;
        assert_eq!(health["desktops"], 0, "{health}");
    });
    assert!(server.stop(Duration::from_secs(40)), "{}", server.log());
}

/// HAProxy in front of `hosts`, with the repository's `deploy/haproxy.cfg`; killed when dropped.
struct Balancer {
    child: Child,
    url: String,
}

impl Balancer {
    fn start(hosts: &[&Server]) -> Balancer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let config =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/haproxy.cfg");
        let mut command = Command::new("haproxy");
        command
            .args(["-db", "-f"])
            .arg(&config)
            .env("LB_ADDR", format!("127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (number, host) in hosts.iter().enumerate() {
            let addr = host.base().trim_start_matches("http://").to_owned();
            command.env(format!("HOST_{}", number + 1), addr);
        }
        let child = command
            .spawn()
            .expect("starting haproxy (apt-get install haproxy)");
        let url = format!("http://127.0.0.1:{port}/mcp");
        let listening = wait_until(Duration::from_secs(10), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).ok()
        });
        assert!(listening.is_some(), "haproxy never listened on {port}");
        // Its health checks run every second: every host is seen up after the first ones.
        std::thread::sleep(Duration::from_millis(2500));
        Balancer { child, url }
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn desktops_by_handle_spread_over_hosts_behind_haproxy_and_a_dead_hosts_are_gone() {
    let (_turn, desk) = desktop();
    let hosts: Vec<Server> = (1..=3)
        .map(|n| {
            Server::start(
                desk.command(BIN),
                &[
                    "--desktop-per-session",
                    "--max-desktops",
                    "3",
                    "--host-id",
                    &format!("h{n}"),
                ],
            )
        })
        .collect();
    let balancer = Balancer::start(&hosts.iter().collect::<Vec<_>>());
    let url = balancer.url.clone();
    let handles = runtime().block_on(async {
        // Eight desktops through the one address; a host that just filled up may still get
        // one before its health check says so, and says busy: the client retries, as a
        // client of a fleet would.
        let mut handles = Vec::new();
        for n in 0..8 {
            let tag = format!("tag-{n}-of-eight");
            let mut started = None;
            for attempt in 0..10 {
                let reply = stateless_call(
                    &url,
                    100 + attempt,
                    json!({"desktop": "new", "action": "clipboard", "text": tag}),
                )
                .await;
                if reply_text(&reply).contains("failed (busy)") {
                    tokio::time::sleep(Duration::from_millis(1500)).await;
                    continue;
                }
                started = Some(reply);
                break;
            }
            let reply = started.unwrap_or_else(|| panic!("desktop {n} never started"));
            let handle = reply["structuredContent"]["desktop"]
                .as_str()
                .unwrap_or_else(|| panic!("no handle in {reply}"))
                .to_owned();
            handles.push((handle, tag));
        }
        let host_of = |handle: &str| handle.split('-').nth(1).expect("a host part").to_owned();
        let mut used: Vec<String> = handles.iter().map(|(h, _)| host_of(h)).collect();
        used.sort();
        used.dedup();
        assert_eq!(used, ["h1", "h2", "h3"], "{handles:?}");

        // Every call of each handle reaches its own desktop: its clipboard holds its own tag.
        for (handle, tag) in &handles {
            let read =
                stateless_call(&url, 200, json!({"desktop": handle, "action": "clipboard"})).await;
            assert!(reply_text(&read).contains(tag.as_str()), "{handle}: {read}");
        }

        // Each desktop's live view is reached through the balancer too, by the handle in its
        // path: its state on the host that holds it (a wrong host would answer 404), and one
        // view's page, scripts and WebSocket carried through to its desktop.
        let lb = url.trim_end_matches("/mcp").to_owned();
        for (handle, _) in &handles {
            let state = reqwest::get(format!("{lb}/desktops/{handle}/state"))
                .await
                .unwrap();
            assert_eq!(state.status(), 200, "{handle}");
            let state: Value = state.json().await.expect("JSON");
            assert_eq!(state["held"], false, "{handle}: {state}");
        }
        let mut browser =
            browser::Browser::start(desk.command("chromium"), &desk.scratch("lb-chromium")).await;
        browser
            .navigate(&format!("{lb}/desktops/{}/view", handles[0].0))
            .await;
        assert!(
            browser
                .wait_for(
                    "document.body.dataset.view === 'connected'",
                    Duration::from_secs(30)
                )
                .await,
            "the view never connected through the balancer: {}",
            browser.eval("document.body.outerHTML").await
        );
        drop(browser);

        // A session client stays on the host that opened its session.
        let opened = post(&url, &[], INITIALIZE).await;
        assert_eq!(opened.status(), 200);
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
        for _ in 0..6 {
            let listed = post(
                &url,
                &[
                    ("mcp-session-id", &session),
                    ("mcp-protocol-version", "2025-06-18"),
                ],
                list,
            )
            .await;
            assert_eq!(
                listed.status(),
                200,
                "{}",
                listed.text().await.unwrap_or_default()
            );
        }
        handles
    });

    // A host dies: its desktops are gone, said clearly through the balancer; the others go on.
    let mut hosts = hosts;
    let _ = hosts[1].child.kill();
    let _ = hosts[1].child.wait();
    std::thread::sleep(Duration::from_millis(2500));
    runtime().block_on(async {
        for (handle, tag) in &handles {
            let read =
                stateless_call(&url, 300, json!({"desktop": handle, "action": "clipboard"})).await;
            if handle.starts_with("desk-h2-") {
                assert!(
                    reply_text(&read).starts_with(&format!(
                        "failed (surface-gone): the host that held desktop {handle} is down"
                    )),
                    "{read}"
                );
                assert_eq!(read["structuredContent"]["error"], "surface-gone", "{read}");
                let view = reqwest::get(format!(
                    "{}/desktops/{handle}/view",
                    url.trim_end_matches("/mcp")
                ))
                .await
                .unwrap();
                assert_eq!(view.status(), 503);
                assert!(view.text().await.unwrap().contains("is down"));
            } else {
                assert!(reply_text(&read).contains(tag.as_str()), "{handle}: {read}");
            }
        }
    });
    drop(balancer);
}

/// The x11vnc processes serving `display`.
fn x11vnc_on(display: &str) -> Vec<String> {
    let wanted = format!("x11vnc -display {display} ");
    command_lines()
        .into_iter()
        .filter(|cmdline| cmdline.starts_with(&wanted))
        .collect()
}

/// Every process's command line, its arguments joined by spaces.
fn command_lines() -> Vec<String> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| {
            cmdline
                .iter()
                .map(|b| if *b == 0 { ' ' } else { *b as char })
                .collect::<String>()
        })
        .collect()
}

/// Observes the desktop `handle` through `call` until gnome-calculator's keypad is there.
async fn wait_for_the_keypad<F: Future<Output = Value>>(
    call: &impl Fn(u32, Value) -> F,
    handle: &str,
) {
    let mut keypad = String::new();
    for _ in 0..60 {
        keypad = reply_text(&call(2, json!({"desktop": handle, "action": "observe"})).await);
        if keypad.contains("button \"7\"") {
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    panic!("gnome-calculator's keypad never showed: {keypad}");
}

/// Checks that the view page's canvas shows what the desktop shows: a screenshot of the page
/// against the agent's own screenshot of the screen, cell by cell on a 16 × 9 grid.
async fn assert_the_canvas_shows(
    browser: &mut browser::Browser,
    page_png: &std::path::Path,
    desktop_shot: &browser::Shot,
) {
    let page = browser.screenshot(page_png).await;
    let canvas = browser
        .eval("(() => { const r = document.querySelector('#screen canvas').getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round); })()")
        .await;
    let area: Vec<usize> = canvas
        .as_array()
        .expect("the canvas's place")
        .iter()
        .map(|n| n.as_u64().expect("a number") as usize)
        .collect();
    let (columns, rows) = (16, 9);
    let shown = page.grid((area[0], area[1], area[2], area[3]), columns, rows);
    let truth = desktop_shot.grid(
        (0, 0, desktop_shot.width, desktop_shot.height),
        columns,
        rows,
    );
    let apart: Vec<f64> = shown
        .iter()
        .zip(&truth)
        .map(|(a, b)| (a - b).abs())
        .collect();
    // A comparison with a screen of one colour would say little.
    let (darkest, lightest) = truth.iter().fold((f64::MAX, f64::MIN), |(lo, hi), cell| {
        (lo.min(*cell), hi.max(*cell))
    });
    assert!(
        lightest - darkest > 30.0,
        "the desktop should show the calculator, not one colour: {truth:?}"
    );
    assert!(
        apart.iter().all(|d| *d < 15.0),
        "the page's canvas {area:?} (in {}) should show the desktop: page {shown:?}, desktop {truth:?}",
        page_png.display()
    );
}

/// The first image of a reply, decoded.
fn image_of(result: &Value) -> browser::Shot {
    use base64::Engine as _;
    let data = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|block| block["type"] == "image")
        .and_then(|block| block["data"].as_str())
        .unwrap_or_else(|| panic!("no image in {result}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64");
    browser::decode_png(&bytes)
}

#[test]
fn the_live_view_shows_the_desktop_and_an_operator_takes_it_over_and_hands_it_back() {
    let (_turn, desk) = desktop();
    let audit = desk.scratch("view-audit.jsonl");
    let _ = std::fs::remove_file(&audit);
    let mut command = desk.command(BIN);
    command.env("DESKHAND_TOKEN", TOKEN);
    let mut server = Server::start(
        command,
        &["--desktop-per-session", "--audit", audit.to_str().unwrap()],
    );
    let url = server.url.clone();
    let base = server.base();
    let (display, ending) = runtime().block_on(async {
        let call = |id: u32, args: Value| stateless_call_as(&url, Some(TOKEN), id, args);
        let started = call(1, json!({"desktop": "new", "action": "launch", "app": "gnome-calculator"})).await;
        let handle = started["structuredContent"]["desktop"]
            .as_str()
            .unwrap_or_else(|| panic!("no handle in {started}"))
            .to_owned();
        wait_for_the_keypad(&call, &handle).await;
        let view = format!("{base}/desktops/{handle}/view");

        // The token rules: none, or a wrong one, is refused; an unknown handle is a 404 page.
        let plain = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client");
        let refused = plain.get(&view).send().await.expect("an answer");
        assert_eq!(refused.status(), 401);
        assert!(refused.text().await.unwrap().contains("view?token=TOKEN"));
        let wrong = plain.get(format!("{view}?token=not-the-token-at-all")).send().await.unwrap();
        assert_eq!(wrong.status(), 401);
        let socket = plain.get(format!("{base}/desktops/{handle}/websockify")).send().await.unwrap();
        assert_eq!(socket.status(), 401);
        let takeover = plain.post(format!("{base}/desktops/{handle}/takeover")).send().await.unwrap();
        assert_eq!(takeover.status(), 401);
        let unknown = plain
            .get(format!("{base}/desktops/desk-0123/view?token={TOKEN}"))
            .send()
            .await
            .unwrap();
        assert_eq!(unknown.status(), 404);
        assert!(unknown.text().await.unwrap().contains("No such desktop"));

        // The page, opened with the token once, which is swapped for a cookie and leaves the
        // address; its canvas draws what the desktop shows.
        let mut browser = browser::Browser::start(desk.command("chromium"), &desk.scratch("view-chromium")).await;
        browser.navigate(&format!("{view}?token={TOKEN}")).await;
        assert!(
            browser.wait_for("document.body.dataset.view === 'connected'", Duration::from_secs(30)).await,
            "the view never connected: {}\n{}",
            browser.eval("document.body.outerHTML").await,
            server.log()
        );
        assert_eq!(browser.eval("location.href").await, json!(view));
        // The first frames take a moment to arrive and be drawn.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let desktop_shot = image_of(&call(3, json!({"desktop": handle, "action": "screenshot", "target": "screen"})).await);
        assert_the_canvas_shows(&mut browser, &desk.scratch("view-page.png"), &desktop_shot).await;

        // A watcher's keys do not reach the desktop, even from a page that stops being
        // view-only: the server drops them.
        browser.eval("window.liveView.viewOnly = false; document.querySelector('#screen canvas').focus(); true").await;
        browser.press_digit('5').await;
        browser.eval("window.liveView.viewOnly = true").await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let untouched = reply_text(&call(8, json!({"desktop": handle, "action": "observe"})).await);
        assert!(
            !untouched.split([' ', '\n']).any(|word| word == "value=5"),
            "{untouched}"
        );

        // Take over: the agent's next call is refused as stopped, and the operator's keys go in.
        browser.click("#take").await;
        browser.wait_to_show("document.body.dataset.held === 'true' && window.liveView.viewOnly === false", Duration::from_secs(10)).await;
        let stopped = call(4, json!({"desktop": handle, "action": "windows"})).await;
        let stopped_text = reply_text(&stopped);
        assert!(stopped_text.starts_with("failed (stopped): an operator (127.0.0.1:"), "{stopped_text}");
        assert!(stopped_text.contains("hand it back"), "{stopped_text}");
        let kept = call(5, json!({"desktop": handle, "end_desktop": true})).await;
        assert!(reply_text(&kept).starts_with("failed (stopped)"), "{kept}");
        browser.eval("document.querySelector('#screen canvas').focus(); true").await;
        browser.press_digit('7').await;
        // Another operator's page sees who holds the desktop, and its keys do not go in.
        let mut other =
            browser::Browser::start(desk.command("chromium"), &desk.scratch("view-chromium-2")).await;
        other.navigate(&format!("{view}?token={TOKEN}")).await;
        other.wait_to_show("document.body.dataset.view === 'connected' && document.body.dataset.held === 'true'", Duration::from_secs(30)).await;
        let status = other.eval("document.getElementById('status').textContent").await;
        assert!(status.as_str().unwrap().contains("only their keys"), "{status}");
        other.eval("window.liveView.viewOnly = false; document.querySelector('#screen canvas').focus(); true").await;
        other.press_digit('9').await;
        // Time for the key to reach the server, which drops it.
        tokio::time::sleep(Duration::from_secs(1)).await;
        drop(other);

        // Hand back: the agent's calls go through again, and see what the operator typed, and
        // nothing of what the watchers did.
        browser.click("#give").await;
        browser.wait_to_show("document.body.dataset.held === 'false' && window.liveView.viewOnly === true", Duration::from_secs(10)).await;
        let typed = call(
            6,
            json!({"desktop": handle, "action": "wait", "until": {"role": "text", "value": "7"}, "timeout_ms": 10000}),
        )
        .await;
        assert!(reply_text(&typed).contains("held"), "{typed}");

        let display = private_displays(&server.log()).pop().expect("the desktop's display");
        assert_eq!(x11vnc_on(&display).len(), 1, "one VNC server for the desktop");
        // No viewer left: its VNC server stops; the next viewer starts it again.
        drop(browser);
        assert!(
            wait_until(Duration::from_secs(20), || x11vnc_on(&display).is_empty().then_some(())).is_some(),
            "x11vnc outlived its last viewer: {:?}",
            x11vnc_on(&display)
        );
        let mut browser =
            browser::Browser::start(desk.command("chromium"), &desk.scratch("view-chromium-3")).await;
        browser.navigate(&format!("{view}?token={TOKEN}")).await;
        browser.wait_to_show("document.body.dataset.view === 'connected'", Duration::from_secs(30)).await;
        assert_eq!(x11vnc_on(&display).len(), 1, "the VNC server started again");
        // Ended: its VNC server stops with it, its viewer is told, and its page is a 404.
        let ending = ticks_since_boot();
        let ended = call(7, json!({"desktop": handle, "end_desktop": true})).await;
        assert!(reply_text(&ended).contains("ended"), "{ended}");
        let gone = plain.get(&view).send().await.unwrap();
        assert_eq!(gone.status(), 404);
        browser.wait_to_show("document.body.dataset.view === 'disconnected'", Duration::from_secs(20)).await;
        assert!(
            wait_until(Duration::from_secs(20), || x11vnc_on(&display).is_empty().then_some(())).is_some(),
            "x11vnc outlived its desktop: {:?}",
            x11vnc_on(&display)
        );
        (display, ending)
    });
    assert!(server.stop(Duration::from_secs(40)), "{}", server.log());
    let left = processes_on(&display, ending);
    assert!(left.is_empty(), "left on {display}: {left:?}");
    // Who took over and when, and the hand-back, are in the audit log under the desktop.
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .expect("the audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let operator: Vec<&Value> = lines
        .iter()
        .filter(|l| {
            l["action"]
                .as_str()
                .is_some_and(|a| a.starts_with("operator-"))
        })
        .collect();
    assert_eq!(operator.len(), 2, "{lines:?}");
    assert_eq!(operator[0]["action"], "operator-takeover");
    assert_eq!(operator[1]["action"], "operator-handback");
    assert!(
        operator[0]["message"]
            .as_str()
            .unwrap()
            .contains("(127.0.0.1:"),
        "{operator:?}"
    );
    assert!(operator.iter().all(|l| {
        l["session"]
            .as_str()
            .is_some_and(|s| s.starts_with("desk-"))
    }));
}

/// The wayvnc processes whose socket is in `runtime`, a sway desktop's runtime folder.
fn wayvnc_in(runtime: &str) -> Vec<String> {
    command_lines()
        .into_iter()
        .filter(|cmdline| cmdline.starts_with("wayvnc ") && cmdline.contains(runtime))
        .collect()
}

#[test]
fn a_sway_desktops_live_view_shows_it_and_takes_the_operators_keys_only_while_held() {
    let (_turn, desk) = desktop();
    let mut server = Server::start(
        desk.command(BIN),
        &["--headless", "--desktop-per-session", "--wayland", "sway"],
    );
    let url = server.url.clone();
    let base = server.base();
    runtime().block_on(async {
        let call = |id: u32, args: Value| stateless_call_as(&url, None, id, args);
        let started = call(
            1,
            json!({"desktop": "new", "action": "launch", "app": "gnome-calculator"}),
        )
        .await;
        let handle = started["structuredContent"]["desktop"]
            .as_str()
            .unwrap_or_else(|| panic!("no handle in {started}"))
            .to_owned();
        wait_for_the_keypad(&call, &handle).await;
        let wayland = private_displays(&server.log())
            .pop()
            .expect("the desktop's display");
        let runtime_dir = std::path::Path::new(&wayland)
            .parent()
            .expect("the Wayland socket's folder")
            .to_str()
            .expect("a UTF-8 path")
            .to_owned();

        let mut browser =
            browser::Browser::start(desk.command("chromium"), &desk.scratch("sway-view-chromium"))
                .await;
        browser
            .navigate(&format!("{base}/desktops/{handle}/view"))
            .await;
        assert!(
            browser
                .wait_for(
                    "document.body.dataset.view === 'connected'",
                    Duration::from_secs(30)
                )
                .await,
            "the view never connected: {}\n{}",
            browser.eval("document.body.outerHTML").await,
            server.log()
        );
        assert_eq!(wayvnc_in(&runtime_dir).len(), 1, "one VNC server for the desktop");
        // The first frames take a moment to arrive and be drawn.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let desktop_shot = image_of(
            &call(
                3,
                json!({"desktop": handle, "action": "screenshot", "target": "screen"}),
            )
            .await,
        );
        assert_the_canvas_shows(&mut browser, &desk.scratch("sway-view-page.png"), &desktop_shot)
            .await;

        // A watcher's key does not reach the desktop.
        browser
            .eval("window.liveView.viewOnly = false; document.querySelector('#screen canvas').focus(); true")
            .await;
        browser.press_digit('5').await;
        browser.eval("window.liveView.viewOnly = true").await;
        tokio::time::sleep(Duration::from_secs(1)).await;

        // Held: the agent is refused, and the operator's key goes in through wayvnc.
        browser.click("#take").await;
        browser.wait_to_show("document.body.dataset.held === 'true' && window.liveView.viewOnly === false", Duration::from_secs(10)).await;
        let stopped = reply_text(&call(4, json!({"desktop": handle, "action": "windows"})).await);
        assert!(
            stopped.starts_with("failed (stopped): an operator"),
            "{stopped}"
        );
        browser
            .eval("document.querySelector('#screen canvas').focus(); true")
            .await;
        browser.press_digit('7').await;
        browser.click("#give").await;
        browser.wait_to_show("document.body.dataset.held === 'false'", Duration::from_secs(10)).await;
        let typed = call(
            6,
            json!({"desktop": handle, "action": "wait", "until": {"role": "text", "value": "7"}, "timeout_ms": 10000}),
        )
        .await;
        assert!(reply_text(&typed).contains("held"), "{typed}");

        // Ended: its VNC server stops with it, and its socket goes.
        let ended = call(7, json!({"desktop": handle, "end_desktop": true})).await;
        assert!(reply_text(&ended).contains("ended"), "{ended}");
        assert!(
            wait_until(Duration::from_secs(20), || wayvnc_in(&runtime_dir)
                .is_empty()
                .then_some(()))
            .is_some(),
            "wayvnc outlived its desktop: {:?}",
            wayvnc_in(&runtime_dir)
        );
        drop(browser);
    });
    assert!(server.stop(Duration::from_secs(40)), "{}", server.log());
}
