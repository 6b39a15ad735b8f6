//! AT-SPI2 over D-Bus: applications, frames, trees and element actions.
//!
//! Calls go out many at once on one connection, each with a timeout, so one slow application
//! costs its own deadline and never the server's.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::future::{BoxFuture, FutureExt, join_all};
use serde::de::DeserializeOwned;
use tokio::sync::Semaphore;
use zbus::zvariant::{DynamicType, OwnedObjectPath, OwnedValue, Type};

use deskhand_core::backend::Hit;
use deskhand_core::model::{ElementHandle, Node, Rect, Role};

use crate::translate;

mod text;
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
    #[error(
        "the accessibility bus cannot be reached ({0}); start the desktop with `eval \"$(deskhand desktop start)\"` or make sure at-spi2-core is running"
    )]
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
        let (bus, path) = handle.0.split_once('|')?;
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
    /// Whether the toolkit marks on-screen elements Showing (GTK 4.8 marks only its toplevel).
    pub showing_reliable: bool,
    /// Take what the application's `Cache.GetItems` already knows (one call for the whole app)
    /// and ask each element only for what the cache lacks. Off: ask every element everything.
    pub use_cache: bool,
}

/// Which readings make an element's value in an observation: its text where a person edits it
/// (or a text or combo box shows it), else its number. A password field is never read.
#[derive(Debug, Clone, Copy)]
struct ValueReads {
    text: bool,
    number: bool,
}

impl ValueReads {
    const NONE: Self = Self {
        text: false,
        number: false,
    };

    fn of(role: Role, editable: bool, unnamed: bool, interfaces: &[String]) -> Self {
        let has = |suffix: &str| interfaces.iter().any(|i| i.ends_with(suffix));
        let readable = role != Role::Password;
        Self {
            text: readable
                && has(".Text")
                && (editable
                    || matches!(role, Role::Text | Role::Terminal | Role::Combobox)
                    || text::bears_text(role, unnamed)),
            // LibreOffice gives every toolbar button and menu a Value of 0, which says nothing.
            number: readable
                && has(".Value")
                && matches!(
                    role,
                    Role::Slider | Role::Spin | Role::Scrollbar | Role::Progress
                ),
        }
    }
}

/// What an application's accessibility cache says about one object.
struct Cached {
    role: u32,
    states: Vec<u32>,
    interfaces: Vec<String>,
    name: String,
    child_count: i32,
}

/// One `Cache.GetItems` answer, indexed for the walk.
#[derive(Default)]
struct Snapshot {
    items: HashMap<ObjectRef, Cached>,
    children: HashMap<ObjectRef, Vec<(i32, ObjectRef)>>,
}

impl Snapshot {
    /// The children the cache knows, when it knows all of them in order; the cache of a toolkit
    /// that creates accessibles lazily misses the ones nobody asked for yet, and some
    /// containers (GTK3's scrolled window) report indexes that disagree with their child order,
    /// so the order is trusted only when the indexes are exactly 0..n.
    fn children_of(&self, parent: &ObjectRef) -> Option<Vec<ObjectRef>> {
        let expected = usize::try_from(self.items.get(parent)?.child_count).ok()?;
        let known = self
            .children
            .get(parent)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let in_order = known
            .iter()
            .enumerate()
            .all(|(position, (index, _))| usize::try_from(*index) == Ok(position));
        (known.len() == expected && in_order)
            .then(|| known.iter().map(|(_, child)| child.clone()).collect())
    }
}

