//! Running a recording again without a model, through the same executor a call takes. An
//! element is found again by its recorded role, name and named ancestors in a fresh observation
//! of its window, never by its old ref; a window by its app and title, waited for. The replay
//! stops at the first step it cannot do the same way, and nothing after it runs.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use deskhand_core::model::InstalledApp;
use deskhand_core::session::{Numbers, Seen};
use deskhand_core::{Backend, Config, Reply, Session, execute, parse_call};

use crate::Recorder;
pub use crate::export::{Batch, as_batch};
use crate::format::{Acted, Recording, Step, WindowSeen};
use crate::identity::holder_of;
pub use crate::verdicts::verdicts;

/// Reads that change nothing: a replay has no agent to show them to.
pub(crate) const READS: &[&str] = &[
    "apps",
    "windows",
    "screenshot",
    "zoom",
    "read",
    "recall",
    "forget",
];

/// The longest a replay leaves between two steps the pause the recording had there: an app
/// given no time at all may drop a key (GTK's file chooser lets a Return typed right after its
/// name field was filled go by unsaved), and a model's pause of seconds is no part of the task.
pub(crate) const PACE_CAP: Duration = Duration::from_secs(1);

/// Whether a replay runs `step` as an action, not as a check or not at all.
fn acts(step: &Step) -> bool {
    let action = step.action.as_str();
    !step.failed() && action != "observe" && !READS.contains(&action)
}

#[derive(Clone)]
pub struct Options {
    /// Resolve every step's window and elements without acting.
    pub dry_run: bool,
    /// How long a window, an element or a recorded value is waited for.
    pub wait: Duration,
    /// Where the replay records its own run: each step's action as the agent's was recorded.
    pub record: Option<Recorder>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            dry_run: false,
            wait: Duration::from_secs(10),
            record: None,
        }
    }
}

/// Why a replay ended before its last step.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// Found before any step ran.
    #[error("{0}; nothing was done")]
    Refused(String),
    #[error(
        "replay stopped at step {step} ({action}): it looked for {looked_for}, and found {found}; nothing after step {step} was run"
    )]
    Stopped {
        step: usize,
        action: String,
        looked_for: String,
        found: String,
    },
}

/// What a replay did, one line a step.
#[derive(Debug, Clone, Default)]
pub struct Replayed {
    pub lines: Vec<String>,
}

/// Replays `recording` on the desktop `backend` drives. `log` hears one line a step as it ends.
pub async fn replay<B: Backend + 'static>(
    backend: &Arc<B>,
    config: &Config,
    recording: &Recording,
    options: &Options,
    log: &mut dyn FnMut(&str),
) -> Result<Replayed, ReplayError> {
    preflight(backend.as_ref(), recording).await?;
    let mut run = Run {
        backend,
        config,
        options,
        session: Session::default(),
        windows: HashMap::new(),
        observed: HashMap::new(),
        unlaunched: None,
        titles: recorded_titles(recording),
        depended: depended_on(recording),
    };
    let mut replayed = Replayed::default();
    // When the previous step ended, in the recording and in this run.
    let mut previous: Option<(u64, Instant)> = None;
    for step in &recording.steps {
        if let Some((ended_ms, ended)) = previous
            && !options.dry_run
            && acts(step)
        {
            let gap = Duration::from_millis(step.at_ms.saturating_sub(ended_ms)).min(PACE_CAP);
            tokio::time::sleep(gap.saturating_sub(ended.elapsed())).await;
        }
        let line = run.step(step).await?;
        previous = Some((step.at_ms + step.ms, Instant::now()));
        log(&line);
        replayed.lines.push(line);
    }
    Ok(replayed)
}

