//! The desktop a person is sitting at, found from a bare environment.
//!
//! MCP clients start a stdio server with little more than `HOME`, `PATH` and `USER`, so
//! `DISPLAY`, `WAYLAND_DISPLAY`, `XAUTHORITY`, the session bus and the runtime folder are often
//! missing. This module finds them where the user's own session keeps them (the environment of
//! the user's session processes, the systemd user manager, logind, the session bus at
//! `/run/user/<uid>/bus`, the X sockets), only ever for the user this process runs as, and picks
//! one session when there are several. Deciding is pure ([`choose`]); reading is in `sources`.
//! The binary applies what was found to its own environment once, before any thread starts.

mod sources;

use std::fmt::Write as _;

pub use sources::look;

/// The variables a session is described by, in the order they are set and shown.
pub const SESSION_VARS: [&str; 9] = [
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "DBUS_SESSION_BUS_ADDRESS",
    "XDG_RUNTIME_DIR",
    "XDG_SESSION_TYPE",
    "XDG_CURRENT_DESKTOP",
    "SWAYSOCK",
    "AT_SPI_BUS_ADDRESS",
];

/// The variables that name a display: with one of them given, the user has chosen.
const DISPLAY_VARS: [&str; 2] = ["DISPLAY", "WAYLAND_DISPLAY"];

/// Names the session to drive when several are found: `--session` or this variable.
pub const CHOICE_VAR: &str = "DESKHAND_SESSION";

/// One graphical session of this user, as the sources saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidate {
    /// The session's variables, by name (a subset of [`SESSION_VARS`]).
    pub vars: Vec<(String, String)>,
    /// Where it was seen, for the reply: "process 812 (xfce4-session)".
    pub seen_in: String,
    /// A private headless desktop of deskhand's (its processes carry `DESKHAND_DESKTOP`).
    pub private: bool,
    /// logind's active session on a seat, the one the person is using.
    pub active: bool,
    /// How many of the user's processes run in it: a person's session has many.
    pub processes: usize,
}

impl Candidate {
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
            .filter(|value| !value.is_empty())
    }

    /// The name a person chooses the session by: its X display (`:1`) or Wayland socket.
    pub fn name(&self) -> String {
        match (self.var("WAYLAND_DISPLAY"), self.var("DISPLAY")) {
            (Some(wayland), _) => wayland.to_owned(),
            (None, Some(display)) => display.to_owned(),
            (None, None) => "no display".to_owned(),
        }
    }

    fn kind(&self) -> &'static str {
        match (
            self.var("WAYLAND_DISPLAY"),
            self.var("XDG_CURRENT_DESKTOP").map(str::to_ascii_lowercase),
        ) {
            (Some(_), Some(desktop)) if desktop.contains("gnome") => "GNOME on Wayland",
            (Some(_), _) if self.var("SWAYSOCK").is_some() => "sway",
            (Some(_), _) => "Wayland",
            (None, _) => "X11",
        }
    }

    /// "`:1` (X11, the active session, seen in process 812 (xfce4-session))".
    pub fn describe(&self) -> String {
        let mut out = format!("{} ({}", self.name(), self.kind());
        if self.active {
            out.push_str(", the active session on its seat");
        }
        if self.private {
            out.push_str(", a private headless desktop of deskhand's");
        }
        let _ = write!(out, ", seen in {})", self.seen_in);
        out
    }

    fn matches_choice(&self, choice: &str) -> bool {
        let bare = |name: &str| {
            name.rsplit('/')
                .next()
                .unwrap_or(name)
                .trim_start_matches(':')
                .trim_end_matches(".0")
                .to_owned()
        };
        let choice = bare(choice);
        DISPLAY_VARS
            .iter()
            .filter_map(|name| self.var(name))
            .any(|value| bare(value) == choice)
    }

    /// Whether this session is the display the environment already names.
    fn shows(&self, display: &str, wayland: &str) -> bool {
        let same = |name: &str, given: &str| {
            !given.is_empty()
                && self.var(name).is_some_and(|value| {
                    value.trim_end_matches(".0") == given.trim_end_matches(".0")
                })
        };
        same("DISPLAY", display) || same("WAYLAND_DISPLAY", wayland)
    }

    /// The order sessions are preferred in: the active one, a person's over a private desktop,
    /// one with a session bus, the busiest.
    fn rank(&self) -> (bool, bool, bool, usize) {
        (
            self.active,
            !self.private,
            self.var("DBUS_SESSION_BUS_ADDRESS").is_some(),
            self.processes,
        )
    }
}

/// What was found and what the process should do with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Variables to set: only those the environment lacks.
    pub set: Vec<(String, String)>,
    /// The session picked, or `None` when the environment already named everything.
    pub picked: Option<Candidate>,
    /// The other sessions of this user, to name how to choose them instead.
    pub others: Vec<Candidate>,
}

impl Found {
    /// One line for the server's instructions and the doctor: which session and why.
    pub fn summary(&self) -> Option<String> {
        let picked = self.picked.as_ref()?;
        let mut out = format!("Desktop: {}", picked.describe());
        if !self.others.is_empty() {
            let others: Vec<String> = self.others.iter().map(Candidate::describe).collect();
            let _ = write!(
                out,
                "; also found {}: choose one with `--session NAME` or {CHOICE_VAR}=NAME",
                others.join(", ")
            );
        }
        out.push('.');
        Some(out)
    }
}

/// No graphical session could be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}; {}", self.reason(), self.fix())]
pub enum NotFound {
    Nothing { looked: String, block: String },
    NoSuchChoice { choice: String, found: String },
}