type CacheRow = (
    (String, OwnedObjectPath),
    (String, OwnedObjectPath),
    (String, OwnedObjectPath),
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

impl Default for WalkLimits {
    fn default() -> Self {
        Self {
            max_nodes: 5_000,
            deadline: Duration::from_secs(5),
        }
    }
}

/// The cells of a table on screen, and how many cells the table has.
pub struct VisibleCells {
    /// The headers of the visible columns, where the table has them (a tree view's).
    pub headers: Vec<ObjectRef>,
    pub cells: Vec<VisibleCell>,
    pub total: i64,
}

/// A cell on screen, with its name where the table names its cells by their address.
#[derive(Debug, Clone)]
pub struct VisibleCell {
    pub object: ObjectRef,
    /// Known without asking: a spreadsheet's cell is named by its address ("B7").
    pub name: Option<String>,
}

/// A tree read, with why it is incomplete when it is.
pub struct Walked {
    pub root: Node,
    pub partial: Option<String>,
}

pub struct Atspi {
    conn: zbus::Connection,
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

/// The visible block of a table's cells as last read. LibreOffice creates a new object, and
/// keeps its memory, at each `GetAccessibleAt` even for the same cell, so an unchanged block
/// is read again through the objects it gave before, which stay valid for some 15 s.
struct CellBlock {
    top: i32,
    left: i32,
    height: usize,
    width: usize,
    headers: Vec<ObjectRef>,
    cells: Vec<VisibleCell>,
    read: Instant,
}

/// A tree view's cell of several renderers holds a cell for each: the empty ones (an icon) are
/// dropped, and a lone named one gives the cell its name, so the row's "Process Name" cell reads
/// as the name it shows.
fn merge_nested_cells(cell: &mut Node) {
    let empty = |n: &Node| {
        n.role == Role::Cell
            && n.children.is_empty()
            && n.name.trim().is_empty()
            && n.value.as_deref().is_none_or(|v| v.trim().is_empty())
    };
    if cell.role != Role::Cell || cell.children.is_empty() {
        return;
    }
    cell.children.retain(|child| !empty(child));
    if let [only] = cell.children.as_slice()
        && only.role == Role::Cell
        && only.children.is_empty()
        && cell.name.trim().is_empty()
        && cell.value.is_none()
    {
        cell.name = only.name.clone();
        cell.value = only.value.clone();
        cell.children.clear();
    }
}

/// The most cells one table cell holds that are read: a tree view's cell holds one for each of
/// its column's renderers.
const MAX_NESTED_CELLS: i64 = 8;

/// How long the cell objects of a block are reused.
const CELL_BLOCK_REUSE: Duration = Duration::from_secs(8);

/// An application that let a request time out.
#[derive(Debug, Clone, Copy)]
struct Stall {
    since: Instant,
    /// When it was last probed; calls in between fail at once.
    probed: Instant,
}

/// How often a stalled application is probed again; calls to it in between fail at once.
const STALL_PROBE_EVERY: Duration = Duration::from_millis(1000);
/// A probe of a stalled application: a live app answers a state read well within this.
const STALL_PROBE_TIMEOUT: Duration = Duration::from_millis(300);

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
        let atspi = Self {
            conn,
            call_timeout,
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
            calls: AtomicUsize::new(0),
            apps: std::sync::Mutex::new(HashMap::new()),
            listening_since: tokio::sync::OnceCell::new(),
            stalls: std::sync::Mutex::new(HashMap::new()),
            cell_blocks: std::sync::Mutex::new(HashMap::new()),
        };
        Ok(atspi)
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
        let own = self.conn.unique_name().map(|name| name.to_string());
        if listeners.is_ok_and(|listeners| {
            listeners.iter().any(|(bus, registered)| {
                Some(bus) != own.as_ref() && event.starts_with(registered.as_str())
            })
        }) {
            return false;
        }
        let registered: Result<(), _> = self
            .call(
                &registry,
                "org.a11y.atspi.Registry",
                "RegisterEvent",
                &(event,),
            )
            .await;
        if registered.is_err() {
            // Newer registries take the properties to cache and an application filter too.
            let _: Result<(), _> = self
                .call(
                    &registry,
                    "org.a11y.atspi.Registry",
                    "RegisterEvent",
                    &(event, Vec::<String>::new(), ""),
                )
                .await;
        }
        true
    }

    async fn call<B, R>(
        &self,
        object: &ObjectRef,
        interface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, AtspiError>
    where
        B: serde::Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        if let Some(secs) = self.still_stalled(&object.bus).await {
            return Err(AtspiError::Stalled {
                what: format!("{interface}.{method} on {}{}", object.bus, object.path),
                secs,
            });
        }
        let result = self
            .send(object, interface, method, body, self.call_timeout)
            .await;
        if matches!(result, Err(AtspiError::Timeout { .. })) {
            let now = Instant::now();
            self.stalls
                .lock()
                .expect("not poisoned")
                .entry(object.bus.clone())
                .or_insert(Stall {
                    since: now,
                    probed: now,
                });
        }
        result
    }

    /// Seconds since the application stopped answering, if it did and a probe (at most one a
    /// second) finds it still silent; `None` lets the call go out.
    async fn still_stalled(&self, bus: &str) -> Option<u64> {
        let stall = {
            let mut stalls = self.stalls.lock().expect("not poisoned");
            let stall = stalls.get_mut(bus)?;
            if stall.probed.elapsed() < STALL_PROBE_EVERY {
                return Some(stall.since.elapsed().as_secs());
            }
            stall.probed = Instant::now();
            *stall
        };
        let root = ObjectRef {
            bus: bus.to_owned(),
            path: ROOT_PATH.into(),
        };
        let probe: Result<Vec<u32>, _> = self
            .send(&root, ACCESSIBLE, "GetState", &(), STALL_PROBE_TIMEOUT)
            .await;
        if probe.is_ok() {
            self.stalls.lock().expect("not poisoned").remove(bus);
            None
        } else {
            Some(stall.since.elapsed().as_secs())
        }
    }

    async fn send<B, R>(
        &self,
        object: &ObjectRef,
        interface: &str,
        method: &str,
        body: &B,
        timeout: Duration,
    ) -> Result<R, AtspiError>
    where
        B: serde::Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        let what = || format!("{interface}.{method} on {}{}", object.bus, object.path);
        let _permit = self.in_flight.acquire().await.expect("never closed");
        self.calls.fetch_add(1, Ordering::Relaxed);
        let reply = tokio::time::timeout(
            timeout,
            self.conn.call_method(
                Some(object.bus.as_str()),
                object.path.as_str(),
                Some(interface),
                method,
                body,
            ),
        )
        .await
        .map_err(|_| AtspiError::Timeout {
            what: what(),
            ms: timeout.as_millis(),
        })?
        .map_err(|source| match &source {
            // The connection's own method timeout (the same length) usually fires first.
            zbus::Error::InputOutput(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                AtspiError::Timeout {
                    what: what(),
                    ms: timeout.as_millis(),
                }
            }
            // The bus itself went away: no call on this connection can work any more.
            zbus::Error::InputOutput(io)
                if matches!(
                    io.kind(),
                    std::io::ErrorKind::BrokenPipe
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::NotConnected
                        | std::io::ErrorKind::UnexpectedEof
                ) =>
            {
                AtspiError::NoBus(format!("the connection was lost: {io}"))
            }
            _ => AtspiError::Call {
                what: what(),
                source,
            },
        })?;
        reply
            .body()
            .deserialize::<R>()
            .map_err(|source| AtspiError::Call {
                what: what(),
                source,
            })
    }

    async fn property(
        &self,
        object: &ObjectRef,
        interface: &str,
        name: &str,
    ) -> Result<OwnedValue, AtspiError> {
        self.call(
            object,
            "org.freedesktop.DBus.Properties",
            "Get",
            &(interface, name),
        )
        .await
    }

    async fn string_property(
        &self,
        object: &ObjectRef,
        interface: &str,
        name: &str,
    ) -> Result<String, AtspiError> {
        let value = self.property(object, interface, name).await?;
        Ok(String::try_from(value).unwrap_or_default())
    }

    async fn children(&self, object: &ObjectRef) -> Result<Vec<ObjectRef>, AtspiError> {
        let children: Vec<(String, OwnedObjectPath)> =
            self.call(object, ACCESSIBLE, "GetChildren", &()).await?;
        Ok(elements(children))
    }

    /// Every application registered on the bus, with its process id.
    pub async fn applications(&self) -> Result<Vec<Application>, AtspiError> {
        self.applications_of(None).await
    }

    /// The applications registered on the bus, only those of process `pid` when given: the
    /// others are not asked anything, so a hung application never slows a call about another.
    pub async fn applications_of(&self, pid: Option<u32>) -> Result<Vec<Application>, AtspiError> {
        let registry = ObjectRef {
            bus: REGISTRY.into(),
            path: ROOT_PATH.into(),
        };
        let roots = self.children(&registry).await?;
        let known: HashMap<String, Application> = self.apps.lock().expect("not poisoned").clone();
        let lookups = roots.into_iter().map(|root| {
            let cached = known.get(&root.bus).cloned();
            async move {
                if let Some(app) = cached {
                    return pid.is_none_or(|pid| app.pid == Some(pid)).then_some(app);
                }
                let dbus = ObjectRef {
                    bus: "org.freedesktop.DBus".into(),
                    path: "/org/freedesktop/DBus".into(),
                };
                let bus_name = (root.bus.clone(),);
                // The bus daemon answers for the process; only then is the application asked.
                let found: Result<u32, _> = self
                    .call(
                        &dbus,
                        "org.freedesktop.DBus",
                        "GetConnectionUnixProcessID",
                        &bus_name,
                    )
                    .await;
                // Without a process the connection is gone since the registry listed it.
                let found = found.ok()?;
                if pid.is_some_and(|pid| pid != found) {
                    return None;
                }
                let pid = found;
                let (name, toolkit, version) = futures::join!(
                    self.string_property(&root, ACCESSIBLE, "Name"),
                    self.string_property(&root, APPLICATION, "ToolkitName"),
                    self.string_property(&root, APPLICATION, "Version"),
                );
                let (name, answering) = match name {
                    Ok(name) => (name, true),
                    // Hung or busy: listed, so a caller can say so instead of "not registered".
                    Err(err) if err.unanswered() => (String::new(), false),
                    // A root that refuses its name is still the process's application: its
                    // windows are matched by their frames, not by this name.
                    Err(_) => (String::new(), true),
                };
                Some(Application {
                    root,
                    pid: Some(pid),
                    name,
                    toolkit: toolkit.unwrap_or_default(),
                    toolkit_version: version.unwrap_or_default(),
                    answering,
                })
            }
        });
        let apps: Vec<Application> = join_all(lookups).await.into_iter().flatten().collect();
        let mut cache = self.apps.lock().expect("not poisoned");
        if pid.is_none() {
            cache.clear();
        }
        // A hung application is asked again next time.
        for app in apps.iter().filter(|app| app.answering) {
            cache.insert(app.root.bus.clone(), app.clone());
        }
        Ok(apps)
    }

    /// The top-level objects of an application, with their names and extents.
    pub async fn frames(&self, app: &Application) -> Result<Vec<Frame>, AtspiError> {
        let children = self.children(&app.root).await?;
        let frames = children.into_iter().map(|object| async move {
            let (name, extents, state) = futures::join!(
                self.string_property(&object, ACCESSIBLE, "Name"),
                self.extents(&object),
                self.call::<_, Vec<u32>>(&object, ACCESSIBLE, "GetState", &()),
            );
            // An application that stops answering here cannot be matched to its windows: say
            // so, rather than that it has no such frame.
            let name = match name {
                Ok(name) => name,
                Err(err) if err.unanswered() => return Err(err),
                // Gone since the application listed it.
                Err(_) => return Ok(None),
            };
            let extents = match extents {
                Ok(extents) => extents,
                Err(err) if err.unanswered() => return Err(err),
                Err(_) => None,
            };
            let states = match state {
                Ok(words) => translate::state_set(&words),
                Err(err) if err.unanswered() => return Err(err),
                Err(_) => atspi::StateSet::empty(),
            };
            Ok(Some(Frame {
                object,
                name,
                extents,
                active: states.contains(atspi::State::Active),
                showing: states.contains(atspi::State::Showing),
            }))
        });
        join_all(frames)
            .await
            .into_iter()
            .filter_map(Result::transpose)
            .collect()
    }

    /// The element's extents in the coordinates its toolkit reports for the screen.
    pub async fn extents(&self, object: &ObjectRef) -> Result<Option<Rect>, AtspiError> {
        let (x, y, w, h): (i32, i32, i32, i32) = self
            .call(object, COMPONENT, "GetExtents", &(COORD_SCREEN,))
            .await?;
        Ok((w > 0 && h > 0).then(|| Rect::new(x, y, w as u32, h as u32)))
    }

    /// The actions' programmatic names ("click", "press"), which do not change with the UI
    /// language; `GetActions` gives translated names ("Klicken") and Chromium leaves them empty.
    pub async fn action_names(&self, object: &ObjectRef) -> Result<Vec<String>, AtspiError> {
        let count = i32::try_from(self.property(object, ACTION, "NActions").await?).unwrap_or(0);
        let names = (0..count.clamp(0, 32))
            .map(|index| async move { self.call(object, ACTION, "GetName", &(index,)).await });
        join_all(names).await.into_iter().collect()
    }

    /// All actions in one call, as the element lists them for people: translated, and empty in
    /// Chromium. Enough to know an element can be acted on; not to choose which action to run.
    pub async fn listed_actions(&self, object: &ObjectRef) -> Result<Vec<String>, AtspiError> {
        let actions: Vec<(String, String, String)> =
            self.call(object, ACTION, "GetActions", &()).await?;
        Ok(actions.into_iter().map(|(name, _, _)| name).collect())
    }

    /// Runs the action at `index`; false when the element refused it.
    pub async fn do_action(&self, object: &ObjectRef, index: usize) -> Result<bool, AtspiError> {
        let index = i32::try_from(index).unwrap_or(i32::MAX);
        self.call(object, ACTION, "DoAction", &(index,)).await
    }

    /// All of an element's text. GTK4 answers an end offset of -1 with nothing, so an empty
    /// answer is asked again with the real length.
    pub async fn text(&self, object: &ObjectRef) -> Result<String, AtspiError> {
        let text: String = self.call(object, TEXT, "GetText", &(0i32, -1i32)).await?;
        if !text.is_empty() {
            return Ok(text);
        }
        let count = self.property(object, TEXT, "CharacterCount").await?;
        match i32::try_from(count) {
            Ok(count) if count > 0 => self.call(object, TEXT, "GetText", &(0i32, count)).await,
            _ => Ok(text),
        }
    }

    /// A `Value` property (`CurrentValue`, `MinimumValue`, `MaximumValue`); `None` when it is not
    /// a number.
    pub async fn number(&self, object: &ObjectRef, name: &str) -> Result<Option<f64>, AtspiError> {
        Ok(f64::try_from(self.property(object, VALUE, name).await?).ok())
    }

    /// The value an observation shows: the text where it is wanted, else the number. Only a
    /// read the application left unanswered is an error (a walk counts it); a reading that
    /// failed otherwise (an interface the element lacks) is just absent.
    async fn value(
        &self,
        object: &ObjectRef,
        reads: ValueReads,
    ) -> Result<Option<String>, AtspiError> {
        let (text, number) = futures::join!(
            async {
                if reads.text {
                    Some(self.text(object).await)
                } else {
                    None
                }
            },
            async {
                if reads.number {
                    Some(self.number(object, "CurrentValue").await)
                } else {
                    None
                }
            },
        );
        let text = answered(text)?;
        let number = answered(number)?.flatten();
        Ok(text.or_else(|| number.map(format_number)))
    }

    /// The element's value read now, exactly as the tree walk reads it.
    pub async fn element_value(&self, object: &ObjectRef) -> Result<Option<String>, AtspiError> {
        let (role, state, interfaces, name) = futures::join!(
            self.call::<_, u32>(object, ACCESSIBLE, "GetRole", &()),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
            self.interfaces(object),
            self.string_property(object, ACCESSIBLE, "Name"),
        );
        let role = translate::role(role?);
        // Whether Showing is reliable only changes visibility, which does not decide the value.
        let states = translate::states(translate::state_set(&state?), role, true);
        let name = name.unwrap_or_default();
        let reads = ValueReads::of(role, states.editable, name.trim().is_empty(), &interfaces?);
        let raw = self.value(object, reads).await?;
        let embedded = match &raw {
            Some(raw) if raw.contains(EMBEDDED) => self.embedded_children(object).await,
            _ => Vec::new(),
        };
        let embedded: Vec<Embedded<'_>> = embedded
            .iter()
            .map(|(role, editable, words)| Embedded::of(*role, *editable, words.as_deref()))
            .collect();
        let value = raw.and_then(|raw| finish_value(raw, role, states.editable, &embedded, &name));
        match value {
            None if role == Role::Combobox => {
                Ok(chosen_unless_name(self.chosen_option(object).await?, &name))
            }
            value => Ok(value),
        }
    }

    /// All the text the element shows: its value as [`Atspi::element_value`] reads it, else its
    /// name (a label's whole text).
    pub async fn element_text(&self, object: &ObjectRef) -> Result<String, AtspiError> {
        match self.element_value(object).await? {
            Some(value) => Ok(value),
            None => self.string_property(object, ACCESSIBLE, "Name").await,
        }
    }

    /// The role, whether it is edited text, and words (name, else text) of each child embedded
    /// in the element's text, in the order their U+FFFC stand.
    async fn embedded_children(&self, object: &ObjectRef) -> Vec<(Role, bool, Option<String>)> {
        let children = self.children(object).await.unwrap_or_default();
        let reads = children.iter().map(|child| async move {
            let (role, interfaces, name) = futures::join!(
                self.call::<_, u32>(child, ACCESSIBLE, "GetRole", &()),
                self.interfaces(child),
                self.string_property(child, ACCESSIBLE, "Name"),
            );
            let interfaces = interfaces.ok()?;
            if !interfaces.iter().any(|i| i == HYPERLINK) {
                return None;
            }
            let name = name.unwrap_or_default();
            let words = if name.trim().is_empty() {
                self.text(child).await.ok()
            } else {
                Some(name)
            };
            let editable = interfaces.iter().any(|i| i == EDITABLE_TEXT);
            Some((translate::role(role.ok()?), editable, words))
        });
        join_all(reads).await.into_iter().flatten().collect()
    }

    /// The option a closed drop-down shows (Chromium's `<select>` gives its text only as an
    /// embedded object): the selected child of its list.
    async fn chosen_option(&self, combobox: &ObjectRef) -> Result<Option<String>, AtspiError> {
        for list in self.children(combobox).await? {
            let chosen: Result<(String, OwnedObjectPath), _> = self
                .call(&list, SELECTION, "GetSelectedChild", &(0i32,))
                .await;
            let Some(option) = chosen.ok().and_then(element) else {
                continue;
            };
            let name = self.string_property(&option, ACCESSIBLE, "Name").await?;
            if !name.trim().is_empty() {
                return Ok(Some(name));
            }
        }
        Ok(None)
    }

    /// Whether the element is enabled, as an observation says it.
    pub async fn enabled(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        let words: Vec<u32> = self.call(object, ACCESSIBLE, "GetState", &()).await?;
        // Role and Showing decide other states, not this one.
        Ok(translate::states(translate::state_set(&words), Role::Unknown, true).enabled)
    }

    pub async fn interfaces(&self, object: &ObjectRef) -> Result<Vec<String>, AtspiError> {
        self.call(object, ACCESSIBLE, "GetInterfaces", &()).await
    }

    /// Replaces all of an editable text; false when the element refused.
    pub async fn set_text_contents(
        &self,
        object: &ObjectRef,
        text: &str,
    ) -> Result<bool, AtspiError> {
        self.call(object, EDITABLE_TEXT, "SetTextContents", &(text,))
            .await
    }

    /// The element's whole text, its caret and its first selection (character offsets), where
    /// the toolkit keeps them.
    pub async fn text_state(
        &self,
        object: &ObjectRef,
    ) -> Result<(String, Option<i32>, Option<(i32, i32)>), AtspiError> {
        let (text, caret, selections) = futures::join!(
            self.text(object),
            self.property(object, TEXT, "CaretOffset"),
            self.call::<_, i32>(object, TEXT, "GetNSelections", &()),
        );
        let caret = caret.ok().and_then(|c| i32::try_from(c).ok());
        let selection = match selections {
            Ok(n) if n > 0 => self
                .call::<_, (i32, i32)>(object, TEXT, "GetSelection", &(0i32,))
                .await
                .ok(),
            _ => None,
        };
        Ok((text?, caret, selection))
    }

    /// Selects all of the element's text; false when the toolkit refused. A toolkit that keeps
    /// no selection yet may refuse to change selection 0 and take a new one instead.
    pub async fn select_all_text(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        let count =
            i32::try_from(self.property(object, TEXT, "CharacterCount").await?).unwrap_or(0);
        if count == 0 {
            return Ok(true);
        }
        if self
            .call(object, TEXT, "SetSelection", &(0i32, 0i32, count))
            .await?
        {
            return Ok(true);
        }
        self.call(object, TEXT, "AddSelection", &(0i32, count))
            .await
    }

    pub async fn set_current_value(
        &self,
        object: &ObjectRef,
        value: f64,
    ) -> Result<(), AtspiError> {
        self.call(
            object,
            "org.freedesktop.DBus.Properties",
            "Set",
            &(VALUE, "CurrentValue", zbus::zvariant::Value::F64(value)),
        )
        .await
    }

    /// Everything the application's own cache holds, or an empty snapshot when it has none.
    async fn snapshot(&self, bus: &str) -> Snapshot {
        let cache = ObjectRef {
            bus: bus.to_owned(),
            path: "/org/a11y/atspi/cache".into(),
        };
        let Ok(rows) = self
            .call::<_, Vec<CacheRow>>(&cache, "org.a11y.atspi.Cache", "GetItems", &())
            .await
        else {
            return Snapshot::default();
        };
        let mut snapshot = Snapshot::default();
        let to_ref = |(bus, path): (String, OwnedObjectPath)| ObjectRef {
            bus,
            path: path.as_str().to_owned(),
        };
        for (object, _app, parent, index, child_count, interfaces, name, role, _, states) in rows {
            let object = to_ref(object);
            snapshot
                .children
                .entry(to_ref(parent))
                .or_default()
                .push((index, object.clone()));
            snapshot.items.insert(
                object,
                Cached {
                    role,
                    states,
                    interfaces,
                    name,
                    child_count,
                },
            );
        }
        for children in snapshot.children.values_mut() {
            children.sort_by_key(|(index, _)| *index);
        }
        snapshot
    }

    pub async fn grab_focus(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        self.call(object, COMPONENT, "GrabFocus", &()).await
    }

    /// Whether the application behind `bus` answers a state read within `timeout`; a probe that
    /// neither waits a full call timeout nor marks the application stalled.
    pub async fn answers(&self, bus: &str, timeout: Duration) -> bool {
        let root = ObjectRef {
            bus: bus.to_owned(),
            path: ROOT_PATH.into(),
        };
        self.send::<_, Vec<u32>>(&root, ACCESSIBLE, "GetState", &(), timeout)
            .await
            .is_ok()
    }

    /// The number of children the element says it has, without creating any.
    pub async fn child_count(&self, object: &ObjectRef) -> Result<i64, AtspiError> {
        let count = self.property(object, ACCESSIBLE, "ChildCount").await?;
        Ok(i32::try_from(count).map_or(0, i64::from))
    }

    /// The element's own children that show, in their order, found by the application in one
    /// call (`Collection.GetMatches` without descending): a long page's off-screen paragraphs
    /// are never asked one by one.
    pub async fn showing_children(&self, object: &ObjectRef) -> Result<Vec<ObjectRef>, AtspiError> {
        // The state set goes as two 32-bit words, the role set as four (libatspi's layout).
        let showing = atspi::State::Showing as u64;
        const MATCH_ALL: i32 = 1;
        const CANONICAL_ORDER: u32 = 1;
        let rule = (
            vec![showing as u32 as i32, (showing >> 32) as u32 as i32],
            MATCH_ALL,
            std::collections::HashMap::<String, String>::new(),
            MATCH_ALL,
            vec![0i32; 4],
            MATCH_ALL,
            Vec::<String>::new(),
            MATCH_ALL,
            false,
        );
        let matches: Vec<(String, OwnedObjectPath)> = self
            .call(
                object,
                COLLECTION,
                "GetMatches",
                &(rule, CANONICAL_ORDER, 0i32, false),
            )
            .await?;
        Ok(elements(matches))
    }

    /// The cells of a table that are on screen, found from the cells at its top-left and
    /// bottom-right corners: the table's other cells are never created.
    pub async fn visible_cells(
        &self,
        table: &ObjectRef,
        max: usize,
    ) -> Result<VisibleCells, AtspiError> {
        let (rows, columns): (i32, i32) = futures::try_join!(
            async { Ok(i32::try_from(self.property(table, TABLE, "NRows").await?).unwrap_or(0)) },
            async {
                Ok(i32::try_from(self.property(table, TABLE, "NColumns").await?).unwrap_or(0))
            },
        )?;
        let total = i64::from(rows.max(0)) * i64::from(columns.max(0));
        let none = || VisibleCells {
            headers: Vec::new(),
            cells: Vec::new(),
            total,
        };
        let Some(area) = self.extents(table).await? else {
            return Ok(none());
        };
        // A header row or a frozen pane may cover a corner: step inwards until a cell is hit.
        let step = |k: i32| 2 + k * 8;
        let mut first = None;
        for k in 0..8 {
            first = self.cell_at(table, area.x + 2, area.y + step(k)).await?;
            if first.is_some() {
                break;
            }
        }
        let mut last = None;
        for k in 0..8 {
            let right = area.x + area.width as i32 - 3;
            let bottom = area.y + area.height as i32 - step(k);
            last = self.cell_at(table, right, bottom).await?;
            if last.is_some() {
                break;
            }
        }
        let (Some((top, left)), Some((bottom, right))) = (first, last) else {
            return Ok(none());
        };
        let width = usize::try_from(right - left + 1).unwrap_or(0).clamp(1, max);
        let height = usize::try_from(bottom - top + 1)
            .unwrap_or(0)
            .clamp(1, (max / width).max(1));
        if let Some(block) = self.cell_blocks.lock().expect("not poisoned").get(table)
            && (block.top, block.left, block.height, block.width) == (top, left, height, width)
            && block.read.elapsed() < CELL_BLOCK_REUSE
        {
            return Ok(VisibleCells {
                headers: block.headers.clone(),
                cells: block.cells.clone(),
                total,
            });
        }
        let reads = (0..height)
            .flat_map(|r| (0..width).map(move |c| (r, c)))
            .map(|(r, c)| {
                let row = top + r as i32;
                let column = left + c as i32;
                async move {
                    let cell = self
                        .call::<_, (String, OwnedObjectPath)>(
                            table,
                            TABLE,
                            "GetAccessibleAt",
                            &(row, column),
                        )
                        .await;
                    cell.map(|cell| (cell, row, column))
                }
            });
        let mut found = Vec::new();
        for cell in join_all(reads).await {
            let (reference, row, column) = cell?;
            if let Some(object) = element(reference) {
                found.push((object, text::cell_address(row, column)));
            }
        }
        // A table whose first cell is named by its address names them all so (LibreOffice):
        // their names need not be asked, one call per cell fewer. A tree view's cells are
        // named by their text, and asked; so are all when the first would not say.
        let named_by_address = match found.first() {
            Some((first, address)) => self
                .string_property(first, ACCESSIBLE, "Name")
                .await
                .is_ok_and(|name| name == *address),
            None => false,
        };
        let cells: Vec<VisibleCell> = found
            .into_iter()
            .map(|(object, address)| VisibleCell {
                object,
                name: named_by_address.then_some(address),
            })
            .collect();
        // A tree view names its columns in headers; a spreadsheet's column letters are no
        // header it keeps, and it would make a new object at every ask.
        let headers = if named_by_address {
            Vec::new()
        } else {
            let asked = (0..width).map(|c| {
                let column = left + c as i32;
                async move {
                    self.call::<_, (String, OwnedObjectPath)>(
                        table,
                        TABLE,
                        "GetColumnHeader",
                        &(column,),
                    )
                    .await
                }
            });
            join_all(asked)
                .await
                .into_iter()
                .filter_map(|header| element_of(header.ok()?, &table.bus))
                .collect()
        };
        self.cell_blocks.lock().expect("not poisoned").insert(
            table.clone(),
            CellBlock {
                top,
                left,
                height,
                width,
                headers: headers.clone(),
                cells: cells.clone(),
                read: Instant::now(),
            },
        );
        Ok(VisibleCells {
            headers,
            cells,
            total,
        })
    }

    /// The row and column of the table cell at a point, if a cell of `table` is there.
    async fn cell_at(
        &self,
        table: &ObjectRef,
        x: i32,
        y: i32,
    ) -> Result<Option<(i32, i32)>, AtspiError> {
        let reference: (String, OwnedObjectPath) = self
            .call(
                table,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, COORD_SCREEN),
            )
            .await?;
        let Some(cell) = element(reference) else {
            return Ok(None);
        };
        let (role, index) = futures::join!(
            self.call::<_, u32>(&cell, ACCESSIBLE, "GetRole", &()),
            self.call::<_, i32>(&cell, ACCESSIBLE, "GetIndexInParent", &()),
        );
        if translate::role(role?) != Role::Cell {
            return Ok(None);
        }
        let index = (index?,);
        let (row, column) = futures::join!(
            self.call::<_, i32>(table, TABLE, "GetRowAtIndex", &index),
            self.call::<_, i32>(table, TABLE, "GetColumnAtIndex", &index),
        );
        let (row, column) = (row?, column?);
        Ok((row >= 0 && column >= 0).then_some((row, column)))
    }

    /// Whether the object is still there: it answers for its role.
    pub async fn exists(&self, object: &ObjectRef) -> bool {
        self.call::<_, u32>(object, ACCESSIBLE, "GetRole", &())
            .await
            .is_ok()
    }

    /// What the element is now: its role and the name an observation lists it by, cleaned as
    /// the walk cleans it (`gtk4`: named as GTK 4.8 names, see [`translate::gtk4_name`]) and, for
    /// a control named only by a pictograph, its description. `None` once the application no
    /// longer has it.
    pub async fn identity(
        &self,
        object: &ObjectRef,
        gtk4: bool,
    ) -> Result<Option<(Role, String)>, AtspiError> {
        let (role, name, states) = futures::join!(
            self.call::<_, u32>(object, ACCESSIBLE, "GetRole", &()),
            self.string_property(object, ACCESSIBLE, "Name"),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
        );
        let (role, name, states) = match (role, name, states) {
            (Ok(role), Ok(name), Ok(states)) => (role, name, states),
            (Err(err), _, _) | (_, Err(err), _) | (_, _, Err(err)) => {
                return if matches!(err, AtspiError::Call { .. }) {
                    Ok(None)
                } else {
                    Err(err)
                };
            }
        };
        if translate::state_set(&states).contains(atspi::State::Defunct) {
            return Ok(None);
        }
        let role = translate::role(role);
        let name = translate::listed_name(name, gtk4);
        if role.is_control() && text::icon_only(&name) {
            let description = self
                .string_property(object, ACCESSIBLE, "Description")
                .await
                .unwrap_or_default();
            if !description.trim().is_empty() {
                return Ok(Some((role, description)));
            }
        }
        Ok(Some((role, name)))
    }

    /// The element's parent; `None` for a root, or an element its application no longer has.
    async fn parent(&self, object: &ObjectRef) -> Result<Option<ObjectRef>, AtspiError> {
        let value = match self.property(object, ACCESSIBLE, "Parent").await {
            Ok(value) => value,
            Err(AtspiError::Call { .. }) => return Ok(None),
            Err(err) => return Err(err),
        };
        Ok(<(String, OwnedObjectPath)>::try_from(value)
            .ok()
            .and_then(|reference| element_of(reference, &object.bus)))
    }

    /// What the pointer at (x, y), in the coordinates the toolkit reports, reaches: the element
    /// when its parent's element at that point is the element, is inside it, or is a new
    /// object for the same thing (LibreOffice makes one at every ask). A parent that has
    /// nothing at the point is asked again in its own coordinates, which Dolphin's item view
    /// takes where it should take the screen's. `None` when the toolkit cannot say: no parent,
    /// or a parent without hit testing.
    pub async fn reaches(
        &self,
        object: &ObjectRef,
        x: i32,
        y: i32,
    ) -> Result<Option<Hit>, AtspiError> {
        /// Deeper than any element's own content; a toolkit that returns the deepest element at
        /// a point (Qt) returns one inside the element a level or two down.
        const MAX_LEVELS: usize = 12;
        let cannot_say = |err: AtspiError| {
            if matches!(err, AtspiError::Call { .. }) {
                Ok(None)
            } else {
                Err(err)
            }
        };
        let parent = match self.parent(object).await {
            Ok(Some(parent)) => parent,
            Ok(None) => return Ok(None),
            Err(err) => return cannot_say(err),
        };
        let hit = match self.element_at(&parent, x, y).await {
            Ok(Some(hit)) => hit,
            Ok(None) => {
                let local = match self.extents(&parent).await {
                    Ok(Some(bounds)) => self.element_at(&parent, x - bounds.x, y - bounds.y).await,
                    Ok(None) => Ok(None),
                    Err(err) => Err(err),
                };
                match local {
                    Ok(Some(hit)) if hit == *object => return Ok(Some(Hit::Element)),
                    Ok(Some(_)) => return Ok(Some(Hit::Other)),
                    Ok(None) => return Ok(Some(Hit::Nothing)),
                    Err(err) => return cannot_say(err),
                }
            }
            Err(err) => return cannot_say(err),
        };
        let mut at = hit.clone();
        for _ in 0..MAX_LEVELS {
            if at == *object {
                return Ok(Some(Hit::Element));
            }
            if at == parent {
                break;
            }
            match self.parent(&at).await? {
                Some(up) => at = up,
                None => break,
            }
        }
        let (hit_is, element_is, hit_extents, element_extents) = futures::join!(
            self.identity(&hit, false),
            self.identity(object, false),
            self.extents(&hit),
            self.extents(object),
        );
        let same = matches!((hit_is, element_is), (Ok(Some(a)), Ok(Some(b))) if a == b)
            && matches!((hit_extents, element_extents), (Ok(a), Ok(b)) if a == b);
        Ok(Some(if same { Hit::Element } else { Hit::Other }))
    }

    /// The child `parent` has at (x, y) in screen coordinates, as the toolkit answers.
    async fn element_at(
        &self,
        parent: &ObjectRef,
        x: i32,
        y: i32,
    ) -> Result<Option<ObjectRef>, AtspiError> {
        let reference: (String, OwnedObjectPath) = self
            .call(
                parent,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, COORD_SCREEN),
            )
            .await?;
        Ok(element_of(reference, &parent.bus))
    }

    /// Points of the element where it draws what it shows, in the coordinates the toolkit
    /// reports: the middle of its text, then its first children's centers (never those of an
    /// element that creates its children on demand).
    pub async fn spots(&self, object: &ObjectRef) -> Result<Vec<(Rect, &'static str)>, AtspiError> {
        /// Enough to find a child that takes the click, few enough to answer at once.
        const CHILDREN: usize = 8;
        let (interfaces, states) = futures::join!(
            self.interfaces(object),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
        );
        let (interfaces, states) = (interfaces?, states?);
        let mut spots = Vec::new();
        if interfaces.iter().any(|i| i == TEXT) {
            let count =
                i32::try_from(self.property(object, TEXT, "CharacterCount").await?).unwrap_or(0);
            if count > 0 {
                let (x, y, w, h): (i32, i32, i32, i32) = self
                    .call(
                        object,
                        TEXT,
                        "GetRangeExtents",
                        &(0i32, count, COORD_SCREEN),
                    )
                    .await?;
                if w > 0 && h > 0 {
                    spots.push((Rect::new(x, y, w as u32, h as u32), "its text"));
                }
            }
        }
        if !manages_descendants(&states) {
            let children = self.children(object).await?;
            let extents = join_all(
                children
                    .iter()
                    .take(CHILDREN)
                    .map(|child| async move { self.extents(child).await }),
            )
            .await;
            spots.extend(
                extents
                    .into_iter()
                    .filter_map(|e| e.ok().flatten())
                    .map(|e| (e, "a part of it")),
            );
        }
        Ok(spots)
    }

    /// Whether the element, or an element a few levels inside it, has the keyboard focus now
    /// (GTK4 focuses the text inside an entry, not the entry). The children of an element that
    /// manages its descendants are never asked for: the app would create them all.
    pub async fn focus_within(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        const DEPTH: usize = 3;
        const FAN_OUT: usize = 16;
        let mut level = vec![object.clone()];
        for depth in 0..=DEPTH {
            let mut next = Vec::new();
            for element in &level {
                let words: Vec<u32> = match self.call(element, ACCESSIBLE, "GetState", &()).await {
                    Ok(words) => words,
                    Err(err) if depth == 0 => return Err(err),
                    Err(_) => continue,
                };
                let states = translate::state_set(&words);
                if states.contains(atspi::State::Focused) {
                    return Ok(true);
                }
                if depth < DEPTH && !states.contains(atspi::State::ManagesDescendants) {
                    let children = self.children(element).await.unwrap_or_default();
                    next.extend(children.into_iter().take(FAN_OUT));
                }
            }
            level = next;
        }
        Ok(false)
    }

    pub async fn tree(
        &self,
        root: &ObjectRef,
        style: WalkStyle,
        limits: WalkLimits,
    ) -> Result<Walked, AtspiError> {
        let snapshot = if style.use_cache {
            self.listen_for_changes().await;
            self.snapshot(&root.bus).await
        } else {
            Snapshot::default()
        };
        let walk = Walk {
            atspi: self,
            snapshot,
            style,
            started: Instant::now(),
            limits,
            nodes: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            unanswered: AtomicUsize::new(0),
            cut: AtomicBool::new(false),
            paragraphs_off_screen: AtomicUsize::new(0),
            managed: std::sync::Mutex::new(Vec::new()),
            sheet_cells: std::sync::Mutex::new(HashMap::new()),
            window_bus: root.bus.clone(),
        };
        let (root_node, _) = walk.node(root.clone(), true).await?;
        let nodes = walk.nodes.load(Ordering::Relaxed);
        let failed = walk.failed.load(Ordering::Relaxed);
        let unanswered = walk.unanswered.load(Ordering::Relaxed);
        let partial = if unanswered > 0 {
            Some(format!(
                "the app stopped answering ({unanswered} {} no answer within {} ms), so elements, values or points are missing",
                if unanswered == 1 {
                    "request got"
                } else {
                    "requests got"
                },
                self.call_timeout.as_millis()
            ))
        } else if walk.cut.load(Ordering::Relaxed) {
            Some(format!(
                "stopped after {:.1} s at {nodes} nodes (limit {} nodes, {} s)",
                walk.started.elapsed().as_secs_f64(),
                limits.max_nodes,
                limits.deadline.as_secs()
            ))
        } else if failed > 0 {
            Some(format!("{failed} elements did not answer and are missing"))
        } else {
            None
        };
        let mut managed = walk.managed.into_inner().expect("not poisoned");
        // Firefox marks everything in a window that is covered or minimized as not showing.
        if !root_node.children.is_empty() && root_node.children.iter().all(|c| !c.states.visible) {
            managed.push(
                "the app reports nothing in this window as showing: it may be covered or minimized; `focus` it and observe again"
                    .to_string(),
            );
        }
        let off_screen = walk.paragraphs_off_screen.load(Ordering::Relaxed);
        if off_screen > 0 {
            managed.push(format!(
                "{} off screen {} not read (scroll to bring {} into view)",
                deskhand_core::render::plural(off_screen, "paragraph", "paragraphs"),
                if off_screen == 1 { "was" } else { "were" },
                if off_screen == 1 { "it" } else { "them" },
            ));
        }
        let partial = match (partial, managed.is_empty()) {
            (partial, true) => partial,
            (None, false) => Some(managed.join("; ")),
            (Some(partial), false) => Some(format!("{partial}; {}", managed.join("; "))),
        };
        Ok(Walked {
            root: root_node,
            partial,
        })
    }
}

