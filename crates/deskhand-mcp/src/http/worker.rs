//! A session's private desktop: a child `deskhand mcp --headless` that starts its own headless
//! desktop and serves the tool on it over stdio. A process per desktop keeps each desktop's
//! display, buses and environment in the process that uses them, and one desktop's hung call or
//! crash away from every other session; ending the child's stdin stops it and its desktop.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use std::collections::HashMap;

use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ProgressNotificationParam, ProgressToken, ResultType, ServerResult,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RoleClient, RoleServer,
    RunningService, ServiceExt,
};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;
use tokio::sync::OwnedSemaphorePermit;
use tracing::Instrument;

/// Builds the command of one private desktop's process: `deskhand mcp --headless` with the
/// server's safety flags. The worker adds the session's name and its own stdio.
pub type WorkerCommand = Arc<dyn Fn() -> tokio::process::Command + Send + Sync>;

/// The child's variable that names its session in its audit lines.
pub const SESSION_VAR: &str = "DESKHAND_SESSION";

/// Starting a desktop takes about a second; a loaded two-core machine may take many.
const START_TIMEOUT: Duration = Duration::from_secs(90);
/// How long a child gets to stop its desktop and exit once its stdin is closed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(20);
/// Lines of the child's log kept to say why it failed.
const LOG_TAIL: usize = 4;
/// How the child says which display it started (`deskhand mcp --headless`, in the binary's
/// `prepare_display`), read for the desktop's live view.
const DISPLAY_LINE: &str = "deskhand: started a headless desktop on ";
/// How long the live view waits for that line to be read, once the child answers.
const DISPLAY_WAIT: Duration = Duration::from_secs(5);

pub(crate) struct Worker {
    peer: Peer<RoleClient>,
    /// The display the child's desktop runs on, as its log said.
    display: Arc<std::sync::OnceLock<String>>,
    relay: Relay,
    stop: Arc<WorkerStop>,
    session: String,
}

/// What stopping a worker needs, taken once by whoever stops it first.
pub(crate) struct WorkerStop {
    parts: tokio::sync::Mutex<Option<Running>>,
    session: String,
}

struct Running {
    client: RunningService<RoleClient, Relay>,
    child: Child,
    /// The desktop's place under the cap, given back once the child has exited.
    _slot: OwnedSemaphorePermit,
}

impl Worker {
    pub(crate) async fn start(
        command: &WorkerCommand,
        session: &str,
        number: usize,
        slot: OwnedSemaphorePermit,
        record: Option<std::path::PathBuf>,
    ) -> Result<Worker, String> {
        let mut command = command();
        if let Some(folder) = record {
            command.arg("--record").arg(folder);
        }
        command
            .env(SESSION_VAR, session)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own process group: a Ctrl-C at the server's terminal reaches the server, which
        // stops the desktops in order, not every child at once.
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|err| {
            format!("starting this session's private desktop failed: the deskhand process could not be started ({err}); nothing was done; tell the operator")
        })?;
        let span = tracing::info_span!("desktop", session = %session, worker = number);
        let tail = Arc::new(StdMutex::new(VecDeque::new()));
        let display = Arc::new(std::sync::OnceLock::new());
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(
                forward_log(stderr, Arc::clone(&tail), Arc::clone(&display))
                    .instrument(span.clone()),
            );
        }
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            unreachable!("both were piped above")
        };
        let relay = Relay::default();
        let handshake = tokio::time::timeout(START_TIMEOUT, relay.clone().serve((stdout, stdin)));
        let client = match handshake.instrument(span.clone()).await {
            Ok(Ok(client)) => client,
            outcome => {
                let _ = child.kill().await;
                let why = match outcome {
                    Err(_) => format!("it did not answer within {START_TIMEOUT:?}"),
                    Ok(Err(err)) => format!("{err}"),
                    Ok(Ok(_)) => unreachable!("handled above"),
                };
                let log = tail_text(&tail);
                tracing::error!(parent: &span, %why, log = %log, "private desktop failed to start");
                return Err(format!(
                    "starting this session's private desktop failed ({why}; its log ends: {log}); nothing was done; retry, and if it fails again run `deskhand doctor` on the server"
                ));
            }
        };
        tracing::info!(parent: &span, pid = child.id(), "private desktop ready");
        let peer = client.peer().clone();
        Ok(Worker {
            peer,
            display,
            relay,
            stop: Arc::new(WorkerStop {
                parts: tokio::sync::Mutex::new(Some(Running {
                    client,
                    child,
                    _slot: slot,
                })),
                session: session.to_owned(),
            }),
            session: session.to_owned(),
        })
    }

    /// The display of the desktop, once the child's log has said it.
    pub(crate) async fn display(&self) -> Option<String> {
        let waiting = std::time::Instant::now();
        loop {
            if let Some(display) = self.display.get() {
                return Some(display.clone());
            }
            if waiting.elapsed() > DISPLAY_WAIT {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub(crate) fn stop_handle(&self) -> &Arc<WorkerStop> {
        &self.stop
    }

    /// Runs the call on the session's desktop; its reply comes back unchanged, its progress
    /// goes to the client when the client asked for it, and a cancel reaches the desktop.
    pub(crate) async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let wanted = request
            .meta
            .as_ref()
            .and_then(|meta| meta.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        let sent = self
            .peer
            .send_cancellable_request(
                ClientRequest::CallToolRequest(CallToolRequest::new(request)),
                PeerRequestOptions::no_options(),
            )
            .await;
        let handle = match sent {
            Ok(handle) => handle,
            Err(err) => return self.stopped_answering(&err),
        };
        let own_token = handle.progress_token.clone();
        if let Some(wanted) = wanted {
            self.relay
                .routes()
                .insert(own_token.clone(), (context.peer.clone(), wanted));
        }
        let (id, peer) = (handle.id.clone(), handle.peer.clone());
        let outcome = tokio::select! {
            outcome = handle.await_response() => outcome,
            () = context.ct.cancelled() => {
                self.relay.routes().remove(&own_token);
                let why = "the client cancelled the call".to_owned();
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(why)))
                    .await;
                return super::session::cancelled();
            }
        };
        self.relay.routes().remove(&own_token);
        match outcome {
            // The desktop's own server speaks an older revision to this process, which leaves
            // the result's type out; a client of 2026-07-28 needs it.
            Ok(ServerResult::CallToolResult(mut result)) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
                result
            }
            Ok(other) => super::session::failed(
                "platform",
                &format!(
                    "this session's private desktop answered the call with something else than a tool result ({other:?}); whether it took effect is unknown; observe before repeating it"
                ),
            ),
            Err(err) => self.stopped_answering(&err),
        }
    }

    /// Reads a resource of the session's desktop (its doctor's findings), as its child serves it.
    pub(crate) async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
    ) -> Result<rmcp::model::ReadResourceResult, rmcp::model::ErrorData> {
        self.peer.read_resource(request).await.map_err(|err| match err {
            rmcp::ServiceError::McpError(error) => error,
            other => rmcp::model::ErrorData::internal_error(
                format!(
                    "this session's private desktop did not answer the read ({other}); end this session and open a new one"
                ),
                None,
            ),
        })
    }

    fn stopped_answering(&self, err: &rmcp::ServiceError) -> CallToolResult {
        tracing::error!(session = %self.session, %err, "private desktop stopped answering");
        super::session::failed(
            "platform",
            &format!(
                "this session's private desktop stopped answering ({err}); whether the call took effect is unknown; end this session and open a new one"
            ),
        )
    }
}

