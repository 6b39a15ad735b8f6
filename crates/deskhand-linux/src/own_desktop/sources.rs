//! Where a user's graphical session can be read from, this user's alone: its processes'
//! environments, the systemd user manager on the session bus, logind on the system bus, and the
//! X sockets. Every D-Bus call has a timeout; nothing here changes anything.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Candidate, Found, Given, NotFound, SESSION_VARS, choose};

/// Each D-Bus question (the user manager's environment, logind's sessions) gets this long.
const BUS_TIMEOUT: Duration = Duration::from_millis(1500);
/// A desktop's processes number in the hundreds at most; past this the scan stops.
const MAX_PROCESSES: usize = 20_000;

/// Finds this user's graphical session for what the environment lacks, and picks one.
pub fn look(given: &Given) -> Result<Found, NotFound> {
    if given.complete() {
        return Ok(Found {
            set: Vec::new(),
            picked: None,
            others: Vec::new(),
        });
    }
    let uid = own_uid();
    let runtime = runtime_dir(given);
    let bus = runtime
        .as_ref()
        .map(|dir| dir.join("bus"))
        .filter(|socket| is_socket(socket));
    let mut sessions = from_processes(uid);
    if let Some(bus) = &bus {
        let address = format!("unix:path={}", bus.display());
        if let Some(manager) = from_user_manager(&address) {
            sessions.push(manager);
        }
        // The login session's own bus, for sessions whose processes did not name one.
        for session in &mut sessions {
            if session.var("DBUS_SESSION_BUS_ADDRESS").is_none() {
                session
                    .vars
                    .push(("DBUS_SESSION_BUS_ADDRESS".into(), address.clone()));
            }
        }
    }
    if let Some(runtime) = &runtime {
        for session in &mut sessions {
            if session.var("XDG_RUNTIME_DIR").is_none() {
                session
                    .vars
                    .push(("XDG_RUNTIME_DIR".into(), runtime.display().to_string()));
            }
        }
    }
    sessions.extend(from_x_sockets(uid, &sessions));
    let mut sessions = merge(sessions);
    for active in active_logins(uid) {
        for session in &mut sessions {
            if session.var("DISPLAY") == Some(active.display.as_str()) && !active.display.is_empty()
            {
                session.active = true;
            }
        }
    }
    let looked = format!(
        "no DISPLAY or WAYLAND_DISPLAY was given, and none of the processes of uid {uid}, {}, logind or the X sockets names a display",
        match &bus {
            Some(bus) => format!("the systemd user manager on {}", bus.display()),
            None => format!(
                "a session bus ({} holds none)",
                runtime
                    .as_ref()
                    .map(|dir| dir.display().to_string())
                    .unwrap_or_else(|| format!("/run/user/{uid}"))
            ),
        }
    );
    choose(given, sessions, &looked)
}

/// The runtime folder: the environment's, else `/run/user/<uid>` when it is this user's.
pub(super) fn runtime_dir(given: &Given) -> Option<PathBuf> {
    let named = given.var("XDG_RUNTIME_DIR");
    if !named.is_empty() {
        return Some(PathBuf::from(named));
    }
    let dir = PathBuf::from(format!("/run/user/{}", own_uid()));
    fs::metadata(&dir)
        .ok()
        .filter(|meta| meta.is_dir() && meta.uid() == own_uid())
        .map(|_| dir)
}

fn own_uid() -> u32 {
    fs::metadata("/proc/self").map_or(u32::MAX, |meta| meta.uid())
}

fn is_socket(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.file_type().is_socket())
}

