//! The real binary over stdio, driven by a real MCP client, against a real window.

mod common;

use common::{BIN, desktop, ref_of};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().expect("an object").clone()
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// Tests take turns on the shared desktop; the turn is held outside the async runtime.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(future)
}

#[test]
fn an_mcp_client_drives_a_window_through_the_desktop_tool() {
    let (_turn, desk) = desktop();
    block_on(drive_a_window(desk));
}

async fn drive_a_window(desk: &common::Desktop) {
    let fixture = desk.fixture("MCP Fixture", 1);
    desk.activate("MCP Fixture");

    let mut command = tokio::process::Command::from(desk.command(BIN));
    command.arg("mcp");
    let client =
        ().serve(TokioChildProcess::new(command).expect("spawning deskhand mcp"))
            .await
            .expect("MCP handshake");
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().expect("server identity").name,
        "deskhand"
    );

    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 1);
    let tool = &tools[0];
    assert_eq!(tool.name, "desktop");
    assert!(
        tool.description
            .as_deref()
            .unwrap()
            .contains("refs expire on the next observe")
    );
    let properties = tool.input_schema["properties"]
        .as_object()
        .expect("properties");
    for name in [
        "action",
        "target",
        "ref",
        "x",
        "y",
        "region",
        "text",
        "keys",
        "direction",
        "amount",
        "from",
        "to",
        "button",
        "count",
        "modifiers",
    ] {
        let described = properties[name]["description"].as_str().unwrap_or_default();
        assert!(!described.is_empty(), "parameter {name} has no description");
    }
    let annotations = tool.annotations.as_ref().expect("annotations");
    assert_eq!(annotations.read_only_hint, Some(false));
    assert_eq!(annotations.destructive_hint, Some(true));

    let call = |args: Value| {
        let client = &client;
        async move {
            client
                .call_tool(CallToolRequestParams::new("desktop").with_arguments(arguments(args)))
                .await
                .expect("tools/call")
        }
    };

    let windows = call(json!({"action": "windows"})).await;
    let listed = text_of(&windows);
    let w = listed
        .lines()
        .find(|l| l.contains("\"MCP Fixture\""))
        .and_then(|l| l.split(' ').next())
        .expect("the fixture window is listed")
        .to_owned();

    let observed = call(json!({"action": "observe", "target": w})).await;
    assert_ne!(observed.is_error, Some(true));
    let tree = text_of(&observed);
    assert!(
        tree.starts_with(&format!("observe {w} \"MCP Fixture\"")),
        "{tree}"
    );
    let structured = observed
        .structured_content
        .as_ref()
        .expect("structured content");
    assert_eq!(structured["outcome"], "observed");
    assert!(structured["elements"].as_array().unwrap().len() >= 10);

    let press = ref_of(&tree, &["button \"Press me\""]);
    let before = fixture.events().len();
    let clicked = call(json!({"action": "click", "ref": press})).await;
    assert!(
        text_of(&clicked).starts_with("done: clicked"),
        "{}",
        text_of(&clicked)
    );
    assert_eq!(
        clicked.structured_content.as_ref().unwrap()["path"],
        "accessibility"
    );
    fixture.wait_for("the click", |e| e["event"] == "clicked");
    assert!(fixture.events().len() > before);

    // The CLI prints exactly the text the MCP tool returns.
    let same_from_cli = desk.act("observe", json!({"target": w})).ok();
    let header = |text: &str| text.lines().next().unwrap().to_owned();
    assert_eq!(
        header(&same_from_cli),
        header(&text_of(
            &call(json!({"action": "observe", "target": w})).await
        ))
    );

    let shot = call(json!({"action": "screenshot", "target": w})).await;
    let image = shot
        .content
        .iter()
        .find_map(|c| c.as_image().cloned())
        .expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .unwrap();
    assert_eq!(&png[1..4], b"PNG");

    // A failed call is a tool result with isError, not a protocol error, and names its kind.
    let failed = call(json!({"action": "click", "ref": "e99999999"})).await;
    assert_eq!(failed.is_error, Some(true));
    assert!(
        text_of(&failed).starts_with("failed (ref-unknown): "),
        "{}",
        text_of(&failed)
    );
    let failed = call(json!({"action": "observe", "nonsense": 1})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(
        failed.structured_content.as_ref().unwrap()["error"],
        "bad-argument"
    );

    client.cancel().await.expect("clean shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_headless_brings_up_its_own_desktop_and_takes_it_down() {
    use tokio::io::AsyncBufReadExt;
    let mut command = tokio::process::Command::new(BIN);
    command.args(["mcp", "--headless"]);
    for name in [
        "DISPLAY",
        "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS",
        "AT_SPI_BUS_ADDRESS",
        "DESKHAND_DESKTOP",
    ] {
        command.env_remove(name);
    }
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawning deskhand mcp --headless");
    let client = ().serve(transport).await.expect("MCP handshake");
    let mut lines = tokio::io::BufReader::new(stderr.expect("piped stderr")).lines();
    let announced = lines.next_line().await.unwrap().expect("a line on stderr");
    let display = announced
        .rsplit(' ')
        .next()
        .and_then(|d| d.strip_prefix(':'))
        .expect("the display it started")
        .to_owned();
    let socket = std::path::PathBuf::from(format!("/tmp/.X11-unix/X{display}"));
    assert!(socket.exists(), "{announced}");

    let result = client
        .call_tool(
            CallToolRequestParams::new("desktop")
                .with_arguments(arguments(json!({"action": "windows"}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&result), "windows · 0 windows · top first\n");
    let shot = client
        .call_tool(
            CallToolRequestParams::new("desktop").with_arguments(arguments(
                json!({"action": "zoom", "target": "screen", "region": [0, 0, 100, 100]}),
            )),
        )
        .await
        .unwrap();
    assert_eq!(shot.structured_content.as_ref().unwrap()["width"], 192);

    client.cancel().await.expect("clean shutdown");
    let gone = common::wait_until(std::time::Duration::from_secs(10), || {
        (!socket.exists()).then_some(())
    });
    assert!(gone.is_some(), "the headless desktop outlived its server");
}

/// A client that hands every progress notification it receives to the test.
struct ProgressWatcher(tokio::sync::mpsc::UnboundedSender<rmcp::model::ProgressNotificationParam>);

impl rmcp::ClientHandler for ProgressWatcher {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let _ = self.0.send(params);
    }
}

#[test]
fn a_cancelled_wait_reports_progress_then_stops_and_the_connection_answers_at_once() {
    let (_turn, desk) = desktop();
    block_on(cancel_a_wait(desk));
}

async fn cancel_a_wait(desk: &common::Desktop) {
    use rmcp::model::{CallToolRequest, ClientRequest};
    use rmcp::service::PeerRequestOptions;
    use std::time::{Duration, Instant};

    let mut command = tokio::process::Command::from(desk.command(BIN));
    command.arg("mcp");
    let (sender, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let client = ProgressWatcher(sender)
        .serve(TokioChildProcess::new(command).expect("spawning deskhand mcp"))
        .await
        .expect("MCP handshake");

    // A condition that never holds, with a long timeout: only the cancel can end it soon.
    let wait = CallToolRequestParams::new("desktop").with_arguments(arguments(json!({
        "action": "wait",
        "target": "screen",
        "until": {"name": "deskhand never shows this", "role": "button"},
        "timeout_ms": 20000,
    })));
    let sent = Instant::now();
    // rmcp puts a progress token in every request's `_meta`; the handle knows which.
    let handle = client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(wait)),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("tools/call sent");
    let token = handle.progress_token.clone();
    // The wait reports once a second; allow for a slow start on a loaded machine.
    let first = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            let note = progress.recv().await.expect("the client still runs");
            if note.progress_token == token {
                return note;
            }
        }
    })
    .await
    .expect("no progress notification for the wait within 15 s");
    let message = first.message.clone().unwrap_or_default();
    assert!(
        message.starts_with("waiting on screen: "),
        "progress message: {message:?}"
    );
    assert!(first.progress >= 1.0, "{first:?}");
    assert_eq!(first.total, Some(20.0), "{first:?}");
    let cancelled_after = sent.elapsed();
    assert!(
        cancelled_after < Duration::from_secs(12),
        "the first progress came too late to prove anything: {cancelled_after:?}"
    );

    handle
        .cancel(Some("the test cancels the wait".into()))
        .await
        .expect("notifications/cancelled sent");
    // Calls of one session run one at a time: `windows` can only answer once the wait is over.
    let asked = Instant::now();
    let windows = tokio::time::timeout(
        Duration::from_secs(30),
        client.call_tool(
            CallToolRequestParams::new("desktop")
                .with_arguments(arguments(json!({"action": "windows"}))),
        ),
    )
    .await
    .expect("windows never answered")
    .expect("tools/call windows");
    let answered = asked.elapsed();
    eprintln!(
        "first progress after {} ms; windows answered {} ms after the cancel",
        cancelled_after.as_millis(),
        answered.as_millis()
    );
    assert_ne!(windows.is_error, Some(true), "{}", text_of(&windows));
    assert!(
        text_of(&windows).starts_with("windows · "),
        "{}",
        text_of(&windows)
    );
    assert!(
        answered < Duration::from_secs(10),
        "windows took {answered:?} after the cancel: the wait kept running"
    );
    // Had the wait run on, nothing on this connection could answer before its 20 s were up.
    assert!(
        sent.elapsed() < Duration::from_secs(19),
        "windows answered {:?} after the wait was sent: the wait ran to its timeout",
        sent.elapsed()
    );
    client.cancel().await.expect("clean shutdown");
}

