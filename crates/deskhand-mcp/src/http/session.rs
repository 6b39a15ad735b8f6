//! One handler per MCP session: its refs, window ids, surface and `since` are its own, and so is
//! its private desktop where the server gives each session one.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex as StdMutex, Weak};
use std::time::Duration;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use tokio::sync::{Mutex, OnceCell, Semaphore, broadcast};
use tracing::Instrument;

use deskhand_core::{Backend, Config};
use deskhand_record::Recorder;

use super::handles::{Handles, NEW, new_handle};
use super::view::DeskView;
use super::worker::{Worker, WorkerStop};
use super::{Desktops, RecordTo};
use crate::handover::{self, Told};
use crate::{
    DesktopServer, SetupCheck, TOOL_NAME, doctor, server_info, tool, tool_with_desktops_by_handle,
    unknown_tool,
};

/// The label of calls that came without a session (revision 2026-07-28 and later).
const STATELESS: &str = "stateless";

/// What every session of one server shares.
pub(crate) struct Hub<B> {
    config: Config,
    desktops: Desktops<B>,
    setup: Option<SetupCheck>,
    /// The turn on the shared desktop, for whole actions.
    desktop_lock: Arc<Mutex<()>>,
    /// Stateless requests have no session to keep state in: they share this one.
    stateless: OnceCell<DesktopServer<B>>,
    calls: Arc<Semaphore>,
    max_calls: usize,
    /// Calls under way: the semaphore's free permits are not, once a stop waits for them all
    /// (a waiting `acquire_many` takes each permit as it frees).
    calls_running: Arc<AtomicUsize>,
    /// How long a session may go without a request, for the reply that says when a desktop frees.
    idle_timeout: Duration,
    /// Private desktops that may still run, to stop at the end whoever still holds them.
    workers: StdMutex<Vec<Weak<WorkerStop>>>,
    /// Private desktops starting or running, held against the cap.
    desktop_slots: Arc<Semaphore>,
    max_desktops: usize,
    pub(crate) stopping: AtomicBool,
    next_worker: AtomicUsize,
    record: Option<RecordTo>,
    /// The recorders of sessions served here, to write out their last steps at the stop.
    recorders: StdMutex<Vec<Recorder>>,
    /// A person's takeovers and resumes on the shared desktop, recorded once and told to
    /// every session.
    handovers: Option<broadcast::Sender<Told>>,
    /// Private desktops started by handle (`"desktop": "new"`), for any connection to use.
    handles: Handles,
    /// This host's name in those handles.
    host_id: Option<String>,
}

impl<B: Backend> Hub<B> {
    pub(crate) fn new(
        config: Config,
        desktops: Desktops<B>,
        setup: Option<SetupCheck>,
        max_calls: usize,
        record: Option<RecordTo>,
        idle_timeout: Duration,
        host_id: Option<String>,
    ) -> Self {
        let max_desktops = match &desktops {
            Desktops::Shared(_) => 0,
            Desktops::PerSession { max, .. } => *max,
        };
        // A private desktop per session has nobody at it to watch.
        let handovers = match &desktops {
            Desktops::Shared(backend) => backend
                .presence()
                .map(|presence| handover::recorded(&presence, config.clone())),
            Desktops::PerSession { .. } => None,
        };
        Self {
            config,
            desktops,
            setup,
            desktop_lock: Arc::new(Mutex::new(())),
            stateless: OnceCell::new(),
            calls: Arc::new(Semaphore::new(max_calls)),
            max_calls,
            calls_running: Arc::new(AtomicUsize::new(0)),
            idle_timeout,
            workers: StdMutex::new(Vec::new()),
            desktop_slots: Arc::new(Semaphore::new(max_desktops)),
            max_desktops,
            stopping: AtomicBool::new(false),
            next_worker: AtomicUsize::new(1),
            record,
            recorders: StdMutex::new(Vec::new()),
            handovers,
            handles: Handles::default(),
            host_id,
        }
    }

    /// The private desktops started by handle.
    pub(crate) fn handles(&self) -> &Handles {
        &self.handles
    }

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn max_desktops(&self) -> usize {
        self.max_desktops
    }

    /// Ends the desktops by handle that no call has used for the idle timeout.
    pub(crate) fn end_idle_handles(&self) {
        for handle in self.handles.end_idle(self.idle_timeout) {
            tracing::info!(%handle, idle = ?self.idle_timeout, "private desktop by handle ended: idle");
        }
    }