/// Every process of this user whose environment names a display, grouped by that display.
fn from_processes(uid: u32) -> Vec<Candidate> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let own = std::process::id();
    let mut sessions = Vec::new();
    for entry in entries.flatten().take(MAX_PROCESSES) {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == own || entry.metadata().map_or(true, |meta| meta.uid() != uid) {
            continue;
        }
        let Ok(environ) = fs::read(entry.path().join("environ")) else {
            continue;
        };
        let mut vars = Vec::new();
        let mut private = false;
        for pair in environ.split(|b| *b == 0) {
            let Ok(pair) = std::str::from_utf8(pair) else {
                continue;
            };
            let Some((key, value)) = pair.split_once('=') else {
                continue;
            };
            if key == "DESKHAND_DESKTOP" && !value.is_empty() {
                private = true;
            }
            if SESSION_VARS.contains(&key) && !value.is_empty() {
                vars.push((key.to_owned(), value.to_owned()));
            }
        }
        let names_display = vars
            .iter()
            .any(|(key, _)| key == "DISPLAY" || key == "WAYLAND_DISPLAY");
        if !names_display {
            continue;
        }
        let name = fs::read_to_string(entry.path().join("comm"))
            .map(|comm| comm.trim().to_owned())
            .unwrap_or_default();
        let candidate = Candidate {
            vars,
            seen_in: format!("process {pid} ({name})"),
            private,
            active: false,
            processes: 1,
        };
        if reachable(&candidate) {
            sessions.push(candidate);
        }
    }
    sessions
}

/// A session whose display socket is gone (a desktop that ended) is no session.
fn reachable(candidate: &Candidate) -> bool {
    if let Some(wayland) = candidate.var("WAYLAND_DISPLAY") {
        let path = if wayland.starts_with('/') {
            PathBuf::from(wayland)
        } else {
            match candidate.var("XDG_RUNTIME_DIR") {
                Some(dir) => Path::new(dir).join(wayland),
                None => return false,
            }
        };
        return is_socket(&path);
    }
    match candidate.var("DISPLAY").and_then(local_display_number) {
        Some(number) => is_socket(Path::new(&format!("/tmp/.X11-unix/X{number}"))),
        // A remote display (host:0) cannot be checked from here: keep it.
        None => candidate.var("DISPLAY").is_some(),
    }
}

/// `:1`, `:1.0` and `unix:1` are display 1 on this machine.
fn local_display_number(display: &str) -> Option<u32> {
    let rest = display
        .strip_prefix(':')
        .or_else(|| display.strip_prefix("unix:"))?;
    rest.split('.').next()?.parse().ok()
}

/// Sessions that the sources saw more than once are one, with what each source knew.
fn merge(sessions: Vec<Candidate>) -> Vec<Candidate> {
    let mut merged: BTreeMap<String, Candidate> = BTreeMap::new();
    for session in sessions {
        let key = format!(
            "{}|{}",
            session.name(),
            session.var("XDG_RUNTIME_DIR").unwrap_or_default()
        );
        match merged.get_mut(&key) {
            None => {
                merged.insert(key, session);
            }
            Some(kept) => {
                kept.processes += session.processes;
                kept.private |= session.private;
                kept.active |= session.active;
                for (name, value) in session.vars {
                    if kept.var(&name).is_none() {
                        kept.vars.push((name, value));
                    }
                }
            }
        }
    }
    merged.into_values().collect()
}

/// X servers of this user with no process that names them (an `Xvfb` started by hand): the
/// last resort, with the user's `~/.Xauthority` when there is one.
fn from_x_sockets(uid: u32, known: &[Candidate]) -> Vec<Candidate> {
    let Ok(entries) = fs::read_dir("/tmp/.X11-unix") else {
        return Vec::new();
    };
    let known: BTreeSet<u32> = known
        .iter()
        .filter_map(|c| c.var("DISPLAY").and_then(local_display_number))
        .collect();
    let authority = std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".Xauthority"))
        .filter(|path| path.is_file());
    entries
        .flatten()
        .filter(|entry| entry.metadata().is_ok_and(|meta| meta.uid() == uid))
        .filter_map(|entry| {
            let number: u32 = entry
                .file_name()
                .to_str()?
                .strip_prefix('X')?
                .parse()
                .ok()?;
            (!known.contains(&number)).then_some(number)
        })
        .map(|number| {
            let mut vars = vec![("DISPLAY".to_owned(), format!(":{number}"))];
            if let Some(path) = &authority {
                vars.push(("XAUTHORITY".into(), path.display().to_string()));
            }
            Candidate {
                vars,
                seen_in: format!("the X socket /tmp/.X11-unix/X{number}"),
                ..Candidate::default()
            }
        })
        .collect()
}

