//! Writing a recording as calls happen. The caller hooks it around the executor: [`Recorder::begin`]
//! before the call (what the named elements are, the screen before), [`Recorder::finish`] after
//! (the reply, the step line, the screen after, taken in the background).
//!
//! An action never waits for a screenshot: its "before" is the latest capture whose pixels were
//! already in hand when it began, and the step says when that was. A capture still looking at
//! its window when an action begins stops there and keeps its last look taken before it, since
//! a look from then on might show what the action did.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;

use deskhand_core::action::RefId;
use deskhand_core::model::{Rect, RgbImage, WindowInfo, WindowKey};
use deskhand_core::session::element_key;
use deskhand_core::{Backend, Error, Reply, Session};

use crate::RecordError;
use crate::format::{
    Acted, Ancestor, FORMAT_VERSION, MANIFEST, Manifest, Redacted, SHOTS, STEPS, Shot, Step,
    WindowSeen, read_manifest,
};
use crate::identity::{collect_refs, redact, redact_marked, redact_unsent};
use crate::shots::{self, Looking};

mod writer;
use writer::{After, Job, write_steps};

/// Disk a recording may take unless told otherwise.
pub const DEFAULT_CAP_BYTES: u64 = 500 * 1024 * 1024;

/// How long the writing of a step and the asking about its windows wait, so they do not take
/// the processor from the reply the call is still delivering.
const AFTER_REPLY: Duration = Duration::from_millis(20);

/// How long a capture an action cut short waits before it is encoded, so the encoding does not
/// take a core from the action: a click by ref takes a few ms, a `find` or a launch longer.
const AFTER_ACTION: Duration = Duration::from_millis(50);

/// Calls that show nothing on the screen worth a capture after them.
const NOTHING_TO_SEE: &[&str] = &["apps", "windows", "recall", "forget", "clipboard", "read"];

/// Writes every call of one session into a folder. Cheap to clone: clones share the folder.
#[derive(Clone)]
pub struct Recorder {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    cap: u64,
    state: Mutex<State>,
    /// The thread that serializes and appends steps, in order, off the call's path.
    writer: Mutex<std::sync::mpsc::Sender<Job>>,
    /// Background captures not yet written.
    tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

struct State {
    next: usize,
    used: u64,
    stopped: bool,
    screen: Option<Rect>,
    /// The window the latest call concerned: a call that names none is shown in the same place.
    region: Option<Rect>,
    /// The latest capture whose pixels are in hand: the next action's "before", unless a
    /// capture still looking has a later look.
    last: Option<Shot>,
    /// "After" captures still looking at their window: the next action stops each, so none
    /// shows what the action did.
    pending: Vec<Pending>,
    /// The pixels of the latest capture and where they were taken: what a later capture
    /// compares with to see whether its action has drawn yet.
    seen: Option<(Rect, Arc<RgbImage>)>,
    /// What each window was when last asked (app, title, bounds), refreshed after each call
    /// off its path: a call asks the window system only for a window it has not seen.
    windows: HashMap<WindowKey, WindowInfo>,
    /// Why the writer thread could not append a step; the next reply says so.
    failed: Option<String>,
}

/// An "after" capture still looking at its window.
struct Pending {
    shot: Shot,
    looking: Arc<Looking>,
}

/// What [`Recorder::begin`] learned, for [`Recorder::finish`].
pub struct Begun {
    started: Instant,
    at_ms: u64,
    action: String,
    actuates: bool,
    args: Value,
    elements: Vec<Acted>,
    window: Option<WindowSeen>,
    redacted: Vec<Redacted>,
    before: Option<Shot>,
    /// The step of the recording a replay reran with this call.
    replays: Option<usize>,
    screen: Option<Rect>,
    /// The window the call concerns, where its screenshots are taken.
    region: Option<Rect>,
    /// The windows the call named, asked again after it.
    windows: Vec<WindowKey>,
    skip: bool,
}

impl Begun {
    /// Marks the call as a replay's rerun of the recording's step `step`.
    pub fn replaying(mut self, step: usize) -> Self {
        self.replays = Some(step);
        self
    }
}

impl Recorder {
    /// Opens `dir` for recording, creating it, or adding to a recording already there (the
    /// CLI records each call from a process of its own). Refuses a folder it cannot write, a
    /// folder with files that is not a recording, and a recording of a newer format.
    pub fn open(dir: &Path, cap: u64) -> Result<Self, RecordError> {
        Self::open_for(dir, cap, None)
    }

