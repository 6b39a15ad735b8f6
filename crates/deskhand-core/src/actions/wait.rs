//! `wait`: look again and again, changing nothing, until every condition holds or time is up.
//! A read that fails ends the wait with its error: a failed read is never taken as absence.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Check, Condition, Conditions, DEFAULT_INTERVAL_MS,
    DEFAULT_WAIT_MS, ElementMatch, Given, MAX_CONDITIONS, MAX_INTERVAL_MS, MAX_WAIT_MS,
    MIN_INTERVAL_MS, Reaches, TargetId, WaitSpec,
};
use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::control::{Control, Progress};
use crate::coords::region_to_rect;
use crate::desk::answer::{FoundWindow, Waited};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::surface::{Surface, resolve};
use crate::error::{Error, ErrorKind, Result};
use crate::find::SurfaceTrees;
use crate::model::{ElementHandle, Node, Role, WindowKey};
use crate::ocr::{TextReader, read_rect};
use crate::render::{escape, one_line, pick};
use crate::safety::{STOPPED_MESSAGE, in_corner_at};
use crate::session::{Seen, Session};

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Wait,
    text: "wait",
    fields: &["target", "until", "timeout_ms", "interval_ms"],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let (args, target) = (given.args, given.target);
    let conditions = match args.until.clone() {
        None => {
            return Err(Error::bad_argument(
                "`wait` needs `until`: e.g. {\"name\": \"Save\", \"role\": \"button\"}, {\"title\": \"Done\"}, {\"new_window\": true} or {\"stable_ms\": 500}",
            ));
        }
        Some(Conditions::One(one)) => vec![*one],
        Some(Conditions::All(all)) => all,
    };
    if conditions.is_empty() || conditions.len() > MAX_CONDITIONS {
        return Err(Error::bad_argument(format!(
            "`until` has {} conditions; give 1–{MAX_CONDITIONS}",
            conditions.len()
        )));
    }
    let conditions = conditions
        .iter()
        .enumerate()
        .map(|(i, c)| {
            c.validate().map_err(|err| {
                Error::bad_argument(format!("`until` condition {}: {}", i + 1, err.message))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if matches!(target, Some(TargetId::Screen | TargetId::Monitor(_)))
        && conditions
            .iter()
            .any(|c| matches!(c, Condition::TitleContains(_) | Condition::Gone))
    {
        return Err(Error::bad_argument(
            "the screen and its monitors have no title and cannot close; wait on a window (`target` \"wN\")",
        ));
    }
    let timeout_ms = args.timeout_ms.unwrap_or(DEFAULT_WAIT_MS);
    if !(1..=MAX_WAIT_MS).contains(&timeout_ms) {
        return Err(Error::bad_argument(format!(
            "`timeout_ms` is {timeout_ms}; give 1–{MAX_WAIT_MS} (default {DEFAULT_WAIT_MS}); for longer, wait again"
        )));
    }
    let interval_ms = args.interval_ms.unwrap_or(DEFAULT_INTERVAL_MS);
    if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&interval_ms) {
        return Err(Error::bad_argument(format!(
            "`interval_ms` is {interval_ms}; give {MIN_INTERVAL_MS}–{MAX_INTERVAL_MS} (default {DEFAULT_INTERVAL_MS})"
        )));
    }
    Ok(Action::Wait(WaitSpec {
        conditions,
        timeout_ms,
        interval_ms,
    }))
}

/// How long after an action a `new_window` wait still counts the windows it opened.
const RECENT_ACTION_MS: u64 = 60_000;

/// How long since something last changed, for `stable_ms`.
#[derive(Default)]
struct Settling {
    last: Option<u64>,
    since: Option<Instant>,
}

impl Settling {
    /// Records what is there now; returns how long it has been the same.
    fn observe(&mut self, fingerprint: u64, now: Instant) -> Duration {
        if self.last != Some(fingerprint) {
            self.last = Some(fingerprint);
            self.since = Some(now);
        }
        now - self.since.unwrap_or(now)
    }
}

fn fingerprint(value: &impl Hash) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// One look at the surface: whether each condition held, and the lines that show it.
struct Look {
    held: Vec<bool>,
    /// Per condition, what was seen.
    evidence: Vec<String>,
    new_window: Option<String>,
    /// A window a window condition found: the call makes it current.
    window: Option<String>,
}

struct Waiter<'a> {
    surface: Surface,
    /// What reads the text of a window without a tree, and the text a condition waits for.
    reader: Option<&'a TextReader>,
    spec: &'a WaitSpec,
    /// Windows there before the wait began, for `new_window`.
    before: HashSet<WindowKey>,
    /// A ref condition's element, looked up once at the start.
    handles: Vec<Option<ElementHandle>>,
    tree_settling: Settling,
    pixel_settling: Vec<Settling>,
}

pub(crate) async fn wait<B: Windows + Accessibility + Input + Capture>(
    backend: &B,
    session: &mut Session,
    reader: Option<&TextReader>,
    reach: &mut Reach,
    spec: &WaitSpec,
    control: &Control,
) -> Result<Reply> {
    let started = Instant::now();
    let target = reach.target();
    let surface = match reach.surface(backend, session).await {
        Ok(surface) => surface,
        // Waiting for a window to close that is closed already: held at once.
        Err(err)
            if err.kind == ErrorKind::SurfaceGone
                && spec.conditions.iter().all(|c| *c == Condition::Gone) =>
        {
            let gone = target.or(session.current);
            return Ok(Waited {
                held: true,
                elapsed_ms: started.elapsed().as_millis() as u64,
                not_met: None,
                evidence: vec!["the window is gone".to_string()],
                found: None,
                label: gone.map_or_else(|| "the window".to_string(), |t| t.to_string()),
                looks: 1,
            }
            .into());
        }
        // Windows opening anywhere need no particular surface: the current one closing (the
        // last window of an app) does not end such a wait.
        Err(err)
            if err.kind == ErrorKind::SurfaceGone
                && target.is_none()
                && spec
                    .conditions
                    .iter()
                    .all(|c| matches!(c, Condition::NewWindow | Condition::WindowOpen(_))) =>
        {
            resolve(backend, session, Some(TargetId::Screen)).await?
        }
        Err(err) => return Err(err),
    };
    let mut handles = Vec::new();
    for condition in &spec.conditions {
        handles.push(match condition {
            Condition::Element {
                which: ElementMatch::Ref(id),
                ..
            } => Some(session.resolve_ref(*id)?.1.handle.clone()),
            _ => None,
        });
    }
    // A window counts as new if it was not there before the step before this one (in a batch),
    // or before the latest action if that was recent, or else when the wait began.
    let recent_action = session
        .windows_before_action
        .clone()
        .filter(|(_, at)| crate::learn::unix_ms().saturating_sub(*at) <= RECENT_ACTION_MS)
        .map(|(keys, _)| keys);
    let before = match session.windows_before_step.take().or(recent_action) {
        Some(before) => before.into_iter().collect(),
        None => backend.window_keys().await?.into_iter().collect(),
    };
    let mut waiter = Waiter {
        surface,
        reader,
        spec,
        before,
        handles,
        tree_settling: Settling::default(),
        pixel_settling: spec
            .conditions
            .iter()
            .map(|_| Settling::default())
            .collect(),
    };
    let timeout = Duration::from_millis(u64::from(spec.timeout_ms));
    let interval = Duration::from_millis(u64::from(spec.interval_ms));
    let label = waiter.surface.label.clone();
    let mut looks = 0u32;
    let mut reported = 0u64;
    loop {
        let pointer = backend.pointer().await?;
        if in_corner_at(pointer, backend.corner().await) {
            session.stopped = true;
            return Err(Error::new(
                ErrorKind::Stopped,
                format!(
                    "the wait on {label} stopped after {:.1} s: {STOPPED_MESSAGE}",
                    started.elapsed().as_secs_f64()
                ),
            ));
        }
        if let Some(takeover) = crate::safety::person_at_desk(backend) {
            session.taken_over = true;
            return Err(Error::new(
                ErrorKind::Stopped,
                format!(
                    "the wait on {label} stopped after {:.1} s: {}",
                    started.elapsed().as_secs_f64(),
                    takeover.sentence()
                ),
            ));
        }
        let look = waiter.look(backend, session).await?;
        looks += 1;
        let elapsed = started.elapsed();
        if look.held.iter().all(|h| *h) {
            // Waiting for a window means working in it next.
            if let Some(id) = look.window.as_deref().and_then(|w| TargetId::parse(w).ok()) {
                session.current = Some(id);
            }
            return Ok(Waited {
                held: true,
                elapsed_ms: elapsed.as_millis() as u64,
                not_met: None,
                evidence: look.evidence,
                found: Some(FoundWindow {
                    new_window: look.new_window,
                    window: look.window,
                }),
                label,
                looks,
            }
            .into());
        }
        if elapsed >= timeout {
            return Ok(timed_out(label, elapsed, looks, spec, look).into());
        }
        let seconds = elapsed.as_secs();
        if seconds >= 1 && seconds > reported {
            reported = seconds;
            control.report(Progress {
                done: seconds as u32,
                total: Some(spec.timeout_ms.div_ceil(1000)),
                message: format!(
                    "waiting on {label}: {seconds} s of {:.1} s",
                    f64::from(spec.timeout_ms) / 1000.0
                ),
            });
        }
        let pause = interval.min(timeout.saturating_sub(elapsed));
        if !control.sleep(pause).await {
            return Err(Error::new(
                ErrorKind::Cancelled,
                format!(
                    "the wait on {label} was cancelled after {:.1} s and {looks} looks; nothing was changed",
                    elapsed.as_secs_f64()
                ),
            ));
        }
    }
}

impl Waiter<'_> {
    async fn look<B: Windows + Accessibility + Capture>(
        &mut self,
        backend: &B,
        session: &mut Session,
    ) -> Result<Look> {
        let now = Instant::now();
        let conditions = &self.spec.conditions;
        let mut look = Look {
            held: Vec::with_capacity(conditions.len()),
            evidence: Vec::with_capacity(conditions.len()),
            new_window: None,
            window: None,
        };
        // A window that is gone holds `gone` and fails every other condition with an error.
        let live = match &self.surface.window {
            Some(window) => {
                let live = backend
                    .window(window.handle)
                    .await?
                    .filter(|w| w.pid == window.pid);
                if live.is_none() {
                    if conditions.iter().all(|c| *c == Condition::Gone) {
                        look.held = vec![true; conditions.len()];
                        look.evidence = vec![format!("{} is gone", self.surface.label)];
                        return Ok(look);
                    }
                    return Err(Error::new(
                        ErrorKind::SurfaceGone,
                        format!(
                            "{} closed while waiting; call `windows` and wait on another window",
                            self.surface.label
                        ),
                    ));
                }
                live
            }
            None => None,
        };
        let needs_tree = conditions
            .iter()
            .any(|c| matches!(c, Condition::Element { .. } | Condition::TreeStable { .. }));
        let trees = if needs_tree {
            let mut surface = self.surface.clone();
            if let Some(window) = &live {
                surface.rect = window.bounds;
                surface.window = Some(window.clone());
            }
            Some(SurfaceTrees::of(backend, session, self.reader, surface).await?)
        } else {
            None
        };
        let partial = trees.as_ref().is_some_and(|t| {
            t.trees.iter().any(|(_, tree)| tree.partial.is_some()) || !t.unreadable.is_empty()
        });
        for (index, condition) in conditions.iter().enumerate() {
            let (held, evidence) = match condition {
                Condition::Gone => (false, format!("{} is still open", self.surface.label)),
                Condition::TitleContains(text) => {
                    let title = live.as_ref().map(|w| w.title.as_str()).unwrap_or_default();
                    (
                        title.to_lowercase().contains(&text.to_lowercase()),
                        format!("title \"{}\"", escape(title)),
                    )
                }
                Condition::WindowOpen(text) => {
                    let windows = backend.windows().await?;
                    let wanted = text.to_lowercase();
                    match windows
                        .iter()
                        .rev()
                        .find(|w| w.title.to_lowercase().contains(&wanted))
                    {
                        Some(window) => {
                            let id = format!("w{}", session.window_id(window.key()));
                            let line = format!("window {id} \"{}\"", escape(&window.title));
                            look.window = Some(id);
                            (true, line)
                        }
                        None => (
                            false,
                            format!("no open window's title contains \"{}\"", escape(text)),
                        ),
                    }
                }
                Condition::NewWindow => {
                    let windows = backend.windows().await?;
                    match windows
                        .iter()
                        .rev()
                        .find(|w| !self.before.contains(&w.key()))
                    {
                        Some(window) => {
                            let id = format!("w{}", session.window_id(window.key()));
                            let line = format!("new window {id} \"{}\"", escape(&window.title));
                            look.new_window = Some(id.clone());
                            look.window = Some(id);
                            (true, line)
                        }
                        None => (false, "no new window".to_string()),
                    }
                }
                Condition::PixelsStable { region, ms } => {
                    let base = match live.as_ref() {
                        Some(window) => {
                            crate::desk::surface::window_pixels(backend, window).await?
                        }
                        None => self.surface.rect,
                    };
                    let rect = region_to_rect(&base, *region)?;
                    let image = backend.capture(rect).await?;
                    let same_for =
                        self.pixel_settling[index].observe(fingerprint(&image.data), now);
                    (
                        same_for >= Duration::from_millis(u64::from(*ms)),
                        format!("pixels unchanged for {} ms", same_for.as_millis()),
                    )
                }
                Condition::TextShown { text, absent } => {
                    let Some(reader) = self.reader else {
                        return Err(Error::new(
                            ErrorKind::Unsupported,
                            "waiting for `text` reads the surface's pixels, and this build has no text reader (OCR); wait on an element's `name` instead",
                        ));
                    };
                    let rect = match live.as_ref() {
                        Some(window) => {
                            crate::desk::surface::window_pixels(backend, window).await?
                        }
                        None => self.surface.rect,
                    };
                    let groups = read_rect(backend, reader, rect).await?;
                    let wanted = crate::text::normalize(text);
                    let shown = groups
                        .iter()
                        .find(|g| crate::text::normalize(&g.text).contains(&wanted));
                    let evidence = match shown {
                        Some(group) => format!("text \"{}\" on the pixels", escape(&group.text)),
                        None => format!(
                            "no text on the pixels contains \"{}\" ({} read)",
                            escape(text),
                            crate::render::plural(groups.len(), "word group", "word groups")
                        ),
                    };
                    (shown.is_some() != *absent, evidence)
                }
                Condition::TreeStable { ms } => {
                    let trees = trees.as_ref().expect("read above");
                    let labelled = trees.labelled(session);
                    let seen = pick(&labelled, &trees.surface.rect, &|_| false, session).seen;
                    let same_for = self
                        .tree_settling
                        .observe(fingerprint(&SeenList(&seen)), now);
                    (
                        same_for >= Duration::from_millis(u64::from(*ms)) && !partial,
                        format!("tree unchanged for {} ms", same_for.as_millis()),
                    )
                }
                Condition::Element { which, check } => {
                    let trees = trees.as_ref().expect("read above");
                    let handle = self.handles[index].as_ref();
                    // A new read may name the element anew (Qt's tree view cells): it is found by what
                    // tells it apart.
                    let names =
                        |node: &Node| handle.is_none_or(|h| node.handle.identity() == h.identity());
                    let holds = |node: &Node| names(node) && check_holds(check, node);
                    let found = match which {
                        ElementMatch::Find(find) => match check {
                            Check::Absent => trees.matching(session, find, &|_| true),
                            _ => trees.matching(session, find, &holds),
                        },
                        ElementMatch::Ref(_) => {
                            let labelled = trees.labelled(session);
                            let accept: &dyn Fn(&Node) -> bool = match check {
                                Check::Absent => &names,
                                _ => &holds,
                            };
                            pick(&labelled, &trees.surface.rect, accept, session)
                        }
                    };
                    for (number, entry) in &found.refs {
                        session.adopt(trees.surface.key, &trees.surface.label, *number, entry);
                    }
                    let what = describe(which, check);
                    match check {
                        // An incomplete tree cannot prove that something is not there.
                        Check::Absent if found.elements.is_empty() && !partial => {
                            (true, format!("no shown element is {what}"))
                        }
                        Check::Absent if found.elements.is_empty() => (
                            false,
                            format!("the tree was incomplete, so {what} may still be there"),
                        ),
                        Check::Absent => (false, found.body.trim_end().to_string()),
                        _ if found.elements.is_empty() => {
                            (false, last_seen(trees, session, which, &what))
                        }
                        _ => (true, found.body.trim_end().to_string()),
                    }
                }
            };
            look.held.push(held);
            look.evidence.push(evidence);
        }
        Ok(look)
    }
}

