//! The MCP face of deskhand: one `desktop` tool, served with rmcp.

use std::collections::HashMap;
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

mod doctor;
mod handover;
pub mod http;
mod transport;

pub use doctor::{DOCTOR_URI, Diagnose, SetupCheck};
pub use handover::LOGGER as HANDOVER_LOGGER;

use transport::LineTransport;
pub use transport::MAX_MESSAGE_BYTES;

pub const TOOL_NAME: &str = "desktop";

/// The contract, short: this text is sent with every model request.
pub const TOOL_DESCRIPTION: &str = "\
Observe and act on the local GUI: accessibility trees, input, screenshots.
apps/windows list targets; observe reads a tree with element refs (eN); refs expire on the next observe. Act by ref where the tree shows the control, else by x/y; a window without a tree is read by OCR, screenshot/zoom show the rest. Values over 120 characters and names over 200 are cut, counted in the header; read gives the whole text.
No target: the surface last observed or captured, at first the focused window. A successful observe/screenshot/zoom with a target makes it current, a failed one changes nothing. wN: one window, surface-gone once closed; aN: the app's focused window at call time; \"screen\"; mN: a monitor. A ref belongs to its surface.
Points and regions: 0–1000 of the surface. Keys (press) go to the focused app, a point click to whatever is there, a scroll without x/y where the pointer is; none raises a window.
Results: done means the system took the input, unchecked; applied but unconfirmed, part may have landed: check before repeating (a second click clicks again); failed (kind), nothing happened: the message says why and what to call next.";

/// Serves the `desktop` tool for one agent session.
pub struct DesktopServer<B> {
    backend: Arc<B>,
    session: Mutex<Session>,
    config: Config,
    setup: Option<SetupCheck>,
    recorder: Option<deskhand_record::Recorder>,
    /// Held while a call acts, where several sessions share one desktop: one session's typed
    /// string never interleaves with another's click.
    desktop_lock: Option<Arc<Mutex<()>>>,
    /// Why there is no desktop to act on: every call answers it, and the server still serves.
    no_desktop: Option<Error>,
}

impl<B: Backend> DesktopServer<B> {
    pub fn new(backend: Arc<B>, config: Config) -> Self {
        Self {
            backend,
            session: Mutex::new(Session::default()),
            config,
            setup: None,
            recorder: None,
            desktop_lock: None,
            no_desktop: None,
        }
    }

    /// A server with no desktop behind it: it completes `initialize`, serves the doctor, and
    /// answers every well-formed call with `why` (a `no-display` error that says the fix), so a
    /// client shows the reason instead of a closed connection.
    pub fn without_desktop(mut self, why: Error) -> Self {
        self.no_desktop = Some(why);
        self
    }

    /// Writes every call of this session into the recorder's folder.
    pub fn with_recorder(mut self, recorder: deskhand_record::Recorder) -> Self {
        self.recorder = Some(recorder);
        self
    }

    /// Makes calls take `lock` while they run, shared by every server on the same desktop.
    pub fn with_desktop_lock(mut self, lock: Arc<Mutex<()>>) -> Self {
        self.desktop_lock = Some(lock);
        self
    }

    /// Serves the doctor's findings as the resource [`DOCTOR_URI`], and names the problems
    /// found at start in the instructions.
    pub fn with_setup_check(mut self, setup: SetupCheck) -> Self {
        self.setup = Some(setup);
        self
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
        if let Some(why) = &self.no_desktop {
            parse_call(arguments)?;
            return Err(why.clone());
        }
        let Some(recorder) = &self.recorder else {
            let call = parse_call(arguments)?;
            let mut session = self.session.lock().await;
            let _turn = self.turn().await;
            // Nothing records this session: which text was a secret concerns no one.
            session.take_secret_args();
            return execute_with(
                self.backend.as_ref(),
                &mut session,
                &self.config,
                call,
                control,
            )
            .await;
        };
        let call = parse_call(arguments.clone());
        let mut session = self.session.lock().await;
        let _turn = self.turn().await;
        let actuates = call.as_ref().is_ok_and(|c| c.actuates());
        let begun = recorder
            .begin(&self.backend, &mut session, &arguments, actuates)
            .await;
        let mut reply = match call {
            Ok(call) => {
                execute_with(
                    self.backend.as_ref(),
                    &mut session,
                    &self.config,
                    call,
                    control,
                )
                .await
            }
            Err(err) => Err(err),
        };
        recorder
            .finish(&self.backend, begun, &mut session, &mut reply)
            .await;
        reply
    }

    /// The turn on the desktop, where several sessions share it.
    async fn turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match &self.desktop_lock {
            Some(lock) => Some(lock.lock().await),
            None => None,
        }
    }
}

