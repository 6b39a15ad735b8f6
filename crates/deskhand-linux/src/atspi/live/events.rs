//! The applications' accessibility events, heard on the connection the walks use: each event
//! only stamps its sender with a sequence number. Nothing is asked of an app in answer to an
//! event, so listening can never start a loop of reads and events in an app.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};
use tokio::sync::{mpsc, oneshot};

use super::super::*;

/// What the applications are asked to send. `object:` and `window:` register every event of
/// their kind: at-spi2-atk and Qt take a registration that names no event as all of them.
const REGISTERED: [&str; 2] = ["object:", "window:"];

/// The signals heard: every object and window event, focus, and an app's cache changes.
const INTERFACES: [&str; 4] = [
    "org.a11y.atspi.Event.Object",
    "org.a11y.atspi.Event.Window",
    "org.a11y.atspi.Event.Focus",
    "org.a11y.atspi.Cache",
];

/// Events queued on the connection before the reader waits for them to be taken.
const QUEUED: usize = 4096;

/// At most this many queued events are taken in one catch-up; past it the events come faster
/// than they are taken, and no mirror is trusted that time.
const CATCH_UP_MAX: usize = 20_000;

/// Objects whose last bounds are remembered, to tell a repeat; past it they are forgotten.
const BOUNDS_REMEMBERED: usize = 50_000;

/// Applications whose changes are logged: past it, the one that sent nothing for longest (an
/// app that has quit, mostly) is forgotten.
const LOGGED_APPS: usize = 256;

/// Changes kept per application: an application that sent more since a window was read has
/// that window walked whole.
const LOGGED_PER_APP: usize = 2_048;

/// What an event says changed, as far as re-reading the window goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Change {
    /// Something of the object itself: a name, value, state, text, or its window's state.
    Own,
    /// It took or lost the focus: the element that had it may lose it without an event.
    Focus,
    /// Its children were added or removed.
    Children,
    /// It moved, or what it shows moved in it (a scrolled view): every extent under it may
    /// have moved without an event of its own.
    Moved,
    /// Its content changed in a way its elements may not each say (a table's rows, a
    /// selection): everything under it is read again.
    Content,
}

impl Change {
    /// What a signal says changed; `None` for what changes nothing a tree shows by itself:
    /// at-spi2-atk sends a `ChildrenChanged` with each of its cache's additions and removals,
    /// and adds an object to its cache when a walk first asks for it.
    fn of(message: &zbus::Message) -> Option<Change> {
        let header = message.header();
        let interface = header.interface()?;
        if interface.as_str().ends_with(".Cache") {
            return None;
        }
        if interface.as_str().ends_with(".Focus") {
            return Some(Change::Focus);
        }
        if !interface.as_str().ends_with(".Object") {
            return Some(Change::Own);
        }
        Some(
            match header.member().map(|m| m.as_str()).unwrap_or_default() {
                "ChildrenChanged" => Change::Children,
                "BoundsChanged" | "VisibleDataChanged" | "TextBoundsChanged" => Change::Moved,
                // An element's showing and enabled states hold for what is under it, whose own
                // states change with them, with no event of their own.
                "StateChanged" => match detail(message).as_deref() {
                    Some("focused") => Change::Focus,
                    Some(state) if INHERITED_STATES.contains(&state) => Change::Content,
                    _ => Change::Own,
                },
                "PropertyChange"
                | "TextChanged"
                | "TextCaretMoved"
                | "TextSelectionChanged"
                | "TextAttributesChanged"
                | "AttributesChanged"
                | "LinkSelected"
                | "Announcement" => Change::Own,
                _ => Change::Content,
            },
        )
    }
}

/// States an element's descendants take from it.
const INHERITED_STATES: [&str; 5] = ["showing", "visible", "sensitive", "enabled", "defunct"];

/// An object event's detail: which state or property changed.
fn detail(message: &zbus::Message) -> Option<String> {
    let body = message.body();
    let event: zbus::zvariant::Structure = body.deserialize().ok()?;
    match event.fields().first()? {
        zbus::zvariant::Value::Str(detail) => Some(detail.to_string()),
        _ => None,
    }
}

/// The changes an application's events named, latest last.
#[derive(Default)]
struct Log {
    /// (sequence number, object path, what changed).
    changes: VecDeque<(u64, String, Change)>,
    /// Changes at or below this sequence number were dropped to stay within [`LOGGED_PER_APP`].
    dropped_to: u64,
    /// The sequence number of its latest event, logged or not.
    last: u64,
}

/// The applications' logs, within [`LOGGED_APPS`].
#[derive(Default)]
struct Logs {
    by_bus: HashMap<String, Log>,
    /// The latest event of the logs dropped (those whose latest event was the oldest): an
    /// application with no log has sent nothing since this.
    dropped_to: u64,
}