    /// Opens `dir` to record a replay of the recording `original`, which its manifest names, so
    /// the report sets each rerun step beside the step it reran.
    pub fn open_replay(dir: &Path, cap: u64, original: &Path) -> Result<Self, RecordError> {
        let original = std::path::absolute(original).unwrap_or_else(|_| original.to_owned());
        Self::open_for(dir, cap, Some(original))
    }

    fn open_for(dir: &Path, cap: u64, replay_of: Option<PathBuf>) -> Result<Self, RecordError> {
        let not_writable = |source| RecordError::NotWritable {
            dir: dir.to_owned(),
            source,
        };
        std::fs::create_dir_all(dir.join(SHOTS)).map_err(not_writable)?;
        let manifest_path = dir.join(MANIFEST);
        let (next, last) = if manifest_path.exists() {
            read_manifest(dir)?;
            let steps = crate::Recording::open(dir)?.steps;
            let last = steps.iter().rev().find_map(|s| s.after.clone());
            (steps.len() + 1, last)
        } else {
            let others = std::fs::read_dir(dir)
                .map_err(not_writable)?
                .filter_map(|e| e.ok())
                .any(|e| e.file_name() != SHOTS);
            if others {
                return Err(RecordError::NotARecording {
                    dir: dir.to_owned(),
                    why: "it holds other files; record into an empty or new folder".into(),
                });
            }
            let manifest = Manifest {
                format: FORMAT_VERSION,
                deskhand: env!("CARGO_PKG_VERSION").to_owned(),
                started_ms: unix_ms(),
                replay_of,
            };
            let bytes = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
            std::fs::write(&manifest_path, bytes).map_err(not_writable)?;
            (1, None)
        };
        // Written now, so an unwritable steps file fails here and not at the first call.
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(STEPS))
            .map_err(not_writable)?;
        let used = folder_bytes(dir);
        let (writer, steps) = std::sync::mpsc::channel();
        let inner = Arc::new(Inner {
            dir: dir.to_owned(),
            cap,
            writer: Mutex::new(writer),
            state: Mutex::new(State {
                next,
                used,
                stopped: used >= cap,
                screen: None,
                region: None,
                last,
                pending: Vec::new(),
                seen: None,
                windows: HashMap::new(),
                failed: None,
            }),
            tasks: Mutex::new(Vec::new()),
        });
        let weak = Arc::downgrade(&inner);
        std::thread::Builder::new()
            .name("deskhand-record".into())
            .spawn(move || write_steps(&weak, &steps))
            .map_err(not_writable)?;
        Ok(Self { inner })
    }

    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Before the call runs: what its refs name, whether text is to be kept out, and the
    /// screen as the agent last saw it. `actuates` is whether the call may change the desktop.
    pub async fn begin<B: Backend + 'static>(
        &self,
        backend: &Arc<B>,
        session: &mut Session,
        args: &Value,
        actuates: bool,
    ) -> Begun {
        let started = Instant::now();
        // Marks of calls made without this recorder are not this call's.
        session.take_secret_args();
        session.watch_secrets = true;
        let action = args
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let (stopped, screen) = {
            let state = self.inner.state.lock().expect("recorder state");
            (state.stopped, state.screen)
        };
        let mut begun = Begun {
            started,
            at_ms: unix_ms(),
            action,
            actuates,
            args: args.clone(),
            elements: Vec::new(),
            window: None,
            redacted: Vec::new(),
            before: None,
            replays: None,
            screen,
            region: None,
            windows: Vec::new(),
            skip: stopped,
        };
        if stopped {
            return begun;
        }
        let mut refs = Vec::new();
        collect_refs(args, "", &mut refs);
        for (field, reference) in refs {
            if let Some((acted, key)) =
                identify(&self.inner, backend.as_ref(), session, &field, &reference).await
            {
                begun.elements.push(acted);
                begun.windows.push(key);
            }
        }
        if let Some(target) = args.get("target").and_then(Value::as_str)
            && let Some((window, key)) =
                target_window(&self.inner, backend.as_ref(), session, target).await
        {
            begun.window = Some(window);
            begun.windows.push(key);
        }
        redact(&mut begun.args, "", &begun.elements, &mut begun.redacted);
        let named = begun
            .elements
            .iter()
            .find_map(|e| e.window.as_ref())
            .or(begun.window.as_ref())
            .map(|w| w.bounds);
        begun.region = {
            let mut state = self.inner.state.lock().expect("recorder state");
            if named.is_some() {
                state.region = named;
            }
            state.region
        };
        if actuates {
            begun.before = match self.stop_looking() {
                Some(before) => Some(before),
                // The app a first launch starts has no window yet: the whole screen, often
                // empty, would stand for it.
                None if begun.action == "launch" => None,
                None => self.capture_now(backend, &mut begun).await,
            };
        }
        begun
    }

    /// An action is about to run: every capture still looking stops, keeping its last look
    /// taken before now. The latest capture in hand, which is what the screen was before the
    /// action: its `taken_ms` says how long before.
    fn stop_looking(&self) -> Option<Shot> {
        let mut state = self.inner.state.lock().expect("recorder state");
        let mut before = state.last.clone();
        for pending in std::mem::take(&mut state.pending) {
            let Some(taken_ms) = pending.looking.stop() else {
                continue;
            };
            if before
                .as_ref()
                .is_none_or(|b| b.taken_ms.is_none_or(|t| t <= taken_ms))
            {
                before = Some(Shot {
                    taken_ms: Some(taken_ms),
                    cut_short: true,
                    ..pending.shot
                });
            }
        }
        before
    }

    /// After the call: writes its step (unless the cap was reached, which the reply then says)
    /// and starts the capture of the screen after it. Text the executor typed or set into a
    /// password field (`session` says which) is taken out first.
    pub async fn finish<B: Backend + 'static>(
        &self,
        backend: &Arc<B>,
        mut begun: Begun,
        session: &mut Session,
        reply: &mut Result<Reply, Error>,
    ) {
        let secret = session.take_secret_args();
        if begun.skip {
            return;
        }
        redact_marked(&mut begun.args, &secret, &mut begun.redacted);
        if reply.is_err() {
            redact_unsent(&mut begun.args, &mut begun.redacted);
        }
        let ms = begun.started.elapsed().as_millis() as u64;
        let index = self.inner.state.lock().expect("recorder state").next;
        let found = match &*reply {
            Ok(reply) => self.shown(backend, &mut begun, session, reply).await,
            Err(_) => Vec::new(),
        };
        let wants_after =
            !NOTHING_TO_SEE.contains(&begun.action.as_str()) && (reply.is_ok() || begun.actuates);
        let (after, taken) = if wants_after {
            match self
                .capture_later(backend, &begun, format!("{index:04}.png"))
                .await
            {
                Some((shot, taken)) => (Some(shot), Some(taken)),
                None => (None, None),
            }
        } else {
            (None, None)
        };
        let (outcome, error, text, data) = match &*reply {
            Ok(reply) => (
                serde_json::to_value(reply.outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                None,
                reply.text.clone(),
                reply.data.clone(),
            ),
            Err(err) => (
                "error".to_owned(),
                serde_json::to_value(err.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned)),
                err.reply_text(),
                Value::Null,
            ),
        };
        let step = Step {
            index,
            at_ms: begun.at_ms,
            ms,
            action: begun.action,
            args: begun.args,
            outcome,
            error,
            text,
            data,
            elements: begun.elements,
            found,
            replays: begun.replays,
            window: begun.window,
            before: begun.before,
            after,
            no_after: None,
            redacted: begun.redacted,
        };
        let note = {
            let mut state = self.inner.state.lock().expect("recorder state");
            if let Some(why) = state.failed.take() {
                state.stopped = true;
                Some(format!(
                    "recording to {} stopped at step {index}: writing an earlier step failed ({why}); this call ran and was not recorded",
                    self.inner.dir.display()
                ))
            } else if state.used >= self.inner.cap {
                state.stopped = true;
                Some(format!(
                    "recording to {} stopped at step {index}: it reached its cap of {} MB; this call ran and was not recorded, and no later call will be",
                    self.inner.dir.display(),
                    self.inner.cap / (1024 * 1024)
                ))
            } else {
                state.next += 1;
                None
            }
        };
        match note {
            Some(note) => add_note(reply, &note),
            None => {
                let _ = self
                    .inner
                    .writer
                    .lock()
                    .expect("recorder writer")
                    .send(Job::Step(Box::new(step), taken));
            }
        }
        self.refresh_windows(backend, begun.windows);
    }

    /// What the reply names that the arguments did not: the element a `find` matched (its
    /// ref), and the window a launch opened or an action moved to. The screenshot after the
    /// call shows that window.
    async fn shown<B: Backend + 'static>(
        &self,
        backend: &Arc<B>,
        begun: &mut Begun,
        session: &mut Session,
        reply: &Reply,
    ) -> Vec<Acted> {
        let mut found = Vec::new();
        if begun.args.get("find").is_some()
            && let Some(reference) = reply.data.get("ref").and_then(Value::as_str)
            && let Some((acted, key)) =
                identify(&self.inner, backend.as_ref(), session, "find", reference).await
        {
            found.push(acted);
            begun.windows.push(key);
        }
        let window = match found.first().and_then(|f| f.window.as_ref()) {
            Some(window) => Some(window.bounds),
            None => {
                let named = reply.data.get("window").and_then(Value::as_str);
                match named.and_then(|id| id.strip_prefix('w')?.parse::<u32>().ok()) {
                    Some(number) => match session.window_key(number) {
                        Ok(key) => window_seen(&self.inner, backend.as_ref(), session, key)
                            .await
                            .map(|w| w.bounds),
                        Err(_) => None,
                    },
                    None => None,
                }
            }
        };
        if let Some(window) = window {
            begun.region = Some(window);
            self.inner.state.lock().expect("recorder state").region = Some(window);
        }
        found
    }

    /// Asks again, in the background, what the windows this call named are now, for the
    /// next call that names them.
    fn refresh_windows<B: Backend + 'static>(&self, backend: &Arc<B>, keys: Vec<WindowKey>) {
        if keys.is_empty() {
            return;
        }
        let backend = backend.clone();
        let inner = self.inner.clone();
        self.track(tokio::spawn(async move {
            tokio::time::sleep(AFTER_REPLY).await;
            for key in keys {
                let info = backend.window(key.handle).await.ok().flatten();
                let mut state = inner.state.lock().expect("recorder state");
                match info {
                    Some(info) => state.windows.insert(key, info),
                    None => state.windows.remove(&key),
                };
            }
        }));
    }

    /// Keeps a background task for [`Recorder::flush`], forgetting those already done.
    fn track(&self, task: tokio::task::JoinHandle<()>) {
        let mut tasks = self.inner.tasks.lock().expect("recorder tasks");
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
    }

    /// Writes how each step of the original went in this replay, beside its steps.
    pub fn write_verdicts(&self, verdicts: &[crate::format::Verdict]) -> Result<(), RecordError> {
        let file = self.inner.dir.join(crate::format::VERDICTS);
        let bytes = serde_json::to_vec_pretty(verdicts).expect("verdicts serialize");
        std::fs::write(&file, bytes).map_err(|source| RecordError::Write { file, source })
    }

    /// Waits until every step and capture started so far is written: before the process
    /// ends.
    pub async fn flush(&self) {
        let tasks = std::mem::take(&mut *self.inner.tasks.lock().expect("recorder tasks"));
        for task in tasks {
            let _ = task.await;
        }
        let (done, written) = tokio::sync::oneshot::channel();
        let sent = self
            .inner
            .writer
            .lock()
            .expect("recorder writer")
            .send(Job::Flush(done));
        if sent.is_ok() {
            let _ = written.await;
        }
    }

    /// What a capture takes: the call's window with a margin, on the screen (asked once per
    /// recorder); the whole screen when no window is known.
    async fn area<B: Backend>(
        &self,
        backend: &B,
        known: Option<Rect>,
        region: Option<Rect>,
    ) -> Option<Rect> {
        let screen = match known {
            Some(screen) => screen,
            None => {
                let screen = backend.screen().await.ok()?;
                self.inner.state.lock().expect("recorder state").screen = Some(screen);
                screen
            }
        };
        Some(
            region
                .and_then(|r| shots::around(r, screen))
                .unwrap_or(screen),
        )
    }

    /// A "before" grabbed now, when no earlier capture stands for it; written in the background.
    async fn capture_now<B: Backend + 'static>(
        &self,
        backend: &Arc<B>,
        begun: &mut Begun,
    ) -> Option<Shot> {
        let screen = self
            .area(backend.as_ref(), begun.screen, begun.region)
            .await?;
        let index = self.inner.state.lock().expect("recorder state").next;
        let mut shot = shots::planned(format!("{index:04}-before.png"), screen);
        let image = shots::grab(backend.as_ref(), screen).await?;
        shot.taken_ms = Some(unix_ms());
        let image = Arc::new(image);
        self.inner.state.lock().expect("recorder state").seen = Some((screen, image.clone()));
        let inner = self.inner.clone();
        let planned = shot.clone();
        let task = tokio::task::spawn_blocking(move || inner.write_shot(&planned, image));
        self.track(tokio::spawn(async move {
            let _ = task.await;
        }));
        Some(shot)
    }

    /// The "after" of a call: grabbed once the screen settled, or the last look before the
    /// next action; shrunk and written on the blocking pool. How it went is told to the writer,
    /// which waits for it to write the step.
    async fn capture_later<B: Backend + 'static>(
        &self,
        backend: &Arc<B>,
        begun: &Begun,
        file: String,
    ) -> Option<(Shot, oneshot::Receiver<After>)> {
        if self.inner.state.lock().expect("recorder state").used >= self.inner.cap {
            return None;
        }
        let known = self.inner.state.lock().expect("recorder state").screen;
        let screen = self
            .area(backend.as_ref(), known.or(begun.screen), begun.region)
            .await?;
        let shot = shots::planned(file, screen);
        let looking = Arc::new(Looking::default());
        let since = {
            let mut state = self.inner.state.lock().expect("recorder state");
            state.pending.push(Pending {
                shot: shot.clone(),
                looking: looking.clone(),
            });
            // A call that changes nothing has nothing to wait for the window to draw.
            state
                .seen
                .as_ref()
                .filter(|(area, _)| begun.actuates && *area == screen)
                .map(|(_, image)| image.clone())
        };
        let (tell, taken) = oneshot::channel();
        let backend = backend.clone();
        let inner = self.inner.clone();
        let planned = shot.clone();
        let task = tokio::spawn(async move {
            let settled =
                shots::settled(backend.as_ref(), screen, since.as_deref(), &looking).await;
            let settled = match settled {
                Ok(settled) => settled,
                Err(why) => {
                    let _ = tell.send(After::Missing(why));
                    return;
                }
            };
            let kept = Shot {
                taken_ms: Some(settled.taken_ms),
                cut_short: settled.cut_short,
                ..planned
            };
            let image = Arc::new(settled.image);
            {
                let mut state = inner.state.lock().expect("recorder state");
                state.seen = Some((screen, image.clone()));
                state.pending.retain(|p| !Arc::ptr_eq(&p.looking, &looking));
                if state
                    .last
                    .as_ref()
                    .is_none_or(|l| l.taken_ms.is_none_or(|t| t <= settled.taken_ms))
                {
                    state.last = Some(kept.clone());
                }
            }
            let _ = tell.send(After::Taken {
                taken_ms: settled.taken_ms,
                cut_short: settled.cut_short,
            });
            if settled.cut_short {
                // The action that cut it short is running: encoding now would take a core from it.
                tokio::time::sleep(AFTER_ACTION).await;
            }
            let _ = tokio::task::spawn_blocking(move || inner.write_shot(&kept, image)).await;
        });
        self.track(task);
        Some((shot, taken))
    }
}

