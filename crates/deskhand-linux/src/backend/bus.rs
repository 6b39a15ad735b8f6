//! The accessibility bus as every display server's backend shares it: one connection, made on
//! first use; the walk's settings; and how each window's extents map to the screen, learned
//! when its frame is matched.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{Tree, WindowInfo};
use deskhand_core::render::escape;
use tokio::sync::OnceCell;

use super::errors::atspi_error;
use super::frames::{Origin, match_frame, offset_of, popups_over, scale_of};
use crate::atspi::live::{Heard, LiveTrees, Mark, Reader, WalkedWindow};
use crate::atspi::{Application, Atspi, Frame, ObjectRef, WalkLimits, WalkStyle};
use crate::doctor::{BusFacts, OffTheBus, ProcessFacts, joins_by_itself};

/// A D-Bus call to one accessible object.
pub(super) const CALL_TIMEOUT: Duration = Duration::from_millis(1500);

/// A responsive application answers a state read well within this; one that does not is busy
/// or blocked.
const ANSWER_PROBE: Duration = Duration::from_millis(300);

/// How long after registering as an accessibility listener synthetic input waits.
const LISTENER_SETTLE: Duration = Duration::from_millis(500);

/// How long an app that is still starting is waited for to show its window on the bus, within
/// one call.
const REGISTRATION_WAIT: Duration = Duration::from_secs(6);
/// A process younger than this whose window is not on the bus yet may still be joining it.
const STARTING: Duration = Duration::from_secs(20);
const REGISTRATION_POLL: Duration = Duration::from_millis(150);
/// Each question the verdict on an app off the bus asks the session bus.
const VERDICT_PROBE: Duration = Duration::from_millis(800);

/// What a window's frame was not found for.
enum Missing {
    /// Its process is not registered on the accessibility bus.
    Unregistered,
    /// Its process is registered, but none of its frames is this window.
    Frame,
}

impl Missing {
    fn reason(&self, pid: u32) -> String {
        match self {
            Missing::Unregistered => {
                format!("process {pid} is not registered on the accessibility bus")
            }
            Missing::Frame => format!("none of process {pid}'s accessible frames matches it"),
        }
    }

    fn not_yet(&self) -> &'static str {
        match self {
            Missing::Unregistered => "had not registered on it",
            Missing::Frame => "had not shown this window on it",
        }
    }
}

/// The doctor's verdict on process `pid`, off the bus: the same one `deskhand doctor` gives.
async fn off_the_bus(facts: &ProcessFacts, pid: u32) -> OffTheBus {
    let enabled = crate::doctor::accessibility_status(VERDICT_PROBE)
        .await
        .ok()
        .and_then(|status| status.enabled);
    let app_on_session_bus = crate::doctor::on_session_bus(pid, VERDICT_PROBE).await.ok();
    let ours = std::env::var("DBUS_SESSION_BUS_ADDRESS").ok();
    crate::doctor::off_the_bus(
        facts,
        BusFacts {
            enabled,
            our_session_bus: ours.as_deref(),
            app_on_session_bus,
        },
    )
}

/// A window's accessible frame, matched among its process's frames.
pub(super) struct Matched {
    pub frame: Frame,
    pub app: Application,
    /// The popups of the same application that show over the window (see [`popups_over`]).
    pub popups: Vec<Frame>,
}

impl Matched {
    /// The matched frame with how its extents map to the screen.
    pub(super) fn placed(self, origin: Origin) -> Placed {
        Placed {
            frame: self.frame,
            origin,
            popups: self.popups,
        }
    }
}

/// Where a window's tree comes from: its frame, how the frame's extents map to the screen, and
/// the popups over it.
pub(super) struct Placed {
    pub frame: Frame,
    pub origin: Origin,
    pub popups: Vec<Frame>,
}