/// What makes a recording unplayable here, found before anything runs: text it does not keep,
/// an app it launches that is not installed.
async fn preflight<B: Backend>(backend: &B, recording: &Recording) -> Result<(), ReplayError> {
    let live = recording.steps.iter().filter(|s| !s.failed());
    let secret: Vec<&Step> = live.clone().filter(|s| !s.redacted.is_empty()).collect();
    match secret.as_slice() {
        [] => {}
        [step] => {
            let characters: usize = step.redacted.iter().map(|r| r.characters).sum();
            return Err(ReplayError::Refused(format!(
                "step {} typed {characters} characters into a password field, which the recording does not keep, so it cannot be replayed; type it yourself, or record the task without the password",
                step.index
            )));
        }
        [first @ .., last] => {
            let first: Vec<String> = first.iter().map(|s| s.index.to_string()).collect();
            return Err(ReplayError::Refused(format!(
                "steps {} and {} typed into a password field, which the recording does not keep, so they cannot be replayed; type it yourself, or record the task without the password",
                first.join(", "),
                last.index
            )));
        }
    }
    let launched: Vec<&str> = live
        .filter(|s| s.action == "launch")
        .filter_map(|s| s.args.get("app").and_then(Value::as_str))
        .collect();
    if launched.is_empty() {
        return Ok(());
    }
    let installed = backend.installed().await.map_err(|err| {
        ReplayError::Refused(format!(
            "the installed apps cannot be listed to check the recording's launches: {}",
            err.message
        ))
    })?;
    for app in launched {
        if !installed.iter().any(|i| launches(i, app)) {
            return Err(ReplayError::Refused(format!(
                "the recording launches {app:?}, which is not installed here; install it, or replay on the machine it was recorded on"
            )));
        }
    }
    Ok(())
}

/// Whether `launch` starts `installed` when given `app`: by its desktop-file id (with or without
/// `.desktop`), its name, or the program its command line runs (`gnome-calculator`).
fn launches(installed: &InstalledApp, app: &str) -> bool {
    let id = app.strip_suffix(".desktop").unwrap_or(app);
    let program = installed
        .command
        .split_whitespace()
        .next()
        .map(|first| first.trim_matches('"'))
        .and_then(|first| std::path::Path::new(first).file_name())
        .and_then(|name| name.to_str());
    installed.id.eq_ignore_ascii_case(id)
        || installed.name.eq_ignore_ascii_case(app)
        || program == Some(app)
}

struct Run<'a, B> {
    backend: &'a Arc<B>,
    config: &'a Config,
    options: &'a Options,
    session: Session,
    /// The recording's window ids and the ids the same windows have now.
    windows: HashMap<String, String>,
    /// What the agent's latest observe of each window (by its recorded target) listed.
    observed: HashMap<String, Vec<Line>>,
    /// The last launch step a dry run passed over: the app it starts is not running.
    unlaunched: Option<usize>,
    /// Every window the recording names, by its recorded id, with each title it showed.
    titles: Vec<(String, String)>,
    /// What later steps depended on, of text read from pixels.
    depended: Vec<String>,
}

/// The titles every window the recording names showed: the windows its steps acted in, those
/// its launches opened and those its `windows` calls listed (a title changes: "*untitled").
fn recorded_titles(recording: &Recording) -> Vec<(String, String)> {
    let mut titles = Vec::new();
    for step in &recording.steps {
        if let Some(window) = &step.window {
            titles.push((window.id.clone(), window.title.clone()));
        }
        if let (Some(id), Some(title)) = (step.data["window"].as_str(), step.data["title"].as_str())
        {
            titles.push((id.to_owned(), title.to_owned()));
        }
        for listed in step.data["windows"].as_array().into_iter().flatten() {
            if let (Some(id), Some(title)) = (listed["id"].as_str(), listed["title"].as_str()) {
                titles.push((id.to_owned(), title.to_owned()));
            }
        }
    }
    titles
}

impl<B: Backend + 'static> Run<'_, B> {
    async fn call(&mut self, args: Value) -> Result<Reply, String> {
        let call = parse_call(args).map_err(|err| err.reply_text())?;
        execute(self.backend.as_ref(), &mut self.session, self.config, call)
            .await
            .map_err(|err| err.reply_text())
    }

    /// A step's own action, recorded when the replay records its run.
    async fn act(&mut self, step: usize, args: Value) -> Result<Reply, String> {
        let Some(recorder) = self.options.record.clone() else {
            return self.call(args).await;
        };
        let call = parse_call(args.clone());
        let actuates = call.as_ref().is_ok_and(|c| c.actuates());
        let begun = recorder
            .begin(self.backend, &mut self.session, &args, actuates)
            .await
            .replaying(step);
        let mut reply = match call {
            Ok(call) => execute(self.backend.as_ref(), &mut self.session, self.config, call).await,
            Err(err) => Err(err),
        };
        recorder
            .finish(self.backend, begun, &mut self.session, &mut reply)
            .await;
        reply.map_err(|err| err.reply_text())
    }

