//! The headless Wayland desktop: sway on wlroots' headless backend, with its own session bus and
//! AT-SPI bus, all run as an unprivileged user (sway refuses to run as root).
//!
//! deskhand itself may stay root: the session bus lets root in by its configuration, the AT-SPI
//! bus does by its own, and root reaches the user's Wayland and sway sockets.

use std::fs;
use std::io;
use std::os::unix::fs::{PermissionsExt, chown};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{DesktopError, Locator, Session, StartOptions, find_in_path, run};
use crate::wayland::ipc::SwayIpc;

/// The unprivileged user the desktop runs as when deskhand runs as root.
pub const DESKTOP_USER: &str = "deskhand";
/// sway names its first socket so in a runtime directory of its own.
const SOCKET_NAME: &str = "wayland-1";
const OUTPUT: &str = "HEADLESS-1";

/// The user processes of the desktop run as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct User {
    pub uid: u32,
    pub gid: u32,
}

pub(super) struct Programs {
    sway: PathBuf,
    dbus_daemon: PathBuf,
    dbus_send: PathBuf,
    bus_launcher: PathBuf,
}

pub(super) fn locate_programs() -> Result<Programs, Vec<(&'static str, &'static str)>> {
    let mut find = Locator::default();
    let programs = Programs {
        sway: find.on_path("sway", "sway"),
        dbus_daemon: find.on_path("dbus-daemon", "dbus"),
        dbus_send: find.on_path("dbus-send", "dbus"),
        bus_launcher: find.bus_launcher(),
    };
    find.finish(programs)
}

/// Who runs the desktop: the caller itself, or, for root, the `deskhand` system user, created
/// on first use.
pub(super) fn desktop_user() -> Result<User, DesktopError> {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if euid != 0 {
        // SAFETY: getegid has no preconditions.
        let egid = unsafe { libc::getegid() };
        return Ok(User {
            uid: euid,
            gid: egid,
        });
    }
    if let Some(user) = lookup_user(DESKTOP_USER) {
        return Ok(user);
    }
    let mut useradd = Command::new(find_in_path("useradd").unwrap_or_else(|| "useradd".into()));
    useradd.args([
        "--system",
        "--user-group",
        "--no-create-home",
        "--home-dir",
        "/nonexistent",
        "--shell",
        "/usr/sbin/nologin",
        DESKTOP_USER,
    ]);
    // Two desktops starting at once may both try; the loser finds the user there.
    let added = run(useradd);
    lookup_user(DESKTOP_USER).ok_or_else(|| match added {
        Err(err) => err,
        Ok(_) => DesktopError::Io {
            action: format!("find the user {DESKTOP_USER} after creating it"),
            hint: "create it by hand with `useradd --system --user-group deskhand`",
            cause: io::Error::from(io::ErrorKind::NotFound),
        },
    })
}

fn lookup_user(name: &str) -> Option<User> {
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: getpwnam takes a NUL-terminated string; its result is read at once, before any
    // other call could reuse its static buffer.
    let entry = unsafe { libc::getpwnam(name.as_ptr()) };
    if entry.is_null() {
        return None;
    }
    // SAFETY: non-null, so it points at a valid passwd record.
    let entry = unsafe { &*entry };
    Some(User {
        uid: entry.pw_uid,
        gid: entry.pw_gid,
    })
}

/// A session bus that also lets root in: deskhand may run as root beside the desktop's user.
fn session_bus_config(socket: &Path) -> String {
    format!(
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <standard_session_servicedirs/>
  <auth>EXTERNAL</auth>
  <listen>unix:path={}</listen>
  <policy context="default">
    <allow user="root"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
        socket.display()
    )
}

/// No wallpaper, no bar, no XWayland: only the output and the windows. Focus moves on clicks and
/// requests alone, as on the X11 desktop.
fn sway_config(opts: &StartOptions) -> String {
    format!(
        "{}xwayland disable\n\
         focus_follows_mouse no\n\
         focus_on_window_activation focus\n",
        super::monitors::sway_outputs(opts, OUTPUT)
    )
}