#[derive(Default)]
pub(super) struct Bus {
    atspi: OnceCell<Arc<Atspi>>,
    /// Reads every element one call at a time instead of starting from the applications' caches.
    uncached: AtomicBool,
    /// X window → how its toolkit's extents map to the screen, learned when its frame is matched.
    origins: Mutex<HashMap<u64, Origin>>,
    /// Keeps observed windows' trees while their applications send no event.
    keeps_live_trees: AtomicBool,
    live: LiveTrees,
}

impl Bus {
    pub(super) fn read_without_cache(&self) {
        self.uncached.store(true, Ordering::Relaxed);
    }

    pub(super) fn keep_live_trees(&self) {
        self.keeps_live_trees.store(true, Ordering::Relaxed);
    }

    /// The live trees, when kept: never beside the plain reader, the reference of every read.
    fn live(&self) -> Option<&LiveTrees> {
        (self.keeps_live_trees.load(Ordering::Relaxed) && !self.uncached.load(Ordering::Relaxed))
            .then_some(&self.live)
    }

    /// Observes answered from a live tree so far.
    pub(super) fn live_answers(&self) -> usize {
        self.live.answered()
    }

    /// `window`'s live tree, brought up to date with what its applications' events name;
    /// `None` when it is to be walked.
    pub(super) async fn live_tree(
        &self,
        window: &WindowInfo,
        unplaced: bool,
        reader: Reader,
    ) -> Option<Tree> {
        let live = self.live()?;
        live.current(self.atspi().await.ok()?, window, unplaced, reader)
            .await
    }

    /// The lock every reading of `window`'s tree holds while live trees are kept.
    pub(super) fn reading(&self, window: &WindowInfo) -> Option<Arc<tokio::sync::Mutex<()>>> {
        self.live().map(|live| live.reading(window.handle))
    }

    /// The applications' events, for reading changed windows between observes; `None` when
    /// live trees are not kept.
    pub(super) async fn heard(&self) -> Option<Heard> {
        let live = self.live()?;
        live.heard(self.atspi().await.ok()?).await
    }

    /// The kept windows to read again between observes now (see [`LiveTrees::to_read_between`]).
    pub(super) fn to_read_between(&self) -> Vec<u64> {
        self.live()
            .map(LiveTrees::to_read_between)
            .unwrap_or_default()
    }

    /// Kept trees patched so far, for an observe or between observes.
    pub(super) fn live_patches(&self) -> usize {
        self.live.patched()
    }

    /// Where a walk of `window` starts in the applications' events, to keep its tree after.
    pub(super) async fn live_mark(&self) -> Option<Mark> {
        let live = self.live()?;
        live.mark(self.atspi().await.ok()?).await
    }

    /// Keeps the tree a walk from `mark` read (or forgets the window's, `None`: the walk failed
    /// or its tree is not to be kept).
    pub(super) async fn keep_tree(
        &self,
        window: &WindowInfo,
        unplaced: bool,
        (mark, reader): (Mark, Reader),
        read: Option<&Read>,
    ) {
        let (Some(live), Ok(atspi)) = (self.live(), self.atspi().await) else {
            return;
        };
        match read {
            Some(read) => live.keep(
                atspi,
                window,
                WalkedWindow {
                    unplaced,
                    style: read.style,
                    links: &read.links,
                    tree: &read.tree,
                },
                (mark, reader),
            ),
            None => live.forget(window),
        }
    }

    pub(super) async fn atspi(&self) -> Result<&Arc<Atspi>> {
        self.atspi
            .get_or_try_init(|| async { Atspi::connect(CALL_TIMEOUT).await.map(Arc::new) })
            .await
            .map_err(atspi_error)
    }

    /// D-Bus calls made so far.
    pub(super) fn calls(&self) -> usize {
        self.atspi.get().map_or(0, |atspi| atspi.calls())
    }