/// Who sent which event, in order.
#[derive(Default)]
pub(super) struct Stamps {
    /// Bus name → what its events said; the sequence numbers are handed out under this lock,
    /// so a reader under it never sees a number whose change is not logged yet.
    logs: Mutex<Logs>,
    pub(super) next: AtomicU64,
    /// The stream ended: from then on no silence can be trusted.
    lost: AtomicBool,
    /// (bus name, object path) → the body of its latest `BoundsChanged`, which carries the new
    /// extents whole. GTK 3 sends one for every size allocation, and an animated widget (a
    /// spinner, a pulsing progress bar) is allocated at every frame with the same extents: a
    /// repeat changes nothing.
    bounds: Mutex<HashMap<(String, String), Vec<u8>>>,
    /// Woken at each event taken, for the reading of changed windows between observes.
    pub(super) heard: tokio::sync::Notify,
}

impl Logs {
    fn drop_oldest(&mut self) {
        let oldest = self
            .by_bus
            .iter()
            .min_by_key(|(_, log)| log.last)
            .map(|(bus, log)| (bus.clone(), log.last));
        if let Some((bus, last)) = oldest {
            self.by_bus.remove(&bus);
            self.dropped_to = self.dropped_to.max(last);
        }
    }
}

impl Stamps {
    pub(super) fn note(&self, message: &zbus::Message) {
        let header = message.header();
        let Some(sender) = header.sender() else {
            return;
        };
        let path = header.path().map(|p| p.to_string()).unwrap_or_default();
        if header
            .member()
            .is_some_and(|member| member == "BoundsChanged")
            && self.repeats_bounds(sender.to_string(), path.clone(), message)
        {
            return;
        }
        let change = Change::of(message);
        let mut logs = self.logs.lock().expect("not poisoned");
        let stamp = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        if logs.by_bus.len() >= LOGGED_APPS && !logs.by_bus.contains_key(sender.as_str()) {
            logs.drop_oldest();
        }
        let log = logs.by_bus.entry(sender.to_string()).or_default();
        log.last = stamp;
        if let Some(change) = change {
            log.changes.push_back((stamp, path, change));
            if log.changes.len() > LOGGED_PER_APP
                && let Some((dropped, ..)) = log.changes.pop_front()
            {
                log.dropped_to = dropped;
            }
        }
        drop(logs);
        self.heard.notify_one();
    }

    /// Whether any of `buses` sent an event after `mark` (with `changes_only`, one that changes
    /// what a tree shows), as far as the events taken so far tell; true when that cannot be
    /// told. A guess that asks no app: [`Events::changes_since`] gives the verdict.
    pub(super) fn sent_since(&self, buses: &[String], mark: u64, changes_only: bool) -> bool {
        if self.lost.load(Ordering::SeqCst) {
            return true;
        }
        let logs = self.logs.lock().expect("not poisoned");
        buses.iter().any(|bus| match logs.by_bus.get(bus) {
            None => logs.dropped_to > mark,
            Some(log) if log.dropped_to > mark => true,
            Some(log) if changes_only => {
                log.changes.back().is_some_and(|(stamp, ..)| *stamp > mark)
            }
            Some(log) => log.last > mark,
        })
    }

    /// Whether a `BoundsChanged` only says again what the object's previous one said.
    fn repeats_bounds(&self, sender: String, path: String, message: &zbus::Message) -> bool {
        let body = message.body().data().to_vec();
        let mut bounds = self.bounds.lock().expect("not poisoned");
        if bounds.len() >= BOUNDS_REMEMBERED {
            bounds.clear();
        }
        bounds.insert((sender, path), body.clone()) == Some(body)
    }
}

/// What changed in some applications since a mark, and the mark that follows it.
pub(super) struct Since {
    /// (bus name, object path, what changed), each once.
    pub changes: Vec<(String, String, Change)>,
    /// No event came at all, not even one that changes nothing a tree shows.
    pub silent: bool,
    /// Every event up to it is in `changes` (or changes nothing): a tree read after it is
    /// trusted from it.
    pub mark: u64,
}

/// The listening: registered with the registry, the signals matched on the connection, and a
/// task that takes them as they come.
pub(super) struct Events {
    stamps: Arc<Stamps>,
    catch_up: mpsc::Sender<oneshot::Sender<bool>>,
    registered_at: Instant,
}