impl Inner {
    fn write_shot(&self, shot: &Shot, image: Arc<RgbImage>) {
        let image = Arc::unwrap_or_clone(image);
        if let Some(bytes) = shots::write(&self.dir, shot, image) {
            self.state.lock().expect("recorder state").used += bytes;
        }
    }
}

fn add_note(reply: &mut Result<Reply, Error>, note: &str) {
    match reply {
        Ok(reply) => {
            if !reply.text.ends_with('\n') && !reply.text.is_empty() {
                reply.text.push('\n');
            }
            reply.text.push_str(&format!("note: {note}\n"));
            if let Some(map) = reply.data.as_object_mut() {
                map.insert("recording".into(), Value::String(note.to_owned()));
            }
        }
        Err(err) => {
            err.message.push_str(&format!(" (note: {note})"));
        }
    }
}

/// What a ref named, from the observation that issued it: role, name, ancestors (the nearest
/// shallower lines before it), window and bounds.
async fn identify<B: Backend>(
    inner: &Inner,
    backend: &B,
    session: &mut Session,
    field: &str,
    reference: &str,
) -> Option<(Acted, WindowKey)> {
    let id = RefId::parse(reference).ok()?;
    let (surface, entry) = {
        let (observation, entry) = session.resolve_ref(id).ok()?;
        (observation.surface, entry.clone())
    };
    let key = element_key(&entry.handle, entry.role);
    let mut ancestors = Vec::new();
    let mut focused = false;
    if let Some(seen) = session.seen(surface)
        && let Some(at) = seen.iter().position(|s| s.key == key)
    {
        focused = seen[at].states.iter().any(|s| s == "focused");
        let mut depth = seen[at].depth;
        for line in seen[..at].iter().rev() {
            if line.depth < depth {
                depth = line.depth;
                ancestors.push(Ancestor {
                    role: line.role.as_str().to_owned(),
                    name: line.name.clone(),
                });
            }
        }
        ancestors.reverse();
    }
    let window = window_seen(inner, backend, session, entry.window).await;
    let acted = Acted {
        field: field.to_owned(),
        reference: reference.to_owned(),
        role: entry.role.as_str().to_owned(),
        name: entry.name.clone(),
        ancestors,
        window,
        bounds: entry.bounds,
        focused,
    };
    Some((acted, entry.window))
}