    /// Chromium crashes when input reaches it while it takes in a new accessibility listener;
    /// synthetic input waits until this connection's registration is a moment old.
    pub(super) async fn settle_listener(&self) {
        let Some(atspi) = self.atspi.get() else {
            return;
        };
        let youngest = [atspi.listening_for(), self.live.registered_for()]
            .into_iter()
            .flatten()
            .min();
        if let Some(age) = youngest
            && age < LISTENER_SETTLE
        {
            tokio::time::sleep(LISTENER_SETTLE - age).await;
        }
    }

    /// The applications on the bus that own `window`; none when unknown.
    pub(super) async fn applications_of(&self, window: &WindowInfo) -> Vec<Application> {
        let (Some(pid), Ok(atspi)) = (window.pid, self.atspi().await) else {
            return Vec::new();
        };
        atspi.applications_of(Some(pid)).await.unwrap_or_default()
    }

    /// Whether every application that owns `window` answers a state read at once.
    pub(super) async fn answers(&self, window: &WindowInfo) -> bool {
        let Ok(atspi) = self.atspi().await else {
            return false;
        };
        let apps = self.applications_of(window).await;
        let probes = apps
            .iter()
            .map(|app| atspi.answers(&app.root.bus, ANSWER_PROBE));
        let answers = futures::future::join_all(probes).await;
        !answers.is_empty() && answers.into_iter().all(|answered| answered)
    }

    /// The accessible frame that is `window` among its process's frames, told apart from the
    /// process's other windows in `listed` (the display server's list). An app that is still
    /// starting is waited for, a while, to show the window on the bus; one that cannot is told
    /// apart from one that is not there yet, and says why, as the doctor would.
    pub(super) async fn matched_frame(
        &self,
        window: &WindowInfo,
        listed: Vec<WindowInfo>,
    ) -> Result<Matched> {
        let title = escape(&window.title);
        let no_tree = |why: String| {
            Error::window_without_tree(format!(
                "the window \"{title}\" exposes no accessibility tree ({why}); use `screenshot` or `zoom` and act with x/y, and run `deskhand doctor` to see why"
            ))
        };
        let pid = window
            .pid
            .ok_or_else(|| no_tree("it does not say which process owns it".into()))?;
        let waited_until = tokio::time::Instant::now() + REGISTRATION_WAIT;
        let mut facts = None;
        loop {
            let missing = match self.try_match(window, &listed, pid, &title).await? {
                Ok(matched) => return Ok(matched),
                Err(missing) => missing,
            };
            let facts = facts.get_or_insert_with(|| crate::doctor::process(pid));
            let verdict = match (&missing, facts.as_ref()) {
                (Missing::Unregistered, Some(facts)) => Some(off_the_bus(facts, pid).await),
                _ => None,
            };
            let kept_off = matches!(
                verdict,
                Some(OffTheBus::Kept { .. } | OffTheBus::NoAccessibility)
            );
            let age = crate::process::age(pid);
            let starting = age.is_some_and(|age| age < STARTING)
                && facts
                    .as_ref()
                    .is_some_and(|facts| joins_by_itself(facts.toolkit));
            if !starting || kept_off {
                let error = no_tree(missing.reason(pid));
                return Err(match verdict.as_ref().and_then(OffTheBus::one_line) {
                    Some(why) if kept_off => error.with_missing_bridge(why),
                    _ => error,
                });
            }
            if tokio::time::Instant::now() >= waited_until {
                return Err(Error::new(
                    ErrorKind::Timeout,
                    format!(
                        "the window \"{title}\" is not on the accessibility bus yet: its process {pid} started {} s ago and {} within {} s; observe it again in a moment (if it never shows, `deskhand doctor` says why)",
                        age.unwrap_or_default().as_secs(),
                        missing.not_yet(),
                        REGISTRATION_WAIT.as_secs()
                    ),
                ));
            }
            tokio::time::sleep(REGISTRATION_POLL).await;
        }
    }

