//! The policy file: what the user allows deskhand to do, fixed when the server or CLI starts.
//!
//! ```toml
//! read_only = false                         # true: every action is refused, reads still work
//! allow_apps = ["gnome-calculator"]         # set: only these apps may receive actions
//! deny_apps = ["keepassxc"]                 # these apps never receive actions
//! deny_keys = ["ctrl+alt+Delete", "super+l"] # `press` never sends these chords
//! ```
//!
//! No file means no rule: everything is allowed. A rule that cannot be understood is a startup
//! error, never ignored, so a typo cannot silently allow what the user meant to forbid.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::action::{Action, Call};
use crate::error::{Error, ErrorKind, Result};
use crate::keys::{Chord, Keys};

/// Why a policy file could not be used; the server or CLI does not start.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("the policy file {} cannot be read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the policy file {} is not valid {format}: {message}", path.display())]
    Syntax {
        path: PathBuf,
        format: &'static str,
        message: String,
    },
    #[error("the policy file {}: {message}", path.display())]
    Rule { path: PathBuf, message: String },
}

/// The file as written: every key optional, unknown keys refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    read_only: bool,
    #[serde(default)]
    allow_apps: Vec<String>,
    #[serde(default)]
    deny_apps: Vec<String>,
    #[serde(default)]
    deny_keys: Vec<String>,
}

/// One `deny_keys` entry: the text the user wrote and the chord it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRule {
    pub text: String,
    chord: Chord,
}

/// What the user allows. The default is no policy: everything is allowed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// The file the policy came from; `None` when there is none.
    pub source: Option<PathBuf>,
    pub read_only: bool,
    pub allow_apps: Vec<String>,
    pub deny_apps: Vec<String>,
    pub deny_keys: Vec<KeyRule>,
}

/// The application an action would reach, as far as it is known before acting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// The surface's id: `w3`, or `screen` where no window is known.
    pub surface: String,
    /// How a message names it: `w3`, `the point 10,20 of screen`, `the focused window w2`.
    pub label: String,
    /// The application's name as `apps` and `windows` show it; `None` when it cannot be known.
    pub app: Option<String>,
}

