//! The audit log: one JSON line per action (click, type, press, scroll, drag), whatever its
//! result, appended to a file the user chose. It never holds typed text (only its length),
//! characters sent with `press`, or anything of a password field but its role.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::action::{Action, Call, Kept, Place, Reaches, ValueArg};
use crate::keys::Keys;
use crate::model::{Modifier, MouseButton, Role, ScrollDirection};
use crate::session::Session;

/// Where audit lines go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AuditLog {
    /// Nothing is logged (`--audit off`, and unit tests).
    #[default]
    Off,
    File(PathBuf),
}

/// Why the audit log cannot be used; the server or CLI does not start.
#[derive(Debug, thiserror::Error)]
#[error(
    "the audit log {} cannot be written: {source}; give another file with --audit PATH (or DESKHAND_AUDIT), or turn it off with --audit off",
    path.display()
)]
pub struct AuditError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl AuditLog {
    /// Opens (creating it and its directory, readable only by the user) the log at `path`, so a
    /// log that cannot be written stops deskhand at startup rather than at the first action.
    pub fn open(path: &Path) -> Result<AuditLog, AuditError> {
        let fail = |source| AuditError {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir).map_err(fail)?;
        }
        open_append(path).map_err(fail)?;
        Ok(AuditLog::File(path.to_path_buf()))
    }

    pub fn path(&self) -> Option<&Path> {
        match self {
            AuditLog::Off => None,
            AuditLog::File(path) => Some(path),
        }
    }

    /// Appends one line; the error says why it could not be written.
    pub fn append(&self, entry: &AuditEntry) -> Result<(), String> {
        let AuditLog::File(path) = self else {
            return Ok(());
        };
        let mut line = serde_json::to_string(entry).map_err(|err| err.to_string())?;
        line.push('\n');
        // One write of the whole line, on a file opened for appending: concurrent CLI calls
        // never interleave within a line.
        open_append(path)
            .and_then(|mut file| file.write_all(line.as_bytes()))
            .map_err(|err| err.to_string())
    }
}

fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// One action as the log records it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AuditEntry {
    /// UTC, RFC 3339 with milliseconds: `2026-12-01T09:30:00.123Z`.
    pub ts: String,
    pub action: &'static str,
    /// The surface the action went to: `w3`, `screen`, an app `a2` as the call named it, or
    /// `focused` / `pointer` for keys and scrolls that go wherever focus or pointer are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The application of that surface, when it was known before acting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// The role as observations show it: `button`, `password`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    /// The element's accessible name, never that of a password field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A point `[x, y]`, 0–1000 of the surface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<MouseButton>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub modifiers: Vec<Modifier>,
    /// `type`: how many characters, never which.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub characters: Option<usize>,
    /// `press`: the chords, with every one that types a character shown as `<char>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<ScrollDirection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<u32>,
    /// `drag`: each end, a ref `e4` or a point `[x, y]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// What else names the action: a `find`, a menu path, the app launched, a window change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// `done`, `unconfirmed` or `failed`.
    pub result: &'static str,
    /// Which client session made the call, where one server serves several (over HTTP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// For a failure: its kind, e.g. `denied`, `stopped`, `ref-expired`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// For `denied` and `stopped`: the message, which names the rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The action ran after the kill switch had stopped this session.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub resumed: bool,
}

impl AuditEntry {
    /// What the call says about itself, before anything is resolved or sent: the fields its
    /// action keeps in the table of actions ([`crate::action::ActionSpec::keeps`]), in that
    /// order.
    pub fn of(call: &Call, session: &Session) -> AuditEntry {
        let mut entry = AuditEntry {
            ts: utc_timestamp(SystemTime::now()),
            action: call.name(),
            target: call.target.map(|t| t.to_string()),
            result: "failed",
            ..AuditEntry::default()
        };
        let spec = call.name.spec();
        let action = &call.action;
        for kept in spec.keeps {
            match kept {
                Kept::Place => match action.places().first() {
                    Some(place) => entry.describe_place(place, session),
                    None => {
                        let went = match spec.reaches {
                            Reaches::PlaceOrPointer => Some("pointer"),
                            Reaches::Focus => Some("focused"),
                            Reaches::PlaceOrFocus if entry.target.is_none() => Some("focused"),
                            _ => None,
                        };
                        if let Some(went) = went {
                            entry.target = Some(went.into());
                        }
                    }
                },
                Kept::Ends => {
                    if let Action::Drag { from, to, .. } = action {
                        entry.from = Some(end_of_drag(from));
                        entry.to = Some(end_of_drag(to));
                        if let Place::Ref(id) = from {
                            entry.describe_ref(*id, session);
                        } else if entry.target.is_none() {
                            entry.target = session.current.map(|t| t.to_string());
                        }
                    }
                }
                Kept::Button => entry.button = button_of(action),
                Kept::Count => {
                    if let Action::Click { click, .. } = action {
                        entry.count = Some(click.count);
                    }
                }
                Kept::Modifiers => entry.modifiers = modifiers_of(action).to_vec(),
                Kept::Characters => entry.characters = characters_of(action),
                Kept::Keys => {
                    if let Action::Press { keys } = action {
                        entry.keys = Some(redact_keys(keys));
                    }
                }
                Kept::Direction => {
                    if let Action::Scroll { direction, .. } = action {
                        entry.direction = Some(*direction);
                    }
                }
                Kept::Amount => {
                    if let Action::Scroll { amount, .. } = action {
                        entry.amount = Some(*amount);
                    }
                }
                Kept::Detail => entry.detail = detail_of(action),
            }
        }
        entry
    }