impl NotFound {
    /// What was looked for and not found.
    pub fn reason(&self) -> String {
        match self {
            NotFound::Nothing { looked, .. } => {
                format!("no graphical session of this user was found: {looked}")
            }
            NotFound::NoSuchChoice { choice, found } => format!(
                "{CHOICE_VAR} (or --session) names {choice:?}, and no graphical session of this user shows it; the sessions found are: {found}"
            ),
        }
    }

    /// What to do about it.
    pub fn fix(&self) -> String {
        match self {
            NotFound::Nothing { block, .. } => format!(
                "if a desktop is running, add this `env` block to the MCP client's configuration, with the values `echo $DISPLAY $XAUTHORITY $DBUS_SESSION_BUS_ADDRESS` prints in a terminal of that desktop:\n{block}\nor start deskhand with `--headless` for a private desktop of its own"
            ),
            NotFound::NoSuchChoice { .. } => {
                "name one of the sessions found, or leave the choice out".to_owned()
            }
        }
    }
}

/// What the environment says before anything is looked up.
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub vars: Vec<(String, String)>,
    pub choice: Option<String>,
}

impl Given {
    /// The session variables and the choice as this process's environment has them.
    pub fn from_env(choice: Option<String>) -> Self {
        Self {
            vars: SESSION_VARS
                .iter()
                .filter_map(|name| {
                    std::env::var(name)
                        .ok()
                        .filter(|value| !value.is_empty())
                        .map(|value| ((*name).to_owned(), value))
                })
                .collect(),
            choice: choice.or_else(|| {
                std::env::var(CHOICE_VAR)
                    .ok()
                    .filter(|value| !value.is_empty())
            }),
        }
    }

    fn var(&self, name: &str) -> &str {
        self.vars
            .iter()
            .find(|(key, _)| key == name)
            .map_or("", |(_, value)| value.as_str())
    }

    /// Everything the backend needs is already given: nothing to look for.
    pub fn complete(&self) -> bool {
        self.choice.is_none()
            && DISPLAY_VARS.iter().any(|name| !self.var(name).is_empty())
            && !self.var("DBUS_SESSION_BUS_ADDRESS").is_empty()
            && !self.var("XDG_RUNTIME_DIR").is_empty()
    }
}

/// Picks the session to drive from what the sources saw. Explicit variables always win: with a
/// display named, only a session showing that display may fill what is missing, and nothing
/// given is changed.
pub fn choose(given: &Given, candidates: Vec<Candidate>, looked: &str) -> Result<Found, NotFound> {
    let display = given.var("DISPLAY").to_owned();
    let wayland = given.var("WAYLAND_DISPLAY").to_owned();
    let named = !display.is_empty() || !wayland.is_empty();
    let mut candidates: Vec<Candidate> = candidates
        .into_iter()
        .filter(|candidate| {
            candidate.var("DISPLAY").is_some() || candidate.var("WAYLAND_DISPLAY").is_some()
        })
        .collect();
    candidates.sort_by(|a, b| {
        b.rank()
            .cmp(&a.rank())
            .then_with(|| a.name().cmp(&b.name()))
    });
    let position = if named {
        candidates
            .iter()
            .position(|candidate| candidate.shows(&display, &wayland))
    } else if let Some(choice) = &given.choice {
        match candidates
            .iter()
            .position(|candidate| candidate.matches_choice(choice))
        {
            Some(position) => Some(position),
            None => {
                return Err(NotFound::NoSuchChoice {
                    choice: choice.clone(),
                    found: if candidates.is_empty() {
                        "none".to_owned()
                    } else {
                        candidates
                            .iter()
                            .map(Candidate::describe)
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                });
            }
        }
    } else if candidates.is_empty() {
        return Err(NotFound::Nothing {
            looked: looked.to_owned(),
            block: env_block(given),
        });
    } else {
        Some(0)
    };
    let Some(position) = position else {
        // A display was named that no source knows of: it is used as given.
        return Ok(Found {
            set: Vec::new(),
            picked: None,
            others: Vec::new(),
        });
    };
    let picked = candidates.remove(position);
    let set = SESSION_VARS
        .iter()
        .filter(|name| given.var(name).is_empty())
        // A Wayland session named by the user is not turned into an X one, nor the reverse.
        .filter(|name| !(named && DISPLAY_VARS.contains(name)))
        .filter_map(|name| {
            picked
                .var(name)
                .map(|value| ((*name).to_owned(), value.to_owned()))
        })
        .collect();
    let others = if named { Vec::new() } else { candidates };
    Ok(Found {
        set,
        picked: Some(picked),
        others,
    })
}

/// The `env` block for an MCP client's configuration, with what is known filled in.
fn env_block(given: &Given) -> String {
    let known = |name: &str, placeholder: &str| {
        let value = given.var(name);
        if value.is_empty() {
            placeholder.to_owned()
        } else {
            value.to_owned()
        }
    };
    let runtime = sources::runtime_dir(given);
    let bus = runtime
        .as_ref()
        .map(|dir| format!("unix:path={}/bus", dir.display()))
        .unwrap_or_else(|| "unix:path=/run/user/<your uid>/bus".to_owned());
    format!(
        "\"env\": {{\"DISPLAY\": \"{}\", \"XAUTHORITY\": \"{}\", \"DBUS_SESSION_BUS_ADDRESS\": \"{}\", \"XDG_RUNTIME_DIR\": \"{}\"}}",
        known("DISPLAY", ":0"),
        known("XAUTHORITY", "<$XAUTHORITY of your desktop>"),
        known("DBUS_SESSION_BUS_ADDRESS", &bus),
        known(
            "XDG_RUNTIME_DIR",
            &runtime
                .map(|dir| dir.display().to_string())
                .unwrap_or_else(|| "/run/user/<your uid>".to_owned())
        ),
    )
}

#[cfg(test)]
mod tests;
