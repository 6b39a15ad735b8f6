//! Streamable HTTP: the same `desktop` tool served to many clients at once through rmcp's own
//! server transport, sessions for clients before revision 2026-07-28 and stateless requests for
//! those after. In front of it: a bearer-token check, a health route, and a clean stop.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use deskhand_core::{Backend, Config};

use crate::SetupCheck;

mod explain;
mod handles;
mod rfb;
mod session;
mod view;
mod vnc;
mod worker;

use explain::{Explainer, explain};

use session::Hub;
pub use session::SessionHandler;
pub use worker::{SESSION_VAR, WorkerCommand};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";
/// The path an orchestrator's probe asks: 200 while the server takes calls, 503 once it stops.
pub const HEALTH_PATH: &str = "/healthz";

/// How long a stop waits for calls under way to finish before ending their sessions.
const CALL_GRACE: Duration = Duration::from_secs(30);
/// How long a finished call's reply gets to leave before a stop ends its session.
const REPLY_GRACE: Duration = Duration::from_millis(500);
/// How long a stop waits for the private desktops to be stopped.
const DESKTOP_GRACE: Duration = Duration::from_secs(30);

/// What the HTTP server lets in, and how much of it.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Every request but the health probe must carry `Authorization: Bearer <token>`.
    pub token: Option<String>,
    /// `Host` values accepted besides the loopback names (DNS-rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted besides loopback ones; any other `Origin` is refused.
    pub allowed_origins: Vec<String>,
    /// Larger request bodies are refused with 413.
    pub max_body_bytes: usize,
    /// A session with no request for this long is ended (and its private desktop stopped).
    pub idle_timeout: Duration,
    /// Tool calls running at once, over all sessions; past it a call answers `busy`.
    pub max_calls: usize,
    /// Each session's calls recorded into a folder of its own under this one.
    pub record: Option<RecordTo>,
    /// This host's name in the handles of its private desktops (`desk-<host>-<bits>`), so
    /// that a load balancer sends each call to the host that holds its desktop.
    pub host_id: Option<String>,
}

/// Where sessions are recorded (see `deskhand replay`): `root/session-<id>`, each capped.
#[derive(Debug, Clone)]
pub struct RecordTo {
    pub root: std::path::PathBuf,
    /// Bytes each session's recording may take.
    pub cap: u64,
}

impl RecordTo {
    /// The folder a session's recording goes to; an id is kept to the characters a file name
    /// takes everywhere.
    pub(crate) fn folder(&self, session: &str) -> std::path::PathBuf {
        let name: String = session
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.root.join(format!("session-{name}"))
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            token: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: 1024 * 1024,
            idle_timeout: Duration::from_secs(300),
            max_calls: 16,
            record: None,
            host_id: None,
        }
    }
}

/// Where the sessions' calls act.
pub enum Desktops<B> {
    /// Every session acts on the desktop this process was started on, one call at a time.
    Shared(Arc<B>),
    /// Each session gets a private headless desktop of its own on its first call, run by a
    /// child `deskhand mcp --headless` that this command starts, at most `max` at once.
    PerSession { command: WorkerCommand, max: usize },
}

/// Why the server did not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "serving on {0} would let other machines in with no token; set one with --token-file FILE or DESKHAND_TOKEN, or bind 127.0.0.1"
    )]
    NoToken(SocketAddr),
    #[error("serving HTTP failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Refuses a bind that other machines can reach unless a token guards it.
pub fn check_bind(addr: SocketAddr, options: &HttpOptions) -> Result<(), HttpError> {
    if !addr.ip().is_loopback() && options.token.is_none() {
        return Err(HttpError::NoToken(addr));
    }
    Ok(())
}

