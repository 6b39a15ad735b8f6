//! The headless GNOME desktop: gnome-shell on mutter's headless backend with a virtual monitor,
//! its session bus, a private bus standing in for the system bus (gnome-shell asks logind and
//! aborts without one), PipeWire for mutter's screen casts (its remote-desktop pointer moves
//! relative to one), the AT-SPI bus, and deskhand's shell extension turned on before the shell
//! starts. gnome-shell runs as the caller, root included. mutter starts Xwayland with the shell
//! (on demand only inside a systemd user unit, which a headless desktop is not), so X11 apps run
//! too, on the display and with the cookie mutter chose.

use std::fs;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use super::{DesktopError, Locator, Session, StartOptions, run};
use crate::gnome::extension::{self, Extension, UUID};
use crate::process::read_stat;

/// mutter names its first socket so in the desktop's runtime directory.
const SOCKET_NAME: &str = "wayland-0";

pub(super) struct Programs {
    gnome_shell: PathBuf,
    dbus_daemon: PathBuf,
    dbus_send: PathBuf,
    bus_launcher: PathBuf,
    pipewire: PathBuf,
    wireplumber: PathBuf,
    gsettings: PathBuf,
}

pub(super) fn locate_programs() -> Result<Programs, Vec<(&'static str, &'static str)>> {
    let mut find = Locator::default();
    let programs = Programs {
        gnome_shell: find.on_path("gnome-shell", "gnome-shell"),
        dbus_daemon: find.on_path("dbus-daemon", "dbus"),
        dbus_send: find.on_path("dbus-send", "dbus"),
        bus_launcher: find.bus_launcher(),
        pipewire: find.on_path("pipewire", "pipewire-bin"),
        wireplumber: find.on_path("wireplumber", "wireplumber"),
        gsettings: find.on_path("gsettings", "libglib2.0-bin"),
    };
    // mutter runs Xwayland from the path it was built with, and exits without it; looked for
    // here so that the error names the missing package.
    find.on_path("Xwayland", "xwayland");
    find.finish(programs)
}

impl Session {
    fn command_with(&self, program: &std::path::Path, args: &[&str]) -> std::process::Command {
        let mut command = self.command(program);
        command.args(args);
        command
    }

    pub(super) fn gnome_socket(&self) -> PathBuf {
        self.dir.join("run").join(SOCKET_NAME)
    }

    /// The environment of a GNOME desktop's apps, replacing the X11 one `prepare` wrote.
    fn prepare_gnome(&mut self) {
        let dropped = ["DISPLAY", "XAUTHORITY", "GDK_BACKEND", "GSETTINGS_BACKEND"];
        self.env.retain(|(key, _)| !dropped.contains(&key.as_str()));
        let system_bus = self.dir.join("run").join("system_bus");
        self.env.extend(
            [
                (
                    "DBUS_SYSTEM_BUS_ADDRESS",
                    format!("unix:path={}", system_bus.display()),
                ),
                ("WAYLAND_DISPLAY", SOCKET_NAME.to_owned()),
                ("XDG_SESSION_TYPE", "wayland".to_owned()),
                ("XDG_CURRENT_DESKTOP", "GNOME".to_owned()),
                ("GDK_BACKEND", "wayland".to_owned()),
                ("QT_QPA_PLATFORM", "wayland".to_owned()),
            ]
            .map(|(key, value)| (key.to_owned(), value)),
        );
        self.wayland_socket = Some(self.gnome_socket());
    }

    fn start_bus(
        &mut self,
        name: &'static str,
        programs: &Programs,
        socket: PathBuf,
    ) -> Result<(), DesktopError> {
        let mut dbus = self.spawn(
            name,
            &programs.dbus_daemon,
            &[
                "--session".to_owned(),
                "--nofork".to_owned(),
                "--nopidfile".to_owned(),
                format!("--address=unix:path={}", socket.display()),
            ],
        )?;
        self.wait_ready(&mut dbus, name, "listen on its socket", || {
            UnixStream::connect(&socket).is_ok()
        })
    }