/// What the walk knows of an element before reading its subtree.
struct Basics {
    role: u32,
    states: Vec<u32>,
    interfaces: Vec<String>,
    name: String,
    children: Vec<ObjectRef>,
    cells: Option<CellsOnDemand>,
    /// One of the cells a table gave for its visible block (see `Walk::sheet_cells`).
    sheet_cell: bool,
}

/// A table that creates its cells on demand, of which only the visible ones were read.
struct CellsOnDemand {
    what: String,
    read: usize,
    total: i64,
}

impl CellsOnDemand {
    /// The `partial` note: what was read, and that the empty cells among them are not listed
    /// (a sheet's window shows hundreds; an agent reaches any cell through the Name Box).
    fn note(&self, empty: usize) -> String {
        let mut note = format!(
            "{} creates its cells on demand, so only the {} visible of {} were read",
            self.what,
            deskhand_core::render::thousands(self.read),
            deskhand_core::render::thousands(usize::try_from(self.total).unwrap_or_default())
        );
        if empty > 0 {
            note.push_str(&format!(
                " ({} empty, not listed)",
                deskhand_core::render::plural(empty, "cell", "cells")
            ));
        }
        note
    }
}

struct Walk<'a> {
    atspi: &'a Atspi,
    snapshot: Snapshot,
    style: WalkStyle,
    started: Instant,
    limits: WalkLimits,
    nodes: AtomicUsize,
    failed: AtomicUsize,
    /// Calls the application did not answer: it is hung, busy or gone.
    unanswered: AtomicUsize,
    cut: AtomicBool,
    /// Paragraphs of a page or document that do not show: the rest of a long text.
    paragraphs_off_screen: AtomicUsize,
    /// What was left unread of elements that create their children on demand.
    managed: std::sync::Mutex<Vec<String>>,
    /// Cells a table that creates them on demand gave for its visible block: their role, their
    /// interfaces (Component, Text) and that they have no children are known, so only their
    /// states, text and (unless it was derived) address are asked, and their extents only when
    /// they hold something.
    sheet_cells: std::sync::Mutex<HashMap<ObjectRef, Option<String>>>,
    /// The bus of the window's application: an element on another is part of a tree embedded
    /// in the window (a WebKit page, from its web process).
    window_bus: String,
}

