//! AT-SPI2 over D-Bus: applications, frames, trees and element actions.
//!
//! Calls go out many at once on one connection, each with a timeout, so one slow application
//! costs its own deadline and never the server's.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;
use zbus::zvariant::OwnedObjectPath;

use deskhand_core::model::{ElementHandle, Node, Rect};

use crate::translate;

mod apps;
mod cache;
mod calls;
mod cells;
mod element;
mod hit;
mod insert;
pub mod live;
pub mod record;
mod text;
mod walk;
use calls::Stall;
use cells::CellBlock;
pub use insert::Insertion;
use text::{EMBEDDED, Embedded};

const REGISTRY: &str = "org.a11y.atspi.Registry";
const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
const ACTION: &str = "org.a11y.atspi.Action";
const TEXT: &str = "org.a11y.atspi.Text";
pub const EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
pub const VALUE: &str = "org.a11y.atspi.Value";
const APPLICATION: &str = "org.a11y.atspi.Application";
const TABLE: &str = "org.a11y.atspi.Table";
const SELECTION: &str = "org.a11y.atspi.Selection";
const HYPERLINK: &str = "org.a11y.atspi.Hyperlink";
const COLLECTION: &str = "org.a11y.atspi.Collection";
const COORD_SCREEN: u32 = 0;

/// Why an AT-SPI request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AtspiError {
    #[error("the accessibility bus cannot be reached ({0}); run `deskhand doctor`")]
    NoBus(String),
    #[error("{what} did not answer within {ms} ms")]
    Timeout { what: String, ms: u128 },
    /// Not sent: the application left a request unanswered a moment ago and still does not
    /// answer a quick probe, so waiting another full timeout on it would only slow every call.
    #[error(
        "{what} was not sent: the application has not answered since a request to it timed out {secs} s ago"
    )]
    Stalled { what: String, secs: u64 },
    #[error("{what} failed: {source}")]
    Call {
        what: String,
        #[source]
        source: zbus::Error,
    },
}

impl AtspiError {
    /// Whether the application never answered: it timed out, or left the bus without replying.
    /// Other errors (an element that vanished, an interface it does not implement) are normal.
    pub fn unanswered(&self) -> bool {
        const GONE: [&str; 3] = [
            "org.freedesktop.DBus.Error.NoReply",
            "org.freedesktop.DBus.Error.ServiceUnknown",
            "org.freedesktop.DBus.Error.NameHasNoOwner",
        ];
        match self {
            AtspiError::Timeout { .. } | AtspiError::Stalled { .. } => true,
            AtspiError::Call {
                source: zbus::Error::MethodError(name, _, _),
                ..
            } => GONE.contains(&name.as_str()),
            AtspiError::Call {
                source: zbus::Error::FDO(err),
                ..
            } => matches!(
                **err,
                zbus::fdo::Error::NoReply(_)
                    | zbus::fdo::Error::ServiceUnknown(_)
                    | zbus::fdo::Error::NameHasNoOwner(_)
            ),
            _ => false,
        }
    }
}

/// One accessible object: the bus name of its application and its object path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectRef {
    pub bus: String,
    pub path: String,
}

impl ObjectRef {
    pub fn handle(&self) -> ElementHandle {
        ElementHandle(format!("{}|{}", self.bus, self.path))
    }

    pub fn from_handle(handle: &ElementHandle) -> Option<Self> {
        let (bus, path) = handle.address().split_once('|')?;
        Some(Self {
            bus: bus.into(),
            path: path.into(),
        })
    }
}

/// An application's root object as the registry lists it.
#[derive(Debug, Clone)]
pub struct Application {
    pub root: ObjectRef,
    pub pid: Option<u32>,
    pub name: String,
    pub toolkit: String,
    pub toolkit_version: String,
    /// False when the application did not answer within the call timeout: it is registered but
    /// hung or busy, and its name and toolkit are unknown.
    pub answering: bool,
}

/// A top-level accessible object of an application: a frame, window or dialog.
#[derive(Debug, Clone)]
pub struct Frame {
    pub object: ObjectRef,
    pub name: String,
    pub extents: Option<Rect>,
    pub active: bool,
    /// Mapped on the screen: an application keeps hidden windows (a closed dialog) as frames.
    pub showing: bool,
}

/// Limits for one tree read.
#[derive(Debug, Clone, Copy)]
pub struct WalkLimits {
    pub max_nodes: usize,
    pub deadline: Duration,
}