    /// Starts a private desktop for `label` under the cap, and keeps it to stop at the end.
    async fn start_worker(
        &self,
        command: &super::worker::WorkerCommand,
        label: &str,
        kept_by: &str,
    ) -> Result<Worker, CallToolResult> {
        let Ok(slot) = Arc::clone(&self.desktop_slots).try_acquire_owned() else {
            return Err(failed(
                "busy",
                &format!(
                    "this server already runs its {} private desktops, so it starts no other and nothing was done; a desktop frees when {kept_by}, or after no request for {} s, the server's --idle-timeout: retry then, or ask the operator to raise --max-desktops",
                    self.max_desktops,
                    self.idle_timeout.as_secs()
                ),
            ));
        };
        let number = self.next_worker.fetch_add(1, Ordering::Relaxed);
        let record = self.record.as_ref().map(|r| r.folder(label));
        let worker = Worker::start(command, label, number, slot, record)
            .await
            .map_err(|why| failed("platform", &why))?;
        self.workers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(Arc::downgrade(worker.stop_handle()));
        Ok(worker)
    }

    /// A call that names a private desktop by its handle in `desktop`, or asks for a new one:
    /// from any connection, with or without a session.
    async fn call_by_handle(
        &self,
        mut request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let args = request.arguments.get_or_insert_with(Default::default);
        let desktop = args.remove("desktop");
        let end = args.remove("end_desktop");
        let has_action = args.contains_key("action");
        let Desktops::PerSession { command, .. } = &self.desktops else {
            return failed(
                "unsupported",
                "this server acts on one shared desktop and starts no private ones, so a `desktop` handle names nothing here; nothing was done: leave `desktop` and `end_desktop` out, or use a server started with --desktop-per-session",
            );
        };
        let end = match end {
            None => false,
            Some(serde_json::Value::Bool(end)) => end,
            Some(other) => {
                return failed(
                    "bad-argument",
                    &format!("`end_desktop` is {other}, not true or false; nothing was done"),
                );
            }
        };
        let Some(serde_json::Value::String(desktop)) = desktop else {
            return failed(
                "bad-argument",
                "`desktop` must be \"new\" or the handle a reply named (a string), and `end_desktop` needs it; nothing was done",
            );
        };
        if desktop == NEW {
            if end {
                return failed(
                    "bad-argument",
                    "`end_desktop` stops a desktop named by its handle, and \"desktop\": \"new\" names none yet; nothing was done",
                );
            }
            let (handle, view) = match new_handle(self.host_id.as_deref())
                .and_then(|handle| Ok((handle, DeskView::new()?)))
            {
                Ok(minted) => minted,
                Err(why) => return failed("platform", &why),
            };
            let worker = match self
                .start_worker(command, &handle, "its handle is ended (`end_desktop`)")
                .await
            {
                Ok(worker) => worker,
                Err(refused) => return refused,
            };
            let held = self.handles.insert(handle.clone(), worker, view);
            tracing::info!(%handle, "private desktop by handle started");
            let started = format!(
                "desktop {handle} started: a private desktop; pass \"desktop\": \"{handle}\" with every call for it, and \"end_desktop\": true when done\n"
            );
            let reply = if has_action {
                held.worker.call(request, context).await
            } else {
                CallToolResult::success(Vec::new())
            };
            return named(reply, &handle, started, None);
        }
        let Some(held) = self.handles.get(&desktop) else {
            return failed(
                "surface-gone",
                &format!(
                    "no private desktop has the handle {desktop:?} here: it ended (`end_desktop`, {} s without a call, the server's --idle-timeout, or a restart of the server), or it never was; nothing was done: start another with \"desktop\": \"new\"",
                    self.idle_timeout.as_secs()
                ),
            );
        };
        // An operator who took the desktop over from its live view has it, for ending it too.
        let call = match held.view.admit() {
            Ok(call) => call,
            Err(refusal) => {
                tracing::info!(handle = %desktop, "call refused: an operator holds the desktop");
                return failed(refusal.kind.as_str(), &refusal.message);
            }
        };
        let reply = if has_action {
            held.worker.call(request, context).await
        } else if end {
            CallToolResult::success(Vec::new())
        } else {
            return failed(
                "bad-argument",
                &format!(
                    "`action` is missing: give the action to run on desktop {desktop}, or \"end_desktop\": true to stop it; nothing was done"
                ),
            );
        };
        drop(call);
        drop(held);
        let ended = (end && self.handles.end(&desktop)).then(|| {
            tracing::info!(handle = %desktop, "private desktop by handle ended");
            format!("desktop {desktop} ended: its apps and windows are gone, and its handle is refused from now on\n")
        });
        named(reply, &desktop, String::new(), ended)
    }

    /// Writes out what the recorders of this process still hold (the last call's screenshot).
    pub(crate) async fn flush_recordings(&self) {
        let recorders: Vec<Recorder> = self
            .recorders
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        for recorder in recorders {
            recorder.flush().await;
        }
    }

    pub(crate) fn calls_running(&self) -> usize {
        self.calls_running.load(Ordering::SeqCst)
    }

