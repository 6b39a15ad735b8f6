//! rmcp's refusals in words a client's operator can act on: a refused Host or Origin names the
//! flag that lets it in, a body that is not JSON gets JSON-RPC's Parse error (HTTP 400), and a
//! session that is gone says how it ended.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Method, StatusCode, header};

use super::HttpOptions;

/// Sessions remembered for the reply to a request of one that ended; the oldest are forgotten.
const REMEMBERED_SESSIONS: usize = 10_000;
/// What rmcp answers a body that is JSON but not a JSON-RPC message with.
const NOT_JSON_RPC: &str = "fail to deserialize request body";

/// How a session this server opened stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    Open,
    /// Its client ended it with a DELETE.
    Deleted,
}

pub(crate) struct Explainer {
    max_body: usize,
    idle_timeout: Duration,
    sessions: Mutex<HashMap<String, (u64, Standing)>>,
    opened: std::sync::atomic::AtomicU64,
}

impl Explainer {
    pub(crate) fn new(options: &HttpOptions) -> Self {
        Self {
            max_body: options.max_body_bytes,
            idle_timeout: options.idle_timeout,
            sessions: Mutex::new(HashMap::new()),
            opened: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn note(&self, session: &str, standing: Standing) {
        let mut sessions = self
            .sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let order = match sessions.get(session) {
            Some((order, _)) => *order,
            None => self
                .opened
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        };
        sessions.insert(session.to_owned(), (order, standing));
        if sessions.len() > REMEMBERED_SESSIONS {
            let oldest = sessions
                .iter()
                .min_by_key(|(_, (order, _))| *order)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                sessions.remove(&oldest);
            }
        }
    }

    fn standing(&self, session: &str) -> Option<Standing> {
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(session)
            .map(|(_, standing)| *standing)
    }

    /// Why a request of `session` found no session.
    fn gone(&self, session: &str) -> String {
        match self.standing(session) {
            Some(Standing::Open) => format!(
                "Not Found: session {session} was ended by the server after {} s without a request (its --idle-timeout); nothing was done; open a new session (initialize) and observe again\n",
                self.idle_timeout.as_secs()
            ),
            Some(Standing::Deleted) => format!(
                "Not Found: session {session} was ended by its client (a DELETE); nothing was done; open a new session (initialize)\n"
            ),
            None => format!(
                "Not Found: this server has no session {session} (it never opened one by that id, or it restarted since); nothing was done; open a new session (initialize)\n"
            ),
        }
    }
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

fn text(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

/// A JSON-RPC error with no id, as JSON-RPC answers a request it could not read.
fn json_rpc_error(code: i32, message: String) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub(crate) async fn explain(
    State(explainer): State<Arc<Explainer>>,
    request: Request,
    next: Next,
) -> Response {
    let method = request.method().clone();
    let session = header_text(request.headers(), "mcp-session-id").map(str::to_owned);
    let host = header_text(request.headers(), header::HOST.as_str()).map(str::to_owned);
    let origin = header_text(request.headers(), header::ORIGIN.as_str()).map(str::to_owned);
    let request = if method == Method::POST {
        let (parts, body) = request.into_parts();
        let Ok(bytes) = to_bytes(body, explainer.max_body).await else {
            return text(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: the request body is over this server's {} bytes (its --max-body); nothing was done\n",
                    explainer.max_body
                ),
            );
        };
        if let Err(err) = serde_json::from_slice::<serde_json::Value>(&bytes) {
            return json_rpc_error(
                -32700,
                format!(
                    "Parse error: the request body is not JSON ({err}); nothing was done; send one JSON-RPC message"
                ),
            );
        }
        Request::from_parts(parts, Body::from(bytes))
    } else {
        request
    };
    let response = next.run(request).await;
    let status = response.status();
    if let Some(opened) = header_text(response.headers(), "mcp-session-id") {
        explainer.note(opened, Standing::Open);
    }
    if method == Method::DELETE
        && status.is_success()
        && let Some(session) = &session
    {
        explainer.note(session, Standing::Deleted);
    }
    if !matches!(
        status,
        StatusCode::FORBIDDEN | StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::NOT_FOUND
    ) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let said = to_bytes(body, 64 * 1024).await.unwrap_or_default();
    let said = String::from_utf8_lossy(&said).into_owned();
    match status {
        StatusCode::FORBIDDEN if said.contains("Host header") => text(
            status,
            format!(
                "Forbidden: this server does not answer to the Host {} (DNS-rebinding protection); if clients reach it by that name, start it with --allow-host {}\n",
                host.as_deref().unwrap_or("(none)"),
                host.as_deref().unwrap_or("NAME")
            ),
        ),
        StatusCode::FORBIDDEN if said.contains("Origin") => text(
            status,
            format!(
                "Forbidden: requests from the browser origin {} are refused (only loopback pages are let in); if that page may drive this desktop, start the server with --allow-origin {}\n",
                origin.as_deref().unwrap_or("(none)"),
                origin.as_deref().unwrap_or("ORIGIN")
            ),
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE if said.starts_with(NOT_JSON_RPC) => json_rpc_error(
            -32600,
            format!(
                "Invalid Request: the body is JSON but not a JSON-RPC message ({}); nothing was done",
                said.trim_start_matches(NOT_JSON_RPC).trim()
            ),
        ),
        StatusCode::NOT_FOUND if session.is_some() && said.contains("Session not found") => text(
            status,
            explainer.gone(session.as_deref().unwrap_or_default()),
        ),
        _ => Response::from_parts(parts, Body::from(said)),
    }
}