impl Policy {
    /// Reads a policy file: JSON when its name ends in `.json`, TOML otherwise.
    pub fn load(path: &Path) -> Result<Policy, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let json = path
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
        Policy::parse(&text, path, json)
    }

    /// Parses policy text that came from `path`.
    pub fn parse(text: &str, path: &Path, json: bool) -> Result<Policy, PolicyError> {
        let syntax = |format, message: String| PolicyError::Syntax {
            path: path.to_path_buf(),
            format,
            message: message.trim().replace('\n', " "),
        };
        let file: PolicyFile = if json {
            serde_json::from_str(text).map_err(|err| syntax("JSON", err.to_string()))?
        } else {
            toml::from_str(text).map_err(|err| syntax("TOML", err.to_string()))?
        };
        let rule = |message: String| PolicyError::Rule {
            path: path.to_path_buf(),
            message,
        };
        let apps = |key: &str, names: Vec<String>| -> Result<Vec<String>, PolicyError> {
            names
                .into_iter()
                .map(|name| {
                    let trimmed = name.trim();
                    if trimmed.is_empty() {
                        Err(rule(format!(
                            "{key} holds an empty name; give application names as `apps` lists them"
                        )))
                    } else {
                        Ok(trimmed.to_string())
                    }
                })
                .collect()
        };
        let allow_apps = apps("allow_apps", file.allow_apps)?;
        let deny_apps = apps("deny_apps", file.deny_apps)?;
        let deny_keys = file
            .deny_keys
            .into_iter()
            .map(|text| {
                let chord = parse_rule(&text)
                    .map_err(|why| rule(format!("deny_keys entry {text:?} {why}")))?;
                Ok(KeyRule { text, chord })
            })
            .collect::<Result<Vec<_>, PolicyError>>()?;
        Ok(Policy {
            source: Some(path.to_path_buf()),
            read_only: file.read_only,
            allow_apps,
            deny_apps,
            deny_keys,
        })
    }

    /// Whether a call needs to know which application it reaches.
    pub fn judges_apps(&self) -> bool {
        !self.allow_apps.is_empty() || !self.deny_apps.is_empty()
    }

    fn denied(&self, rule: String, next: &str) -> Error {
        let source = self
            .source
            .as_deref()
            .map(|path| format!(" {}", path.display()))
            .unwrap_or_default();
        Error::new(
            ErrorKind::Denied,
            format!(
                "denied by policy{source}: {rule}; nothing was done; {next} (no call can change the policy, only the user)"
            ),
        )
    }

    /// The rules that need only the call itself: read-only, and denied key chords for `press`.
    pub fn check_call(&self, call: &Call) -> Result<()> {
        if self.read_only && call.actuates() {
            return Err(self.denied(
                "read_only = true".into(),
                "this deskhand may only read the desktop (apps, windows, observe, screenshot, zoom, wait, reading the clipboard); tell the user what you wanted to do",
            ));
        }
        if let Action::Press { keys } = &call.action {
            for (written, chord) in keys.written() {
                if let Some(rule) = self.deny_keys.iter().find(|r| chord.is_denied_by(&r.chord)) {
                    return Err(self.denied(
                        format!(
                            "deny_keys contains {:?}, which {written:?} presses",
                            rule.text
                        ),
                        "do not send that key combination; ask the user to do it if it is needed",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The rules on applications, for one application an action would reach.
    pub fn check_subject(&self, subject: &Subject) -> Result<()> {
        let Some(app) = &subject.app else {
            if self.allow_apps.is_empty() {
                return Ok(());
            }
            return Err(self.denied(
                format!(
                    "allow_apps is set and the application of {} is not known",
                    subject.label
                ),
                "act on an element ref or a point of a window (`wN`) of an allowed application instead",
            ));
        };
        let same = |name: &String| name.eq_ignore_ascii_case(app.trim());
        if let Some(rule) = self.deny_apps.iter().find(|name| same(name)) {
            return Err(self.denied(
                format!(
                    "deny_apps contains {rule:?}, the application of {}",
                    subject.label
                ),
                "leave that application alone, or ask the user to do it",
            ));
        }
        if !self.allow_apps.is_empty() && !self.allow_apps.iter().any(same) {
            return Err(self.denied(
                format!(
                    "allow_apps ({}) does not contain {app:?}, the application of {}",
                    self.allow_apps
                        .iter()
                        .map(|name| format!("{name:?}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    subject.label
                ),
                "act only on windows of those applications, or ask the user",
            ));
        }
        Ok(())
    }
}

/// One chord of a `deny_keys` entry, parsed as `press` parses its keys.
fn parse_rule(text: &str) -> std::result::Result<Chord, String> {
    let keys = Keys::parse(text).map_err(|why| {
        format!(
            "is not a key chord ({why}); write modifiers (ctrl, shift, alt, super, altgr) and one key joined by +, e.g. \"ctrl+q\""
        )
    })?;
    match keys.chords() {
        [chord] => Ok(chord.clone()),
        _ => Err(
            "holds more than one chord; give one chord per entry, e.g. \"ctrl+alt+Delete\"".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::parse_call;
    use serde_json::json;

    fn policy(text: &str) -> Policy {
        Policy::parse(text, Path::new("/etc/p.toml"), false).unwrap()
    }

    fn press(keys: &str) -> Call {
        parse_call(json!({"action": "press", "keys": keys})).unwrap()
    }

    #[test]
    fn no_file_allows_everything() {
        let policy = Policy::default();
        assert!(!policy.judges_apps());
        assert!(policy.check_call(&press("ctrl+alt+Delete")).is_ok());
        let subject = Subject {
            surface: "screen".into(),
            label: "screen".into(),
            app: None,
        };
        assert!(policy.check_subject(&subject).is_ok());
        // An empty file holds no rule either.
        let empty = self::policy("");
        assert!(!empty.read_only && !empty.judges_apps() && empty.deny_keys.is_empty());
    }

    #[test]
    fn read_only_refuses_actions_and_names_the_rule() {
        let policy = policy("read_only = true");
        let err = policy.check_call(&press("a")).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Denied);
        assert!(
            err.message
                .starts_with("denied by policy /etc/p.toml: read_only = true;"),
            "{}",
            err.message
        );
        let observe = parse_call(json!({"action": "observe"})).unwrap();
        assert!(policy.check_call(&observe).is_ok());
    }

    #[test]
    fn denied_chords_match_in_any_spelling_and_with_more_modifiers() {
        let policy = policy(r#"deny_keys = ["ctrl+alt+Delete", "super+l", "ctrl+q", "Return"]"#);
        for denied in [
            "ctrl+alt+Delete",
            "alt+ctrl+del",
            "Control+Alt+DELETE",
            "a super+L",
            "win+l",
            "ctrl+shift+q",
            "ctrl+Q",
            "enter",
            "shift+Return",
        ] {
            let err = policy.check_call(&press(denied)).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Denied, "{denied}");
            assert!(
                err.message.contains("deny_keys contains"),
                "{}",
                err.message
            );
        }
        for allowed in ["ctrl+alt+t", "l", "alt+q", "Delete", "ctrl+s Tab"] {
            assert!(policy.check_call(&press(allowed)).is_ok(), "{allowed}");
        }
        // Typed text is not a key combination.
        let typed = parse_call(json!({"action": "type", "text": "ctrl+q\n"})).unwrap();
        assert!(policy.check_call(&typed).is_ok());
    }

    #[test]
    fn apps_are_allowed_or_denied_by_name_in_any_case() {
        let subject = |app: Option<&str>| Subject {
            surface: "w3".into(),
            label: "w3".into(),
            app: app.map(str::to_owned),
        };
        let deny = policy(r#"deny_apps = ["KeePassXC"]"#);
        assert!(deny.judges_apps());
        let err = deny.check_subject(&subject(Some("keepassxc"))).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Denied);
        assert!(
            err.message
                .contains("deny_apps contains \"KeePassXC\", the application of w3"),
            "{}",
            err.message
        );
        assert!(deny.check_subject(&subject(Some("gedit"))).is_ok());
        assert!(deny.check_subject(&subject(None)).is_ok());

        let allow = policy(r#"allow_apps = ["gedit", "mousepad"]"#);
        assert!(allow.check_subject(&subject(Some("Gedit"))).is_ok());
        let err = allow.check_subject(&subject(Some("firefox"))).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Denied);
        assert!(
            err.message
                .contains("allow_apps (\"gedit\", \"mousepad\") does not contain \"firefox\""),
            "{}",
            err.message
        );
        let err = allow.check_subject(&subject(None)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Denied);
        assert!(err.message.contains("is not known"), "{}", err.message);
    }

    #[test]
    fn json_works_and_mistakes_are_errors_that_name_the_file() {
        let json = Policy::parse(
            r#"{"read_only": true, "deny_apps": ["x"]}"#,
            Path::new("/p.json"),
            true,
        )
        .unwrap();
        assert!(json.read_only);
        // A file that does not parse is a syntax error; one that parses but says something
        // impossible breaks a rule.
        let bad = |text: &str, json: bool, rule: bool| {
            let err = Policy::parse(text, Path::new("/home/u/policy.toml"), json).unwrap_err();
            match (&err, rule) {
                (PolicyError::Syntax { .. }, false) | (PolicyError::Rule { .. }, true) => {}
                _ => panic!("{text}: {err:?}"),
            }
            err.to_string()
        };
        let message = bad("readonly = true", false, false);
        assert!(
            message.starts_with("the policy file /home/u/policy.toml is not valid TOML"),
            "{message}"
        );
        assert!(message.contains("readonly"), "{message}");
        let message = bad("read_only = \"yes\"", false, false);
        assert!(message.contains("not valid TOML"), "{message}");
        let message = bad("{\"read_only\": 1}", true, false);
        assert!(message.contains("not valid JSON"), "{message}");
        let message = bad(r#"deny_keys = ["ctrl+x ctrl+c"]"#, false, true);
        assert!(message.contains("one chord per entry"), "{message}");
        let message = bad(r#"deny_keys = ["hyper+x"]"#, false, true);
        assert!(message.contains("is not a key chord"), "{message}");
        let message = bad(r#"allow_apps = [" "]"#, false, true);
        assert!(message.contains("empty name"), "{message}");
        let missing = Policy::load(Path::new("/nonexistent/deskhand/policy.toml")).unwrap_err();
        assert!(matches!(missing, PolicyError::Read { .. }), "{missing:?}");
        assert!(
            missing
                .to_string()
                .starts_with("the policy file /nonexistent/deskhand/policy.toml cannot be read"),
            "{missing}"
        );
    }
}
