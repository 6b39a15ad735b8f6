//! Stopping a desktop: its own processes told from others by their start times, terminated,
//! then killed, and what they left behind removed; and the watcher that stops it when its owner
//! ends.

use std::fs::{self};
use std::io::{self};
use std::path::Path;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::process::{Identity, identity, read_stat};

use super::*;

/// Stops exactly the processes `start` recorded in `state_file` (and whatever they spawned),
/// then removes the desktop's directory.
pub fn stop(state_file: &Path) -> Result<(), DesktopError> {
    let read_err = |cause| DesktopError::ReadState {
        path: state_file.to_owned(),
        cause,
    };
    let text = fs::read_to_string(state_file).map_err(read_err)?;
    let state: State = serde_json::from_str(&text).map_err(|cause| DesktopError::ParseState {
        path: state_file.to_owned(),
        cause,
    })?;
    // The state file may come from the command line: never delete a directory on its word
    // alone.
    let file = fs::canonicalize(state_file).map_err(read_err)?;
    let ours = fs::canonicalize(&state.dir).is_ok_and(|dir| Some(dir.as_path()) == file.parent())
        && state
            .dir
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with(DIR_PREFIX));
    if !ours {
        return Err(DesktopError::ForeignState {
            path: state_file.to_owned(),
            dir: state.dir,
        });
    }
    terminate(&state.processes);
    remove_stale_x_files(Path::new("/tmp"), &state);
    match fs::remove_dir_all(&state.dir) {
        // The watcher and a manual stop may race to remove it.
        Err(cause) if cause.kind() != io::ErrorKind::NotFound => Err(DesktopError::Io {
            action: format!("remove the desktop directory {}", state.dir.display()),
            hint: "its processes are stopped; remove the directory by hand",
            cause,
        }),
        _ => Ok(()),
    }
}

/// Runs in a detached process: stops the desktop once `owner_pid` is gone, and exits early if
/// the desktop was stopped some other way.
pub fn watch(owner_pid: u32, state_file: &Path) -> ! {
    // `start` recorded the owner's start time, so a recycled owner pid is not mistaken for it.
    let owner_start = fs::read_to_string(state_file)
        .ok()
        .and_then(|text| serde_json::from_str::<State>(&text).ok())
        .and_then(|state| state.owner)
        .filter(|owner| owner.pid == owner_pid)
        .map(|owner| owner.start_time)
        .or_else(|| read_stat(owner_pid).map(|stat| stat.start_time));
    loop {
        if !state_file.exists() {
            std::process::exit(0);
        }
        let owner_alive =
            owner_start.is_some_and(|start| identity(owner_pid, start) == Identity::Alive);
        if !owner_alive {
            std::process::exit(if stop(state_file).is_ok() { 0 } else { 1 });
        }
        sleep(WATCH_INTERVAL);
    }
}

/// Sends SIGTERM to each recorded process group, then SIGKILL to what is left after a grace
/// period. Each recorded process leads its group, so the group also holds its descendants, such
/// as the accessibility bus and registry the launcher spawns.
pub(super) fn terminate(processes: &[Proc]) {
    let me = std::process::id();
    // A group id cannot be reused while any member lives, so a group whose leader is gone but
    // not recycled is still ours. Pids 0 and 1 would turn kill(-pid) into "my group" and
    // "everyone", whatever a damaged state file says.
    let groups: Vec<i32> = processes
        .iter()
        .filter(|proc| proc.pid > 1 && proc.pid != me)
        .filter(|proc| identity(proc.pid, proc.start_time) != Identity::Recycled)
        .filter_map(|proc| i32::try_from(proc.pid).ok())
        .collect();
    if groups.is_empty() {
        return;
    }
    signal_groups(&groups, libc::SIGTERM);
    if wait_groups_empty(processes, &groups, TERM_GRACE) {
        return;
    }
    signal_groups(&groups, libc::SIGKILL);
    wait_groups_empty(processes, &groups, KILL_GRACE);
}

pub(super) fn signal_groups(groups: &[i32], signal: libc::c_int) {
    for group in groups {
        // SAFETY: kill has no memory-safety preconditions; ESRCH for an empty group is fine.
        unsafe {
            libc::kill(-group, signal);
        }
    }
}

pub(super) fn wait_groups_empty(processes: &[Proc], groups: &[i32], timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        reap(processes);
        if !any_alive_in(groups) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        sleep(POLL_INTERVAL * 2);
    }
}

/// When `start` ran in this process, its children are ours to reap; otherwise this is a no-op.
pub(super) fn reap(processes: &[Proc]) {
    for proc in processes.iter().filter(|proc| proc.pid > 1) {
        let Ok(pid) = i32::try_from(proc.pid) else {
            continue;
        };
        if read_stat(proc.pid)
            .is_some_and(|stat| stat.is_dead() && stat.start_time == proc.start_time)
        {
            // SAFETY: a null status pointer is allowed; WNOHANG never blocks.
            unsafe {
                libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
    }
}

pub(super) fn any_alive_in(groups: &[i32]) -> bool {
    let me = std::process::id();
    let Ok(entries) = fs::read_dir("/proc") else {
        return false;
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter_map(read_stat)
        .any(|stat| !stat.is_dead() && groups.contains(&stat.pgrp))
}

/// Xvfb, and mutter for its Xwayland, remove their locks and sockets on SIGTERM but not on
/// SIGKILL; stale ones would make the next start skip these displays. Each lock names the pid
/// of the process that took it.
pub(super) fn remove_stale_x_files(tmp: &Path, state: &State) {
    for server in state
        .processes
        .iter()
        .filter(|proc| proc.name == "Xvfb" || proc.name == "gnome-shell")
        .filter(|proc| identity(proc.pid, proc.start_time) != Identity::Alive)
    {
        let Ok(entries) = fs::read_dir(tmp) else {
            return;
        };
        for name in entries.filter_map(|entry| entry.ok()?.file_name().into_string().ok()) {
            let Some(number) = name
                .strip_prefix(".X")
                .and_then(|rest| rest.strip_suffix("-lock"))
            else {
                continue;
            };
            let lock = tmp.join(&name);
            let holder = fs::read_to_string(&lock)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok());
            if holder == Some(server.pid) {
                let _ = fs::remove_file(tmp.join(format!(".X11-unix/X{number}")));
                let _ = fs::remove_file(&lock);
            }
        }
    }
}
