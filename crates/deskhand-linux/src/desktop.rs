//! A private headless accessible desktop: Xvfb, a session bus, the AT-SPI bus and openbox; or,
//! with [`StartOptions::wayland`], sway with its buses (in `desktop/sway.rs`).
//!
//! Every process started is recorded with its start time in a JSON state file, so that `stop`
//! can tell its own processes from unrelated ones that were given a recycled pid.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};

use crate::process::read_stat;

mod error;
mod monitors;
mod own_folders;
mod programs;
mod stop;
mod x_server;

pub use error::DesktopError;
pub use programs::missing_programs;
use programs::{Locator, Programs, find_in_path, locate_programs};
use stop::terminate;
pub use stop::{stop, watch};
pub use x_server::make_x11_socket_dir;
use x_server::{FIRST_DISPLAY, claim_display, connect_x11, random_cookie, xauthority_entry};

mod gnome;
mod sway;

pub use sway::DESKTOP_USER;

/// The accessibility listener's name among the desktop's processes, and the line it prints once
/// it listens.
const LISTENER: &str = "a11y-listener";
pub const LISTENING: &str = "listening for accessibility changes";
/// Generous because test binaries may bring up several desktops at once on a 2-core machine:
/// GNOME Shell once took over 15 s to load its extensions there at a load of 4.
const STEP_TIMEOUT: Duration = Duration::from_secs(30);
const POLL_INTERVAL: Duration = Duration::from_millis(10);
const WATCH_INTERVAL: Duration = Duration::from_millis(200);
const TERM_GRACE: Duration = Duration::from_secs(2);
const KILL_GRACE: Duration = Duration::from_secs(1);
const STATE_FILE_NAME: &str = "state.json";
const DIR_PREFIX: &str = "deskhand-";
/// AT_SPI_BUS_ADDRESS would point apps at the host's accessibility bus instead of ours.
const UNSET_VARS: [&str; 4] = [
    "NO_AT_BRIDGE",
    "GTK_MODULES",
    "WAYLAND_DISPLAY",
    "AT_SPI_BUS_ADDRESS",
];

/// How big the screen is and which process the desktop should not outlive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartOptions {
    pub width: u32,
    pub height: u32,
    /// When set, a detached watcher stops the desktop once this process is gone. The watcher
    /// re-executes the current executable as `desktop watch`, so this only works from the
    /// `deskhand` binary.
    pub owner_pid: Option<u32>,
    /// Keep one accessibility listener for the desktop's life (the current executable run as
    /// `desktop listen`, so again only from the `deskhand` binary): applications then keep
    /// their caches filled without every short-lived call registering and leaving, which
    /// Chromium does not survive while it handles input.
    pub accessibility_listener: bool,
    /// A Wayland compositor instead of Xvfb and openbox.
    pub wayland: Option<Compositor>,
    /// How many monitors of `width`x`height` side by side, the first primary.
    pub monitors: u32,
}

/// The Wayland compositors deskhand can bring up headless.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compositor {
    Sway,
    Gnome,
}

impl Default for StartOptions {
    fn default() -> Self {
        Self {
            width: 1920,
            height: 1080,
            owner_pid: None,
            accessibility_listener: false,
            wayland: None,
            monitors: 1,
        }
    }
}

/// A running desktop and the environment an app needs to use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Desktop {
    /// The X display name, e.g. `:99`, or the Wayland socket's path.
    pub display: String,
    /// Variables to set for apps on this desktop.
    pub env: Vec<(String, String)>,
    /// Variables to remove for apps on this desktop.
    pub unset: Vec<String>,
    /// What `stop` needs; also exported as `DESKHAND_DESKTOP`.
    pub state_file: PathBuf,
    /// The user apps of a Wayland desktop run as, when that is not the caller.
    pub user: Option<(u32, u32)>,
}

