//! An MCP client of `deskhand mcp`, as an agent would run it: rmcp over the child's stdio.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::*;

/// A `deskhand mcp` child process and the client session with it; calls block.
pub struct Mcp {
    pub(crate) runtime: tokio::runtime::Runtime,
    pub(crate) client: Option<rmcp::service::RunningService<rmcp::RoleClient, Listener>>,
    pub pid: u32,
}

/// The client's side of the session: it keeps every log message the server sends unasked.
#[derive(Clone, Default)]
pub struct Listener {
    pub(crate) logged: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

#[allow(
    deprecated,
    reason = "deskhand sends log messages, deprecated for a later MCP revision"
)]
impl rmcp::ClientHandler for Listener {
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let message = serde_json::to_value(&params).expect("a log message is JSON");
        self.logged.lock().expect("not poisoned").push(message);
    }
}

impl Listener {
    /// Every log message the server has sent this client so far, as JSON.
    pub fn logged(&self) -> Vec<Value> {
        self.logged.lock().expect("not poisoned").clone()
    }
}

/// One `desktop` tool result.
#[derive(Debug, Clone)]
pub struct McpReply {
    pub is_error: bool,
    pub text: String,
    pub data: Value,
    /// The PNG of a screenshot or zoom, decoded.
    pub image: Option<Vec<u8>>,
    pub took: Duration,
}

impl McpReply {
    /// The kind of a failure, from the structured content.
    pub fn kind(&self) -> Option<&str> {
        self.is_error.then(|| self.data["error"].as_str()).flatten()
    }
}

impl Mcp {
    /// The `w` id of the window titled exactly `title`, waiting up to `limit` for it to appear.
    pub fn window_id(&self, title: &str, limit: Duration) -> String {
        wait_until(limit, || {
            let listed = self.call(serde_json::json!({"action": "windows"}));
            listed.data["windows"].as_array()?.iter().find_map(|w| {
                (w["title"] == title).then(|| w["id"].as_str().expect("id").to_owned())
            })
        })
        .unwrap_or_else(|| panic!("no window titled {title:?}"))
    }

    /// Calls the `desktop` tool; a protocol error panics.
    pub fn call(&self, args: Value) -> McpReply {
        self.try_call("desktop", args)
            .unwrap_or_else(|err| panic!("tools/call failed: {err}"))
    }

    /// Calls a tool by name; a protocol error is returned.
    pub fn try_call(&self, tool: &str, args: Value) -> Result<McpReply, String> {
        use base64::Engine;
        use rmcp::model::CallToolRequestParams;
        let client = self.client.as_ref().expect("connected");
        let arguments = args.as_object().expect("an object").clone();
        let started = Instant::now();
        let result =
            self.runtime
                .block_on(client.call_tool(
                    CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments),
                ))
                .map_err(|err| err.to_string())?;
        let took = started.elapsed();
        let text = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        let image = result.content.iter().find_map(|c| {
            c.as_image().map(|i| {
                base64::engine::general_purpose::STANDARD
                    .decode(&i.data)
                    .expect("base64 image")
            })
        });
        Ok(McpReply {
            is_error: result.is_error == Some(true),
            text,
            data: result.structured_content.unwrap_or(Value::Null),
            image,
            took,
        })
    }

    /// Every log message the server has sent so far, as JSON (`level`, `logger`, `data`).
    pub fn logged(&self) -> Vec<Value> {
        self.client.as_ref().expect("connected").service().logged()
    }

    /// A field of the server's `/proc/<pid>/status` in its own unit (kB for `VmRSS`).
    pub fn status(&self, field: &str) -> u64 {
        proc_status(self.pid, field)
            .unwrap_or_else(|| panic!("no {field} in /proc/{}/status", self.pid))
    }

    /// Whether the server process is still running.
    pub fn alive(&self) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", self.pid))
            .ok()
            .and_then(|stat| stat.rsplit_once(") ")?.1.chars().next())
            .is_some_and(|state| !matches!(state, 'Z' | 'X'))
    }

    /// Ends the session; the server exits when its stdin closes.
    pub fn close(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(client) = self.client.take() {
            let _ = self.runtime.block_on(async {
                tokio::time::timeout(Duration::from_secs(10), client.cancel()).await
            });
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        self.shutdown();
    }
}