/// Passes the progress a private desktop reports on to the client whose call it is, under the
/// client's own token.
#[derive(Clone, Default)]
struct Relay {
    routes: Arc<StdMutex<Routes>>,
}

/// By the token of the call to the desktop: the client it is for, and the client's token.
type Routes = HashMap<ProgressToken, (Peer<RoleServer>, ProgressToken)>;

impl Relay {
    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.routes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl ClientHandler for Relay {
    async fn on_progress(
        &self,
        mut params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let route = self.routes().get(&params.progress_token).cloned();
        if let Some((peer, token)) = route {
            params.progress_token = token;
            let _ = peer.notify_progress(params).await;
        }
    }
}

impl Drop for Worker {
    /// The session ended or idled out: its desktop stops in the background, and the server's
    /// own stop waits for it.
    fn drop(&mut self) {
        let stop = Arc::clone(&self.stop);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { stop.stop().await });
        }
    }
}

impl WorkerStop {
    /// Closes the child's stdin, which ends it and its desktop; kills it if it does not exit.
    pub(crate) async fn stop(&self) {
        let Some(mut running) = self.parts.lock().await.take() else {
            return;
        };
        let _ = running.client.close_with_timeout(EXIT_TIMEOUT).await;
        match tokio::time::timeout(EXIT_TIMEOUT, running.child.wait()).await {
            Ok(Ok(status)) => {
                tracing::info!(session = %self.session, %status, "private desktop stopped")
            }
            _ => {
                tracing::error!(session = %self.session, "private desktop did not stop in time: killed; its watcher stops what it started");
                let _ = running.child.kill().await;
            }
        }
    }
}

async fn forward_log(
    stderr: tokio::process::ChildStderr,
    tail: Arc<StdMutex<VecDeque<String>>>,
    display: Arc<std::sync::OnceLock<String>>,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(started) = line.strip_prefix(DISPLAY_LINE) {
            let _ = display.set(started.trim().to_owned());
        }
        tracing::info!(target: "deskhand::desktop", "{line}");
        let mut tail = tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if tail.len() == LOG_TAIL {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

fn tail_text(tail: &StdMutex<VecDeque<String>>) -> String {
    let tail = tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if tail.is_empty() {
        "(nothing)".to_owned()
    } else {
        tail.iter().cloned().collect::<Vec<_>>().join(" | ")
    }
}
