//! The live view of a private desktop by handle: `GET /desktops/<handle>/view` serves a page
//! that shows the desktop in the browser (noVNC, from Debian's `novnc`, talking to x11vnc or
//! wayvnc through this server's own WebSocket at `/desktops/<handle>/websockify`), view-only, with a
//! "Take over" button: while an operator holds the desktop, the agent's calls on it are refused
//! as `stopped` and the viewer's keys and pointer reach it; "Hand back" resumes the agent.
//!
//! A browser cannot send a bearer header when it loads a page, so where the server has a token
//! the page is opened once as `view?token=<token>`: the token is checked, exchanged for a cookie
//! that holds this desktop's own view secret (HttpOnly, SameSite=Strict, scoped to the desktop's
//! path), and the browser is sent on to `view` without it. Everything under the desktop's path
//! takes that cookie or the bearer header; buttons and the WebSocket also need a same-origin
//! `Origin`, and every request a `Host` the server answers to.

use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, Path as UrlPath, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http::{HeaderMap, HeaderValue, StatusCode, header};
use serde_json::json;

use deskhand_core::Backend;
use deskhand_core::person::OperatorHold;
use deskhand_record::report::escape_html;

use super::handles::Held;
use super::session::Hub;
use super::vnc::{Endpoint, Vnc, carry};

/// Where Debian's `novnc` package puts noVNC.
const NOVNC_DIR: &str = "/usr/share/novnc";
/// The cookie that carries a desktop's view secret.
const COOKIE: &str = "deskhand_view";
/// How long a takeover waits for the agent's calls under way on the desktop to finish before
/// the operator's input goes through.
const CALLS_GRACE: Duration = Duration::from_secs(30);

const PAGE: &str = include_str!("view.html");
const SCRIPT: &str = include_str!("view.js");

/// What the live view of one desktop keeps: its secret, its VNC server once a viewer asked for
/// it, and the operator holding it, if one is.
pub(crate) struct DeskView {
    secret: String,
    /// x11vnc's password (wayvnc's socket needs none), the same for every start, so that a
    /// page opened before a restart still connects.
    vnc_password: String,
    vnc: tokio::sync::Mutex<Option<Vnc>>,
    /// Viewers connected, or connecting: the VNC server stops when none is left.
    viewers: AtomicUsize,
    hold: std::sync::Mutex<Option<OperatorHold>>,
    /// The viewer whose input reaches the desktop: the page of the operator who holds it,
    /// once the agent's calls under way have finished.
    input_for: InputFor,
    /// The agent's calls under way on the desktop.
    calls: AtomicUsize,
}

/// One agent call counted as under way on a desktop while it lives.
pub(crate) struct CallOnDesk<'a>(&'a DeskView);

impl Drop for CallOnDesk<'_> {
    fn drop(&mut self) {
        self.0.calls.fetch_sub(1, Ordering::SeqCst);
    }
}

impl DeskView {
    pub(crate) fn new() -> Result<DeskView, String> {
        Ok(DeskView {
            secret: super::handles::random_hex()?,
            vnc_password: super::vnc::random_password()?,
            vnc: tokio::sync::Mutex::new(None),
            viewers: AtomicUsize::new(0),
            hold: std::sync::Mutex::new(None),
            input_for: InputFor::default(),
            calls: AtomicUsize::new(0),
        })
    }

    fn hold(&self) -> std::sync::MutexGuard<'_, Option<OperatorHold>> {
        self.hold
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn held(&self) -> bool {
        self.hold().is_some()
    }

    /// Counts an agent's call as under way, or refuses it with the reason while an operator
    /// holds the desktop. Counted first, so that a takeover that comes in between waits for it.
    pub(crate) fn admit(&self) -> Result<CallOnDesk<'_>, deskhand_core::Error> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let call = CallOnDesk(self);
        match &*self.hold() {
            Some(hold) => Err(hold.refusal()),
            None => Ok(call),
        }
    }

    /// Who holds the desktop, and whether `viewer`'s input goes in.
    fn state(&self, viewer: Option<&str>) -> serde_json::Value {
        let input = viewer.is_some() && input_for(&self.input_for).as_deref() == viewer;
        match &*self.hold() {
            Some(hold) => json!({
                "held": true,
                "by": hold.by,
                "since": deskhand_core::audit::utc_timestamp(hold.since),
                "input": input,
            }),
            None => json!({"held": false, "input": false}),
        }
    }
}