/// Every request gets an answer, also one longer than a message may be: a 20 MB `clipboard`
/// call to the real binary over stdio is answered at once with a JSON-RPC error that carries
/// its id and the limit, the clipboard is left as it was, and the next call is served.
#[test]
fn an_oversized_request_over_stdio_is_answered_and_the_next_call_served() {
    use std::io::{BufRead, BufReader, Write};
    let (_turn, desk) = desktop();
    desk.act("clipboard", json!({"text": "kept"})).ok();
    let mut server = desk
        .command(BIN)
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("deskhand mcp starts");
    let mut to_server = server.stdin.take().expect("stdin");
    let (lines, answers) = std::sync::mpsc::channel();
    let from_server = BufReader::new(server.stdout.take().expect("stdout"));
    std::thread::spawn(move || {
        for line in from_server.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let answer = |id: u64| -> Value {
        loop {
            let line = answers
                .recv_timeout(std::time::Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("no answer to request {id} within 20 s"));
            let message: Value = serde_json::from_str(&line).expect("a JSON line");
            if message["id"] == id {
                return message;
            }
        }
    };
    let mut send = |message: Value| {
        let mut line = message.to_string();
        line.push('\n');
        to_server
            .write_all(line.as_bytes())
            .expect("the server reads");
        to_server.flush().expect("the server reads");
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}),
    );
    answer(1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = |id: u64, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "desktop", "arguments": arguments}})
    };
    let started = std::time::Instant::now();
    send(call(
        7,
        json!({"action": "clipboard", "text": "a".repeat(20_000_000)}),
    ));
    let refused = answer(7);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("16777216 bytes"), "{message}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "answered after {:?}",
        started.elapsed()
    );
    send(call(8, json!({"action": "clipboard"})));
    let read = answer(8);
    assert_eq!(
        read["result"]["structuredContent"]["text"], "kept",
        "{read}"
    );
    server.kill().ok();
    server.wait().ok();
}