    fn describe_place(&mut self, place: &Place, session: &Session) {
        match place {
            Place::Ref(id) => self.describe_ref(*id, session),
            Place::Find(find) => self.detail = Some(format!("find {find}")),
            Place::Point { x, y } => {
                self.point = Some([*x, *y]);
                if self.target.is_none() {
                    self.target = session.current.map(|t| t.to_string());
                }
            }
        }
    }

    fn describe_ref(&mut self, id: crate::action::RefId, session: &Session) {
        self.element = Some(id.to_string());
        if let Ok((observation, found)) = session.resolve_ref(id) {
            if self.target.is_none() {
                self.target = Some(observation.label.clone());
            }
            self.role = Some(found.role.as_str());
            if found.role != Role::Password {
                self.name = Some(found.name.clone());
            }
        }
    }
}

/// One end of a drag as the log shows it: `e4`, `find …` or `[x, y]`.
fn end_of_drag(place: &Place) -> String {
    match place {
        Place::Ref(id) => id.to_string(),
        Place::Find(find) => format!("find {find}"),
        Place::Point { x, y } => format!("[{x}, {y}]"),
    }
}

fn button_of(action: &Action) -> Option<MouseButton> {
    match action {
        Action::Click { click, .. } => Some(click.button),
        Action::Button { button, .. } | Action::Drag { button, .. } => Some(*button),
        _ => None,
    }
}

fn modifiers_of(action: &Action) -> &[Modifier] {
    match action {
        Action::Click { click, .. } => &click.modifiers,
        Action::Button { modifiers, .. } | Action::Drag { modifiers, .. } => modifiers,
        _ => &[],
    }
}

/// How many characters a call types, sets or writes.
fn characters_of(action: &Action) -> Option<usize> {
    match action {
        Action::Type { text, .. } | Action::WriteClipboard { text } => Some(text.chars().count()),
        Action::SetValue { value, .. } => Some(match value {
            ValueArg::Text(text) => text.chars().count(),
            ValueArg::Number(number) => number.to_string().len(),
        }),
        _ => None,
    }
}

fn detail_of(action: &Action) -> Option<String> {
    match action {
        Action::Type { replace: true, .. } => Some("replace".into()),
        Action::Select { path } => Some(format!("path {path:?}")),
        Action::Launch { app, focus } => Some(format!("app {app:?}, focus {focus}")),
        Action::Window(spec) => Some(format!(
            "state {:?}, position {:?}, size {:?}",
            spec.state, spec.position, spec.size
        )),
        _ => None,
    }
}