/// The display variables the systemd user manager hands the user's services, as GNOME and
/// most sessions import them there.
fn from_user_manager(address: &str) -> Option<Candidate> {
    let address = address.to_owned();
    let environment = on_bus(move || async move {
        let connection = zbus::connection::Builder::address(address.as_str())?
            .method_timeout(BUS_TIMEOUT)
            .build()
            .await?;
        let reply = connection
            .call_method(
                Some("org.freedesktop.systemd1"),
                "/org/freedesktop/systemd1",
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &("org.freedesktop.systemd1.Manager", "Environment"),
            )
            .await?;
        let value: zbus::zvariant::OwnedValue = reply.body().deserialize()?;
        Ok(Vec::<String>::try_from(value)?)
    })?;
    let vars: Vec<(String, String)> = environment
        .iter()
        .filter_map(|pair| pair.split_once('='))
        .filter(|(key, value)| SESSION_VARS.contains(key) && !value.is_empty())
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
    let candidate = Candidate {
        vars,
        seen_in: "the systemd user manager's environment".to_owned(),
        ..Candidate::default()
    };
    (candidate.var("DISPLAY").is_some() || candidate.var("WAYLAND_DISPLAY").is_some())
        .then_some(candidate)
        .filter(reachable)
}

/// A session logind counts active on a seat for this user.
struct ActiveLogin {
    display: String,
}

/// This user's sessions that logind says are active: the person is at them.
fn active_logins(uid: u32) -> Vec<ActiveLogin> {
    on_bus(move || async move {
        let connection = zbus::connection::Builder::system()?
            .method_timeout(BUS_TIMEOUT)
            .build()
            .await?;
        let reply = connection
            .call_method(
                Some("org.freedesktop.login1"),
                "/org/freedesktop/login1",
                Some("org.freedesktop.login1.Manager"),
                "ListSessions",
                &(),
            )
            .await?;
        let sessions: Vec<(String, u32, String, String, zbus::zvariant::OwnedObjectPath)> =
            reply.body().deserialize()?;
        let mut active = Vec::new();
        for (_, owner, _, seat, path) in sessions {
            if owner != uid || seat.is_empty() {
                continue;
            }
            let property = |name: &'static str| {
                let connection = connection.clone();
                let path = path.clone();
                async move {
                    let reply = connection
                        .call_method(
                            Some("org.freedesktop.login1"),
                            path.as_str(),
                            Some("org.freedesktop.DBus.Properties"),
                            "Get",
                            &("org.freedesktop.login1.Session", name),
                        )
                        .await?;
                    reply.body().deserialize::<zbus::zvariant::OwnedValue>()
                }
            };
            let is_active = bool::try_from(property("Active").await?).unwrap_or(false);
            let display = String::try_from(property("Display").await?).unwrap_or_default();
            if is_active {
                active.push(ActiveLogin { display });
            }
        }
        Ok(active)
    })
    .unwrap_or_default()
}

/// Runs one D-Bus question on a runtime of its own, on a thread of its own, under a deadline:
/// this runs before the program's runtime exists, and a bus that hangs must not hang the start.
fn on_bus<T, F, Fut>(question: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<T, zbus::Error>>,
{
    crate::doctor::within(BUS_TIMEOUT * 2, "the session bus", move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|err| err.to_string())?;
        runtime
            .block_on(async { tokio::time::timeout(BUS_TIMEOUT, question()).await })
            .map_err(|_| "timed out".to_owned())?
            .map_err(|err| err.to_string())
    })
    .ok()
}
