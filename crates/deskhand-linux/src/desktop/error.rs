//! How starting or stopping a desktop fails, each with what to do.

use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use super::programs::{list_packages, list_programs};

/// Each message carries its cause inline (`cause` fields are deliberately not `#[source]`), so
/// printing the error chain does not repeat it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DesktopError {
    #[error(
        "the headless desktop needs programs that are not installed: {}; install them with `apt-get install {}`",
        list_programs(.programs),
        list_packages(.programs)
    )]
    MissingPrograms {
        programs: Vec<(&'static str, &'static str)>,
    },
    #[error(
        "the owner process {pid} is not running, so the desktop would be stopped at once; pass the pid of a live process"
    )]
    OwnerGone { pid: u32 },
    #[error(
        "no free X display between :{first} and :{last}; stop unused desktops with `deskhand desktop stop`, or remove stale /tmp/.X<n>-lock files and /tmp/deskhand-<n> directories"
    )]
    NoFreeDisplay { first: u32, last: u32 },
    #[error("could not {action}: {cause}; {hint}")]
    Io {
        action: String,
        hint: &'static str,
        cause: io::Error,
    },
    #[error("could not run {program}: {cause}; check that it is installed and executable")]
    Spawn { program: String, cause: io::Error },
    #[error(
        "{program} exited during desktop start-up ({status}); its last output was: {tail}; the full log is kept at {}",
        log.display()
    )]
    Exited {
        program: &'static str,
        status: ExitStatus,
        tail: String,
        log: PathBuf,
    },
    #[error(
        "{program} did not get ready ({what}) within {} s; its last output was: {tail}; the full log is kept at {}; if the machine is overloaded, retry",
        timeout.as_secs(),
        log.display()
    )]
    Timeout {
        program: &'static str,
        what: &'static str,
        timeout: Duration,
        tail: String,
        log: PathBuf,
    },
    #[error("`{command}` failed ({status}): {stderr}; the session bus may have died, so retry")]
    Command {
        command: String,
        status: ExitStatus,
        stderr: String,
    },
    #[error(
        "could not read the desktop state file {}: {cause}; pass the DESKHAND_DESKTOP path printed by `deskhand desktop start` (the desktop may already be stopped)",
        path.display()
    )]
    ReadState { path: PathBuf, cause: io::Error },
    #[error(
        "the desktop state file {} is not valid: {cause}; pass the DESKHAND_DESKTOP path printed by `deskhand desktop start`",
        path.display()
    )]
    ParseState {
        path: PathBuf,
        cause: serde_json::Error,
    },
    #[error(
        "the state file {} names the directory {}, which is not a deskhand desktop directory next to it; refusing to stop anything, pass the DESKHAND_DESKTOP path printed by `deskhand desktop start`",
        path.display(),
        dir.display()
    )]
    ForeignState { path: PathBuf, dir: PathBuf },
    #[error(
        "could not lay out the desktop's monitors ({what}): {cause}; start it with fewer or smaller monitors (`--monitors`, `--size`)"
    )]
    Monitors { what: &'static str, cause: String },
}
