//! Text on the clipboard of the X server or of a Wayland compositor: what a read gives, how
//! either fails, and the holder process both use.
//!
//! On both, the clipboard is not a store but a promise: the program that copied keeps the data
//! and hands it out when asked, for as long as it runs. A CLI call ends right after it writes,
//! so written text is held by a separate process, the deskhand binary run with [`HOLDER_ARG`]
//! (and [`WAYLAND_HOLDER`] on Wayland), which serves requests until another program takes the
//! clipboard. [`start_holder`] is async because it waits on that child process.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};
use x11rb::protocol::xproto::Window;

/// The hidden first argument that turns the deskhand binary into a clipboard holder.
pub const HOLDER_ARG: &str = "__clipboard-holder";
/// The holder's second argument when it holds a Wayland compositor's clipboard.
pub const WAYLAND_HOLDER: &str = "wayland";
/// The holder's second argument when it serves an X clipboard saved before a paste again.
pub const RESTORING_HOLDER: &str = "restoring";

/// What a holder holds, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holding {
    /// Text on the X server's clipboard.
    X11Text,
    /// Text on the Wayland compositor's clipboard.
    WaylandText,
    /// The X clipboard as it was before a paste, every target as its owner offered it.
    X11Saved,
}
/// The line a holder prints once it owns the clipboard.
pub(crate) const READY: &str = "ready";
/// The most text a read accepts.
pub(crate) const MAX_TEXT: usize = 10 * 1024 * 1024;
/// Round trips that involve the X server alone.
pub(crate) const SERVER_TIMEOUT: Duration = Duration::from_secs(5);
/// A whole read, however many chunks the owner sends.
pub const READ_DEADLINE: Duration = Duration::from_secs(20);
/// How long a holder may take to start, read its text and take the clipboard.
const HOLDER_DEADLINE: Duration = Duration::from_secs(10);
/// A clipboard operation that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClipboardError {
    #[error(transparent)]
    X(#[from] crate::x11::X11Error),

    #[error(
        "the clipboard owner (X window {owner:#x}) did not answer {what} within {:.0} s; the \
         application that copied last may be busy or hung: try again, or copy again from a \
         responsive application",
        waited.as_secs_f64()
    )]
    OwnerTimeout {
        owner: Window,
        what: &'static str,
        waited: Duration,
    },

    #[error(
        "another program took the clipboard while it was being read, and its previous owner \
         stopped sending; read it again"
    )]
    Replaced,

    #[error(
        "the clipboard holds more than {} MB of text, more than deskhand reads; paste it into \
         an application and read it there instead",
        MAX_TEXT / (1024 * 1024)
    )]
    TooLarge,

    #[error(
        "the X server did not answer {what} within {} s; check that the desktop is alive, then \
         write again",
        SERVER_TIMEOUT.as_secs()
    )]
    ServerSilent { what: &'static str },

    #[error(
        "another program took the clipboard while deskhand was taking it; write again if the \
         text should still go to the clipboard"
    )]
    Lost,

    #[error(
        "the clipboard holder lost the pipes to the process that started it ({0}); write again"
    )]
    Caller(io::Error),

    #[error(
        "the clipboard holder {program} could not be started ({cause}); check that the deskhand \
         binary is still in place, restart the MCP server if the binary was rebuilt or \
         reinstalled since it started, then write again"
    )]
    Spawn { program: String, cause: io::Error },

    #[error("the clipboard holder {program} did not take the clipboard: {reason}")]
    HolderFailed { program: String, reason: String },

    #[error(
        "the clipboard holder {program} did not take the clipboard within {} s; the display \
         server may be overloaded: write again",
        HOLDER_DEADLINE.as_secs()
    )]
    HolderTimeout { program: String },

    #[error(transparent)]
    Wayland(#[from] crate::wayland::WaylandError),

    #[error(
        "the application that copied last did not send the clipboard's text within {:.0} s; it \
         may be busy or hung: try again, or copy again from a responsive application",
        .0.as_secs_f64()
    )]
    OwnerSilent(Duration),

    #[error("the pipe the clipboard's text comes through failed ({0}); read it again")]
    Pipe(io::Error),

    #[error(
        "the application that copied last lists a type it does not give out, so its clipboard \
         cannot be saved whole"
    )]
    Unsaveable,
}

/// What the clipboard offers now.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ClipboardContents {
    pub text: Option<String>,
    /// Target names other than the selection protocol's own (TARGETS, TIMESTAMP, ...).
    pub types: Vec<String>,
}

