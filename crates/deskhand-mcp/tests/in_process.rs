//! The server and an rmcp client in one process over a duplex pipe, on the fake desktop: what
//! an MCP client sees of the tool (its listing, results, progress, cancellation) without a
//! real desktop. Messages no rmcp client would send are written to the pipe as raw lines.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deskhand_core::Config;
use deskhand_core::fake::FakeDesktop;
use deskhand_core::model::{ElementHandle, Node, Rect, Role, States, Tree, WindowInfo};
use deskhand_mcp::{DesktopServer, MAX_MESSAGE_BYTES, TOOL_DESCRIPTION, TOOL_NAME};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam, Request,
    ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::mpsc;

/// A client that hands every progress notification to the test.
struct Watcher {
    progress: mpsc::UnboundedSender<ProgressNotificationParam>,
}

impl ClientHandler for Watcher {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.progress.send(params);
    }
}

fn node(handle: &str, role: Role, name: &str, bounds: Rect, children: Vec<Node>) -> Node {
    Node {
        handle: ElementHandle(handle.into()),
        role,
        name: name.into(),
        value: None,
        states: States {
            enabled: true,
            visible: true,
            ..States::default()
        },
        bounds: Some(bounds),
        actions: if role == Role::Button {
            vec!["click".into()]
        } else {
            vec![]
        },
        children,
    }
}

/// One focused editor window with a Save button.
fn desktop() -> FakeDesktop {
    let bounds = Rect::new(100, 50, 800, 600);
    let root = node(
        ":1.5/0",
        Role::Window,
        "Editor",
        bounds,
        vec![node(
            ":1.5/1",
            Role::Button,
            "Save",
            Rect::new(110, 60, 80, 30),
            vec![],
        )],
    );
    let window = WindowInfo {
        handle: 0x40_0001,
        title: "Editor".into(),
        pid: Some(4242),
        app_name: "editor".into(),
        bounds,
        focused: true,
        minimized: false,
        maximized: false,
    };
    FakeDesktop::new(
        Rect::new(0, 0, 1920, 1080),
        vec![(
            window,
            Tree {
                root,
                partial: None,
            },
        )],
    )
}

struct Connected {
    client: RunningService<RoleClient, Watcher>,
    progress: mpsc::UnboundedReceiver<ProgressNotificationParam>,
}

/// The server on the fake desktop, served as `deskhand mcp` serves stdio; the client's end.
fn start_server() -> DuplexStream {
    let server = DesktopServer::new(Arc::new(desktop()), Config::default());
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(deskhand_mcp::serve(server, read, write));
    client_end
}

async fn connect() -> Connected {
    let client_end = start_server();
    let (sender, progress) = mpsc::unbounded_channel();
    let client = Watcher { progress: sender }
        .serve(client_end)
        .await
        .expect("client handshake");
    Connected { client, progress }
}

fn request(arguments: Value) -> ClientRequest {
    let arguments = arguments.as_object().expect("an object").clone();
    ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new(TOOL_NAME).with_arguments(arguments),
    ))
}

async fn call(client: &RunningService<RoleClient, Watcher>, arguments: Value) -> CallToolResult {
    let arguments = arguments.as_object().expect("an object").clone();
    client
        .call_tool(CallToolRequestParams::new(TOOL_NAME).with_arguments(arguments))
        .await
        .expect("tools/call answers")
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn tools_list_gives_the_one_tool_with_every_parameter_described() {
    let Connected { client, .. } = connect().await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 1, "{tools:?}");
    let tool = &tools[0];
    assert_eq!(tool.name, TOOL_NAME);
    assert_eq!(tool.description.as_deref(), Some(TOOL_DESCRIPTION));
    let properties = tool.input_schema["properties"]
        .as_object()
        .expect("the schema lists its parameters");
    for name in [
        "action", "target", "ref", "find", "x", "y", "until", "steps",
    ] {
        assert!(properties.contains_key(name), "no parameter {name}");
    }
    for (name, property) in properties {
        let described = property["description"].as_str().unwrap_or_default();
        assert!(
            !described.trim().is_empty(),
            "parameter {name} has no description"
        );
    }
    assert_eq!(tool.input_schema["required"], json!(["action"]));
}

