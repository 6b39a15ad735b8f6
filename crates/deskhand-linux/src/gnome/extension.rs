//! The GNOME Shell extension deskhand ships: on Wayland only the compositor knows where windows
//! are, which one has the focus and what the screen shows, and GNOME offers no client interface
//! for those, so a small extension inside the shell answers them over D-Bus.

use std::path::{Path, PathBuf};

/// The extension's id: its folder name and `metadata.json`'s `uuid`.
pub const UUID: &str = "deskhand@deskhand.dev";

/// What the extension's interface promises; the client refuses an older one.
pub const VERSION: u32 = 3;

/// The interface, its methods and their behaviour: shared by both ways GNOME loads extensions.
const BODY: &str = include_str!("extension/body.js");
/// GNOME Shell 42–44 load an extension as a script with `imports` and call its `init()`.
const SCRIPT_HEAD: &str = include_str!("extension/legacy.js");
const SCRIPT_TAIL: &str = include_str!("extension/legacy_tail.js");
/// GNOME Shell 45 and later load it as an ES module with a default `Extension` class.
const MODULE_HEAD: &str = include_str!("extension/module.js");
const MODULE_TAIL: &str = include_str!("extension/module_tail.js");

/// The oldest and newest major versions each form is written for.
const SCRIPT_SHELLS: std::ops::RangeInclusive<u32> = 42..=44;
const MODULE_SHELLS: std::ops::RangeInclusive<u32> = 45..=48;

/// The files of the extension for one GNOME Shell major version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extension {
    pub metadata: String,
    pub script: String,
}

/// Why the extension cannot be written for a shell.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "GNOME Shell {0} is older than 42, the first version this extension is written for; deskhand cannot see windows there"
    )]
    TooOld(u32),
    #[error("writing the extension into {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the extension is written, but turning it on failed ({0}); turn it on with `gnome-extensions enable deskhand@deskhand.dev` after logging in again"
    )]
    Enable(String),
    #[error(
        "cannot tell the GNOME Shell version ({0}); give it with `--shell-version N` (what `gnome-shell --version` prints)"
    )]
    UnknownVersion(String),
}

impl Extension {
    pub fn for_shell(major: u32) -> Result<Self, InstallError> {
        if major < *SCRIPT_SHELLS.start() {
            return Err(InstallError::TooOld(major));
        }
        let (head, tail, shells) = if SCRIPT_SHELLS.contains(&major) {
            (SCRIPT_HEAD, SCRIPT_TAIL, SCRIPT_SHELLS)
        } else {
            (
                MODULE_HEAD,
                MODULE_TAIL,
                *MODULE_SHELLS.start()..=major.max(*MODULE_SHELLS.end()),
            )
        };
        let versions: Vec<String> = shells.map(|v| v.to_string()).collect();
        let metadata = serde_json::json!({
            "uuid": UUID,
            "name": "deskhand",
            "description": "Tells deskhand where windows are, which has the focus and what the screen shows, so an agent can use this desktop.",
            "shell-version": versions,
            "version": VERSION,
        });
        Ok(Self {
            metadata: format!("{metadata:#}\n"),
            script: format!("{head}\n{BODY}{tail}"),
        })
    }

    /// Writes the extension where GNOME Shell looks for a user's extensions, replacing an older
    /// copy; returns its folder.
    pub fn install(&self, data_home: &Path) -> Result<PathBuf, InstallError> {
        let dir = data_home.join("gnome-shell/extensions").join(UUID);
        let write = |path: PathBuf, text: &str| {
            std::fs::write(&path, text).map_err(|source| InstallError::Write { path, source })
        };
        std::fs::create_dir_all(&dir).map_err(|source| InstallError::Write {
            path: dir.clone(),
            source,
        })?;
        write(dir.join("metadata.json"), &self.metadata)?;
        write(dir.join("extension.js"), &self.script)?;
        Ok(dir)
    }
}

/// Adds the extension to GNOME's `enabled-extensions` (through `gsettings`, as the shell reads
/// it at log-in) unless it is there; true if it was added.
pub fn enable() -> Result<bool, InstallError> {
    let gsettings = |args: &[&str]| {
        std::process::Command::new("gsettings")
            .args(args)
            .output()
            .map_err(|err| err.to_string())
            .and_then(|out| {
                if out.status.success() {
                    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
                } else {
                    Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
                }
            })
            .map_err(InstallError::Enable)
    };
    let enabled = gsettings(&["get", "org.gnome.shell", "enabled-extensions"])?;
    let Some(list) = with_extension(&enabled) else {
        return Ok(false);
    };
    gsettings(&["set", "org.gnome.shell", "enabled-extensions", &list])?;
    // Without a session bus gsettings falls back to a store that lives only in its process,
    // and says it succeeded.
    let kept = gsettings(&["get", "org.gnome.shell", "enabled-extensions"])?;
    if with_extension(&kept).is_some() {
        return Err(InstallError::Enable(
            "gsettings did not keep the setting: no session bus reached dconf".into(),
        ));
    }
    Ok(true)
}

