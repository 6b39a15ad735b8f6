//! The MCP face of deskhand: one `desktop` tool, served with rmcp.

use std::sync::Arc;

use base64::Engine;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use tokio::sync::Mutex;

use deskhand_core::{
    Backend, Config, Control, DesktopArgs, Error, Outcome, Progress, Reply, Session, execute_with,
    parse_call,
};

pub const TOOL_NAME: &str = "desktop";

/// The contract, short: this text is sent with every model request.
pub const TOOL_DESCRIPTION: &str = "\
Observe and act on the local GUI: read accessibility trees, click, type, press, scroll, drag, capture a screenshot or a zoomed region.
Which action: `apps`, then `windows`, picks a target; `observe` reads its tree and gives element refs (e1, e2, …). Act by `ref` where the tree shows the control, by `x`/`y` where it does not; refs expire on the next observe. Use `screenshot` or `zoom` where the tree cannot show what you need. Values show at most 120 characters (a terminal's end, a query's match), names and titles 200, cut with … and counted in the header; `read` gives an element's whole text, 2,000 characters a call. observe lists at most `limit` (300) elements: narrow it with `query` or `max_depth`; `since: true` shows only what changed since the last observe of that surface.
Which surface: with no `target` a call uses the surface last observed or captured, before that the focused window of the frontmost app. A successful observe/screenshot/zoom naming a target makes it current; a failed one changes nothing. `wN` is exactly one window and fails as surface-gone once it closes; `aN` is that app's focused window at call time; \"screen\" is the whole desktop. A ref belongs to the surface it was observed on.
Points and regions are 0–1000 of the named surface; region is [x0,y0,x1,y1]; zoom returns native pixels. A tree line shows its center @x,y only where its words do not tell it apart (no name, or the same as another's); observe `points: true` gives every line one. `press` goes to the focused app, a coordinate click lands on whatever is under it, scroll without x/y goes where the pointer is; none of them raises a window.
Results: actions answer `done` when the system took the input (not checked further) or `applied but unconfirmed` when part may have landed: check before repeating, a repeated click is a second click. `failed (kind)` means nothing happened; the message says why and what to call next.
More: `find` {name, role} instead of `ref` names an element by what it shows, looked up at call time. `wait` reads (never acts) until `until` holds: evidence lines, or `timeout` with what was there. `batch` runs 1–50 steps in one call, all checked first, stopping at the first failure. `set_value` (read back), `select` a menu path, `launch`, `focus`, `close`, `kill`, `window` (state, position, size), `clipboard` (read, or write `text`), `hover`, `down`/`up`.";

/// Serves the `desktop` tool for one agent session.
pub struct DesktopServer<B> {
    backend: Arc<B>,
    session: Mutex<Session>,
    config: Config,
}

impl<B: Backend> DesktopServer<B> {
    pub fn new(backend: Arc<B>, config: Config) -> Self {
        Self {
            backend,
            session: Mutex::new(Session::default()),
            config,
        }
    }

    /// Runs one call from raw arguments; calls of one session run one at a time.
    pub async fn call(&self, arguments: serde_json::Value) -> Result<Reply, Error> {
        self.call_with(arguments, &Control::default()).await
    }

    /// [`DesktopServer::call`] that the client can cancel and that reports progress.
    pub async fn call_with(
        &self,
        arguments: serde_json::Value,
        control: &Control,
    ) -> Result<Reply, Error> {
        let call = parse_call(arguments)?;
        let mut session = self.session.lock().await;
        execute_with(
            self.backend.as_ref(),
            &mut session,
            &self.config,
            call,
            control,
        )
        .await
    }
}

pub fn tool() -> Tool {
    let schema = schemars::schema_for!(DesktopArgs);
    let mut schema: JsonObject = match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    // `action` is what every call needs; the schema says so even though parsing reports it.
    schema.insert("required".into(), json!(["action"]));
    Tool::new(TOOL_NAME, TOOL_DESCRIPTION, Arc::new(schema)).with_annotations(
        ToolAnnotations::with_title("Desktop")
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(false),
    )
}

/// The MCP result for a call: the same text the CLI prints, plus image and structured data.
pub fn to_result(reply: Result<Reply, Error>) -> CallToolResult {
    match reply {
        Ok(reply) => {
            let mut content = vec![ContentBlock::text(reply.text.clone())];
            if let Some(png) = &reply.image {
                content.push(ContentBlock::image(
                    base64::engine::general_purpose::STANDARD.encode(png),
                    "image/png",
                ));
            }
            // A wait that timed out or a batch that stopped is a result the agent must not
            // mistake for success, though it carries evidence.
            let stopped = reply.outcome == Outcome::Failed
                || reply.data.get("failed_index").is_some_and(|i| !i.is_null());
            let mut result = if stopped {
                CallToolResult::error(content)
            } else {
                CallToolResult::success(content)
            };
            let mut data = reply.data;
            if let Some(map) = data.as_object_mut() {
                map.insert("outcome".into(), json!(reply.outcome));
            }
            result.structured_content = Some(data);
            result
        }
        Err(err) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(err.reply_text())]);
            result.structured_content = Some(json!({"error": err.kind, "message": err.message}));
            result
        }
    }
}

impl<B: Backend> ServerHandler for DesktopServer<B> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("deskhand", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "One tool, `desktop`: observe a window's accessibility tree and act on it by element ref.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![tool()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == TOOL_NAME).then(tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "there is no tool named {:?}; the only tool is \"desktop\"",
                    request.name
                ),
                None,
            ));
        }
        let token = request
            .meta
            .as_ref()
            .and_then(|meta| meta.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        let mut control = Control::new(context.ct.clone());
        if let Some(token) = token {
            let peer = context.peer.clone();
            control = control.with_progress(move |progress: Progress| {
                let mut param =
                    ProgressNotificationParam::new(token.clone(), f64::from(progress.done))
                        .with_message(progress.message);
                if let Some(total) = progress.total {
                    param = param.with_total(f64::from(total));
                }
                let peer = peer.clone();
                // A slow client must not hold up the call it is watching.
                tokio::spawn(async move {
                    let _ = peer.notify_progress(param).await;
                });
            });
        }
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        Ok(to_result(self.call_with(arguments, &control).await).into())
    }
}

/// Serves MCP over this process's stdin and stdout until the client disconnects.
pub async fn serve_stdio<B: Backend>(server: DesktopServer<B>) -> Result<(), std::io::Error> {
    use rmcp::ServiceExt;
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}