/// The viewer (one open page, by the id it made itself) whose keys and pointer reach the
/// desktop; none while the agent has it.
pub(crate) type InputFor = Arc<std::sync::Mutex<Option<String>>>;

pub(crate) fn input_for(shared: &InputFor) -> Option<String> {
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

fn set_input_for(shared: &InputFor, viewer: Option<String>) {
    *shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = viewer;
}

/// What the view routes need of the server.
pub(crate) struct Viewing<B> {
    pub(crate) hub: Arc<Hub<B>>,
    pub(crate) token: Option<String>,
    pub(crate) hosts: Vec<String>,
}

pub(crate) fn routes<B: Backend>(viewing: Arc<Viewing<B>>) -> Router {
    Router::new()
        .route("/desktops/{handle}/view", get(page::<B>))
        .route("/desktops/{handle}/view.js", get(script::<B>))
        .route("/desktops/{handle}/state", get(state::<B>))
        .route("/desktops/{handle}/novnc/{*file}", get(novnc::<B>))
        .route("/desktops/{handle}/websockify", get(websocket::<B>))
        .route("/desktops/{handle}/takeover", post(take_over::<B>))
        .route("/desktops/{handle}/handback", post(hand_back::<B>))
        .with_state(viewing)
}

/// How a request may reach a desktop's view.
enum Access {
    Granted,
    /// The token came in the query: set the cookie and send the browser on without it.
    ByQuery,
}

/// The value of `name` in a query string, percent-decoded.
fn query_value(query: &str, name: &str) -> Option<String> {
    let raw = query
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))?;
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[at], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                at += 3;
            }
            (b'+', _) => {
                decoded.push(b' ');
                at += 1;
            }
            (byte, _) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

/// A request refused, as the page a browser shows.
#[derive(Debug)]
struct Refusal {
    status: StatusCode,
    title: &'static str,
    /// HTML: what was refused, why, and what to do.
    body: String,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        page_of(self.status, self.title, &self.body)
    }
}