impl Events {
    /// Registers the events with the registry and starts taking them. `None` when the
    /// connection is a recording or a match rule is refused: then windows are walked as before.
    pub(super) async fn start(atspi: &Atspi) -> Option<Events> {
        let Link::Bus { conn, .. } = &atspi.link else {
            return None;
        };
        let mut streams = Vec::new();
        for interface in INTERFACES {
            let rule = zbus::MatchRule::builder()
                .msg_type(zbus::message::Type::Signal)
                .interface(interface)
                .ok()?
                .build();
            let stream = tokio::time::timeout(
                atspi.call_timeout,
                zbus::MessageStream::for_match_rule(rule, conn, Some(QUEUED)),
            )
            .await
            .ok()?
            .ok()?;
            streams.push(stream);
        }
        for event in REGISTERED {
            atspi.register_event(event).await;
        }
        let stamps = Arc::new(Stamps::default());
        let (catch_up, requests) = mpsc::channel(16);
        tokio::spawn(take_events(
            futures::stream::select_all(streams),
            Arc::clone(&stamps),
            requests,
        ));
        Some(Events {
            stamps,
            catch_up,
            registered_at: Instant::now(),
        })
    }

    /// The sequence number of the latest event taken: an app whose events all stamp at or below
    /// it has sent nothing since.
    pub(super) fn mark(&self) -> u64 {
        self.stamps.next.load(Ordering::SeqCst)
    }

    pub(super) fn stamps(&self) -> Arc<Stamps> {
        Arc::clone(&self.stamps)
    }

    pub(super) fn registered_for(&self) -> Duration {
        self.registered_at.elapsed()
    }

    /// What `buses` changed since `mark`, or `None` when that cannot be known (an app does
    /// not answer, events were lost or came faster than they were taken, or more were sent than
    /// are logged). Each application is first asked its root's states: D-Bus keeps one sender's
    /// messages in order, and the toolkits answer that call on the thread that makes their
    /// changes and sends their events (unlike `Peer.Ping`, which GDBus and QtDBus answer on a
    /// thread of their own), so every event the app sent before it answered is on this
    /// connection before the answer, and is taken before the verdict.
    pub(super) async fn changes_since(
        &self,
        atspi: &Atspi,
        buses: &[String],
        mark: u64,
    ) -> Option<Since> {
        let pings = buses.iter().map(|bus| {
            let root = ObjectRef {
                bus: bus.clone(),
                path: ROOT_PATH.into(),
            };
            async move {
                let answered: Result<Vec<u32>, _> =
                    atspi.call(&root, ACCESSIBLE, "GetState", &()).await;
                answered.is_ok()
            }
        });
        if !futures::future::join_all(pings)
            .await
            .into_iter()
            .all(|answered| answered)
        {
            return None;
        }
        let (done, caught_up) = oneshot::channel();
        self.catch_up.send(done).await.ok()?;
        let Ok(Ok(true)) = tokio::time::timeout(atspi.call_timeout, caught_up).await else {
            return None;
        };
        if self.stamps.lost.load(Ordering::SeqCst) {
            return None;
        }
        let logs = self.stamps.logs.lock().expect("not poisoned");
        let now = self.stamps.next.load(Ordering::SeqCst);
        let mut changes = Vec::new();
        let mut seen = HashSet::new();
        let mut silent = true;
        for bus in buses {
            let Some(log) = logs.by_bus.get(bus) else {
                if logs.dropped_to > mark {
                    return None;
                }
                continue;
            };
            if log.last <= mark {
                continue;
            }
            silent = false;
            if log.dropped_to > mark {
                return None;
            }
            for (stamp, path, change) in log.changes.iter().rev() {
                if *stamp <= mark {
                    break;
                }
                if seen.insert((bus, path, *change)) {
                    changes.push((bus.clone(), path.clone(), *change));
                }
            }
        }
        Some(Since {
            changes,
            silent,
            mark: now,
        })
    }
}

/// Takes events as they come, and on request everything already queued, answering whether it
/// all was taken.
async fn take_events(
    mut stream: futures::stream::SelectAll<zbus::MessageStream>,
    stamps: Arc<Stamps>,
    mut requests: mpsc::Receiver<oneshot::Sender<bool>>,
) {
    loop {
        tokio::select! {
            biased;
            request = requests.recv() => {
                let Some(done) = request else { return };
                let mut taken = 0;
                let caught_up = loop {
                    match stream.next().now_or_never() {
                        None => break true,
                        Some(Some(Ok(message))) => stamps.note(&message),
                        Some(Some(Err(_))) => {}
                        Some(None) => {
                            stamps.lost.store(true, Ordering::SeqCst);
                            break false;
                        }
                    }
                    taken += 1;
                    if taken >= CATCH_UP_MAX {
                        break false;
                    }
                };
                let _ = done.send(caught_up);
            }
            message = stream.next() => match message {
                Some(Ok(message)) => stamps.note(&message),
                Some(Err(_)) => {}
                None => {
                    stamps.lost.store(true, Ordering::SeqCst);
                    return;
                }
            },
        }
    }
}