#[tokio::test]
async fn a_successful_call_is_no_error_and_carries_the_tree() {
    let Connected { client, .. } = connect().await;
    let result = call(&client, json!({"action": "observe"})).await;
    let text = text_of(&result);
    assert_eq!(result.is_error, Some(false), "{text}");
    assert!(text.starts_with("observe w1 \"Editor\""), "{text}");
    assert!(text.contains("button \"Save\""), "{text}");
    let data = result.structured_content.expect("structured content");
    assert_eq!(data["outcome"], "observed");
    assert_eq!(data["elements"][1]["name"], "Save", "{data}");
    assert_eq!(data["elements"][1]["ref"], "e2", "{data}");
}

#[tokio::test]
async fn a_failing_call_is_a_tool_result_marked_as_an_error() {
    let Connected { client, .. } = connect().await;
    let result = call(&client, json!({"action": "click"})).await;
    let text = text_of(&result);
    assert_eq!(result.is_error, Some(true), "{text}");
    assert!(
        text.starts_with("failed (bad-argument): `click` needs"),
        "{text}"
    );
    let data = result.structured_content.expect("structured content");
    assert_eq!(data["error"], "bad-argument", "{data}");

    // A ref no observation gave is the desktop's answer, not the protocol's.
    let result = call(&client, json!({"action": "click", "ref": "e9"})).await;
    let text = text_of(&result);
    assert_eq!(result.is_error, Some(true), "{text}");
    assert!(
        text.starts_with("failed (ref-unknown): e9 was never issued"),
        "{text}"
    );
}

#[tokio::test]
async fn a_tool_of_another_name_is_a_protocol_error() {
    let Connected { client, .. } = connect().await;
    let err = client
        .call_tool(CallToolRequestParams::new("browser"))
        .await
        .expect_err("there is only the desktop tool");
    assert!(err.to_string().contains("the only tool is"), "{err}");
}

#[tokio::test]
async fn a_long_wait_reports_its_progress_to_the_request_token() {
    let Connected {
        client,
        mut progress,
    } = connect().await;
    let handle = client
        .send_cancellable_request(
            request(json!({"action": "wait", "until": {"name": "Never"}, "timeout_ms": 2500})),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("the request goes out");
    let token = handle.progress_token.clone();
    let response = handle.await_response().await.expect("the wait answers");
    let ServerResult::CallToolResult(result) = response else {
        panic!("not a tool result: {response:?}");
    };
    let text = text_of(&result);
    assert!(text.starts_with("timeout: waited 2."), "{text}");
    assert_eq!(result.is_error, Some(true), "{text}");

    // Notifications are sent off the call's path; give the last one a moment to arrive.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut reports = Vec::new();
    while let Ok(report) = progress.try_recv() {
        reports.push(report);
    }
    // A loaded machine may look too late to report the second second; the first always comes.
    assert!(!reports.is_empty(), "no progress arrived");
    assert!(
        reports.iter().all(|r| r.progress_token == token),
        "{reports:?}"
    );
    let first = &reports[0];
    assert_eq!(first.progress, 1.0);
    assert_eq!(first.total, Some(3.0));
    let message = first.message.as_deref().unwrap_or_default();
    assert!(message == "waiting on w1: 1 s of 2.5 s", "{message}");
}

#[tokio::test]
async fn a_cancelled_wait_stops_and_the_server_serves_the_next_call() {
    let Connected { client, .. } = connect().await;
    let handle = client
        .send_cancellable_request(
            request(json!({"action": "wait", "until": {"name": "Never"}, "timeout_ms": 30000})),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("the request goes out");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancelled = Instant::now();
    handle
        .cancel(Some("the agent moved on".into()))
        .await
        .expect("notifications/cancelled goes out");

    // Calls of one session run one at a time: this one waits until the wait has let go.
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        call(&client, json!({"action": "windows"})),
    )
    .await
    .expect("a cancelled wait lets go of the session at once, not after its 30 s");
    let text = text_of(&result);
    assert_eq!(result.is_error, Some(false), "{text}");
    assert!(text.contains("w1 \"Editor\""), "{text}");
    assert!(cancelled.elapsed() < Duration::from_secs(5));
}

/// A client that writes raw JSON-RPC lines and reads the server's lines back.
struct RawClient {
    write: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl RawClient {
    /// Connected and initialized, as an MCP client starts.
    async fn connect() -> Self {
        let (read, write) = tokio::io::split(start_server());
        let mut client = RawClient {
            write,
            lines: BufReader::new(read).lines(),
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        }});
        client.send(&initialize.to_string()).await;
        let answer = client.answer_to(Some(&json!(0))).await;
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "deskhand",
            "{answer}"
        );
        client
            .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        client
    }

    async fn send(&mut self, line: &str) {
        self.write
            .write_all(line.as_bytes())
            .await
            .expect("the server reads");
        self.write.write_all(b"\n").await.expect("the server reads");
    }

    /// The next response whose id is `id` (`None`: a response without one).
    async fn answer_to(&mut self, id: Option<&Value>) -> Value {
        let read = async {
            loop {
                let line = self
                    .lines
                    .next_line()
                    .await
                    .expect("the server's output reads")
                    .expect("the server keeps its output open");
                let message: Value = serde_json::from_str(&line).expect("a line of JSON");
                if message.get("method").is_none() && message.get("id") == id {
                    return message;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), read)
            .await
            .unwrap_or_else(|_| panic!("no response to id {id:?} within 20 s"))
    }
}