/// `gsettings`' list of ids with this extension's added, or `None` when it is there already.
fn with_extension(listed: &str) -> Option<String> {
    let ids: Vec<&str> = listed
        .trim()
        .trim_start_matches("@as")
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|id| id.trim().trim_matches('\'').trim_matches('"'))
        .filter(|id| !id.is_empty())
        .collect();
    if ids.contains(&UUID) {
        return None;
    }
    let quoted: Vec<String> = ids
        .iter()
        .copied()
        .chain([UUID])
        .map(|id| format!("'{id}'"))
        .collect();
    Some(format!("[{}]", quoted.join(", ")))
}

/// The major version in what `gnome-shell --version` prints ("GNOME Shell 43.9").
pub fn shell_major(version_line: &str) -> Result<u32, InstallError> {
    version_line
        .split_whitespace()
        .last()
        .and_then(|v| v.split('.').next())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| InstallError::UnknownVersion(version_line.trim().to_string()))
}

/// Where a user's data lives: `$XDG_DATA_HOME`, else `~/.local/share`.
pub fn data_home() -> Option<PathBuf> {
    std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".local/share")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shell_gets_the_form_it_loads() {
        let old = Extension::for_shell(43).unwrap();
        assert!(old.script.contains("imports.gi") && old.script.contains("function init()"));
        assert!(!old.script.contains("import Gio"));
        assert!(old.metadata.contains("\"43\""), "{}", old.metadata);
        let new = Extension::for_shell(46).unwrap();
        assert!(new.script.starts_with("// GNOME Shell 45"));
        assert!(new.script.contains("export default class"));
        assert!(!new.script.contains("imports.gi"));
        assert!(new.metadata.contains("\"46\"") && !new.metadata.contains("\"44\""));
        let newer = Extension::for_shell(50).unwrap();
        assert!(newer.metadata.contains("\"50\""), "{}", newer.metadata);
        assert!(matches!(
            Extension::for_shell(41),
            Err(InstallError::TooOld(41))
        ));
    }

    #[test]
    fn the_interface_the_client_calls_is_the_one_the_extension_exports() {
        let script = Extension::for_shell(43).unwrap().script;
        for method in super::super::shell::METHODS {
            assert!(
                script.contains(&format!("<method name=\"{method}\"")),
                "the extension lacks {method}"
            );
        }
        assert!(script.contains(&format!("return {VERSION};")));
    }

    #[test]
    fn the_extension_joins_the_enabled_list_once() {
        assert_eq!(
            with_extension("@as []\n").as_deref(),
            Some("['deskhand@deskhand.dev']")
        );
        assert_eq!(
            with_extension("['ding@rastersoft.com', 'ubuntu-dock@ubuntu.com']").as_deref(),
            Some("['ding@rastersoft.com', 'ubuntu-dock@ubuntu.com', 'deskhand@deskhand.dev']")
        );
        assert_eq!(with_extension("['deskhand@deskhand.dev']"), None);
    }

    #[test]
    fn the_version_is_read_from_what_gnome_shell_prints() {
        assert_eq!(shell_major("GNOME Shell 43.9\n").unwrap(), 43);
        assert_eq!(shell_major("GNOME Shell 46.alpha").unwrap(), 46);
        assert!(matches!(
            shell_major("command not found"),
            Err(InstallError::UnknownVersion(_))
        ));
    }

    #[test]
    fn install_writes_both_files_and_replaces_an_older_copy() {
        let home = std::env::temp_dir().join(format!("deskhand-ext-{}", std::process::id()));
        let dir = Extension::for_shell(43).unwrap().install(&home).unwrap();
        let again = Extension::for_shell(46).unwrap().install(&home).unwrap();
        assert_eq!(dir, again);
        let script = std::fs::read_to_string(dir.join("extension.js")).unwrap();
        assert!(script.contains("export default class"));
        let metadata: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("metadata.json")).unwrap())
                .unwrap();
        assert_eq!(metadata["uuid"], UUID);
        std::fs::remove_dir_all(&home).unwrap();
    }
}