fn page_of(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p></body></html>\n"
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

impl<B: Backend> Viewing<B> {
    /// The desktop, or the page that says there is none; a Host the server does not answer
    /// to is refused before anything (DNS-rebinding protection).
    fn desktop(&self, handle: &str, headers: &HeaderMap) -> Result<Arc<Held>, Refusal> {
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let name = host_name(host);
        if !self
            .hosts
            .iter()
            .any(|allowed| allowed == name || allowed == host)
        {
            return Err(Refusal {
                status: StatusCode::FORBIDDEN,
                title: "Forbidden",
                body: format!(
                    "this server does not answer to the Host {} (DNS-rebinding protection); if operators reach it by that name, start it with --allow-host {}",
                    escape_html(host),
                    escape_html(name)
                ),
            });
        }
        self.hub.handles().peek(handle).ok_or_else(|| Refusal {
            status: StatusCode::NOT_FOUND,
            title: "No such desktop",
            body: format!(
                "no private desktop has the handle {} on this server: it ended (its agent ended it, it went the server's idle timeout without a call, or the server restarted), or it never was. Nothing is there to watch; ask the agent for the handle of its current desktop.",
                escape_html(handle)
            ),
        })
    }

    /// The bearer header, the desktop's cookie, or (for the page) the token in the query.
    fn access(
        &self,
        held: &Held,
        headers: &HeaderMap,
        query: Option<&str>,
    ) -> Result<Access, Refusal> {
        let Some(token) = &self.token else {
            return Ok(Access::Granted);
        };
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(super::bearer_token);
        if bearer.is_some_and(|given| super::same_secret(given.as_bytes(), token.as_bytes())) {
            return Ok(Access::Granted);
        }
        if cookie_of(headers)
            .is_some_and(|given| super::same_secret(given.as_bytes(), held.view.secret.as_bytes()))
        {
            return Ok(Access::Granted);
        }
        if query.is_some_and(|given| super::same_secret(given.as_bytes(), token.as_bytes())) {
            return Ok(Access::ByQuery);
        }
        let why = match (bearer, query) {
            (None, None) => "no token came with the request",
            _ => "the token is not this server's",
        };
        tracing::warn!(why, "refused a live view request: 401");
        Err(Refusal {
            status: StatusCode::UNAUTHORIZED,
            title: "Unauthorized",
            body: format!(
                "{why}, and this browser holds no view cookie for this desktop; open this page once as <code>view?token=TOKEN</code> with the server's token (its --token-file or DESKHAND_TOKEN): it is exchanged for a cookie for this desktop alone, and taken out of the address"
            ),
        })
    }

    /// A request that acts (a button, the WebSocket) must come from a page of this server.
    fn same_origin(headers: &HeaderMap) -> Result<(), Refusal> {
        let origin = headers
            .get(header::ORIGIN)
            .and_then(|value| value.to_str().ok());
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        match origin {
            Some(origin)
                if origin
                    .split_once("://")
                    .is_none_or(|(_, authority)| authority != host) =>
            {
                Err(Refusal {
                    status: StatusCode::FORBIDDEN,
                    title: "Forbidden",
                    body: format!(
                        "a page from {} may not act on this desktop: only the live view's own page may",
                        escape_html(origin)
                    ),
                })
            }
            _ => Ok(()),
        }
    }
}

/// The id a page made for itself (`?viewer=`, 16 to 64 hex digits), which tells its
/// connection and buttons from another page's.
fn viewer_in(query: Option<&str>) -> Result<String, Refusal> {
    query
        .and_then(|query| query_value(query, "viewer"))
        .filter(|id| (16..=64).contains(&id.len()) && id.chars().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(|| Refusal {
            status: StatusCode::BAD_REQUEST,
            title: "Bad request",
            body: "the request names no viewer (<code>?viewer=</code> and 16 to 64 hex digits, which the live view's page makes for itself); reload the page".to_owned(),
        })
}

/// The host name of a `Host` value, without its port.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split_once(']').map_or(host, |(name, _)| name);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn cookie_of(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
}

/// Who acts, for the audit log: the address the request came from, and whom a proxy in front
/// forwarded it for.
fn who(peer: SocketAddr, headers: &HeaderMap) -> String {
    match headers
        .get("x-forwarded-for")
        .and_then(|value| value.to_str().ok())
    {
        Some(forwarded) => format!("{forwarded} through {peer}"),
        None => peer.to_string(),
    }
}

async fn page<B: Backend>(
    State(viewing): State<Arc<Viewing<B>>>,
    UrlPath(handle): UrlPath<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let token = query
        .as_deref()
        .and_then(|query| query_value(query, "token"));
    let held = match viewing.desktop(&handle, &headers) {
        Ok(held) => held,
        Err(refused) => return refused.into_response(),
    };
    match viewing.access(&held, &headers, token.as_deref()) {
        Err(refused) => refused.into_response(),
        Ok(Access::ByQuery) => {
            let secure = headers
                .get("x-forwarded-proto")
                .is_some_and(|proto| proto == "https");
            let cookie = format!(
                "{COOKIE}={}; Path=/desktops/{handle}/; HttpOnly; SameSite=Strict{}",
                held.view.secret,
                if secure { "; Secure" } else { "" }
            );
            let mut response = (StatusCode::SEE_OTHER, "").into_response();
            let headers = response.headers_mut();
            headers.insert(header::LOCATION, HeaderValue::from_static("view"));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            if let Ok(cookie) = HeaderValue::from_str(&cookie) {
                headers.insert(header::SET_COOKIE, cookie);
            }
            response
        }
        Ok(Access::Granted) => {
            let html = PAGE
                .replace("{{handle}}", &escape_html(&handle))
                .replace("{{password}}", &escape_html(&held.view.vnc_password));
            (
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    (header::CACHE_CONTROL, "no-store"),
                    (
                        header::CONTENT_SECURITY_POLICY,
                        "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
                    ),
                ],
                html,
            )
                .into_response()
        }
    }
}

/// The desktop's VNC server, started now if no viewer started it yet; where it listens.
async fn started_vnc(held: &Held) -> Result<Endpoint, String> {
    let mut vnc = held.view.vnc.lock().await;
    if let Some(running) = &*vnc {
        return Ok(running.endpoint());
    }
    let display = held.worker.display().await.ok_or_else(|| {
        "this desktop's process never said which display it runs on, so there is nothing to show; check the server's log".to_owned()
    })?;
    let running = Vnc::start(&display, &held.view.vnc_password).await?;
    let endpoint = running.endpoint();
    *vnc = Some(running);
    Ok(endpoint)
}

/// One viewer connected or connecting to a desktop's VNC server; the last to leave stops it.
/// It holds the desktop weakly: a viewer left open does not keep a desktop its agent ended.
struct Watching(Weak<Held>);