/// Closes the descriptors beyond the standard three that the holder inherited: a pipe among
/// them would stay open for as long as the holder lives, and keep whoever reads it waiting.
pub(crate) fn close_inherited() {
    let Ok(listing) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let inherited: Vec<i32> = listing
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in inherited {
        // SAFETY: nothing in this process uses them: the holder has opened nothing yet, and the
        // listing's own descriptor is closed already (closing it again fails harmlessly).
        unsafe { libc::close(fd) };
    }
}

/// Ends every tie to the process that started the holder: a pipe left open would keep a caller
/// that waits for the CLI's output waiting for the holder too, and the caller's session would
/// take the holder along when its terminal closes.
pub(crate) fn detach() {
    // SAFETY: setsid takes no arguments; should it fail, the holder merely stays in the session.
    unsafe { libc::setsid() };
    // The working directory may be on a file system someone wants to unmount.
    let _ = std::env::set_current_dir("/");
    if let Ok(null) = File::options().read(true).write(true).open("/dev/null") {
        for fd in 0..=2 {
            // SAFETY: both descriptors are open; the standard ones belong to this process.
            unsafe { libc::dup2(null.as_raw_fd(), fd) };
        }
    }
}

/// Starts a holder for `input` (text, or a saved clipboard): `program` (the running binary when
/// `None`) with [`HOLDER_ARG`] and the argument that names what it holds, in this process's
/// environment, and returns once it owns the clipboard.
pub async fn start_holder(
    program: Option<&Path>,
    input: &[u8],
    holding: Holding,
) -> Result<(), ClipboardError> {
    let program: PathBuf = match program {
        Some(program) => program.to_owned(),
        None => std::env::current_exe().map_err(|cause| ClipboardError::Spawn {
            program: "(the running deskhand binary)".into(),
            cause,
        })?,
    };
    let shown = program.display().to_string();
    // Every stream is a pipe of its own: the holder outlives this call, and must not hold
    // open the streams of whoever waits for this process's output.
    let mut child = tokio::process::Command::new(&program)
        .arg(HOLDER_ARG)
        .args(match holding {
            Holding::X11Text => None,
            Holding::WaylandText => Some(WAYLAND_HOLDER),
            Holding::X11Saved => Some(RESTORING_HOLDER),
        })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|cause| ClipboardError::Spawn {
            program: shown.clone(),
            cause,
        })?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("all three streams were asked to be piped");
    };
    let started = tokio::time::timeout(HOLDER_DEADLINE, async {
        match stdin.write_all(input).await {
            // It exited without reading: its exit status tells more than the broken pipe.
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => {}
            written => written?,
        }
        drop(stdin);
        let mut line = String::new();
        tokio::io::BufReader::new(stdout.take(256))
            .read_line(&mut line)
            .await?;
        io::Result::Ok(line)
    })
    .await;
    match started {
        Ok(Ok(line)) if line.trim_end() == READY => {
            // Reaps the holder when it exits, in a server that outlives it.
            tokio::spawn(async move { child.wait().await });
            Ok(())
        }
        Ok(said) => {
            // Not a holder that is going to hold: whatever it is, it must not linger.
            let _ = child.start_kill();
            let mut complaint = String::new();
            let _ = tokio::time::timeout(
                Duration::from_secs(1),
                stderr.take(4096).read_to_string(&mut complaint),
            )
            .await;
            let status = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
            // Only a holder's own sentence is repeated: what another program prints may be the
            // text it was handed.
            let complaint = complaint.trim().strip_prefix("deskhand: ").map(str::trim);
            let reason = match (complaint, said) {
                (Some(complaint), _) if !complaint.is_empty() => complaint.to_owned(),
                (_, Ok(line)) if !line.is_empty() => format!(
                    "it printed something other than {READY:?}, so it is not a deskhand binary; \
                     point LinuxBackend::with_clipboard_holder at one"
                ),
                (_, Ok(_)) => match status {
                    Ok(Ok(status)) => format!("it exited ({status}) before it was ready"),
                    _ => "it closed its output before it was ready".to_owned(),
                },
                (_, Err(err)) => format!("talking to it failed ({err})"),
            };
            Err(ClipboardError::HolderFailed {
                program: shown,
                reason,
            })
        }
        Err(_) => {
            let _ = child.start_kill();
            let _ = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
            Err(ClipboardError::HolderTimeout { program: shown })
        }
    }
}