    /// One look for `window`'s frame: the frame, or what is missing.
    async fn try_match(
        &self,
        window: &WindowInfo,
        listed: &[WindowInfo],
        pid: u32,
        title: &str,
    ) -> Result<std::result::Result<Matched, Missing>> {
        let atspi = self.atspi().await?;
        let apps: Vec<Application> = atspi
            .applications_of(Some(pid))
            .await
            .map_err(atspi_error)?;
        if apps.is_empty() {
            // A process that has just ended left the bus before the display server took its
            // windows away: that window is going, not one to read from its pixels.
            if crate::process::read_stat(pid).is_none_or(|stat| stat.is_dead()) {
                return Err(Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "the process {pid} of the window \"{title}\" has ended, so the window is going away; call `windows`"
                    ),
                ));
            }
            return Ok(Err(Missing::Unregistered));
        }
        if apps.iter().all(|app| !app.answering) {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "the application of the window \"{title}\" (process {pid}) did not answer the accessibility bus within {} ms; it may be busy or hung: try again, or use `screenshot` and act with x/y",
                    CALL_TIMEOUT.as_millis()
                ),
            ));
        }
        let apps: Vec<Application> = apps.into_iter().filter(|app| app.answering).collect();
        let mut frames: Vec<(Frame, &Application)> = Vec::new();
        for (app, result) in apps
            .iter()
            .zip(futures::future::join_all(apps.iter().map(|app| atspi.frames(app))).await)
        {
            frames.extend(result.map_err(atspi_error)?.into_iter().map(|f| (f, app)));
        }
        let siblings: Vec<WindowInfo> = listed
            .iter()
            .filter(|w| w.pid == Some(pid))
            .map(|w| WindowInfo {
                focused: false,
                ..w.clone()
            })
            .collect();
        let Some(chosen) = match_frame(window, &siblings, &frames) else {
            return Ok(Err(Missing::Frame));
        };
        let popups = popups_over(window, chosen, &frames);
        let (frame, app) = &frames[chosen];
        Ok(Ok(Matched {
            frame: frame.clone(),
            app: (*app).clone(),
            popups,
        }))
    }

    /// Keeps how `window`'s extents map to the screen, for the element calls that follow.
    pub(super) fn remember(&self, window: &WindowInfo, origin: Origin) {
        self.origins
            .lock()
            .expect("not poisoned")
            .insert(window.handle, origin);
    }

    /// How `window`'s extents map to the screen, as last learned.
    pub(super) fn origin_known(&self, window: &WindowInfo) -> Option<Origin> {
        self.origins
            .lock()
            .expect("not poisoned")
            .get(&window.handle)
            .copied()
    }

    /// The tree of a placed window, with the popups open over it as part of what it shows.
    pub(super) async fn tree(&self, placed: Placed, window: &WindowInfo) -> Result<Read> {
        let atspi = self.atspi().await?;
        let style = WalkStyle {
            offset: offset_of(placed.origin, window),
            scale: scale_of(placed.origin),
            // Window-relative extents and toplevel-only Showing come together: GTK4.
            showing_reliable: !matches!(placed.origin, Origin::Window { .. }),
            use_cache: !self.uncached.load(Ordering::Relaxed),
        };
        let limits = WalkLimits::default();
        let mut walked = atspi
            .tree(&placed.frame.object, style, limits)
            .await
            .map_err(atspi_error)?;
        // An open popup's items are listed, found and selected like the window's own. One that
        // closed while it was read is left out.
        for popup in placed.popups {
            if let Ok(popup) = atspi.tree(&popup.object, style, limits).await {
                walked.root.children.push(popup.root);
            }
        }
        Ok(Read {
            tree: Tree {
                root: walked.root,
                partial: walked.partial,
            },
            style,
            links: walked.links,
        })
    }
}

/// A window's tree, and what a live tree needs to read parts of it again.
pub(super) struct Read {
    pub tree: Tree,
    pub style: WalkStyle,
    /// The elements that are hyperlinks.
    pub links: HashSet<ObjectRef>,
}