impl Watching {
    fn new(held: &Arc<Held>) -> Watching {
        held.view.viewers.fetch_add(1, Ordering::SeqCst);
        Watching(Arc::downgrade(held))
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let Some(held) = self.0.upgrade() else { return };
        if held.view.viewers.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let mut vnc = held.view.vnc.lock().await;
            // A viewer that came meanwhile keeps it.
            if held.view.viewers.load(Ordering::SeqCst) == 0 && vnc.take().is_some() {
                tracing::info!("live view's VNC server stopped: no viewer left");
            }
        });
    }
}

/// Checks the desktop and the access of a request under the desktop's path.
fn granted<B: Backend>(
    viewing: &Viewing<B>,
    handle: &str,
    headers: &HeaderMap,
) -> Result<Arc<Held>, Refusal> {
    let held = viewing.desktop(handle, headers)?;
    match viewing.access(&held, headers, None)? {
        Access::Granted | Access::ByQuery => Ok(held),
    }
}

/// [`granted`], for a button of the desktop's own page: a request from a page of another
/// origin is refused.
fn granted_to_its_page<B: Backend>(
    viewing: &Viewing<B>,
    handle: &str,
    headers: &HeaderMap,
) -> Result<Arc<Held>, Refusal> {
    let held = granted(viewing, handle, headers)?;
    Viewing::<B>::same_origin(headers)?;
    Ok(held)
}

async fn script<B: Backend>(
    State(viewing): State<Arc<Viewing<B>>>,
    UrlPath(handle): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = granted(&viewing, &handle, &headers) {
        return refused.into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        SCRIPT,
    )
        .into_response()
}

async fn state<B: Backend>(
    State(viewing): State<Arc<Viewing<B>>>,
    UrlPath(handle): UrlPath<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let viewer = viewer_in(query.as_deref()).ok();
    match granted(&viewing, &handle, &headers) {
        Ok(held) => json_reply(StatusCode::OK, held.view.state(viewer.as_deref())),
        Err(refused) => refused.into_response(),
    }
}

fn json_reply(status: StatusCode, body: serde_json::Value) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
        .into_response()
}

/// A file of noVNC's, from its `core` and `vendor` folders only.
async fn novnc<B: Backend>(
    State(viewing): State<Arc<Viewing<B>>>,
    UrlPath((handle, file)): UrlPath<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = granted(&viewing, &handle, &headers) {
        return refused.into_response();
    }
    let Some(path) = novnc_file(Path::new(NOVNC_DIR), &file) else {
        return page_of(
            StatusCode::NOT_FOUND,
            "Not found",
            "only noVNC's own scripts are served here",
        );
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
                (header::CACHE_CONTROL, "max-age=3600"),
            ],
            bytes,
        )
            .into_response(),
        Err(err) => page_of(
            StatusCode::NOT_FOUND,
            "Not found",
            &format!(
                "{} could not be read ({err}); install noVNC with apt-get install novnc",
                escape_html(&path.display().to_string())
            ),
        ),
    }
}

/// The file a request names under noVNC's folder: a script in `core` or `vendor`, with no
/// step out of it.
fn novnc_file(root: &Path, file: &str) -> Option<PathBuf> {
    let relative = Path::new(file);
    let plain = relative
        .components()
        .all(|part| matches!(part, Component::Normal(_)));
    let allowed = matches!(file.split('/').next(), Some("core" | "vendor"));
    (plain && allowed && file.ends_with(".js")).then(|| root.join(relative))
}

async fn websocket<B: Backend>(
    State(viewing): State<Arc<Viewing<B>>>,
    UrlPath(handle): UrlPath<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let held = match granted(&viewing, &handle, &headers) {
        Ok(held) => held,
        Err(refused) => return refused.into_response(),
    };
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(not_a_websocket) => return not_a_websocket.into_response(),
    };
    let viewer = match viewer_in(query.as_deref()) {
        Ok(viewer) => viewer,
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = Viewing::<B>::same_origin(&headers) {
        return refused.into_response();
    }
    // Counted before the start, so that the last viewer of before, leaving now, does not stop
    // the server this one is about to use.
    let watching = Watching::new(&held);
    let endpoint = match started_vnc(&held).await {
        Ok(endpoint) => endpoint,
        Err(why) => {
            return page_of(
                StatusCode::SERVICE_UNAVAILABLE,
                "The live view could not start",
                &escape_html(&why),
            );
        }
    };
    // The connection holds whose input goes in, and the desktop only weakly: once its agent
    // ends it, its VNC server stops and closes the connection.
    let input = Arc::clone(&held.view.input_for);
    drop(held);
    upgrade
        .protocols(["binary"])
        .on_upgrade(move |socket| async move {
            carry(socket, endpoint, input, viewer).await;
            drop(watching);
        })
}