impl Walk<'_> {
    fn over_budget(&self) -> bool {
        let over = self.nodes.load(Ordering::Relaxed) >= self.limits.max_nodes
            || self.started.elapsed() >= self.limits.deadline;
        if over {
            self.cut.store(true, Ordering::Relaxed);
        }
        // An application that let one call time out serves no other either (its main loop
        // answers them all): going deeper would cost a timeout per level.
        over || self.unanswered.load(Ordering::Relaxed) > 0
    }

    /// The answer, if there was one; a call the application did not answer (hung or gone)
    /// makes the tree partial.
    fn answered<T>(&self, result: Result<T, AtspiError>) -> Option<T> {
        if result.as_ref().is_err_and(AtspiError::unanswered) {
            self.unanswered.fetch_add(1, Ordering::Relaxed);
        }
        result.ok()
    }

    /// Whether the walk looks into an element with these states: it shows, or it says nothing
    /// of itself (see [`says_nothing_of_itself`]).
    fn looks_shown(&self, role: u32, states: &[u32]) -> bool {
        says_nothing_of_itself(states)
            || translate::states(
                translate::state_set(states),
                translate::role(role),
                self.style.showing_reliable,
            )
            .visible
    }

    /// Role, states, interfaces, name and children: from the cache where it has them. The
    /// children are asked for only once the states are known: an element that manages its
    /// descendants creates them when asked, without end for a spreadsheet.
    async fn basics(&self, object: &ObjectRef, is_root: bool) -> Result<Basics, AtspiError> {
        let a = self.atspi;
        let sheet_cell = self
            .sheet_cells
            .lock()
            .expect("not poisoned")
            .get(object)
            .cloned();
        if let Some(known_name) = sheet_cell {
            // A spreadsheet's cell, named by its address, holds no cells; a tree view's cell of
            // several renderers (an icon and a name) holds one cell for each.
            let named_by_address = known_name.is_some();
            let (state, name, children) = futures::join!(
                a.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
                async {
                    match known_name {
                        Some(name) => Some(name),
                        None => self.answered(a.string_property(object, ACCESSIBLE, "Name").await),
                    }
                },
                async {
                    if named_by_address {
                        return Vec::new();
                    }
                    match self.answered(a.child_count(object).await) {
                        Some(count) if (1..=MAX_NESTED_CELLS).contains(&count) => {
                            self.answered(a.children(object).await).unwrap_or_default()
                        }
                        _ => Vec::new(),
                    }
                },
            );
            return Ok(Basics {
                role: atspi::Role::TableCell as u32,
                states: state?,
                interfaces: vec![COMPONENT.to_string(), TEXT.to_string()],
                name: name.unwrap_or_default(),
                children,
                cells: None,
                sheet_cell: true,
            });
        }
        if let Some(cached) = self.snapshot.items.get(object) {
            let (children, cells) = if manages_descendants(&cached.states) {
                self.managed_children(
                    object,
                    cached.role,
                    &cached.name,
                    Some(cached.child_count),
                    &cached.interfaces,
                )
                .await
            } else {
                let children = match self.snapshot.children_of(object) {
                    Some(children) => children,
                    None => self.answered(a.children(object).await).unwrap_or_default(),
                };
                let children = self.or_embedded(object, &cached.states, children).await;
                let children = self
                    .showing_only(
                        object,
                        cached.role,
                        &cached.name,
                        &cached.interfaces,
                        children,
                    )
                    .await;
                (children, None)
            };
            return Ok(Basics {
                role: cached.role,
                states: cached.states.clone(),
                interfaces: cached.interfaces.clone(),
                name: cached.name.clone(),
                children,
                cells,
                sheet_cell: false,
            });
        }
        let (role, state, name) = futures::join!(
            a.call::<_, u32>(object, ACCESSIBLE, "GetRole", &()),
            a.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
            a.string_property(object, ACCESSIBLE, "Name"),
        );
        let (role, states) = (role?, state?);
        let name = self.answered(name).unwrap_or_default();
        // A hidden element is only counted, never looked into: its interfaces and children
        // are not asked (a web page's off-screen paragraphs are most of its objects).
        if !is_root && !self.looks_shown(role, &states) {
            return Ok(Basics {
                role,
                states,
                interfaces: Vec::new(),
                name,
                children: Vec::new(),
                cells: None,
                sheet_cell: false,
            });
        }
        let (interfaces, children) = if manages_descendants(&states) {
            let interfaces = self
                .answered(a.interfaces(object).await)
                .unwrap_or_default();
            let children = self
                .managed_children(object, role, &name, None, &interfaces)
                .await;
            (interfaces, children)
        } else {
            let (interfaces, children) = futures::join!(a.interfaces(object), a.children(object));
            let interfaces = self.answered(interfaces).unwrap_or_default();
            let children = self.answered(children).unwrap_or_default();
            let children = self.or_embedded(object, &states, children).await;
            let children = self
                .showing_only(object, role, &name, &interfaces, children)
                .await;
            (interfaces, (children, None))
        };
        let (children, cells) = children;
        Ok(Basics {
            role,
            states,
            interfaces,
            name,
            children,
            cells,
            sheet_cell: false,
        })
    }

    /// The children an element gave, or where it gave none and says nothing of itself, the
    /// tree embedded in it: at-spi2-atk leaves a socket's plug (a WebKit page, from its web
    /// process) out of `GetChildren` and gives it only by index.
    async fn or_embedded(
        &self,
        object: &ObjectRef,
        states: &[u32],
        children: Vec<ObjectRef>,
    ) -> Vec<ObjectRef> {
        /// A socket holds one plug; a few more are read should a toolkit hold several.
        const MAX_EMBEDDED: i64 = 4;
        if !children.is_empty() || !translate::state_set(states).is_empty() {
            return children;
        }
        let a = self.atspi;
        let count = self.answered(a.child_count(object).await).unwrap_or(0);
        let asked = (0..count.min(MAX_EMBEDDED)).map(|index| async move {
            let index = i32::try_from(index).unwrap_or(0);
            a.call::<_, (String, OwnedObjectPath)>(object, ACCESSIBLE, "GetChildAtIndex", &(index,))
                .await
        });
        join_all(asked)
            .await
            .into_iter()
            .filter_map(|child| element_of(self.answered(child)?, &object.bus))
            .collect()
    }

    /// A long list of children (a page's paragraphs, a list's items) narrowed to those that
    /// show, in one call where the application offers it: the others are counted in the
    /// `partial` note, not asked one by one.
    async fn showing_only(
        &self,
        object: &ObjectRef,
        role: u32,
        name: &str,
        interfaces: &[String],
        children: Vec<ObjectRef>,
    ) -> Vec<ObjectRef> {
        if children.len() <= MANY_CHILDREN || !self.style.showing_reliable {
            return children;
        }
        // Where the cache holds every child's states, no call is needed.
        let cached: Option<Vec<ObjectRef>> = children
            .iter()
            .map(|child| {
                let item = self.snapshot.items.get(child)?;
                let showing = translate::state_set(&item.states).contains(atspi::State::Showing);
                Some(showing.then(|| child.clone()))
            })
            .collect::<Option<Vec<_>>>()
            .map(|children| children.into_iter().flatten().collect());
        let showing = match cached {
            Some(showing) => showing,
            None if interfaces.iter().any(|i| i == COLLECTION) => {
                match self.answered(self.atspi.showing_children(object).await) {
                    Some(showing) => showing,
                    None => return children,
                }
            }
            None => return children,
        };
        let others = children.len().saturating_sub(showing.len());
        if others > 0 {
            self.managed.lock().expect("not poisoned").push(format!(
                "{} shows {} of its {} children; the other {} (off screen or hidden) were not read: scroll to bring them into view",
                described(role, name),
                deskhand_core::render::thousands(showing.len()),
                deskhand_core::render::thousands(children.len()),
                deskhand_core::render::thousands(others),
            ));
        }
        showing
    }

    /// The children of an element that creates them on demand: all of them when there are
    /// few (a text document's visible paragraphs), else a table's visible cells, else none;
    /// what is left out is said in the tree's `partial` note (for a table, once its cells are
    /// read: see `CellsOnDemand`).
    async fn managed_children(
        &self,
        object: &ObjectRef,
        role: u32,
        name: &str,
        cached_count: Option<i32>,
        interfaces: &[String],
    ) -> (Vec<ObjectRef>, Option<CellsOnDemand>) {
        let a = self.atspi;
        let count = match cached_count.filter(|count| *count >= 0) {
            Some(count) => Some(i64::from(count)),
            None => self.answered(a.child_count(object).await),
        };
        if count.is_some_and(|count| count <= FEW_MANAGED_CHILDREN) {
            return (
                self.answered(a.children(object).await).unwrap_or_default(),
                None,
            );
        }
        let what = described(role, name);
        if interfaces.iter().any(|i| i == TABLE)
            && let Some(visible) = self.answered(a.visible_cells(object, MAX_VISIBLE_CELLS).await)
        {
            let cells = CellsOnDemand {
                what,
                read: visible.cells.len(),
                total: visible.total,
            };
            self.sheet_cells.lock().expect("not poisoned").extend(
                visible
                    .cells
                    .iter()
                    .map(|cell| (cell.object.clone(), cell.name.clone())),
            );
            let objects = visible
                .headers
                .into_iter()
                .chain(visible.cells.into_iter().map(|cell| cell.object))
                .collect();
            return (objects, Some(cells));
        }
        self.managed.lock().expect("not poisoned").push(format!(
            "{what} creates its {} children on demand, so they were not read",
            count.map_or_else(|| "unknown number of".to_string(), |c| c.to_string())
        ));
        (Vec::new(), None)
    }

    /// The element and its subtree, and whether it stands embedded (U+FFFC) in its parent's
    /// text.
    fn node(
        &self,
        object: ObjectRef,
        is_root: bool,
    ) -> BoxFuture<'_, Result<(Node, bool), AtspiError>> {
        async move {
            self.nodes.fetch_add(1, Ordering::Relaxed);
            let a = self.atspi;
            let Basics {
                role,
                states: raw_states,
                interfaces,
                name,
                children,
                cells,
                sheet_cell,
            } = self.basics(&object, is_root).await?;
            let role = translate::role(role);
            let mut states = translate::states(
                translate::state_set(&raw_states),
                role,
                self.style.showing_reliable,
            );
            // A container that says nothing of itself is looked into, and its children judge
            // their own visibility.
            if !children.is_empty() && says_nothing_of_itself(&raw_states) {
                states.visible = true;
            }
            let has = |suffix: &str| interfaces.iter().any(|i| i.ends_with(suffix));
            let name = translate::listed_name(name, !self.style.showing_reliable);
            // Hidden elements are only counted, and an unnamed layout wrapper is never listed
            // unless it carries words of its own, so nothing more is asked of either.
            let shown = states.visible || is_root;
            if !shown && role == Role::Paragraph {
                self.paragraphs_off_screen.fetch_add(1, Ordering::Relaxed);
            }
            let unnamed = name.trim().is_empty();
            let listable = is_root
                || !role.is_layout()
                || !unnamed
                || (has(".Text") && text::bears_text(role, unnamed));
            let detailed = shown && listable;

            let reads = if detailed {
                ValueReads::of(role, states.editable, unnamed, &interfaces)
            } else {
                ValueReads::NONE
            };
            // An icon-only button is named by a pictograph or nothing; its tooltip or
            // description says what it does. A sign such as "×" or "=" is its own name.
            let symbol_only = text::icon_only(&name);
            let (bounds, actions, value, description) = futures::join!(
                async {
                    let menubar = shown && role == Role::Menubar;
                    if (detailed || menubar) && has(".Component") && !sheet_cell {
                        self.answered(a.extents(&object).await)
                    } else {
                        None
                    }
                },
                async {
                    if detailed && has(".Action") && !role.is_control() && name.trim().is_empty() {
                        // WebKit's web process never answers `GetActions`: an embedded tree's
                        // actions are asked one by one.
                        let listed = if object.bus == self.window_bus {
                            a.listed_actions(&object).await
                        } else {
                            a.action_names(&object).await
                        };
                        self.answered(listed).unwrap_or_default()
                    } else {
                        Vec::new()
                    }
                },
                async { self.answered(a.value(&object, reads).await).flatten() },
                async {
                    if detailed && role.is_control() && symbol_only {
                        self.answered(a.string_property(&object, ACCESSIBLE, "Description").await)
                    } else {
                        None
                    }
                },
            );
            let name = match description {
                Some(description) if !description.trim().is_empty() => description,
                _ => name,
            };
            // LibreOffice keeps a second menu bar of no size over the one that works; its
            // items open nothing.
            if role == Role::Menubar && !is_root && matches!(bounds, Some(None)) {
                states.visible = false;
            }
            // GTK3's tree view marks every row showing and puts the rows scrolled out of view
            // at the lowest coordinate there is.
            if !is_root && matches!(bounds, Some(Some(b)) if b.x == i32::MIN || b.y == i32::MIN) {
                states.visible = false;
            }
            let shown = states.visible || is_root;
            let holds_something = value.as_deref().is_some_and(|v| !v.trim().is_empty());
            let bounds = match bounds.flatten() {
                None if sheet_cell
                    && detailed
                    && (holds_something || states.focused || states.selected) =>
                {
                    self.answered(a.extents(&object).await).flatten()
                }
                bounds => bounds,
            };
            let (dx, dy) = self.style.offset;
            let bounds = bounds.map(|b| Rect::new(b.x + dx, b.y + dy, b.width, b.height));

            // Hidden subtrees are not read: the observation only counts them.
            let children: Vec<(Node, bool)> = if shown && !self.over_budget() {
                // A child on another application's bus is the root of a tree embedded here (a
                // WebKit page, from its web process), which marks its root showing or not as it
                // pleases: it shows where its embedder does, and so does a lone wrapper below it
                // (WebKit marks the page's scroll view hidden while the document in it shows).
                let lone = children.len() == 1;
                let in_embedded_root = is_root && object.bus != self.window_bus;
                let reads = children.into_iter().map(|child| {
                    let embedded = child.bus != object.bus || (in_embedded_root && lone);
                    async move {
                        let (mut node, inline) = self.node(child, embedded).await?;
                        node.states.visible |= embedded;
                        Ok::<_, AtspiError>((node, inline))
                    }
                });
                join_all(reads)
                    .await
                    .into_iter()
                    .filter_map(|child| match child {
                        Ok(child) => Some(child),
                        Err(err) => {
                            self.answered::<()>(Err(err));
                            self.failed.fetch_add(1, Ordering::Relaxed);
                            None
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let embedded: Vec<Embedded<'_>> = children
                .iter()
                .filter(|(_, embedded)| *embedded)
                .map(|(child, _)| {
                    let words = if child.name.trim().is_empty() {
                        child.value.as_deref()
                    } else {
                        Some(child.name.as_str())
                    };
                    Embedded::of(child.role, child.states.editable, words)
                })
                .collect();
            let value = value
                .and_then(|raw| finish_value(raw, role, states.editable, &embedded, &name))
                .filter(|value| !value.is_empty());
            let name = match role {
                Role::Listitem => text::without_bullets(&name).to_owned(),
                _ => name,
            };
            let value = match value {
                None if detailed && role == Role::Combobox => chosen_unless_name(
                    self.answered(a.chosen_option(&object).await).flatten(),
                    &name,
                ),
                value => value,
            };
            let mut children: Vec<Node> = children.into_iter().map(|(child, _)| child).collect();
            if let Some(cells) = cells {
                let before = children.len();
                // A cell's name is its text (GTK) or its address (a spreadsheet's "B7"): it is
                // empty when it shows nothing beyond its address.
                children.retain(|cell| {
                    cell.role != Role::Cell
                        || !cell.children.is_empty()
                        || cell.value.as_deref().is_some_and(|v| !v.is_empty())
                        || !(cell.name.trim().is_empty() || text::is_cell_address(&cell.name))
                        || cell.states.focused
                        || cell.states.selected
                });
                self.managed
                    .lock()
                    .expect("not poisoned")
                    .push(cells.note(before - children.len()));
            }
            // A web view or document that gives no content at all is an embedded tree that
            // never arrived (a web process off the accessibility bus): say so, not nothing.
            if role == Role::Document
                && shown
                && children.is_empty()
                && value.as_deref().is_none_or(|v| v.trim().is_empty())
            {
                let document = if name.trim().is_empty() {
                    "a document".to_string()
                } else {
                    format!("the document \"{}\"", deskhand_core::render::escape(&name))
                };
                self.managed.lock().expect("not poisoned").push(format!(
                    "{document} gives no content to accessibility; `observe` with `ocr: true` reads what it shows"
                ));
            }
            let mut node = Node {
                handle: object.handle(),
                role,
                name,
                value,
                states,
                bounds,
                actions,
                children,
            };
            merge_nested_cells(&mut node);
            Ok((node, has(".Hyperlink")))
        }
        .boxed()
    }
}

/// The value an observation shows of what was read: an edited field's exactly as typed, any
/// other as a person reads it (embedded objects resolved, ends trimmed), and nothing when it
/// only repeats the name.
fn finish_value(
    raw: String,
    role: Role,
    editable: bool,
    embedded: &[Embedded<'_>],
    name: &str,
) -> Option<String> {
    if editable && !raw.contains(EMBEDDED) {
        return Some(raw);
    }
    let value = text::shown_text(&raw, embedded)?;
    let value = match role {
        Role::Listitem => text::without_bullets(&value).to_owned(),
        _ => value,
    };
    (editable || (!value.is_empty() && value != name.trim())).then_some(value)
}

/// The option a closed drop-down shows, unless it only repeats the drop-down's name.
fn chosen_unless_name(chosen: Option<String>, name: &str) -> Option<String> {
    chosen.filter(|chosen| chosen.trim() != name.trim())
}

/// Whether an element says nothing of itself: LibreOffice marks the panel around its formula
/// bar defunct, and nothing else, while the paragraph in it shows and answers; the socket a
/// WebKit view embeds its page in has no states at all.
fn says_nothing_of_itself(states: &[u32]) -> bool {
    let set = translate::state_set(states);
    set.is_empty() || set == atspi::State::Defunct.into()
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

/// An element as a note names it: by its name, quoted, or by its role ("the list").
fn described(role: u32, name: &str) -> String {
    if name.trim().is_empty() {
        format!("the {}", translate::role(role).as_str())
    } else {
        format!("\"{}\"", deskhand_core::render::escape(name))
    }
}

fn manages_descendants(states: &[u32]) -> bool {
    translate::state_set(states).contains(atspi::State::ManagesDescendants)
}

/// An element that manages its descendants with at most this many children lists them all
/// (Writer's document: its visible paragraphs).
const FEW_MANAGED_CHILDREN: i64 = 256;
/// An element with more children than this keeps only those that show (a long page, a long
/// list); fewer are each asked, as cheaply as one `GetMatches` would be.
const MANY_CHILDREN: usize = 200;
/// The most cells of a table that creates them on demand one observation reads.
const MAX_VISIBLE_CELLS: usize = 300;

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
    let lookup = async {
        let session = zbus::Connection::session().await?;
        let reply = session
            .call_method(
                Some("org.a11y.Bus"),
                "/org/a11y/bus",
                Some("org.a11y.Bus"),
                "GetAddress",
                &(),
            )
            .await?;
        reply.body().deserialize::<String>()
    };
    match tokio::time::timeout(timeout * 2, lookup).await {
        Ok(Ok(address)) => Ok(address),
        Ok(Err(err)) => Err(AtspiError::NoBus(err.to_string())),
        Err(_) => Err(AtspiError::NoBus("the session bus did not answer".into())),
    }
}