#[tokio::test]
async fn an_oversized_request_gets_an_error_with_its_id_and_the_limit_and_the_next_call_its_answer()
{
    let mut client = RawClient::connect().await;
    // The issue's case: 20 million characters for the clipboard, past the 16 MiB a message may have.
    let text = "a".repeat(20_000_000);
    let params =
        format!(r#"{{"name":"desktop","arguments":{{"action":"clipboard","text":"{text}"}}}}"#);
    let cases = [
        (
            "id first, as rmcp writes it",
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#),
            Some(json!(7)),
        ),
        (
            "id last, as the TypeScript SDK writes it",
            format!(r#"{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":"call-8"}}"#),
            Some(json!("call-8")),
        ),
        (
            "no id in reach",
            format!(
                r#"{{"jsonrpc":"2.0","method":"tools/call","params":{params},"id":9,"more":"{}"}}"#,
                "b".repeat(64 * 1024)
            ),
            None,
        ),
    ];
    for (what, line, id) in &cases {
        assert!(line.len() > MAX_MESSAGE_BYTES, "{what}");
        client.send(line).await;
        let answer = client.answer_to(id.as_ref()).await;
        let error = &answer["error"];
        assert_eq!(error["code"], -32600, "{what}: {answer}");
        let message = error["message"].as_str().unwrap_or_default();
        for says in [
            format!("is {} bytes", line.len()),
            format!("more than the {MAX_MESSAGE_BYTES} bytes (16 MiB)"),
            "nothing was done".to_owned(),
            "in parts".to_owned(),
        ] {
            assert!(
                message.contains(&says),
                "{what}: {message:?} does not say {says:?}"
            );
        }
    }

    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
        "params": {"name": "desktop", "arguments": {"action": "windows"}}});
    client.send(&call.to_string()).await;
    let answer = client.answer_to(Some(&json!(10))).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("w1 \"Editor\""), "{answer}");
}

#[tokio::test]
async fn a_clipboard_text_too_long_for_the_tool_but_not_for_a_message_gets_the_tools_error() {
    let Connected { client, .. } = connect().await;
    // The issue's 11 MB case: read whole, then refused by the clipboard's own limit.
    let text = "a".repeat(11_000_000);
    let result = call(&client, json!({"action": "clipboard", "text": text})).await;
    let text = text_of(&result);
    assert_eq!(result.is_error, Some(true), "{text}");
    assert!(
        text.starts_with("failed (bad-argument): `text` has more than 1000000 characters"),
        "{text}"
    );
}

#[tokio::test]
async fn a_message_that_is_no_request_is_answered_when_it_can_be_and_the_server_keeps_serving() {
    let mut client = RawClient::connect().await;
    client
        .send(r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":"observe"}"#)
        .await;
    let answer = client.answer_to(Some(&json!(11))).await;
    let error = &answer["error"];
    assert_eq!(error["code"], -32600, "{answer}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the message is JSON but no JSON-RPC message deskhand takes (")
            && message.contains("nothing was done; send a request as"),
        "{message}"
    );

    // Bytes that are not JSON name no id to answer; the next call is served all the same.
    client.send("{\"jsonrpc\":\"2.0\",\"id\":12,").await;
    client.send("").await;
    let call = json!({"jsonrpc": "2.0", "id": 13, "method": "tools/call",
        "params": {"name": "desktop", "arguments": {"action": "windows"}}});
    client.send(&call.to_string()).await;
    let answer = client.answer_to(Some(&json!(13))).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
}