/// How to read one application's tree.
#[derive(Debug, Clone, Copy)]
pub struct WalkStyle {
    /// Added to every extent: moves window-relative extents (GTK4) to the screen.
    pub offset: (i32, i32),
    /// Screen pixels per toolkit pixel, applied before the offset: an X11 app that scales
    /// itself counts in its own logical pixels.
    pub scale: f64,
    /// Whether the toolkit marks on-screen elements Showing (GTK 4.8 marks only its toplevel).
    pub showing_reliable: bool,
    /// Take what the application's `Cache.GetItems` already knows (one call for the whole app)
    /// and ask each element only for what the cache lacks. Off: ask every element everything.
    pub use_cache: bool,
}

impl Default for WalkLimits {
    fn default() -> Self {
        Self {
            max_nodes: 5_000,
            deadline: Duration::from_secs(5),
        }
    }
}

/// A tree read, with why it is incomplete when it is.
pub struct Walked {
    pub root: Node,
    pub partial: Option<String>,
    /// The elements read that are hyperlinks: their words stand in their parent's text.
    pub links: HashSet<ObjectRef>,
}

/// Where calls go: the accessibility bus, written down as they go when asked, or a recording.
enum Link {
    Bus {
        conn: zbus::Connection,
        recorder: Option<record::Recorder>,
    },
    Replay(Arc<record::Replay>),
}

pub struct Atspi {
    link: Link,
    call_timeout: Duration,
    in_flight: Arc<Semaphore>,
    /// D-Bus calls made so far: the cost figure the benchmark reports.
    calls: AtomicUsize,
    /// Bus name → (pid, name, toolkit, version): stable for the life of a connection.
    apps: std::sync::Mutex<HashMap<String, Application>>,
    /// Once the first tree read has made sure someone listens for changes: when this
    /// connection registered itself, or `None` when another client already listened.
    listening_since: tokio::sync::OnceCell<Option<std::time::Instant>>,
    /// Applications (by bus name) that left a request unanswered, until one answers again.
    stalls: std::sync::Mutex<HashMap<String, Stall>>,
    /// The cells last read of each table that creates them on demand, by table.
    cell_blocks: std::sync::Mutex<HashMap<ObjectRef, CellBlock>>,
}

/// Calls kept in flight at once: enough to hide the round trip, few enough not to flood an app.
const MAX_IN_FLIGHT: usize = 64;

impl Atspi {
    pub async fn connect(call_timeout: Duration) -> Result<Self, AtspiError> {
        let address = match std::env::var("AT_SPI_BUS_ADDRESS") {
            Ok(address) if !address.is_empty() => address,
            _ => bus_address(call_timeout).await?,
        };
        let conn = tokio::time::timeout(call_timeout * 2, async {
            zbus::connection::Builder::address(address.as_str())?
                .method_timeout(call_timeout)
                .build()
                .await
        })
        .await
        .map_err(|_| AtspiError::NoBus(format!("connecting to {address} timed out")))?
        .map_err(|err| AtspiError::NoBus(format!("connecting to {address}: {err}")))?;
        // A recording that cannot be opened is left out: deskhand works the same without it.
        let recorder = std::env::var_os(record::RECORD_ENV)
            .filter(|path| !path.is_empty())
            .and_then(|path| record::Recorder::create(std::path::Path::new(&path)).ok());
        Ok(Self::over(Link::Bus { conn, recorder }, call_timeout))
    }

    /// A connection that answers from a recording instead of a bus (see [`record`]).
    pub fn replaying(replay: Arc<record::Replay>, call_timeout: Duration) -> Self {
        Self::over(Link::Replay(replay), call_timeout)
    }