    async fn step(&mut self, step: &Step) -> Result<String, ReplayError> {
        let n = step.index;
        let action = step.action.as_str();
        if step.failed() {
            return Ok(format!(
                "step {n} ({action}) skipped: it failed when recorded"
            ));
        }
        let reads_clipboard = action == "clipboard" && step.args.get("text").is_none();
        if READS.contains(&action) || reads_clipboard {
            return Ok(format!("step {n} ({action}) skipped: it only read"));
        }
        let mut args = step.args.clone();
        if action == "observe" {
            return self.check_observe(step, args).await;
        }
        self.map_target(step, &mut args).await?;
        for acted in &step.elements {
            let fresh = self.find_element(step, acted).await?;
            set_field(&mut args, &acted.field, fresh);
        }
        if self.options.dry_run {
            if action == "launch" {
                self.unlaunched = Some(n);
            }
            return Ok(format!(
                "step {n} ({action}) resolved{}",
                described(&step.elements)
            ));
        }
        // A batch's own arguments may still name the recording's windows.
        if let Some(steps) = args.get_mut("steps").and_then(Value::as_array_mut) {
            for inner in steps {
                if let Some(target) = inner.get("target").and_then(Value::as_str)
                    && let Some(now) = self.windows.get(target)
                {
                    inner["target"] = json!(now);
                }
            }
        }
        let reply = self.act(n, args).await;
        let recorded_ok = !step.failed();
        match reply {
            Ok(reply) if !reply.is_error() => Ok(format!(
                "step {n} ({action}) {}",
                reply.text.lines().next().unwrap_or("done")
            )),
            Ok(reply) if recorded_ok => Err(stopped(
                step,
                format!("the same result as recorded ({})", first_line(&step.text)),
                reply.text.lines().next().unwrap_or_default().to_owned(),
            )),
            Err(text) if recorded_ok => Err(stopped(
                step,
                format!("the same result as recorded ({})", first_line(&step.text)),
                first_line(&text),
            )),
            _ => Ok(format!("step {n} ({action}) failed as recorded")),
        }
    }

    /// An observe the agent made is replayed as a check of what it saw: each line that is new
    /// since the agent's previous observe of the same window (what the steps between did),
    /// and each value on an element whose role and name tell it apart, must show again
    /// (waited for while the app settles).
    async fn check_observe(&mut self, step: &Step, mut args: Value) -> Result<String, ReplayError> {
        let n = step.index;
        let window = args
            .get("target")
            .and_then(Value::as_str)
            .unwrap_or("current")
            .to_owned();
        self.map_target(step, &mut args).await?;
        if let Some(map) = args.as_object_mut() {
            // `since` would compare with the replay's own observes, not the agent's.
            map.remove("since");
        }
        let lines = lines_of(&step.data);
        let mut expected: Vec<Line> = match self.observed.get(&window) {
            _ if step.args.get("since") == Some(&json!(true)) => lines
                .iter()
                .filter(|l| l.change.is_some())
                .cloned()
                .collect(),
            Some(before) => lines
                .iter()
                .filter(|l| !before.iter().any(|b| b.same(l)))
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        for line in lines.iter().filter(|l| l.value.is_some()) {
            let unique = lines
                .iter()
                .filter(|o| o.role == line.role && o.name == line.name)
                .count()
                == 1;
            if unique && !expected.iter().any(|e| e.same(line)) {
                expected.push(line.clone());
            }
        }
        expected.retain(|line| {
            !line.from_pixels
                || self.depended.iter().any(|text| {
                    Line {
                        name: text.clone(),
                        ..line.clone()
                    }
                    .same(line)
                })
        });
        if step.args.get("since") != Some(&json!(true)) {
            self.observed.insert(window, lines);
        }
        let deadline = Instant::now() + self.options.wait;
        if self.options.dry_run || expected.is_empty() {
            self.answered(step, &args, deadline).await?;
            return Ok(format!("step {n} (observe) observed"));
        }
        loop {
            let reply = self.answered(step, &args, deadline).await?;
            let now = lines_of(&reply.data);
            let missing = expected.iter().find(|e| !now.iter().any(|l| l.same(e)));
            match missing {
                None => {
                    return Ok(format!(
                        "step {n} (observe) shows what was recorded ({} lines checked)",
                        expected.len()
                    ));
                }
                Some(line) if Instant::now() >= deadline => {
                    let instead: Vec<String> = now
                        .iter()
                        .filter(|l| l.role == line.role)
                        .take(12)
                        .map(Line::describe)
                        .collect();
                    let found = if instead.is_empty() {
                        format!("no {} at all", line.role)
                    } else {
                        instead.join(", ")
                    };
                    return Err(stopped(
                        step,
                        format!("{}, as recorded", line.describe()),
                        found,
                    ));
                }
                Some(_) => tokio::time::sleep(Duration::from_millis(300)).await,
            }
        }
    }

    /// The reply to an observe, asked again until `deadline` while the app does not answer: an
    /// app busy in its own modal dialog (Qt, after the click that opened it) answers once the
    /// dialog is up.
    async fn answered(
        &mut self,
        step: &Step,
        args: &Value,
        deadline: Instant,
    ) -> Result<Reply, ReplayError> {
        loop {
            match self.call(args.clone()).await {
                Ok(reply) => return Ok(reply),
                Err(text) if Instant::now() >= deadline => {
                    return Err(stopped(
                        step,
                        "the window the agent observed".into(),
                        first_line(&text),
                    ));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(300)).await,
            }
        }
    }

    /// Points the step's `target` at the window that is now what the recorded one was.
    async fn map_target(&mut self, step: &Step, args: &mut Value) -> Result<(), ReplayError> {
        let Some(target) = args
            .get("target")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Ok(());
        };
        if target == "screen" {
            return Ok(());
        }
        let window = step
            .window
            .clone()
            .or_else(|| step.elements.iter().find_map(|e| e.window.clone()));
        let Some(window) = window else {
            return Err(stopped(
                step,
                format!("the window the recording called {target}"),
                "nothing: the recording did not keep which window that was".into(),
            ));
        };
        let now = self.find_window(step, &window).await?;
        args["target"] = json!(now);
        Ok(())
    }