/// Key chords with every one that would type a character replaced by `<char>`: `press` can
/// spell out a password one key at a time, and the log must not keep it.
pub fn redact_keys(keys: &Keys) -> String {
    keys.written()
        .map(|(written, chord)| {
            if chord.types_a_character() {
                "<char>"
            } else {
                written
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `2026-12-01T09:30:00.123Z`: UTC to the millisecond; an instant before 1970 (a clock gone
/// wrong) reads as 1970 rather than failing the line.
pub fn utc_timestamp(at: SystemTime) -> String {
    let ms = at
        .duration_since(UNIX_EPOCH)
        .map(|since| i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or_default();
    // Whole milliseconds first, so the fraction is cut, never rounded up into the next second.
    let at = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::MAX);
    at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::{ActionName, Changes};
    use crate::actions::parse_call;
    use serde_json::json;
    use std::time::Duration;

    /// What an entry holds beyond every entry's own fields, as the table's items.
    fn kept(entry: &AuditEntry) -> Vec<Kept> {
        let find = entry
            .detail
            .as_deref()
            .is_some_and(|d| d.starts_with("find "));
        let went = matches!(entry.target.as_deref(), Some("focused" | "pointer"));
        let drag = entry.from.is_some() || entry.to.is_some();
        [
            (
                Kept::Place,
                !drag && (entry.element.is_some() || entry.point.is_some() || find || went),
            ),
            (Kept::Ends, drag),
            (Kept::Button, entry.button.is_some()),
            (Kept::Count, entry.count.is_some()),
            (Kept::Modifiers, !entry.modifiers.is_empty()),
            (Kept::Characters, entry.characters.is_some()),
            (Kept::Keys, entry.keys.is_some()),
            (Kept::Direction, entry.direction.is_some()),
            (Kept::Amount, entry.amount.is_some()),
            (Kept::Detail, entry.detail.is_some() && !find),
        ]
        .into_iter()
        .filter_map(|(kept, held)| held.then_some(kept))
        .collect()
    }

    #[test]
    fn an_entry_holds_exactly_what_the_table_says_its_action_keeps() {
        // Each action with every argument the log could keep.
        let samples = [
            json!({"action": "apps"}),
            json!({"action": "windows"}),
            json!({"action": "observe", "target": "w1"}),
            json!({"action": "read", "ref": "e1"}),
            json!({"action": "click", "ref": "e1", "button": "right", "count": 2, "modifiers": ["ctrl"]}),
            json!({"action": "type", "ref": "e1", "text": "hunter2", "replace": true}),
            json!({"action": "press", "keys": "ctrl+s"}),
            json!({"action": "scroll", "x": 10, "y": 20, "direction": "down", "amount": 3}),
            json!({"action": "drag", "from": "e1", "to": [500, 500], "button": "left", "modifiers": ["shift"]}),
            json!({"action": "screenshot"}),
            json!({"action": "zoom", "region": [0, 0, 500, 500]}),
            json!({"action": "hover", "x": 10, "y": 20}),
            json!({"action": "down", "ref": "e1", "button": "left", "modifiers": ["alt"]}),
            json!({"action": "up", "x": 1, "y": 2, "button": "left", "modifiers": ["alt"]}),
            json!({"action": "wait", "until": {"text": "Saved"}}),
            json!({"action": "batch", "steps": [{"action": "press", "keys": "a"}]}),
            json!({"action": "set_value", "ref": "e1", "value": "secret"}),
            json!({"action": "select", "target": "w1", "path": ["File", "Open"]}),
            json!({"action": "launch", "app": "org.gnome.Calculator"}),
            json!({"action": "focus", "target": "w1"}),
            json!({"action": "close", "target": "w1"}),
            json!({"action": "kill", "target": "w1"}),
            json!({"action": "window", "target": "w1", "state": "maximized"}),
            json!({"action": "clipboard", "text": "copied"}),
            json!({"action": "recall"}),
            json!({"action": "forget", "all": true}),
        ];
        let session = Session::default();
        let mut covered = Vec::new();
        for sample in samples {
            let call = parse_call(sample.clone()).unwrap_or_else(|err| panic!("{sample}: {err}"));
            let spec = call.name.spec();
            covered.push(call.name);
            if matches!(spec.changes, Changes::Nothing | Changes::StepByStep) {
                assert!(spec.keeps.is_empty(), "{} is never audited", spec.text);
                continue;
            }
            let entry = AuditEntry::of(&call, &session);
            let mut wanted = spec.keeps.to_vec();
            let mut held = kept(&entry);
            wanted.sort_by_key(|k| *k as u8);
            held.sort_by_key(|k| *k as u8);
            assert_eq!(held, wanted, "{sample}: {entry:?}");
        }
        assert_eq!(
            covered,
            ActionName::ALL,
            "one sample per action, in the table's order"
        );
    }

    #[test]
    fn without_a_place_the_entry_says_where_the_action_went() {
        let session = Session::default();
        let target = |args| AuditEntry::of(&parse_call(args).unwrap(), &session).target;
        assert_eq!(
            target(json!({"action": "press", "keys": "a"})).as_deref(),
            Some("focused")
        );
        assert_eq!(
            target(json!({"action": "type", "text": "a"})).as_deref(),
            Some("focused")
        );
        assert_eq!(
            target(json!({"action": "type", "text": "a", "target": "w2"})).as_deref(),
            Some("w2")
        );
        assert_eq!(
            target(json!({"action": "scroll", "direction": "up"})).as_deref(),
            Some("pointer")
        );
        assert_eq!(target(json!({"action": "up"})).as_deref(), Some("pointer"));
    }

    #[test]
    fn timestamps_are_utc_rfc3339() {
        let at = |secs: u64, millis: u64| {
            utc_timestamp(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(1_796_131_845, 123), "2026-12-01T13:30:45.123Z");
        assert_eq!(at(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn keys_that_type_characters_are_redacted() {
        assert_eq!(
            redact_keys(
                &Keys::parse("h u n t e r 2 shift+X ctrl+a Delete + ctrl++ Return").unwrap()
            ),
            "<char> <char> <char> <char> <char> <char> <char> <char> ctrl+a Delete <char> ctrl++ Return"
        );
    }
}