/// Serves MCP over HTTP on `listener` until `shutdown` resolves; then refuses new calls, lets
/// the calls under way finish, ends every session and stops every private desktop it started.
pub async fn serve_http<B: Backend>(
    listener: tokio::net::TcpListener,
    options: HttpOptions,
    config: Config,
    desktops: Desktops<B>,
    setup: Option<SetupCheck>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), HttpError> {
    let addr = listener.local_addr()?;
    check_bind(addr, &options)?;
    let hub = Arc::new(Hub::new(
        config,
        desktops,
        setup,
        options.max_calls,
        options.record.clone(),
        options.idle_timeout,
        options.host_id.clone(),
    ));
    tokio::spawn(end_idle_handles(Arc::clone(&hub), options.idle_timeout));
    let sessions_ended = CancellationToken::new();
    let service = StreamableHttpService::new(
        {
            let hub = Arc::clone(&hub);
            move || Ok(SessionHandler::new(Arc::clone(&hub)))
        },
        Arc::new(session_manager(options.idle_timeout)),
        rmcp_config(addr, &options, sessions_ended.clone()),
    );
    let guard = Arc::new(Guard {
        token: options.token.clone(),
    });
    let explainer = Arc::new(Explainer::new(&options));
    let viewing = Arc::new(view::Viewing {
        hub: Arc::clone(&hub),
        token: options.token.clone(),
        hosts: allowed_hosts(addr, &options),
    });
    let app = Router::new()
        .route_service(MCP_PATH, service)
        .layer(axum::middleware::from_fn_with_state(explainer, explain))
        .layer(axum::middleware::from_fn(session_ended))
        .layer(axum::middleware::from_fn_with_state(guard, authenticate))
        .route(
            HEALTH_PATH,
            axum::routing::get(health).with_state(Arc::clone(&hub)),
        )
        .merge(view::routes(viewing));
    tracing::info!(%addr, path = MCP_PATH, "serving MCP over HTTP");

    let stop = CancellationToken::new();
    let stopping = {
        let hub = Arc::clone(&hub);
        let stop = stop.clone();
        async move {
            shutdown.await;
            tracing::info!("stopping: new calls are refused, calls under way may finish");
            hub.stopping.store(true, Ordering::SeqCst);
            if !hub.calls_finished(CALL_GRACE).await {
                tracing::warn!(grace = ?CALL_GRACE, "calls still running are ended");
            }
            // No new connections; the last calls' replies are on their way out on their
            // streams, which ending the sessions would cut.
            stop.cancel();
            tokio::time::sleep(REPLY_GRACE).await;
            sessions_ended.cancel();
        }
    };
    tokio::spawn(stopping);
    // Each reply leaves as a few small writes (headers, then a stream's events): with Nagle's
    // algorithm on, a client that keeps its connection open waits out its delayed ACK for the
    // last of them, some 20-40 ms a call.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(%err, "TCP_NODELAY could not be set on a connection");
        }
    });
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(stop.cancelled_owned())
    .await?;
    hub.stop_desktops(DESKTOP_GRACE).await;
    hub.flush_recordings().await;
    tracing::info!("stopped");
    Ok(())
}

/// Ends, now and then, the desktops by handle that went the idle timeout without a call.
async fn end_idle_handles<B: Backend>(hub: Arc<Hub<B>>, idle_timeout: Duration) {
    let every = (idle_timeout / 4).clamp(Duration::from_millis(250), Duration::from_secs(30));
    while !hub.stopping.load(Ordering::SeqCst) {
        tokio::time::sleep(every).await;
        hub.end_idle_handles();
    }
}

fn session_manager(idle_timeout: Duration) -> LocalSessionManager {
    let mut manager = LocalSessionManager::default();
    let mut config = SessionConfig::default();
    config.keep_alive = Some(idle_timeout);
    manager.session_config = config;
    manager
}

/// The `Host` names the server answers to: loopback ones, the bound address when it is a
/// specific one, and what the operator named.
fn allowed_hosts(addr: SocketAddr, options: &HttpOptions) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
        .into_iter()
        .map(String::from)
        .collect();
    if !addr.ip().is_unspecified() {
        hosts.push(match addr.ip() {
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        });
    }
    hosts.extend(options.allowed_hosts.iter().cloned());
    hosts
}