/// `Seen` has no `Hash`; the fields a line shows are what stability is about.
struct SeenList<'a>(&'a [Seen]);

impl Hash for SeenList<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for seen in self.0 {
            (&seen.key, seen.depth, &seen.name, &seen.value, &seen.states).hash(state);
        }
    }
}

fn check_holds(check: &Check, node: &Node) -> bool {
    let value = node.value.as_deref().unwrap_or_default();
    match check {
        Check::Present | Check::Absent => true,
        Check::Enabled => node.states.enabled,
        Check::Focused => node.states.focused,
        Check::ValueEquals(wanted) => node.value.is_some() && value.trim() == wanted.trim(),
        Check::ValueNot(old) => node.value.is_some() && value.trim() != old.trim(),
        Check::ValueHas(part) => {
            node.role != Role::Password
                && value.to_lowercase().contains(&part.trim().to_lowercase())
        }
    }
}

fn describe(which: &ElementMatch, check: &Check) -> String {
    let element = match which {
        ElementMatch::Ref(id) => id.to_string(),
        ElementMatch::Find(find) => find.to_string(),
    };
    match check {
        Check::Present | Check::Absent => element,
        Check::Enabled => format!("{element} enabled"),
        Check::Focused => format!("{element} focused"),
        Check::ValueEquals(v) => format!(
            "{element} with a value exactly \"{}\" (`value_has` matches a part)",
            escape(v)
        ),
        Check::ValueHas(v) => format!("{element} with a value containing \"{}\"", escape(v)),
        Check::ValueNot(v) => format!("{element} with a value other than \"{}\"", escape(v)),
    }
}