async fn take_over<B: Backend>(
    State(viewing): State<Arc<Viewing<B>>>,
    UrlPath(handle): UrlPath<String>,
    RawQuery(query): RawQuery,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    let held = match granted_to_its_page(&viewing, &handle, &headers) {
        Ok(held) => held,
        Err(refused) => return refused.into_response(),
    };
    let viewer = match viewer_in(query.as_deref()) {
        Ok(viewer) => viewer,
        Err(refused) => return refused.into_response(),
    };
    let hold = {
        let mut current = held.view.hold();
        if current.is_none() {
            *current = Some(OperatorHold {
                by: who(peer, &headers),
                since: SystemTime::now(),
            });
            current.clone()
        } else {
            None
        }
    };
    let Some(hold) = hold else {
        return json_reply(StatusCode::OK, held.view.state(Some(&viewer)));
    };
    audit(&viewing.hub, &hold.audit_entry(&handle, None));
    tracing::info!(%handle, by = %hold.by, "an operator took the desktop over");
    // The agent's call under way finishes before the operator's input goes in, so that the two
    // never interleave on the desktop.
    let waiting = Instant::now();
    while held.view.calls.load(Ordering::SeqCst) > 0 && waiting.elapsed() < CALLS_GRACE {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if held.view.hold().as_ref() == Some(&hold) {
        set_input_for(&held.view.input_for, Some(viewer.clone()));
    }
    json_reply(StatusCode::OK, held.view.state(Some(&viewer)))
}

/// Any page may hand back, the holder's or another operator's (the holder may have closed
/// theirs).
async fn hand_back<B: Backend>(
    State(viewing): State<Arc<Viewing<B>>>,
    UrlPath(handle): UrlPath<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let held = match granted_to_its_page(&viewing, &handle, &headers) {
        Ok(held) => held,
        Err(refused) => return refused.into_response(),
    };
    set_input_for(&held.view.input_for, None);
    let released = held.view.hold().take();
    // The idle timeout counts from the hand-back, not from the agent's last call before it.
    let _ = viewing.hub.handles().get(&handle);
    if let Some(hold) = released {
        audit(
            &viewing.hub,
            &hold.audit_entry(&handle, Some(SystemTime::now())),
        );
        tracing::info!(%handle, by = %hold.by, "the operator handed the desktop back");
    }
    let viewer = viewer_in(query.as_deref()).ok();
    json_reply(StatusCode::OK, held.view.state(viewer.as_deref()))
}

/// Writes an operator's audit line; one that cannot be written is logged, as the operator's
/// page has no place for it.
fn audit<B: Backend>(hub: &Hub<B>, entry: &deskhand_core::audit::AuditEntry) {
    if let Err(why) = hub.config().audit.append(entry) {
        tracing::error!(%why, action = entry.action, "the audit log could not record an operator's handover");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_novncs_scripts_are_served() {
        let root = Path::new("/usr/share/novnc");
        assert_eq!(
            novnc_file(root, "core/rfb.js"),
            Some(root.join("core/rfb.js"))
        );
        assert_eq!(
            novnc_file(root, "vendor/pako/lib/zlib/inflate.js"),
            Some(root.join("vendor/pako/lib/zlib/inflate.js"))
        );
        assert_eq!(novnc_file(root, "core/../../../etc/passwd.js"), None);
        assert_eq!(novnc_file(root, "/etc/x.js"), None);
        assert_eq!(novnc_file(root, "app/ui.js"), None);
        assert_eq!(novnc_file(root, "core/rfb.html"), None);
    }

    #[test]
    fn the_view_cookie_and_the_host_name_are_read() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; deskhand_view=abc123; b=2"),
        );
        assert_eq!(cookie_of(&headers), Some("abc123"));
        assert_eq!(host_name("127.0.0.1:8765"), "127.0.0.1");
        assert_eq!(host_name("[::1]:8765"), "::1");
        assert_eq!(host_name("localhost"), "localhost");
        assert_eq!(
            query_value("x=1&token=a%2Bb%3D%3D", "token").as_deref(),
            Some("a+b==")
        );
        assert_eq!(query_value("x=1&tokens=2", "token"), None);
        assert_eq!(
            viewer_in(Some("viewer=0123456789abcdef")).unwrap(),
            "0123456789abcdef"
        );
        assert!(viewer_in(Some("viewer=../x")).is_err());
        assert!(viewer_in(None).is_err());
    }
}