async fn target_window<B: Backend>(
    inner: &Inner,
    backend: &B,
    session: &mut Session,
    target: &str,
) -> Option<(WindowSeen, WindowKey)> {
    let number: u32 = target.strip_prefix('w')?.parse().ok()?;
    let key = session.window_key(number).ok()?;
    Some((window_seen(inner, backend, session, key).await?, key))
}

async fn window_seen<B: Backend>(
    inner: &Inner,
    backend: &B,
    session: &mut Session,
    key: WindowKey,
) -> Option<WindowSeen> {
    let cached = inner
        .state
        .lock()
        .expect("recorder state")
        .windows
        .get(&key)
        .cloned();
    let info = match cached {
        Some(info) => info,
        None => {
            let info = backend.window(key.handle).await.ok()??;
            let mut state = inner.state.lock().expect("recorder state");
            state.windows.insert(key, info.clone());
            info
        }
    };
    Some(WindowSeen {
        id: format!("w{}", session.window_id(key)),
        app: info.app_name,
        title: info.title,
        bounds: info.bounds,
    })
}

fn folder_bytes(dir: &Path) -> u64 {
    let size = |path: PathBuf| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let shots = std::fs::read_dir(dir.join(SHOTS))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| size(e.path()))
                .sum::<u64>()
        })
        .unwrap_or(0);
    size(dir.join(STEPS)) + size(dir.join(MANIFEST)) + shots
}

pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