/// What the elements a failed condition names look like now, without its check.
fn last_seen(
    trees: &SurfaceTrees,
    session: &mut Session,
    which: &ElementMatch,
    what: &str,
) -> String {
    let found = match which {
        ElementMatch::Find(find) => trees.matching(session, find, &|_| true),
        ElementMatch::Ref(id) => {
            let handle = session.resolve_ref(*id).ok().map(|(_, e)| e.handle.clone());
            let labelled = trees.labelled(session);
            pick(
                &labelled,
                &trees.surface.rect,
                &|node: &Node| handle.as_ref() == Some(&node.handle),
                session,
            )
        }
    };
    if found.elements.is_empty() {
        format!("no shown element is {what}")
    } else {
        found.body.trim_end().to_string()
    }
}

fn timed_out(label: String, elapsed: Duration, looks: u32, spec: &WaitSpec, look: Look) -> Waited {
    let unmet: Vec<String> = spec
        .conditions
        .iter()
        .zip(&look.held)
        .filter(|(_, held)| !**held)
        .map(|(condition, _)| one_line(&condition_text(condition)))
        .collect();
    Waited {
        held: false,
        elapsed_ms: elapsed.as_millis() as u64,
        not_met: Some(unmet),
        evidence: look.evidence,
        found: None,
        label,
        looks,
    }
}

fn condition_text(condition: &Condition) -> String {
    match condition {
        Condition::Element { which, check } => match check {
            Check::Absent => format!("{} absent", describe(which, check)),
            _ => describe(which, check),
        },
        Condition::TitleContains(text) => format!("title containing \"{}\"", escape(text)),
        Condition::WindowOpen(text) => format!("a window titled with \"{}\"", escape(text)),
        Condition::NewWindow => "a new window".into(),
        Condition::Gone => "the window gone".into(),
        Condition::TreeStable { ms } => format!("the tree unchanged for {ms} ms"),
        Condition::PixelsStable { ms, .. } => format!("the region's pixels unchanged for {ms} ms"),
        Condition::TextShown { text, absent } => format!(
            "\"{}\" {} the pixels",
            escape(text),
            if *absent { "gone from" } else { "shown on" }
        ),
    }
}
