//! The `Apps` capability: installed apps, launching by bundle id, and ending an app.

use std::path::Path;
use std::time::{Duration, Instant};

use deskhand_core::backend::Apps;
use deskhand_core::model::InstalledApp;
use deskhand_core::{Error, ErrorKind, Result};

use crate::apps::{application_dirs, installed, is_bundle_id};
use crate::ending::{GRACES, KillRefused, Processes, end};
use crate::errors::Request;

use super::{MacBackend, appkit, blocking};
use crate::enablement::Process;

/// The process by pid and start time, which tell it from a later one under the same pid;
/// `None` once it is gone.
pub(super) fn process(pid: u32) -> Option<Process> {
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: `info` is valid to fill for `size` bytes.
    let read = unsafe {
        libc::proc_pidinfo(
            libc::pid_t::try_from(pid).ok()?,
            libc::PROC_PIDTBSDINFO,
            0,
            (&raw mut info).cast(),
            size,
        )
    };
    (read == size).then(|| Process {
        pid,
        started: info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec,
    })
}

/// How long a launched app has to show up among the running ones.
const LAUNCH_DEADLINE: Duration = Duration::from_secs(10);

fn launch(id: &str) -> Result<u32> {
    let before = appkit::running(id);
    // `open -g` starts the app in the background, so the agent's window keeps the focus; a
    // running app is only asked to open, and keeps its process.
    let mut child = std::process::Command::new("/usr/bin/open")
        .args(["-g", "-b", id])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|err| Error::platform(format!("/usr/bin/open could not start ({err})")))?;
    let until = Instant::now() + LAUNCH_DEADLINE;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) | Err(_) => {
                let _ = child.kill();
                return Err(Error::new(
                    ErrorKind::Timeout,
                    format!(
                        "launching {id} did not finish within {} s; call windows to see \
                         whether it opened",
                        LAUNCH_DEADLINE.as_secs()
                    ),
                )
                .after_sending());
            }
        }
    };
    if !status.success() {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("no application has the bundle id {id}; call apps to list the installed ones"),
        ));
    }
    loop {
        let now = appkit::running(id);
        if let Some(pid) = now.iter().find(|pid| !before.contains(pid)).or(now.first()) {
            return Ok(*pid);
        }
        if Instant::now() >= until {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "{id} was asked to open but is not running after {} s; call windows to see \
                     whether it appeared",
                    LAUNCH_DEADLINE.as_secs()
                ),
            )
            .after_sending());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Apps for MacBackend {
    async fn installed(&self) -> Result<Vec<InstalledApp>> {
        blocking("Listing installed applications", Request::Read, || {
            let home = std::env::var_os("HOME").unwrap_or_default();
            let bundles = application_dirs(Path::new(&home))
                .iter()
                .flat_map(|dir| appkit::bundles_in(dir))
                .collect();
            Ok(installed(bundles))
        })
        .await
    }

    async fn launch(&self, id: &str) -> Result<u32> {
        if !is_bundle_id(id) {
            return Err(Error::bad_argument(format!(
                "\"{id}\" is not a bundle id; launch takes the id apps lists, such as \
                 com.apple.TextEdit"
            )));
        }
        let id = id.to_owned();
        // `open` and the wait for the process have deadlines of their own, longer than a call's.
        match tokio::task::spawn_blocking(move || launch(&id)).await {
            Ok(result) => result,
            Err(join) => Err(Error::platform(format!(
                "launching failed inside deskhand ({join}); call windows to see whether it opened"
            ))),
        }
    }

    async fn kill(&self, pid: u32) -> Result<()> {
        blocking("Ending the app", Request::Change, move || {
            end(&System, pid, GRACES).map(|_| ())
        })
        .await
    }
}

/// The processes of this Mac, as ending an app asks them.
struct System;

impl Processes for System {
    fn ask_to_quit(&self, pid: u32) -> bool {
        libc::pid_t::try_from(pid).is_ok_and(appkit::ask_to_quit)
    }

    fn kill(&self, pid: u32) -> std::result::Result<(), KillRefused> {
        let target = libc::pid_t::try_from(pid)
            .map_err(|_| KillRefused::Other(format!("{pid} is not a process id")))?;
        // SAFETY: sends a signal; no memory is involved. `target` is positive (checked before),
        // so it names one process, never a group.
        if unsafe { libc::kill(target, libc::SIGKILL) } == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        Err(match err.raw_os_error() {
            Some(libc::ESRCH) => KillRefused::NotRunning,
            _ => KillRefused::Other(err.to_string()),
        })
    }

    fn running(&self, pid: u32) -> bool {
        let Ok(target) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only asks whether the process exists; no memory is involved.
        // NSRunningApplication's own `terminated` is not used: it changes only while the main
        // run loop runs, which deskhand's main thread does not.
        let answered = unsafe { libc::kill(target, 0) };
        answered == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
}