impl Desktop {
    /// Shell lines that switch the current shell to this desktop, for `eval`.
    pub fn export_lines(&self) -> String {
        let mut out = String::new();
        for (key, value) in &self.env {
            out.push_str(&format!("export {key}={}\n", shell_quote(value)));
        }
        for key in &self.unset {
            out.push_str(&format!("unset {key}\n"));
        }
        out
    }
}

fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Proc {
    name: String,
    pid: u32,
    start_time: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct State {
    display: String,
    dir: PathBuf,
    owner: Option<Proc>,
    /// Each one leads its own process group, which also holds whatever it spawned.
    processes: Vec<Proc>,
}

fn log_tail(log: &Path) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return "(nothing)".to_owned();
    }
    lines[lines.len().saturating_sub(5)..].join(" | ")
}

/// Why one bring-up attempt failed.
enum Failure {
    /// Another X server took the display between our check and Xvfb's start.
    DisplayTaken,
    Error(DesktopError),
}

impl From<DesktopError> for Failure {
    fn from(err: DesktopError) -> Self {
        Failure::Error(err)
    }
}

/// One bring-up attempt. Dropping it before `finish` stops everything it started.
struct Session {
    number: u32,
    dir: PathBuf,
    cookie: [u8; 16],
    env: Vec<(String, String)>,
    owner: Option<Proc>,
    processes: Vec<Proc>,
    /// Whom the desktop's own processes run as, on a Wayland desktop.
    user: Option<sway::User>,
    /// The Wayland socket, on a Wayland desktop.
    wayland_socket: Option<PathBuf>,
    finished: bool,
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.finished {
            terminate(&self.processes);
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

impl Session {
    fn new(number: u32, dir: PathBuf, owner: Option<Proc>) -> Result<Session, DesktopError> {
        let mut session = Session {
            number,
            dir,
            cookie: [0; 16],
            env: Vec::new(),
            owner,
            processes: Vec::new(),
            user: None,
            wayland_socket: None,
            finished: false,
        };
        session.prepare()?;
        Ok(session)
    }

    fn prepare(&mut self) -> Result<(), DesktopError> {
        let dir = self.dir.clone();
        let io_err = |action: String| {
            move |cause| DesktopError::Io {
                action,
                hint: "check that /tmp is writable and not full",
                cause,
            }
        };
        let run = dir.join("run");
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&run)
            .map_err(io_err(format!("create {}", run.display())))?;
        for sub in ["config", "data", "cache", "state"] {
            let path = dir.join(sub);
            fs::create_dir(&path).map_err(io_err(format!("create {}", path.display())))?;
        }
        self.cookie = random_cookie().map_err(io_err("read /dev/urandom".to_owned()))?;
        let xauthority = dir.join("Xauthority");
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&xauthority)
            .and_then(|mut file| file.write_all(&xauthority_entry(self.number, &self.cookie)))
            .map_err(io_err(format!("write {}", xauthority.display())))?;

        let path = |sub: &str| dir.join(sub).to_string_lossy().into_owned();
        self.env = [
            ("DISPLAY", format!(":{}", self.number)),
            ("XAUTHORITY", path("Xauthority")),
            (
                "DBUS_SESSION_BUS_ADDRESS",
                format!("unix:path={}", path("bus")),
            ),
            ("XDG_RUNTIME_DIR", path("run")),
            ("XDG_CONFIG_HOME", path("config")),
            ("XDG_DATA_HOME", path("data")),
            ("XDG_CACHE_HOME", path("cache")),
            ("XDG_STATE_HOME", path("state")),
            ("GDK_BACKEND", "x11".to_owned()),
            ("GSETTINGS_BACKEND", "memory".to_owned()),
            // GTK4's GL renderer under Xvfb makes every accessibility call ~700x slower.
            ("GSK_RENDERER", "cairo".to_owned()),
            ("ACCESSIBILITY_ENABLED", "1".to_owned()),
            ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1".to_owned()),
            // GTK 2 has no accessibility of its own: its modules (libgail-common,
            // libatk-adaptor) give it a tree. GTK 2 alone reads this variable, so GTK 3 and 4
            // are not asked to load modules they do not have.
            ("GTK2_MODULES", "gail:atk-bridge".to_owned()),
            ("DESKHAND_DESKTOP", path(STATE_FILE_NAME)),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect();
        self.env.extend(own_folders::users_own_folders());
        Ok(())
    }

    fn display(&self) -> String {
        match &self.wayland_socket {
            Some(socket) => socket.to_string_lossy().into_owned(),
            None => format!(":{}", self.number),
        }
    }

    fn state_file(&self) -> PathBuf {
        self.dir.join(STATE_FILE_NAME)
    }

    fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        for key in self.unset() {
            command.env_remove(key);
        }
        command
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null());
        command
    }

    /// What the desktop's apps must not inherit: on Wayland, X's display instead of Wayland's,
    /// unless the compositor runs an X server of its own (GNOME's Xwayland).
    fn unset(&self) -> Vec<&'static str> {
        let mut unset = UNSET_VARS.to_vec();
        if self.wayland_socket.is_some() {
            unset.retain(|key| *key != "WAYLAND_DISPLAY");
            unset.extend(["DISPLAY", "XAUTHORITY"]);
        }
        unset.retain(|key| !self.env.iter().any(|(set, _)| set == key));
        unset
    }

    fn log_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.log"))
    }

    /// Copies the log an error names out of the directory that is about to be removed.
    fn keep_log(&self, mut err: DesktopError) -> DesktopError {
        if let DesktopError::Exited { log, .. } | DesktopError::Timeout { log, .. } = &mut err
            && let Some(name) = log.file_name()
        {
            let kept = self.dir.with_file_name(format!(
                "{DIR_PREFIX}{}-{}",
                self.number,
                name.to_string_lossy()
            ));
            if fs::copy(&*log, &kept).is_ok() {
                *log = kept;
            }
        }
        err
    }

    /// Starts a long-running child in its own process group (so a terminal's Ctrl-C spares
    /// it), with its output in `<name>.log`, and records it.
    fn spawn(
        &mut self,
        name: &'static str,
        program: &Path,
        args: &[String],
    ) -> Result<Child, DesktopError> {
        self.spawn_with(name, program, args, &[], None)
    }

    /// [`Session::spawn`] with extra environment variables, run as `user` when given.
    fn spawn_with(
        &mut self,
        name: &'static str,
        program: &Path,
        args: &[String],
        env: &[(&str, &str)],
        user: Option<sway::User>,
    ) -> Result<Child, DesktopError> {
        let log_path = self.log_path(name);
        let (stdout, stderr) = File::create(&log_path)
            .and_then(|log| Ok((log.try_clone()?, log)))
            .map_err(|cause| DesktopError::Io {
                action: format!("create the log file {}", log_path.display()),
                hint: "check that /tmp is writable and not full",
                cause,
            })?;
        let mut command = self.command(program);
        command.envs(env.iter().copied());
        if let Some(user) = user {
            command.uid(user.uid).gid(user.gid);
        }
        let child = command
            .args(args)
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .map_err(|cause| DesktopError::Spawn {
                program: program.display().to_string(),
                cause,
            })?;
        // The child is unreaped until we wait for it, so its stat is there to read.
        let start_time = read_stat(child.id()).map_or(0, |stat| stat.start_time);
        self.processes.push(Proc {
            name: name.to_owned(),
            pid: child.id(),
            start_time,
        });
        Ok(child)
    }

    /// Polls `ready` until it holds, failing if the child exits or the step times out.
    fn wait_ready(
        &self,
        child: &mut Child,
        name: &'static str,
        what: &'static str,
        mut ready: impl FnMut() -> bool,
    ) -> Result<(), DesktopError> {
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            if ready() {
                return Ok(());
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(DesktopError::Exited {
                    program: name,
                    status,
                    tail: log_tail(&self.log_path(name)),
                    log: self.log_path(name),
                });
            }
            if Instant::now() >= deadline {
                return Err(DesktopError::Timeout {
                    program: name,
                    what,
                    timeout: STEP_TIMEOUT,
                    tail: log_tail(&self.log_path(name)),
                    log: self.log_path(name),
                });
            }
            sleep(POLL_INTERVAL);
        }
    }

    fn run_dbus_send(&self, dbus_send: &Path, args: &[&str]) -> Result<String, DesktopError> {
        let mut command = self.command(dbus_send);
        command.args(["--session", "--print-reply", "--reply-timeout=5000"]);
        command.args(args);
        run(command)
    }

    fn bring_up(&mut self, programs: &Programs, opts: &StartOptions) -> Result<(), Failure> {
        let xvfb_args = [
            self.display(),
            "-screen".to_owned(),
            "0".to_owned(),
            format!("{}x{}x24", monitors::x_screen_width(opts), opts.height),
            "-nolisten".to_owned(),
            "tcp".to_owned(),
            "-auth".to_owned(),
            self.dir.join("Xauthority").to_string_lossy().into_owned(),
            "+extension".to_owned(),
            "XTEST".to_owned(),
            "+extension".to_owned(),
            "RANDR".to_owned(),
            "-dpi".to_owned(),
            "96".to_owned(),
            "-noreset".to_owned(),
        ];
        let mut xvfb = self.spawn("Xvfb", &programs.xvfb, &xvfb_args)?;
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{}", self.number));
        let mut x11 = None;
        let waited = self.wait_ready(&mut xvfb, "Xvfb", "accept X connections", || {
            // Authenticating also proves the server is ours, not one that took the display.
            x11 = connect_x11(&socket, &self.cookie);
            x11.is_some()
        });
        if let Err(DesktopError::Exited { .. }) = &waited
            && fs::read_to_string(self.log_path("Xvfb"))
                .is_ok_and(|log| log.contains("already active"))
        {
            return Err(Failure::DisplayTaken);
        }
        waited?;
        let x11 = x11.expect("wait_ready returned Ok, so the connection was made");
        monitors::split_x_screen(&x11, x11.setup().roots[0].root, opts)?;

        let bus_socket = self.dir.join("bus");
        let mut dbus = self.spawn(
            "dbus-daemon",
            &programs.dbus_daemon,
            &[
                "--session".to_owned(),
                "--nofork".to_owned(),
                "--nopidfile".to_owned(),
                format!("--address=unix:path={}", bus_socket.display()),
            ],
        )?;
        self.wait_ready(&mut dbus, "dbus-daemon", "listen on its socket", || {
            UnixStream::connect(&bus_socket).is_ok()
        })?;
        let mut update_env = self.command(&programs.dbus_update_env);
        update_env.args(self.env.iter().map(|(key, _)| key));
        run(update_env)?;

        self.start_accessibility_bus(&programs.bus_launcher, &programs.dbus_send, None)?;

        let mut openbox = self.spawn("openbox", &programs.openbox, &["--sm-disable".to_owned()])?;
        let root = x11.setup().roots[0].root;
        let wm_check = x11
            .intern_atom(false, b"_NET_SUPPORTING_WM_CHECK")
            .ok()
            .and_then(|cookie| cookie.reply().ok())
            .map(|reply| reply.atom);
        self.wait_ready(
            &mut openbox,
            "openbox",
            "set _NET_SUPPORTING_WM_CHECK",
            || {
                wm_check.is_some_and(|atom| {
                    x11.get_property(false, root, atom, AtomEnum::WINDOW, 0, 1)
                        .ok()
                        .and_then(|cookie| cookie.reply().ok())
                        .is_some_and(|reply| reply.value_len > 0)
                })
            },
        )?;
        if opts.accessibility_listener {
            self.start_listener()?;
        }
        Ok(())
    }

    /// The AT-SPI bus launcher, once it owns `org.a11y.Bus`, with accessibility switched on.
    fn start_accessibility_bus(
        &mut self,
        launcher: &Path,
        dbus_send: &Path,
        user: Option<sway::User>,
    ) -> Result<(), DesktopError> {
        let mut launcher = self.spawn_with(
            "at-spi-bus-launcher",
            launcher,
            &["--launch-immediately".to_owned()],
            &[],
            user,
        )?;
        // Asking for the bus address before the launcher owns org.a11y.Bus would make D-Bus
        // activate a second launcher.
        let mut bus_error = None;
        self.wait_ready(
            &mut launcher,
            "at-spi-bus-launcher",
            "own org.a11y.Bus",
            || match self.run_dbus_send(
                dbus_send,
                &[
                    "--dest=org.freedesktop.DBus",
                    "/",
                    "org.freedesktop.DBus.NameHasOwner",
                    "string:org.a11y.Bus",
                ],
            ) {
                Ok(reply) => reply.contains("boolean true"),
                Err(err) => {
                    bus_error = Some(err);
                    true
                }
            },
        )?;
        if let Some(err) = bus_error {
            return Err(err);
        }
        self.run_dbus_send(
            dbus_send,
            &[
                "--dest=org.a11y.Bus",
                "/org/a11y/bus",
                "org.freedesktop.DBus.Properties.Set",
                "string:org.a11y.Status",
                "string:IsEnabled",
                "variant:boolean:true",
            ],
        )?;
        Ok(())
    }

    /// `deskhand desktop listen`, once it listens.
    fn start_listener(&mut self) -> Result<(), DesktopError> {
        let exe = std::env::current_exe().map_err(|cause| DesktopError::Io {
            action: "find the path of the running executable to start the accessibility listener"
                .to_owned(),
            hint: "start the desktop from the deskhand binary",
            cause,
        })?;
        let mut child = self.spawn(LISTENER, &exe, &["desktop".to_owned(), "listen".to_owned()])?;
        let log = self.log_path(LISTENER);
        self.wait_ready(
            &mut child,
            LISTENER,
            "listen for accessibility changes",
            || fs::read_to_string(&log).is_ok_and(|text| text.contains(LISTENING)),
        )?;
        Ok(())
    }

    fn write_state(&self) -> Result<(), DesktopError> {
        let state = State {
            display: self.display(),
            dir: self.dir.clone(),
            owner: self.owner.clone(),
            processes: self.processes.clone(),
        };
        let path = self.state_file();
        let partial = self.dir.join(format!("{STATE_FILE_NAME}.partial"));
        let json = serde_json::to_vec_pretty(&state).expect("the state serializes");
        // Written aside and renamed so a watcher or `stop` never reads half a file.
        fs::write(&partial, json)
            .and_then(|()| fs::rename(&partial, &path))
            .map_err(|cause| DesktopError::Io {
                action: format!("write the desktop state file {}", path.display()),
                hint: "check that /tmp is writable and not full",
                cause,
            })
    }

    fn spawn_watcher(&mut self, owner_pid: u32) -> Result<(), DesktopError> {
        let exe = std::env::current_exe().map_err(|cause| DesktopError::Io {
            action: "find the path of the running executable to start the desktop watcher"
                .to_owned(),
            hint: "start the desktop without an owner pid and stop it yourself",
            cause,
        })?;
        let child = Command::new(&exe)
            .args([
                "desktop",
                "watch",
                "--owner-pid",
                &owner_pid.to_string(),
                "--state",
            ])
            .arg(self.state_file())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|cause| DesktopError::Spawn {
                program: format!("{} desktop watch", exe.display()),
                cause,
            })?;
        let start_time = read_stat(child.id()).map_or(0, |stat| stat.start_time);
        self.processes.push(Proc {
            name: "watcher".to_owned(),
            pid: child.id(),
            start_time,
        });
        Ok(())
    }

    fn finish(mut self) -> Desktop {
        self.finished = true;
        let unset = self.unset().into_iter().map(str::to_owned).collect();
        Desktop {
            display: self.display(),
            env: std::mem::take(&mut self.env),
            unset,
            state_file: self.state_file(),
            user: self.user.map(|user| (user.uid, user.gid)),
        }
    }
}