    pub(super) fn bring_up_gnome(
        &mut self,
        programs: &Programs,
        opts: &StartOptions,
    ) -> Result<(), DesktopError> {
        self.prepare_gnome();
        let run_dir = self.dir.join("run");
        self.start_bus("dbus-daemon", programs, self.dir.join("bus"))?;
        self.start_bus("system-bus", programs, run_dir.join("system_bus"))?;
        self.start_accessibility_bus(&programs.bus_launcher, &programs.dbus_send, None)?;
        let mut pipewire = self.spawn("pipewire", &programs.pipewire, &[])?;
        let pipewire_socket = run_dir.join("pipewire-0");
        self.wait_ready(&mut pipewire, "pipewire", "listen on its socket", || {
            pipewire_socket.exists()
        })?;
        self.spawn("wireplumber", &programs.wireplumber, &[])?;

        let data_home = self.dir.join("data");
        let version = run(self.command_with(&programs.gnome_shell, &["--version"]))?;
        let written = extension::shell_major(&version)
            .and_then(Extension::for_shell)
            .and_then(|ext| ext.install(&data_home));
        if let Err(err) = written {
            return Err(DesktopError::Io {
                action: "write deskhand's GNOME Shell extension".to_owned(),
                hint: "check that /tmp is writable and not full",
                cause: std::io::Error::other(err.to_string()),
            });
        }
        run(self.command_with(
            &programs.gsettings,
            &[
                "set",
                "org.gnome.shell",
                "enabled-extensions",
                &format!("['{UUID}']"),
            ],
        ))?;
        // Without a display manager GNOME greets the session with a banner ("Screen Lock
        // disabled") at the top of the screen, which takes the clicks meant for the windows
        // under it for as long as the pointer rests on it.
        run(self.command_with(
            &programs.gsettings,
            &[
                "set",
                "org.gnome.desktop.notifications",
                "show-banners",
                "false",
            ],
        ))?;
        // The top-left corner is deskhand's kill switch; GNOME's hot corner there would open
        // the overview each time a user or a test stops deskhand with it.
        run(self.command_with(
            &programs.gsettings,
            &[
                "set",
                "org.gnome.desktop.interface",
                "enable-hot-corners",
                "false",
            ],
        ))?;

        // Nobody watches a headless screen move: an animation only costs the shell's software
        // renderer CPU and leaves windows, menus and the overview half drawn for a while after
        // each action, where a screenshot or a pointer click would meet them in motion.
        run(self.command_with(
            &programs.gsettings,
            &[
                "set",
                "org.gnome.desktop.interface",
                "enable-animations",
                "false",
            ],
        ))?;

        let mut shell_args = vec!["--headless".to_owned(), "--wayland".to_owned()];
        shell_args.extend(super::monitors::gnome_virtual_monitors(opts));
        let mut shell = self.spawn_with(
            "gnome-shell",
            &programs.gnome_shell,
            &shell_args,
            &[("DESKHAND_LEAVE_OVERVIEW", "1")],
            None,
        )?;
        let shell_ready = [
            "--dest=dev.deskhand.Shell",
            "/dev/deskhand/Shell",
            "dev.deskhand.Shell.Ready",
        ];
        self.wait_ready(
            &mut shell,
            "gnome-shell",
            "load deskhand's extension and finish starting",
            || {
                self.run_dbus_send(&programs.dbus_send, &shell_ready)
                    .is_ok_and(|reply| reply.contains("boolean true"))
            },
        )?;
        let shell_pid = shell.id();
        let mut xwayland = None;
        self.wait_ready(&mut shell, "gnome-shell", "start Xwayland", || {
            xwayland = xwayland_of(shell_pid);
            xwayland.is_some()
        })?;
        if let Some((display, auth)) = xwayland {
            self.env.extend([
                ("DISPLAY".to_owned(), display),
                ("XAUTHORITY".to_owned(), auth.to_string_lossy().into_owned()),
            ]);
        }
        if opts.accessibility_listener {
            self.start_listener()?;
        }
        Ok(())
    }
}

/// The X display and cookie file of the Xwayland that gnome-shell `shell_pid` started, once it
/// listens: mutter picks the first free display number from :0 and a random cookie file name,
/// and says both only on Xwayland's command line (its own environment is out of reach).
fn xwayland_of(shell_pid: u32) -> Option<(String, PathBuf)> {
    fs::read_dir("/proc")
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| read_stat(*pid).is_some_and(|stat| stat.ppid == shell_pid))
        .filter_map(|pid| fs::read(format!("/proc/{pid}/cmdline")).ok())
        .find_map(|cmdline| xwayland_display(&String::from_utf8_lossy(&cmdline)))
        .filter(|(display, _)| {
            let socket = format!("/tmp/.X11-unix/X{}", display.trim_start_matches(':'));
            Path::new(&socket).exists()
        })
}

/// The display and `-auth` file on an Xwayland command line (NUL-separated, as `/proc` has it).
fn xwayland_display(cmdline: &str) -> Option<(String, PathBuf)> {
    let mut args = cmdline.split('\0');
    let program = args.next()?;
    if Path::new(program).file_name()? != "Xwayland" {
        return None;
    }
    let display = args.next().filter(|arg| arg.starts_with(':'))?;
    let auth = args.skip_while(|arg| *arg != "-auth").nth(1)?;
    Some((display.to_owned(), PathBuf::from(auth)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xwayland_display_reads_mutters_command_line() {
        let cmdline = [
            "/usr/bin/Xwayland",
            ":2",
            "-rootless",
            "-noreset",
            "-auth",
            "/tmp/deskhand-99/run/.mutter-Xwaylandauth.AB12CD",
            "-listenfd",
            "4",
            "",
        ]
        .join("\0");
        assert_eq!(
            xwayland_display(&cmdline),
            Some((
                ":2".to_owned(),
                PathBuf::from("/tmp/deskhand-99/run/.mutter-Xwaylandauth.AB12CD")
            ))
        );
        assert_eq!(xwayland_display("/usr/bin/gjs\0:2\0-auth\0/x\0"), None);
        assert_eq!(xwayland_display("/usr/bin/Xwayland\0-rootless\0"), None);
    }
}