    /// The window's id now, waited for: same app and title, else the app's only window.
    async fn find_window(&mut self, step: &Step, want: &WindowSeen) -> Result<String, ReplayError> {
        let deadline = Instant::now() + self.options.wait;
        loop {
            let listed = self
                .call(json!({"action": "windows"}))
                .await
                .map_err(|text| stopped(step, describe_window(want), first_line(&text)))?;
            let windows = listed.data["windows"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let of_app: Vec<&Value> = windows.iter().filter(|w| w["app"] == want.app).collect();
            let exact = of_app.iter().find(|w| w["title"] == want.title);
            // A retitled window (a document's name) is the app's only one, unless that one
            // stands for another recorded window, already found or bearing that window's
            // title: a dialog is not its main window.
            let claimed = |w: &&&Value| {
                self.windows
                    .iter()
                    .any(|(recorded, now)| *recorded != want.id && w["id"] == now.as_str())
                    || self.titles.iter().any(|(recorded, title)| {
                        *recorded != want.id && w["title"] == title.as_str()
                    })
            };
            let chosen = exact.or(match of_app.as_slice() {
                [only] if !claimed(&only) => Some(only),
                _ => None,
            });
            if let Some(id) = chosen.and_then(|w| w["id"].as_str()) {
                self.windows.insert(want.id.clone(), id.to_owned());
                return Ok(id.to_owned());
            }
            // Waiting is no use for a window of an app the dry run did not start.
            if let (true, Some(launch)) = (of_app.is_empty(), self.unlaunched) {
                return Err(stopped(
                    step,
                    describe_window(want),
                    format!(
                        "no window of its app: step {launch} launches an app, and a dry run launches nothing; start the app, then dry-run again"
                    ),
                ));
            }
            if Instant::now() >= deadline {
                let titles: Vec<String> = windows
                    .iter()
                    .map(|w| {
                        format!(
                            "{:?} ({})",
                            w["title"].as_str().unwrap_or(""),
                            w["app"].as_str().unwrap_or("")
                        )
                    })
                    .collect();
                let seconds = self.options.wait.as_secs();
                let found = if titles.is_empty() {
                    format!("no window at all after {seconds} s")
                } else {
                    format!(
                        "after {seconds} s only these windows: {}",
                        titles.join(", ")
                    )
                };
                return Err(stopped(step, describe_window(want), found));
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    /// A fresh ref for what `acted` named, from a new observation of its window.
    async fn find_element(&mut self, step: &Step, acted: &Acted) -> Result<String, ReplayError> {
        let Some(window) = &acted.window else {
            return Err(stopped(
                step,
                describe(acted),
                "nothing: the recording did not keep the element's window".into(),
            ));
        };
        let deadline = Instant::now() + self.options.wait;
        loop {
            let id = self.find_window(step, window).await?;
            let observed = self
                .call(json!({"action": "observe", "target": id, "limit": 5000}))
                .await;
            // Waited for as `answered` waits.
            if let Err(text) = observed {
                if Instant::now() >= deadline {
                    return Err(stopped(step, describe(acted), first_line(&text)));
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
                continue;
            }
            let (found, nearest) = self.matches(acted);
            match found.as_slice() {
                [key] => {
                    let number = self.session.number_of_key(key);
                    let listed = self
                        .session
                        .latest
                        .as_ref()
                        .is_some_and(|o| o.refs.contains_key(&number));
                    if listed {
                        return Ok(format!("e{number}"));
                    }
                }
                [_, _, ..] if Instant::now() >= deadline => {
                    return Err(stopped(
                        step,
                        describe(acted),
                        format!(
                            "{} elements that match it; the recording cannot say which",
                            found.len()
                        ),
                    ));
                }
                _ => {}
            }
            if Instant::now() >= deadline {
                return Err(stopped(step, describe(acted), nearest));
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    /// The keys of the latest observation's elements that are what `acted` was, and if none,
    /// what the window shows instead.
    fn matches(&self, acted: &Acted) -> (Vec<String>, String) {
        let Some(latest) = &self.session.latest else {
            return (Vec::new(), "no observation".into());
        };
        let seen = self.session.seen(latest.surface).unwrap_or(&[]);
        let want_path = named_path(
            acted
                .ancestors
                .iter()
                .map(|a| (a.role.as_str(), a.name.as_str())),
        );
        let mut found = Vec::new();
        let mut same_role = Vec::new();
        for (at, line) in seen.iter().enumerate() {
            if line.role.as_str() != acted.role {
                continue;
            }
            if line.name != acted.name {
                same_role.push(format!("{:?}", line.name));
                continue;
            }
            let path = named_path(ancestors(seen, at).into_iter());
            if path == want_path {
                found.push(line.key.clone());
            }
        }
        let nearest = if found.is_empty() && !same_role.is_empty() {
            same_role.truncate(12);
            format!(
                "no {} named {:?} in window {:?}; its {}s are named {}",
                acted.role,
                acted.name,
                latest.label,
                acted.role,
                same_role.join(", ")
            )
        } else if found.is_empty() {
            format!("no {} in window {:?} at all", acted.role, latest.label)
        } else {
            String::new()
        };
        (found, nearest)
    }
}

/// The roles and names of the lines above `at` that hold it, from the top.
fn ancestors(seen: &[Seen], at: usize) -> Vec<(&str, &str)> {
    let mut depth = seen[at].depth;
    let mut out = Vec::new();
    for line in seen[..at].iter().rev() {
        if line.depth < depth {
            depth = line.depth;
            out.push((line.role.as_str(), line.name.as_str()));
        }
    }
    out.reverse();
    out
}

/// The named ancestors below the window: the window's own name is its title, which a document
/// changes, and unnamed wrappers are how a toolkit lays out, not what the user sees.
fn named_path<'a>(path: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<(String, String)> {
    path.skip(1)
        .filter(|(_, name)| !name.is_empty())
        .map(|(role, name)| (role.to_owned(), name.to_owned()))
        .collect()
}

/// One line of an observation as its structured form lists it.
#[derive(Debug, Clone)]
struct Line {
    role: String,
    name: String,
    value: Option<String>,
    change: Option<String>,
    /// Read from the pixels (OCR): a window at another size reads a word more or less.
    from_pixels: bool,
}

impl Line {
    fn same(&self, other: &Line) -> bool {
        if self.from_pixels || other.from_pixels {
            // As `wait` compares text read from pixels: trimmed, without case, one in the other.
            let (a, b) = (loose(&self.name), loose(&other.name));
            return self.role == other.role && (a.contains(&b) || b.contains(&a));
        }
        self.role == other.role && self.name == other.name && self.value == other.value
    }

    fn describe(&self) -> String {
        match &self.value {
            Some(value) => format!("{} {:?} showing {value:?}", self.role, self.name),
            None => format!("{} {:?}", self.role, self.name),
        }
    }
}

/// The lines an observation listed, leaving out removed ones and unnamed ones without a value
/// (a layout's panels say nothing to check).
fn lines_of(data: &Value) -> Vec<Line> {
    data["elements"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["change"] != "removed")
        .map(|e| Line {
            role: e["role"].as_str().unwrap_or("").to_owned(),
            name: e["name"].as_str().unwrap_or("").to_owned(),
            value: e["value"].as_str().map(str::to_owned),
            change: e["change"].as_str().map(str::to_owned),
            from_pixels: e["states"]
                .as_array()
                .is_some_and(|states| states.iter().any(|s| s == "ocr")),
        })
        .filter(|l| !l.name.is_empty() || l.value.is_some())
        .collect()
}

/// Text as `wait` compares what it reads from pixels.
fn loose(text: &str) -> String {
    text.trim().replace('…', "...").to_lowercase()
}

/// The texts later steps depended on: the names of the elements they acted on and the text
/// their waits waited for. Text read from pixels is checked only where it is one of these.
fn depended_on(recording: &Recording) -> Vec<String> {
    let mut texts = Vec::new();
    for step in &recording.steps {
        texts.extend(step.elements.iter().map(|e| loose(&e.name)));
        let mut conditions = vec![&step.args["until"]];
        for inner in step.args["steps"].as_array().into_iter().flatten() {
            conditions.push(&inner["until"]);
        }
        for until in conditions {
            let list = match until {
                Value::Array(list) => list.iter().collect(),
                one => vec![one],
            };
            texts.extend(list.iter().filter_map(|c| c["text"].as_str()).map(loose));
        }
    }
    texts.retain(|t| !t.is_empty());
    texts
}

/// Puts `value` at a recorded argument path: `ref`, `from`, `steps[2].ref`, `until.ref`.
fn set_field(args: &mut Value, path: &str, value: String) {
    if let Some((holder, field)) = holder_of(args, path)
        && let Some(map) = holder.as_object_mut()
    {
        map.insert(field.to_owned(), json!(value));
    }
}

fn stopped(step: &Step, looked_for: String, found: String) -> ReplayError {
    ReplayError::Stopped {
        step: step.index,
        action: step.action.clone(),
        looked_for,
        found,
    }
}

pub(crate) fn describe(acted: &Acted) -> String {
    let mut text = format!("{} {:?}", acted.role, acted.name);
    // The first ancestor is the window itself, named below by its title.
    let path: Vec<String> = acted
        .ancestors
        .iter()
        .skip(1)
        .filter(|a| !a.name.is_empty())
        .map(|a| format!("{} {:?}", a.role, a.name))
        .collect();
    if !path.is_empty() {
        text.push_str(&format!(" under {}", path.join(" > ")));
    }
    if let Some(window) = &acted.window {
        text.push_str(&format!(" in {}", describe_window(window)));
    }
    text
}

fn describe_window(window: &WindowSeen) -> String {
    format!("window {:?} of {}", window.title, window.app)
}

fn described(elements: &[Acted]) -> String {
    if elements.is_empty() {
        return String::new();
    }
    let names: Vec<String> = elements
        .iter()
        .map(|e| format!("{} {:?}", e.role, e.name))
        .collect();
    format!(": {}", names.join(", "))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, from_pixels: bool) -> Line {
        Line {
            role: "text".into(),
            name: name.into(),
            value: None,
            change: None,
            from_pixels,
        }
    }

    #[test]
    fn text_read_from_pixels_matches_with_the_tolerance_of_wait_and_only_where_a_step_used_it() {
        let recorded = line("Result: 42 shown", true);
        assert!(recorded.same(&line("result: 42", true)));
        assert!(recorded.same(&line("  RESULT: 42 SHOWN now", true)));
        assert!(!recorded.same(&line("Result: 41", true)));
        assert!(!line("Save", false).same(&line("save", false)));
        let recording = Recording {
            dir: "r".into(),
            manifest: crate::format::Manifest {
                format: 1,
                deskhand: "0".into(),
                started_ms: 0,
                replay_of: None,
            },
            verdicts: Vec::new(),
            steps: vec![serde_json::from_value(json!({
                "index": 1, "at_ms": 0, "ms": 1, "action": "batch", "outcome": "done", "text": "",
                "args": {"action": "batch", "steps": [{"action": "wait", "until": [{"text": "Saved …"}]}]}
            }))
            .unwrap()],
        };
        assert_eq!(depended_on(&recording), ["saved ..."]);
    }

    #[test]
    fn an_app_launched_by_its_program_name_is_found_installed_as_launch_finds_it() {
        let calculator = InstalledApp {
            id: "org.gnome.Calculator".into(),
            name: "Calculator".into(),
            command: "/usr/bin/gnome-calculator --mode=basic".into(),
        };
        for app in [
            "gnome-calculator",
            "org.gnome.Calculator",
            "org.gnome.Calculator.desktop",
            "calculator",
        ] {
            assert!(launches(&calculator, app), "{app}");
        }
        for app in ["gnome-calc", "usr", "basic"] {
            assert!(!launches(&calculator, app), "{app}");
        }
    }
}