/// Runs a short command to completion and returns its stdout.
fn run(mut command: Command) -> Result<String, DesktopError> {
    let name = command.get_program().to_string_lossy().into_owned();
    let output = command.output().map_err(|cause| DesktopError::Spawn {
        program: name.clone(),
        cause,
    })?;
    if !output.status.success() {
        let args: Vec<_> = command
            .get_args()
            .map(|arg| arg.to_string_lossy())
            .collect();
        return Err(DesktopError::Command {
            command: format!("{name} {}", args.join(" ")),
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The process the desktop must not outlive, recorded with its start time.
fn owner_of(opts: &StartOptions) -> Result<Option<Proc>, DesktopError> {
    Ok(match opts.owner_pid {
        Some(pid) => match read_stat(pid) {
            Some(stat) if !stat.is_dead() => Some(Proc {
                name: "owner".to_owned(),
                pid,
                start_time: stat.start_time,
            }),
            _ => return Err(DesktopError::OwnerGone { pid }),
        },
        None => None,
    })
}

/// A headless sway with its buses, on a directory of its own (numbered as the X displays are).
fn start_sway(opts: &StartOptions) -> Result<Desktop, DesktopError> {
    let programs =
        sway::locate_programs().map_err(|programs| DesktopError::MissingPrograms { programs })?;
    let user = sway::desktop_user()?;
    start_wayland(opts, |session| session.bring_up_sway(&programs, opts, user))
}

/// A headless GNOME Shell with its buses, on a directory of its own.
fn start_gnome(opts: &StartOptions) -> Result<Desktop, DesktopError> {
    let programs =
        gnome::locate_programs().map_err(|programs| DesktopError::MissingPrograms { programs })?;
    start_wayland(opts, |session| session.bring_up_gnome(&programs, opts))
}

/// A Wayland desktop brought up by `bring_up` on the first free directory, with its state
/// written and its watcher started.
fn start_wayland(
    opts: &StartOptions,
    bring_up: impl FnOnce(&mut Session) -> Result<(), DesktopError>,
) -> Result<Desktop, DesktopError> {
    let owner = owner_of(opts)?;
    let (number, dir) = claim_display(Path::new("/tmp"), FIRST_DISPLAY)?;
    let mut session = Session::new(number, dir, owner.clone())?;
    if let Err(err) = bring_up(&mut session) {
        return Err(session.keep_log(err));
    }
    session.write_state()?;
    if let Some(owner) = &owner {
        session.spawn_watcher(owner.pid)?;
        session.write_state()?;
    }
    Ok(session.finish())
}

/// Brings up a private desktop on the first free display from :99, in well under a second.
pub fn start(opts: &StartOptions) -> Result<Desktop, DesktopError> {
    // Xwayland, under either compositor, makes its socket there too.
    make_x11_socket_dir(Path::new("/tmp"))?;
    match opts.wayland {
        Some(Compositor::Sway) => return start_sway(opts),
        Some(Compositor::Gnome) => return start_gnome(opts),
        None => {}
    }
    let programs =
        locate_programs().map_err(|programs| DesktopError::MissingPrograms { programs })?;
    let tmp = Path::new("/tmp");
    let owner = owner_of(opts)?;
    let mut first = FIRST_DISPLAY;
    loop {
        let (number, dir) = claim_display(tmp, first)?;
        let mut session = Session::new(number, dir, owner.clone())?;
        match session.bring_up(&programs, opts) {
            Ok(()) => {}
            Err(Failure::DisplayTaken) => {
                first = number + 1;
                continue;
            }
            Err(Failure::Error(err)) => return Err(session.keep_log(err)),
        }
        session.write_state()?;
        if let Some(owner) = &owner {
            session.spawn_watcher(owner.pid)?;
            session.write_state()?;
        }
        return Ok(session.finish());
    }
}

/// `desktop listen`: registers as an accessibility listener and stays until the desktop stops.
pub async fn hold_accessibility_listener() -> Result<(), crate::atspi::AtspiError> {
    // On a headless compositor the listener also keeps the seat's keyboard and pointer: without
    // them GNOME's seat has none between two calls, and the focused window loses the keyboard.
    let session = crate::wayland::Session::from_env();
    let _gnome_devices = match session {
        crate::wayland::Session::Gnome => match crate::gnome::hold_input_devices().await {
            Ok(held) => Some(held),
            Err(err) => {
                eprintln!("deskhand: the seat's keyboard and pointer could not be added: {err}");
                None
            }
        },
        _ => None,
    };
    if matches!(session, crate::wayland::Session::Sway(_)) {
        let held = std::thread::Builder::new()
            .name("input-devices".into())
            .spawn(|| {
                if let Err(err) = crate::wayland::hold_input_devices() {
                    eprintln!("deskhand: the seat's keyboard and pointer are gone: {err}");
                }
            });
        if let Err(err) = held {
            eprintln!("deskhand: no thread could hold the seat's keyboard and pointer: {err}");
        }
    }
    let atspi = crate::atspi::Atspi::connect(std::time::Duration::from_millis(1500)).await?;
    atspi.listen_for_changes().await;
    println!("{LISTENING}");
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    std::future::pending::<()>().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::stop::remove_stale_x_files;
    use super::*;
    use crate::process::{Identity, identity};

    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("deskhand-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join(".X11-unix")).unwrap();
        dir
    }

    #[test]
    fn shell_quote_survives_single_quotes() {
        assert_eq!(shell_quote("plain"), "'plain'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("it's $HOME"), r"'it'\''s $HOME'");
    }

    #[test]
    fn export_lines_set_then_unset() {
        let desktop = Desktop {
            display: ":99".to_owned(),
            env: vec![
                ("DISPLAY".to_owned(), ":99".to_owned()),
                ("X".to_owned(), "a b'c".to_owned()),
            ],
            unset: vec!["NO_AT_BRIDGE".to_owned()],
            state_file: PathBuf::from("/tmp/deskhand-99/state.json"),
            user: None,
        };
        assert_eq!(
            desktop.export_lines(),
            "export DISPLAY=':99'\nexport X='a b'\\''c'\nunset NO_AT_BRIDGE\n"
        );
    }

    #[test]
    fn terminate_stops_recorded_groups_and_spares_recycled_pids() {
        let spawn_sleep = || {
            Command::new("sleep")
                .arg("30")
                .process_group(0)
                .spawn()
                .unwrap()
        };
        let mut ours = spawn_sleep();
        let mut other = spawn_sleep();
        let start_of = |pid| read_stat(pid).unwrap().start_time;
        terminate(&[
            Proc {
                name: "ours".to_owned(),
                pid: ours.id(),
                start_time: start_of(ours.id()),
            },
            Proc {
                name: "recycled".to_owned(),
                pid: other.id(),
                start_time: start_of(other.id()) + 1,
            },
            Proc {
                name: "init".to_owned(),
                pid: 1,
                start_time: 0,
            },
        ]);
        assert!(read_stat(ours.id()).is_none_or(|stat| stat.is_dead()));
        // terminate reaped it already, so this returns at once.
        let _ = ours.wait();
        assert_eq!(identity(other.id(), start_of(other.id())), Identity::Alive);
        other.kill().unwrap();
        other.wait().unwrap();
    }

    #[test]
    fn stop_removes_the_x_files_a_killed_shell_left_and_no_others() {
        let tmp = scratch_dir("stale");
        let mut shell = Command::new("sleep").arg("30").spawn().unwrap();
        let shell_start = read_stat(shell.id()).unwrap().start_time;
        shell.kill().unwrap();
        shell.wait().unwrap();
        let me = std::process::id();
        for (number, holder) in [(0, shell.id()), (1, shell.id()), (2, me)] {
            fs::write(
                tmp.join(format!(".X{number}-lock")),
                format!("{holder:10}\n"),
            )
            .unwrap();
            File::create(tmp.join(format!(".X11-unix/X{number}"))).unwrap();
        }
        let state = State {
            display: "/tmp/deskhand-99/run/wayland-0".to_owned(),
            dir: tmp.clone(),
            owner: None,
            processes: vec![Proc {
                name: "gnome-shell".to_owned(),
                pid: shell.id(),
                start_time: shell_start,
            }],
        };
        remove_stale_x_files(&tmp, &state);
        for gone in [".X0-lock", ".X11-unix/X0", ".X1-lock", ".X11-unix/X1"] {
            assert!(!tmp.join(gone).exists(), "{gone}");
        }
        for kept in [".X2-lock", ".X11-unix/X2"] {
            assert!(tmp.join(kept).exists(), "{kept}");
        }
        fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn claim_display_skips_servers_and_claimed_directories() {
        let tmp = scratch_dir("claim");
        File::create(tmp.join(".X11-unix/X99")).unwrap();
        File::create(tmp.join(".X100-lock")).unwrap();
        fs::create_dir(tmp.join("deskhand-101")).unwrap();
        let (number, dir) = claim_display(&tmp, 99).unwrap();
        assert_eq!(number, 102);
        assert_eq!(dir, tmp.join("deskhand-102"));
        assert!(dir.is_dir());
        // The directory now claims :102, so a concurrent start moves on.
        assert_eq!(claim_display(&tmp, 99).unwrap().0, 103);
        fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn the_x_socket_directory_is_made_as_servers_make_it_and_an_existing_one_is_left_alone() {
        let tmp = scratch_dir("sockets");
        fs::remove_dir(tmp.join(".X11-unix")).unwrap();
        make_x11_socket_dir(&tmp).unwrap();
        let mode = fs::metadata(tmp.join(".X11-unix"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o7777, 0o1777, "mode {mode:o}");

        File::create(tmp.join(".X11-unix/X99")).unwrap();
        fs::set_permissions(tmp.join(".X11-unix"), fs::Permissions::from_mode(0o755)).unwrap();
        make_x11_socket_dir(&tmp).unwrap();
        assert!(tmp.join(".X11-unix/X99").exists());
        let mode = fs::metadata(tmp.join(".X11-unix"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o7777, 0o755, "an existing directory keeps its mode");
        fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn xauthority_entry_layout() {
        let entry = xauthority_entry(99, &[0xab; 16]);
        let mut expected = vec![0xff, 0xff, 0, 0, 0, 2, b'9', b'9', 0, 18];
        expected.extend_from_slice(b"MIT-MAGIC-COOKIE-1");
        expected.extend_from_slice(&[0, 16]);
        expected.extend_from_slice(&[0xab; 16]);
        assert_eq!(entry, expected);
    }

    #[test]
    fn missing_programs_error_lists_each_package_once() {
        let err = DesktopError::MissingPrograms {
            programs: vec![
                ("Xvfb", "xvfb"),
                ("dbus-send", "dbus"),
                ("dbus-daemon", "dbus"),
            ],
        };
        assert_eq!(
            err.to_string(),
            "the headless desktop needs programs that are not installed: Xvfb (xvfb), dbus-send (dbus), dbus-daemon (dbus); install them with `apt-get install xvfb dbus`"
        );
    }

    #[test]
    fn stop_refuses_a_state_file_naming_another_directory() {
        let tmp = scratch_dir("foreign");
        let state = State {
            display: ":99".to_owned(),
            dir: PathBuf::from("/"),
            owner: None,
            processes: Vec::new(),
        };
        let file = tmp.join(STATE_FILE_NAME);
        fs::write(&file, serde_json::to_vec(&state).unwrap()).unwrap();
        assert!(matches!(
            stop(&file),
            Err(DesktopError::ForeignState { .. })
        ));
        fs::remove_dir_all(&tmp).unwrap();
    }
}
