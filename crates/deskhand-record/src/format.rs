//! The folder a recording is: `manifest.json` (the format's version and where it came from),
//! `steps.jsonl` (one call a line, appended as it ends, so a CLI that records call by call from
//! separate processes adds to the same file) and `shots/` (the screenshots, one PNG each).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use deskhand_core::model::Rect;

use crate::RecordError;

/// The version a recording's manifest carries; a newer one is refused, not guessed at.
pub const FORMAT_VERSION: u32 = 1;

pub const MANIFEST: &str = "manifest.json";
pub const STEPS: &str = "steps.jsonl";
pub const SHOTS: &str = "shots";
/// In a replay's recording: how each step of the original went in the rerun.
pub const VERDICTS: &str = "verdicts.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// The deskhand that recorded it.
    pub deskhand: String,
    /// Unix ms when the folder was started.
    pub started_ms: u64,
    /// The recording this one is a replay of, as `deskhand replay --record` was given it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_of: Option<PathBuf>,
}

/// One call as it was made and answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    /// 1 for the first call of the folder.
    pub index: usize,
    /// Unix ms when the call came in.
    pub at_ms: u64,
    /// How long the call took, ms.
    pub ms: u64,
    pub action: String,
    /// The arguments as sent, with a password's text taken out (see `redacted`).
    pub args: serde_json::Value,
    /// `observed`, `done`, `unconfirmed`, `failed`, or `error` for a call that failed outright.
    pub outcome: String,
    /// The error kind of a failed call, e.g. `ref-expired`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub text: String,
    #[serde(default)]
    pub data: serde_json::Value,
    /// Each element the call named, as it was when named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<Acted>,
    /// The element a `find` matched, as the reply named it: shown like a ref's element, while a
    /// replay runs the `find` again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub found: Vec<Acted>,
    /// In a replay's recording, the step of the original this call reran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replays: Option<usize>,
    /// The window the call's `target` named, if it named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowSeen>,
    /// The screen before the call changed anything: the latest capture whose pixels were in
    /// hand when it began (an earlier call's "after", its `taken_ms` saying how much earlier), or
    /// one taken as it began when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Shot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Shot>,
    /// Why there is no "after": the next action came before the window was looked at, or the
    /// screen could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_after: Option<String>,
    /// Text that was not written: typed into a password field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<Redacted>,
}

impl Step {
    pub fn failed(&self) -> bool {
        matches!(self.outcome.as_str(), "error" | "failed")
    }
}

/// An element a call named by ref, kept so a replay can find it again without the ref.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Acted {
    /// Where the ref was in the arguments: `ref`, `from`, `to`, `steps[2].ref`.
    pub field: String,
    /// The ref as the agent gave it, e.g. `e12`.
    #[serde(rename = "ref")]
    pub reference: String,
    pub role: String,
    pub name: String,
    /// From the window down to the element's parent.
    #[serde(default)]
    pub ancestors: Vec<Ancestor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowSeen>,
    /// Screen pixels, when the observation knew them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// It had the keyboard focus in the observation its ref came from: what lets a batch type
    /// into it when it has no name to find it by.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub focused: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ancestor {
    pub role: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowSeen {
    /// The id the recording's session gave it, e.g. `w2`.
    pub id: String,
    pub app: String,
    pub title: String,
    pub bounds: Rect,
}

/// A screenshot file and how to place screen pixels on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shot {
    /// Under `shots/`: `0007.png` is the capture after step 7, `0007-before.png` one taken
    /// before it when there was no earlier capture.
    pub file: String,
    /// The screen rectangle captured, in screen pixels.
    pub screen: Rect,
    /// Image pixels per screen pixel.
    pub scale: f64,
    /// Unix ms when its pixels were grabbed (not kept by recordings made before it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken_ms: Option<u64>,
    /// An action began before the window settled after the call: this is the last look taken
    /// before that action, which may not yet show all the call did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut_short: bool,
}

/// Text a step had but the folder does not keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Redacted {
    /// The argument's path, e.g. `text` or `steps[1].text`.
    pub field: String,
    pub characters: usize,
    pub why: String,
}

/// How one step of a recording went when it was replayed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The original's step.
    pub step: usize,
    pub verdict: VerdictKind,
    /// What differed first, or why the step was not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    Same,
    Different,
    NotRun,
}

impl VerdictKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Same => "same",
            Self::Different => "different",
            Self::NotRun => "not run",
        }
    }
}

impl Verdict {
    /// How the step went, with why: `same`, `different: it looked for …`, `not run: …`.
    pub fn said(&self) -> String {
        let verdict = self.verdict.as_str();
        match (&self.why, self.verdict) {
            (Some(why), VerdictKind::Different) => format!("{verdict}: it looked for {why}"),
            (Some(why), _) => format!("{verdict}: {why}"),
            (None, _) => verdict.to_owned(),
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "step {}: {}", self.step, self.said())
    }
}

/// A recording read back: its manifest and steps.
#[derive(Debug, Clone)]
pub struct Recording {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub steps: Vec<Step>,
    /// For a replay's recording, how each of the original's steps went.
    pub verdicts: Vec<Verdict>,
}

impl Recording {
    /// Reads a recording, refusing a folder that is not one or is of a newer format.
    pub fn open(dir: &Path) -> Result<Self, RecordError> {
        let manifest = read_manifest(dir)?;
        let file = dir.join(STEPS);
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => {
                return Err(RecordError::NotARecording {
                    dir: dir.to_owned(),
                    why: format!("{STEPS}: {err}"),
                });
            }
        };
        let steps = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                serde_json::from_str(line).map_err(|err| RecordError::BadStep {
                    file: file.clone(),
                    line: i + 1,
                    why: err.to_string(),
                })
            })
            .collect::<Result<_, _>>()?;
        let verdicts = match std::fs::read(dir.join(VERDICTS)) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map_err(|err| RecordError::BadVerdicts {
                    file: dir.join(VERDICTS),
                    why: err.to_string(),
                })?
            }
            Err(_) => Vec::new(),
        };
        Ok(Self {
            dir: dir.to_owned(),
            manifest,
            steps,
            verdicts,
        })
    }

    pub fn shot_path(&self, shot: &Shot) -> PathBuf {
        self.dir.join(SHOTS).join(&shot.file)
    }
}

pub(crate) fn read_manifest(dir: &Path) -> Result<Manifest, RecordError> {
    let not = |why: String| RecordError::NotARecording {
        dir: dir.to_owned(),
        why,
    };
    let bytes = std::fs::read(dir.join(MANIFEST)).map_err(|err| not(err.to_string()))?;
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|err| not(err.to_string()))?;
    let format = value
        .get("format")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| not("it names no format version".into()))?;
    if format > u64::from(FORMAT_VERSION) {
        return Err(RecordError::NewerFormat {
            dir: dir.to_owned(),
            found: u32::try_from(format).unwrap_or(u32::MAX),
            supported: FORMAT_VERSION,
        });
    }
    serde_json::from_value(value).map_err(|err| not(err.to_string()))
}