    fn over(link: Link, call_timeout: Duration) -> Self {
        Self {
            link,
            call_timeout,
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
            calls: AtomicUsize::new(0),
            apps: std::sync::Mutex::new(HashMap::new()),
            listening_since: tokio::sync::OnceCell::new(),
            stalls: std::sync::Mutex::new(HashMap::new()),
            cell_blocks: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// How many D-Bus calls this connection has made.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    /// How long ago this connection registered as a listener, if it has.
    pub fn listening_for(&self) -> Option<std::time::Duration> {
        self.listening_since
            .get()
            .copied()
            .flatten()
            .map(|since| since.elapsed())
    }

    /// GTK3 and Chromium keep `Cache.GetItems` filled only while some client listens for
    /// changes. No match rule is added, so no event is ever delivered to this connection.
    /// Registered on the first tree read, not on connecting: Chromium (156, Debian 12) crashes
    /// when a key event reaches it just as a listener registers, and a CLI call that only sends
    /// input would otherwise register right before its keys.
    pub async fn listen_for_changes(&self) {
        self.listening_since
            .get_or_init(|| async { self.register_listener().await.then(std::time::Instant::now) })
            .await;
    }

    /// Asks the registry to have applications send `event`; a registry of the newer kind takes
    /// the properties to cache and an application filter too.
    async fn register_event(&self, event: &str) {
        let registry = ObjectRef {
            bus: REGISTRY.into(),
            path: "/org/a11y/atspi/registry".into(),
        };
        let registered: Result<(), _> = self
            .call(
                &registry,
                "org.a11y.atspi.Registry",
                "RegisterEvent",
                &(event,),
            )
            .await;
        if registered.is_err() {
            let _: Result<(), _> = self
                .call(
                    &registry,
                    "org.a11y.atspi.Registry",
                    "RegisterEvent",
                    &(event, Vec::<String>::new(), ""),
                )
                .await;
        }
    }

    /// Whether this connection registered (`false` when another client listens already).
    async fn register_listener(&self) -> bool {
        let registry = ObjectRef {
            bus: REGISTRY.into(),
            path: "/org/a11y/atspi/registry".into(),
        };
        let event = "object:children-changed";
        // Another client listening already keeps the caches filled; adding ourselves would only
        // churn the listeners every short-lived CLI call.
        let listeners: Result<Vec<(String, String)>, _> = self
            .call(
                &registry,
                "org.a11y.atspi.Registry",
                "GetRegisteredEvents",
                &(),
            )
            .await;
        let own = match &self.link {
            Link::Bus { conn, .. } => conn.unique_name().map(|name| name.to_string()),
            Link::Replay(_) => None,
        };
        if listeners.is_ok_and(|listeners| {
            listeners.iter().any(|(bus, registered)| {
                Some(bus) != own.as_ref() && event.starts_with(registered.as_str())
            })
        }) {
            return false;
        }
        self.register_event(event).await;
        true
    }
}

/// The element an object reference names, if any: an application reports a defunct or missing
/// one as a null path.
fn element((bus, path): (String, OwnedObjectPath)) -> Option<ObjectRef> {
    (path.as_str() != "/org/a11y/atspi/null" && !bus.is_empty()).then(|| ObjectRef {
        bus,
        path: path.as_str().to_owned(),
    })
}

/// An object reference an application gave about its own elements: some toolkits leave the bus
/// name out, meaning their own.
fn element_of((bus, path): (String, OwnedObjectPath), own_bus: &str) -> Option<ObjectRef> {
    let bus = if bus.is_empty() {
        own_bus.to_owned()
    } else {
        bus
    };
    element((bus, path))
}

/// The elements among object references an application gave.
fn elements(references: Vec<(String, OwnedObjectPath)>) -> Vec<ObjectRef> {
    references.into_iter().filter_map(element).collect()
}

/// The reading, if one was asked for and answered; an unanswered one is the error.
fn answered<T>(reading: Option<Result<T, AtspiError>>) -> Result<Option<T>, AtspiError> {
    match reading {
        Some(Err(err)) if err.unanswered() => Err(err),
        reading => Ok(reading.and_then(Result::ok)),
    }
}

/// A slider's value as a person would write it: no trailing ".0".
pub fn format_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Asks the session bus where the accessibility bus is.
async fn bus_address(timeout: Duration) -> Result<String, AtspiError> {
    let lookup = async { bus_address_on(&zbus::Connection::session().await?).await };
    match tokio::time::timeout(timeout * 2, lookup).await {
        Ok(Ok(address)) => Ok(address),
        Ok(Err(err)) => Err(AtspiError::NoBus(err.to_string())),
        Err(_) => Err(AtspiError::NoBus("the session bus did not answer".into())),
    }
}

/// Asks `session` where the accessibility bus is (`org.a11y.Bus.GetAddress`).
pub(crate) async fn bus_address_on(session: &zbus::Connection) -> zbus::Result<String> {
    session
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.a11y.Bus"),
            "GetAddress",
            &(),
        )
        .await?
        .body()
        .deserialize()
}

/// Takes every extent out of a tree whose window's place is unknown: extents there count from
/// the window's corner, and a point made of them would name the wrong pixel of the screen.
pub fn without_extents(node: &mut Node) {
    node.bounds = None;
    for child in &mut node.children {
        without_extents(child);
    }
}

#[cfg(test)]
mod tests;
