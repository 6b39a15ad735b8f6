//! The applications' accessibility events, heard on the connection the walks use: each event
//! only stamps its sender with a sequence number. Nothing is asked of an app in answer to an
//! event, so listening can never start a loop of reads and events in an app.

use std::collections::HashMap;
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

/// Who sent the last event, in order.
#[derive(Default)]
struct Stamps {
    /// Bus name → sequence number of its latest event.
    last: Mutex<HashMap<String, u64>>,
    next: AtomicU64,
    /// The stream ended: from then on no silence can be trusted.
    lost: AtomicBool,
    /// (bus name, object path) → the body of its latest `BoundsChanged`, which carries the new
    /// extents whole. GTK 3 sends one for every size allocation, and an animated widget (a
    /// spinner, a pulsing progress bar) is allocated at every frame with the same extents: a
    /// repeat changes nothing.
    bounds: Mutex<HashMap<(String, String), Vec<u8>>>,
}

impl Stamps {
    fn note(&self, message: &zbus::Message) {
        let header = message.header();
        let Some(sender) = header.sender() else {
            return;
        };
        if header
            .member()
            .is_some_and(|member| member == "BoundsChanged")
            && let Some(path) = header.path()
            && self.repeats_bounds(sender.to_string(), path.to_string(), message)
        {
            return;
        }
        let stamp = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        self.last
            .lock()
            .expect("not poisoned")
            .insert(sender.to_string(), stamp);
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

    pub(super) fn registered_for(&self) -> Duration {
        self.registered_at.elapsed()
    }

    /// Whether none of `buses` has sent an event since `mark`. Each application is first
    /// asked its root's states: D-Bus keeps one sender's messages in order, and the toolkits
    /// answer that call on the thread that makes their changes and sends their events (unlike
    /// `Peer.Ping`, which GDBus and QtDBus answer on a thread of their own), so every event
    /// the app sent before it answered is on this connection before the answer, and is taken
    /// before the verdict.
    pub(super) async fn silent_since(&self, atspi: &Atspi, buses: &[String], mark: u64) -> bool {
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
            return false;
        }
        let (done, caught_up) = oneshot::channel();
        if self.catch_up.send(done).await.is_err() {
            return false;
        }
        let Ok(Ok(true)) = tokio::time::timeout(atspi.call_timeout, caught_up).await else {
            return false;
        };
        if self.stamps.lost.load(Ordering::SeqCst) {
            return false;
        }
        let last = self.stamps.last.lock().expect("not poisoned");
        buses
            .iter()
            .all(|bus| last.get(bus).is_none_or(|stamp| *stamp <= mark))
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
