//! The programs a headless desktop needs, found on this machine, and the packages that hold the
//! missing ones.

use std::fs::{self};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The launcher is not on PATH; Debian 12 has it in /usr/libexec, older releases elsewhere.
pub(super) const BUS_LAUNCHER_PATHS: [&str; 2] = [
    "/usr/libexec/at-spi-bus-launcher",
    "/usr/lib/at-spi2-core/at-spi-bus-launcher",
];

pub(super) fn list_programs(programs: &[(&str, &str)]) -> String {
    programs
        .iter()
        .map(|(program, package)| format!("{program} ({package})"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn list_packages(programs: &[(&str, &str)]) -> String {
    let mut packages: Vec<&str> = Vec::new();
    for (_, package) in programs {
        if !packages.contains(package) {
            packages.push(package);
        }
    }
    packages.join(" ")
}

/// The programs the desktop needs that cannot be found, with the Debian package of each.
pub fn missing_programs() -> Vec<(&'static str, &'static str)> {
    locate_programs().err().unwrap_or_default()
}

pub(super) struct Programs {
    pub(super) xvfb: PathBuf,
    pub(super) dbus_daemon: PathBuf,
    pub(super) dbus_send: PathBuf,
    pub(super) dbus_update_env: PathBuf,
    pub(super) bus_launcher: PathBuf,
    pub(super) openbox: PathBuf,
}

/// Finds the programs a desktop needs, and lists the packages of those it lacks.
#[derive(Default)]
pub(super) struct Locator {
    missing: Vec<(&'static str, &'static str)>,
}

impl Locator {
    pub(super) fn found(
        &mut self,
        program: &'static str,
        package: &'static str,
        found: Option<PathBuf>,
    ) -> PathBuf {
        found.unwrap_or_else(|| {
            self.missing.push((program, package));
            PathBuf::new()
        })
    }

    /// A program on PATH.
    pub(super) fn on_path(&mut self, program: &'static str, package: &'static str) -> PathBuf {
        self.found(program, package, find_in_path(program))
    }

    /// The AT-SPI bus launcher, which is not on PATH.
    pub(super) fn bus_launcher(&mut self) -> PathBuf {
        let found = BUS_LAUNCHER_PATHS
            .iter()
            .map(PathBuf::from)
            .find(|path| is_executable(path));
        self.found("at-spi-bus-launcher", "at-spi2-core", found)
    }

    pub(super) fn finish<T>(self, programs: T) -> Result<T, Vec<(&'static str, &'static str)>> {
        if self.missing.is_empty() {
            Ok(programs)
        } else {
            Err(self.missing)
        }
    }
}

pub(super) fn locate_programs() -> Result<Programs, Vec<(&'static str, &'static str)>> {
    let mut find = Locator::default();
    let programs = Programs {
        xvfb: find.on_path("Xvfb", "xvfb"),
        dbus_daemon: find.on_path("dbus-daemon", "dbus"),
        dbus_send: find.on_path("dbus-send", "dbus"),
        dbus_update_env: find.on_path("dbus-update-activation-environment", "dbus"),
        bus_launcher: find.bus_launcher(),
        openbox: find.on_path("openbox", "openbox"),
    };
    find.finish(programs)
}

pub(super) fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

pub(super) fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}