    pub(crate) fn max_calls(&self) -> usize {
        self.max_calls
    }

    pub(crate) fn desktops_running(&self) -> usize {
        self.max_desktops - self.desktop_slots.available_permits()
    }

    /// Waits until no call runs, at most `grace`; true when none does.
    pub(crate) async fn calls_finished(&self, grace: Duration) -> bool {
        let all = u32::try_from(self.max_calls).unwrap_or(u32::MAX);
        tokio::time::timeout(grace, self.calls.acquire_many(all))
            .await
            .is_ok_and(|permits| permits.is_ok())
    }

    /// Stops every private desktop still running and waits for each, at most `grace` in all.
    pub(crate) async fn stop_desktops(&self, grace: Duration) {
        self.handles.end_all();
        let stops: Vec<Arc<WorkerStop>> = self
            .workers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .drain(..)
            .filter_map(|weak| weak.upgrade())
            .collect();
        let all = futures::future::join_all(stops.iter().map(|stop| stop.stop()));
        if tokio::time::timeout(grace, all).await.is_err() {
            tracing::error!(?grace, "some private desktops did not stop in time");
        }
        // Stops begun by sessions that ended just before hold their slot until done.
        let all = u32::try_from(self.max_desktops).unwrap_or(u32::MAX);
        if all > 0
            && tokio::time::timeout(grace, self.desktop_slots.acquire_many(all))
                .await
                .is_err()
        {
            tracing::error!(?grace, "some private desktops did not stop in time");
        }
    }

    fn server_for(&self, session: &str) -> Result<DesktopServer<B>, CallToolResult> {
        let Desktops::Shared(backend) = &self.desktops else {
            unreachable!("only a shared desktop has servers in this process")
        };
        let mut config = self.config.clone();
        config.session = Some(session.to_owned());
        let server = DesktopServer::new(Arc::clone(backend), config)
            .with_desktop_lock(Arc::clone(&self.desktop_lock));
        let Some(record) = &self.record else {
            return Ok(server);
        };
        let folder = record.folder(session);
        let recorder = Recorder::open(&folder, record.cap).map_err(|err| {
            failed(
                "platform",
                &format!(
                    "this session cannot be recorded ({err}), so its call was not run; tell the operator, who started the server with --record"
                ),
            )
        })?;
        self.recorders
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(recorder.clone());
        Ok(server.with_recorder(recorder))
    }
}

/// Where one session's calls go.
enum Seat<B> {
    Here(Box<DesktopServer<B>>),
    Private(Worker),
}

/// The MCP handler rmcp makes for each session (and for each stateless request).
pub struct SessionHandler<B> {
    hub: Arc<Hub<B>>,
    seat: OnceCell<Seat<B>>,
}

impl<B: Backend> SessionHandler<B> {
    pub(crate) fn new(hub: Arc<Hub<B>>) -> Self {
        Self {
            hub,
            seat: OnceCell::new(),
        }
    }

    async fn seat(&self, session: &str) -> Result<&Seat<B>, CallToolResult> {
        self.seat
            .get_or_try_init(|| async {
                match &self.hub.desktops {
                    Desktops::Shared(_) => Ok(Seat::Here(Box::new(self.hub.server_for(session)?))),
                    Desktops::PerSession { command, .. } => {
                        let worker = self
                            .hub
                            .start_worker(
                                command,
                                session,
                                "its session ends (its client closes it)",
                            )
                            .await?;
                        Ok(Seat::Private(worker))
                    }
                }
            })
            .await
    }

    /// The tool as this server lists it: with `desktop` and `end_desktop` where it starts
    /// private desktops by handle.
    fn tool(&self) -> Tool {
        match &self.hub.desktops {
            Desktops::Shared(_) => tool(),
            Desktops::PerSession { .. } => tool_with_desktops_by_handle(),
        }
    }

    async fn stateless_server(&self) -> Result<&DesktopServer<B>, CallToolResult> {
        match &self.hub.desktops {
            Desktops::Shared(_) => {
                self.hub
                    .stateless
                    .get_or_try_init(|| async { self.hub.server_for(STATELESS) })
                    .await
            }
            Desktops::PerSession { .. } => Err(failed(
                "unsupported",
                "this server gives each session a private desktop (--desktop-per-session), and a request without a session has none to act on; connect with a client that opens a session (protocol revision 2025-11-25 or earlier), or use a server without --desktop-per-session",
            )),
        }
    }
}

/// One call counted as under way while it lives.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn start(count: &Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Self(Arc::clone(count))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A tool error in the shape every reply of the tool has.
pub(super) fn failed(kind: &str, message: &str) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "failed ({kind}): {message}\n"
    ))]);
    result.structured_content = Some(json!({"error": kind, "message": message}));
    result
}