impl Session {
    /// The environment of a Wayland desktop's apps, replacing the X11 one `prepare` wrote.
    fn prepare_wayland(&mut self, user: User, opts: &StartOptions) -> Result<(), DesktopError> {
        let dir = self.dir.clone();
        let io_err = |action: String| {
            move |cause| DesktopError::Io {
                action,
                hint: "check that /tmp is writable and not full",
                cause,
            }
        };
        // The user must reach its own directories inside ours, and nothing else of it.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o711)).map_err(io_err(format!(
            "open {} to the desktop user",
            dir.display()
        )))?;
        for sub in ["run", "config", "data", "cache", "state"] {
            let path = dir.join(sub);
            chown(&path, Some(user.uid), Some(user.gid)).map_err(io_err(format!(
                "hand {} to the desktop user",
                path.display()
            )))?;
        }
        for (name, text) in [
            ("session.conf", session_bus_config(&self.bus_socket())),
            ("sway.conf", sway_config(opts)),
        ] {
            let path = dir.join(name);
            fs::write(&path, text)
                .and_then(|()| fs::set_permissions(&path, fs::Permissions::from_mode(0o644)))
                .map_err(io_err(format!("write {}", path.display())))?;
        }
        let run = dir.join("run");
        let dropped = [
            "DISPLAY",
            "XAUTHORITY",
            "GDK_BACKEND",
            "DBUS_SESSION_BUS_ADDRESS",
        ];
        self.env.retain(|(key, _)| !dropped.contains(&key.as_str()));
        self.env.extend(
            [
                (
                    "DBUS_SESSION_BUS_ADDRESS",
                    format!("unix:path={}", self.bus_socket().display()),
                ),
                ("WAYLAND_DISPLAY", SOCKET_NAME.to_owned()),
                ("XDG_SESSION_TYPE", "wayland".to_owned()),
                (
                    "SWAYSOCK",
                    run.join("sway.sock").to_string_lossy().into_owned(),
                ),
                ("GDK_BACKEND", "wayland".to_owned()),
                ("QT_QPA_PLATFORM", "wayland".to_owned()),
            ]
            .map(|(key, value)| (key.to_owned(), value)),
        );
        self.user = Some(user);
        self.wayland_socket = Some(socket_path(&self.dir));
        Ok(())
    }

    fn bus_socket(&self) -> PathBuf {
        self.dir.join("run").join("bus")
    }

    pub(super) fn bring_up_sway(
        &mut self,
        programs: &Programs,
        opts: &StartOptions,
        user: User,
    ) -> Result<(), DesktopError> {
        self.prepare_wayland(user, opts)?;
        let bus_socket = self.bus_socket();
        let config = self.dir.join("session.conf");
        let mut dbus = self.spawn_with(
            "dbus-daemon",
            &programs.dbus_daemon,
            &[
                format!("--config-file={}", config.display()),
                "--nofork".to_owned(),
                "--nopidfile".to_owned(),
            ],
            &[],
            Some(user),
        )?;
        self.wait_ready(&mut dbus, "dbus-daemon", "listen on its socket", || {
            UnixStream::connect(&bus_socket).is_ok()
        })?;
        self.start_accessibility_bus(&programs.bus_launcher, &programs.dbus_send, Some(user))?;

        let sway_config = self.dir.join("sway.conf");
        let sway_socket = self.dir.join("run").join("sway.sock");
        let outputs = opts.monitors.max(1).to_string();
        let mut sway = self.spawn_with(
            "sway",
            &programs.sway,
            &["-c".to_owned(), sway_config.to_string_lossy().into_owned()],
            &[
                ("WLR_BACKENDS", "headless"),
                ("WLR_HEADLESS_OUTPUTS", outputs.as_str()),
                ("WLR_RENDERER", "pixman"),
                ("WLR_LIBINPUT_NO_DEVICES", "1"),
            ],
            Some(user),
        )?;
        let wayland_socket = socket_path(&self.dir);
        self.wait_ready(&mut sway, "sway", "show its output on IPC", || {
            wayland_socket.exists()
                && SwayIpc::connect(&sway_socket)
                    .and_then(|mut ipc| ipc.output_names())
                    .is_ok_and(|names| names.iter().any(|name| name == OUTPUT))
        })?;
        if opts.accessibility_listener {
            self.start_listener()?;
        }
        Ok(())
    }
}

/// The Wayland socket of the desktop in `dir`.
pub(super) fn socket_path(dir: &Path) -> PathBuf {
    dir.join("run").join(SOCKET_NAME)
}