/// Loopback `Host` and `Origin` always, the bound address when it is a specific one, and what
/// the operator named; any other `Origin` is refused even where the list would let all in.
fn rmcp_config(
    addr: SocketAddr,
    options: &HttpOptions,
    cancel: CancellationToken,
) -> StreamableHttpServerConfig {
    let hosts = allowed_hosts(addr, options);
    let mut origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .into_iter()
        .map(String::from)
        .collect();
    origins.extend(options.allowed_origins.iter().cloned());
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_cancellation_token(cancel)
}

struct Guard {
    token: Option<String>,
}

/// Lets a request through only with the server's bearer token, when it has one; the refusal
/// comes before the request is read, so it changes nothing.
async fn authenticate(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let Some(expected) = &guard.token else {
        return next.run(request).await;
    };
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(bearer_token)
        .unwrap_or_default();
    if same_secret(given.as_bytes(), expected.as_bytes()) {
        return next.run(request).await;
    }
    let why = if given.is_empty() {
        "no bearer token was sent"
    } else {
        "the bearer token is not this server's"
    };
    tracing::warn!(why, "refused a request: 401");
    let mut response = (
        StatusCode::UNAUTHORIZED,
        format!(
            "Unauthorized: {why}; send `Authorization: Bearer <token>` with the token the server was started with (its --token-file or DESKHAND_TOKEN)\n"
        ),
    )
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"deskhand\""),
    );
    response
}

/// The token of an `Authorization` value whose scheme is `Bearer`, in any case (RFC 7235).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim_start())
}

/// A DELETE has ended the session by the time rmcp answers it, which it does with 202; clients
/// (the official Python SDK among them) expect the 200 or 204 of a finished deletion.
async fn session_ended(request: Request, next: Next) -> Response {
    let deleting = request.method() == http::Method::DELETE;
    let mut response = next.run(request).await;
    if deleting && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

/// Compares in time that depends on the length only, so the token cannot be guessed byte by byte.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

async fn health<B: Backend>(State(hub): State<Arc<Hub<B>>>) -> Response {
    // A host whose private desktops are all taken says so, for a balancer to start new ones
    // elsewhere; its desktops still serve their calls.
    let (status, state) = if hub.stopping.load(Ordering::SeqCst) {
        (StatusCode::SERVICE_UNAVAILABLE, "stopping")
    } else if hub.max_desktops() > 0 && hub.desktops_running() >= hub.max_desktops() {
        (StatusCode::SERVICE_UNAVAILABLE, "full")
    } else {
        (StatusCode::OK, "ok")
    };
    let body = serde_json::json!({
        "status": state,
        "calls": hub.calls_running(),
        "max_calls": hub.max_calls(),
        "desktops": hub.desktops_running(),
        "max_desktops": hub.max_desktops(),
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_matches_only_itself() {
        assert!(same_secret(b"s3cret-token", b"s3cret-token"));
        assert!(!same_secret(b"s3cret-tokem", b"s3cret-token"));
        assert!(!same_secret(b"s3cret", b"s3cret-token"));
        assert!(!same_secret(b"", b"s3cret-token"));
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer abc"), Some("abc"));
        assert_eq!(bearer_token("BEARER  abc"), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }

    #[test]
    fn only_loopback_binds_go_without_a_token() {
        let open = HttpOptions::default();
        assert!(check_bind("127.0.0.1:0".parse().unwrap(), &open).is_ok());
        assert!(check_bind("[::1]:8765".parse().unwrap(), &open).is_ok());
        let refused = check_bind("0.0.0.0:8765".parse().unwrap(), &open).unwrap_err();
        assert!(refused.to_string().contains("--token-file"), "{refused}");
        let guarded = HttpOptions {
            token: Some("a-long-enough-token".into()),
            ..HttpOptions::default()
        };
        assert!(check_bind("0.0.0.0:8765".parse().unwrap(), &guarded).is_ok());
    }
}
