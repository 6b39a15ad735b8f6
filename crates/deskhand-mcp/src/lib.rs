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
    Backend, Config, Control, DesktopArgs, Error, Progress, Reply, Session, execute_with,
    parse_call,
};

pub const TOOL_NAME: &str = "desktop";

/// The contract, short: this text is sent with every model request.
pub const TOOL_DESCRIPTION: &str = "\
Observe and act on the local GUI: read accessibility trees, click, type, press, scroll, drag, capture a screenshot or a zoomed region.
Which action: `apps`, then `windows`, picks a target; `observe` reads its tree and gives element refs (e1, e2, …). Act by `ref` where the tree shows the control, by `x`/`y` where it does not; refs expire on the next observe. Use `screenshot` or `zoom` where the tree cannot show what you need. A tree shows at most 120 characters of a value (a terminal's end, a query's match) and 200 of a name or title, cut with … and counted in the header; `read` gives the whole text. A line has its center @x,y only where its words do not tell it apart.
Which surface: with no `target` a call uses the surface last observed or captured, before that the focused window of the frontmost app. A successful observe/screenshot/zoom naming a target makes it current; a failed one changes nothing. `wN` is exactly one window and fails as surface-gone once it closes; `aN` is that app's focused window at call time; \"screen\" is the whole desktop. A ref belongs to the surface it was observed on.
Points and regions are 0–1000 of the named surface; zoom returns native pixels. `press` goes to the focused app, a coordinate click lands on whatever is under it, scroll without x/y goes where the pointer is; none of them raises a window.
Results: actions answer `done` when the system took the input (not checked further) or `applied but unconfirmed` when part may have landed: check before repeating, a repeated click is a second click. `failed (kind)` means nothing happened; the message says why and what to call next.
Also: `find` in place of `ref`; `wait` reads until `until` holds; `batch`; `set_value`; `select` a menu path; `launch`, `focus`, `close`, `kill`, `window`; `clipboard`; `hover`, `down`/`up`; `recall`, `forget`.";

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
    let mut schema: JsonObject = match serde_json::to_value(schema).map(lean) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    // The Rust type's name means nothing to a model.
    schema.remove("title");
    // Each definition is described where a parameter uses it; its own text only repeats that.
    if let Some(serde_json::Value::Object(defs)) = schema.get_mut("$defs") {
        for def in defs
            .values_mut()
            .filter_map(serde_json::Value::as_object_mut)
        {
            def.remove("description");
        }
    }
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

/// The schema as the model reads it, without what costs tokens and says nothing to it: every
/// parameter is optional already, so the `null` that schemars adds to each `Option` goes (from
/// types and from `anyOf`), and so do number formats, the zero minimum of unsigned numbers and
/// the `$schema` URL. Ranges and defaults are in the descriptions.
fn lean(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let null = json!({"type": "null"});
    let says_nothing = |key: &str, value: &Value| {
        matches!(key, "$schema" | "format") || (key == "minimum" && *value == json!(0))
    };
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(lean).collect()),
        Value::Object(map) => {
            let mut map: JsonObject = map
                .into_iter()
                .filter(|(key, value)| !says_nothing(key, value))
                .map(|(key, value)| (key, lean(value)))
                .collect();
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if let [only] = types.as_slice() {
                    let only = only.clone();
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(choices)) = map.get("anyOf")
                && choices.contains(&null)
            {
                let mut choices: Vec<Value> =
                    choices.iter().filter(|c| **c != null).cloned().collect();
                map.remove("anyOf");
                match (choices.pop(), choices.is_empty()) {
                    (Some(Value::Object(only)), true) => {
                        for (key, value) in only {
                            map.entry(key).or_insert(value);
                        }
                    }
                    (Some(last), _) => {
                        choices.push(last);
                        map.insert("anyOf".into(), Value::Array(choices));
                    }
                    (None, _) => {}
                }
            }
            Value::Object(map)
        }
        other => other,
    }
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
            let mut result = if reply.is_error() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lean_drops_what_says_nothing_and_keeps_every_rule() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {
                "limit": {"description": "1–5000", "type": ["integer", "null"], "format": "uint32", "minimum": 0},
                "amount": {"type": ["integer", "null"], "minimum": 1, "maximum": 50},
                "button": {"description": "which", "anyOf": [{"$ref": "#/$defs/Button"}, {"type": "null"}]},
                "value": {"anyOf": [{"type": "number"}, {"type": "string"}, {"type": "null"}]},
            },
        });
        assert_eq!(
            lean(schema),
            json!({
                "properties": {
                    "limit": {"description": "1–5000", "type": "integer"},
                    "amount": {"type": "integer", "minimum": 1, "maximum": 50},
                    "button": {"description": "which", "$ref": "#/$defs/Button"},
                    "value": {"anyOf": [{"type": "number"}, {"type": "string"}]},
                },
            })
        );
    }

    #[test]
    fn the_tool_schema_names_no_null_and_describes_every_parameter() {
        let tool = tool();
        let schema = serde_json::Value::Object((*tool.input_schema).clone());
        let text = schema.to_string();
        assert!(!text.contains("null"), "{text}");
        assert!(!text.contains("format"), "{text}");
        let properties = schema["properties"].as_object().expect("properties");
        assert!(properties.len() > 30, "{text}");
        for (name, property) in properties {
            let described = property["description"].as_str().unwrap_or_default();
            assert!(!described.is_empty(), "parameter {name} has no description");
        }
        assert_eq!(schema["required"], json!(["action"]));
    }
}