/// A reply of the desktop `handle`: `before` and `after` (lines, possibly empty) around its
/// text, and the handle in its structured form.
fn named(
    mut result: CallToolResult,
    handle: &str,
    before: String,
    after: Option<String>,
) -> CallToolResult {
    if !before.is_empty() {
        result.content.insert(0, ContentBlock::text(before));
    }
    if let Some(after) = after {
        result.content.push(ContentBlock::text(after));
    }
    match &mut result.structured_content {
        Some(serde_json::Value::Object(data)) => {
            data.insert("desktop".to_owned(), json!(handle));
        }
        _ => result.structured_content = Some(json!({ "desktop": handle })),
    }
    result
}

/// The reply to a call the client cancelled while its private desktop ran it.
pub(super) fn cancelled() -> CallToolResult {
    failed(
        "cancelled",
        "the client cancelled the call while the session's desktop ran it; part of it may have taken effect: observe before repeating it",
    )
}

/// The `Mcp-Session-Id` the request came with; none for a stateless request.
fn session_of(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

impl<B: Backend> ServerHandler for SessionHandler<B> {
    fn get_info(&self) -> ServerConfig {
        let setup = match self.hub.desktops {
            // The doctor looks at this process's desktop, which per-session ones are not.
            Desktops::Shared(_) => self.hub.setup.as_ref(),
            Desktops::PerSession { .. } => None,
        };
        server_info(setup, self.hub.handovers.is_some())
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if let Some(handovers) = &self.hub.handovers {
            handover::tell(handovers.subscribe(), context.peer);
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
    ) -> Result<ListResourcesResult, ErrorData> {
        // A private desktop's own server serves its doctor's findings.
        Ok(match (&self.hub.desktops, &self.hub.setup) {
            (Desktops::Shared(_), Some(_)) | (Desktops::PerSession { .. }, _) => doctor::list(),
            (Desktops::Shared(_), None) => ListResourcesResult::default(),
        })
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Desktops::PerSession { .. } = self.hub.desktops else {
            return doctor::read(self.hub.setup.as_ref(), request)
                .await
                .map(Into::into);
        };
        let Some(session) = session_of(&context) else {
            return Err(ErrorData::invalid_request(
                "this server gives each session a private desktop (--desktop-per-session), and a request without a session has no desktop to examine; open a session",
                None,
            ));
        };
        match self.seat(&session).await {
            Ok(Seat::Private(worker)) => worker.read_resource(request).await.map(Into::into),
            Ok(Seat::Here(_)) => unreachable!("a per-session server seats every session privately"),
            Err(refused) => Err(ErrorData::internal_error(
                refused
                    .structured_content
                    .as_ref()
                    .and_then(|data| data["message"].as_str())
                    .unwrap_or("this session has no private desktop")
                    .to_owned(),
                None,
            )),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == TOOL_NAME).then(|| self.tool())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_NAME {
            return Err(unknown_tool(&request.name));
        }
        let session = session_of(&context);
        let label = session.as_deref().unwrap_or(STATELESS).to_owned();
        let action = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("action"))
            .and_then(|action| action.as_str())
            .unwrap_or("?")
            .to_owned();
        let span = tracing::info_span!("call", session = %label, action = %action);
        async move {
            if self.hub.stopping.load(Ordering::SeqCst) {
                return Ok(failed(
                    "unavailable",
                    "the server is stopping and takes no new calls; nothing was done; retry on another server or once it is back",
                )
                .into());
            }
            let Ok(_permit) = Arc::clone(&self.hub.calls).try_acquire_owned() else {
                tracing::warn!(max = self.hub.max_calls, "busy: call refused");
                return Ok(failed(
                    "busy",
                    &format!(
                        "the server already runs {} calls, its limit, so this one was not started and nothing was done; retry in a moment",
                        self.hub.max_calls
                    ),
                )
                .into());
            };
            let _running = Running::start(&self.hub.calls_running);
            let started = std::time::Instant::now();
            let by_handle = request.arguments.as_ref().is_some_and(|args| {
                args.contains_key("desktop") || args.contains_key("end_desktop")
            });
            let result = match session {
                _ if by_handle => Ok(self.hub.call_by_handle(request, &context).await.into()),
                None => match self.stateless_server().await {
                    Ok(server) => server.call_tool(request, context).await,
                    Err(refused) => Ok(refused.into()),
                },
                Some(session) => match self.seat(&session).await {
                    Ok(Seat::Here(server)) => server.call_tool(request, context).await,
                    Ok(Seat::Private(worker)) => Ok(worker.call(request, &context).await.into()),
                    Err(refused) => Ok(refused.into()),
                },
            };
            tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "call answered");
            result
        }
        .instrument(span)
        .await
    }
}