/// The tool as a server acting on one desktop lists it. `desktop` and `end_desktop` name the
/// private desktops only a `--desktop-per-session` server starts: anywhere else they are always
/// refused, so listing them would cost every model request their tokens for nothing.
pub fn tool() -> Tool {
    let mut tool = tool_with_desktops_by_handle();
    let mut schema = (*tool.input_schema).clone();
    if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
        properties.remove("desktop");
        properties.remove("end_desktop");
    }
    tool.input_schema = Arc::new(schema);
    tool
}

/// The tool as a `--desktop-per-session` server lists it: with `desktop` and `end_desktop`.
pub fn tool_with_desktops_by_handle() -> Tool {
    let schema = schemars::schema_for!(DesktopArgs);
    let mut schema: JsonObject = match serde_json::to_value(schema).map(lean) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    // The Rust type's name means nothing to a model, and its doc says what the tool's
    // description and each parameter's already say.
    schema.remove("title");
    schema.remove("description");
    // Each definition is described where a parameter uses it; its own text only repeats that.
    if let Some(serde_json::Value::Object(defs)) = schema.get_mut("$defs") {
        for def in defs
            .values_mut()
            .filter_map(serde_json::Value::as_object_mut)
        {
            def.remove("description");
        }
    }
    inline_single_uses(&mut schema);
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
/// types and from `anyOf`), and so do number formats, the zero minimum of unsigned numbers, the
/// `items: true` of a list of anything and the `$schema` URL. Ranges, defaults and the length of
/// a point or region are in the descriptions; an unknown key is refused by the call's own check,
/// with a message that names it, so `additionalProperties` says nothing the model acts on.
fn lean(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let null = json!({"type": "null"});
    let says_nothing = |key: &str, value: &Value| {
        matches!(
            key,
            "$schema" | "format" | "minItems" | "maxItems" | "additionalProperties"
        ) || (key == "minimum" && *value == json!(0))
            || (key == "items" && *value == json!(true))
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

/// Puts each definition that only one place refers to in that place: a `$ref` and the name it
/// points at cost tokens that say nothing when nothing else shares the definition.
fn inline_single_uses(schema: &mut JsonObject) {
    use serde_json::Value;
    fn count_refs(value: &Value, counts: &mut HashMap<String, usize>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    *counts.entry(target.clone()).or_default() += 1;
                }
                map.values().for_each(|v| count_refs(v, counts));
            }
            Value::Array(items) => items.iter().for_each(|v| count_refs(v, counts)),
            _ => {}
        }
    }
    fn inline(value: &mut Value, defs: &JsonObject) {
        match value {
            Value::Object(map) => {
                let def = match map.get("$ref") {
                    Some(Value::String(target)) => target
                        .strip_prefix("#/$defs/")
                        .and_then(|name| defs.get(name)),
                    _ => None,
                };
                if let Some(Value::Object(def)) = def.cloned() {
                    map.remove("$ref");
                    for (key, value) in def {
                        // The use's own description says more than the definition's.
                        map.entry(key).or_insert(value);
                    }
                }
                map.values_mut().for_each(|v| inline(v, defs));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| inline(v, defs)),
            _ => {}
        }
    }
    let Some(Value::Object(mut defs)) = schema.remove("$defs") else {
        return;
    };
    // Inlining a definition can leave one with a single use: one used only inside it.
    loop {
        let mut counts = HashMap::new();
        schema
            .values()
            .chain(defs.values())
            .for_each(|v| count_refs(v, &mut counts));
        let (single, shared): (JsonObject, JsonObject) = defs.into_iter().partition(|(name, _)| {
            counts.get(&format!("#/$defs/{name}")).copied().unwrap_or(0) <= 1
        });
        defs = shared;
        if single.is_empty() {
            break;
        }
        schema
            .values_mut()
            .chain(defs.values_mut())
            .for_each(|v| inline(v, &single));
    }
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
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

/// What the server says of itself at initialize, the same over every transport.
fn server_info(setup: Option<&SetupCheck>, logs: bool) -> ServerConfig {
    let mut capabilities = match setup {
        Some(_) => ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build(),
        None => ServerCapabilities::builder().enable_tools().build(),
    };
    // Log messages say when a person takes over and when actions resume.
    if logs {
        capabilities.logging = Some(JsonObject::new());
    }
    let mut instructions =
        "One tool, `desktop`: observe a window's accessibility tree and act on it by element ref."
            .to_owned();
    for line in setup
        .into_iter()
        .flat_map(|s| [s.desktop.as_deref(), s.problems.as_deref()])
        .flatten()
    {
        instructions.push('\n');
        instructions.push_str(line);
    }
    ServerConfig::new(capabilities)
        .with_server_info(Implementation::new("deskhand", env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions)
}

/// The protocol error for a call to any tool but `desktop`.
fn unknown_tool(name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("there is no tool named {name:?}; the only tool is \"desktop\""),
        None,
    )
}

impl<B: Backend> ServerHandler for DesktopServer<B> {
    fn get_info(&self) -> ServerConfig {
        server_info(self.setup.as_ref(), self.backend.presence().is_some())
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if let Some(presence) = self.backend.presence() {
            handover::forward(&presence, self.config.clone(), context.peer);
        }
    }

    /// Every level is taken; the only messages are the person's takeovers and resumes, which
    /// an agent must hear whatever level it asked for.
    #[allow(
        deprecated,
        reason = "log messages are deprecated for a later MCP revision; see handover.rs"
    )]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        Ok(match self.setup {
            Some(_) => doctor::list(),
            None => rmcp::model::ListResourcesResult::default(),
        })
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        doctor::read(self.setup.as_ref(), request)
            .await
            .map(Into::into)
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
            return Err(unknown_tool(&request.name));
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
    serve(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves MCP over `read` and `write`, one JSON-RPC message a line, until the client disconnects.
/// Every request is answered, one longer than [`MAX_MESSAGE_BYTES`] with an error that says so.
pub async fn serve<B, R, W>(
    server: DesktopServer<B>,
    read: R,
    write: W,
) -> Result<(), std::io::Error>
where
    B: Backend,
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    use rmcp::ServiceExt;
    let recorder = server.recorder.clone();
    let running = server
        .serve(LineTransport::new(read, write))
        .await
        .map_err(std::io::Error::other)?;
    let ended = running.waiting().await.map_err(std::io::Error::other);
    // The last call's screenshot is still being written when the client hangs up.
    if let Some(recorder) = recorder {
        recorder.flush().await;
    }
    ended?;
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
                "steps": {"type": ["array", "null"], "items": true},
                "region": {"type": ["array", "null"], "items": {"type": "number"}, "minItems": 4, "maxItems": 4},
                "find": {"type": "object", "additionalProperties": false},
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
                    "steps": {"type": "array"},
                    "region": {"type": "array", "items": {"type": "number"}},
                    "find": {"type": "object"},
                },
            })
        );
    }

    #[test]
    fn a_definition_used_once_is_inlined_and_a_shared_one_kept() {
        let mut schema = json!({
            "properties": {
                "button": {"description": "which", "$ref": "#/$defs/Button"},
                "from": {"$ref": "#/$defs/Spot"},
                "to": {"$ref": "#/$defs/Spot"},
            },
            "$defs": {
                "Button": {"description": "the definition's own", "enum": ["left"], "type": "string"},
                "Spot": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/Point"}]},
                "Point": {"type": "array", "minItems": 2, "maxItems": 2},
                "Unused": {"type": "string"},
            },
        });
        let map = schema.as_object_mut().expect("an object");
        inline_single_uses(map);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "button": {"description": "which", "enum": ["left"], "type": "string"},
                    "from": {"$ref": "#/$defs/Spot"},
                    "to": {"$ref": "#/$defs/Spot"},
                },
                "$defs": {
                    "Spot": {"anyOf": [{"type": "string"}, {"type": "array", "minItems": 2, "maxItems": 2}]},
                },
            })
        );
    }

    #[test]
    fn every_reference_of_the_tool_schema_names_a_kept_definition() {
        fn refs(value: &serde_json::Value, found: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(map) => {
                    if let Some(target) = map.get("$ref").and_then(|t| t.as_str()) {
                        found.push(target.to_owned());
                    }
                    map.values().for_each(|v| refs(v, found));
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
                _ => {}
            }
        }
        let schema = serde_json::Value::Object((*tool().input_schema).clone());
        let mut found = Vec::new();
        refs(&schema, &mut found);
        let defs = schema
            .get("$defs")
            .and_then(serde_json::Value::as_object)
            .cloned()
            .unwrap_or_default();
        for target in &found {
            let name = target.strip_prefix("#/$defs/").expect("a local reference");
            assert!(defs.contains_key(name), "{target} points at nothing");
        }
        for name in defs.keys() {
            let uses = found
                .iter()
                .filter(|t| **t == format!("#/$defs/{name}"))
                .count();
            assert!(
                uses > 1,
                "{name} is used {uses} times and should be inlined"
            );
        }
        assert_eq!(
            schema["properties"]["action"]["enum"]
                .as_array()
                .map(Vec::len),
            Some(deskhand_core::action::ActionName::ALL.len())
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

    #[test]
    fn only_a_server_of_desktops_by_handle_lists_their_fields() {
        let by_handle = ["desktop", "end_desktop"];
        let listed = |tool: Tool| {
            let properties = tool.input_schema["properties"].as_object().cloned();
            let properties = properties.expect("properties");
            by_handle.map(|field| properties.get(field).map(|p| p["description"].clone()))
        };
        assert_eq!(listed(tool()), [None, None]);
        for description in listed(tool_with_desktops_by_handle()) {
            let description = description.expect("listed");
            assert!(!description.as_str().unwrap_or_default().is_empty());
        }
    }
}
