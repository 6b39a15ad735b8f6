//! The policy, the audit log and the memory store the CLI and `deskhand mcp` start with: found
//! from the flags, then the environment, then the XDG directories, and loaded once before
//! anything runs; and which of the user's desktops they act on (`--session`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use deskhand_core::audit::AuditLog;
use deskhand_core::policy::Policy;

/// `--policy FILE`, `--audit FILE|off` and `--memory FILE|off` as given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct SafetyFlags {
    /// The policy file (else $DESKHAND_POLICY, else $XDG_CONFIG_HOME/deskhand/policy.toml).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The audit log, or off (else $DESKHAND_AUDIT, else $XDG_STATE_HOME/deskhand/audit.jsonl).
    #[arg(long, value_name = "FILE|off")]
    pub audit: Option<String>,
    /// The memory store, or off (else $DESKHAND_MEMORY, else $XDG_DATA_HOME/deskhand/memory.sqlite).
    #[arg(long, value_name = "FILE|off")]
    pub memory: Option<String>,
    /// Which of your graphical sessions to drive when several are found: its display (`:1`) or
    /// Wayland socket (`wayland-1`) (else $DESKHAND_SESSION, else the active one).
    #[arg(long, value_name = "NAME")]
    pub session: Option<String>,
}

/// Where the policy comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PolicySource {
    /// Named by `--policy` or `DESKHAND_POLICY`: it must exist.
    Named(PathBuf),
    /// The XDG default: no file there means no policy.
    Default(PathBuf),
    None,
}

pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

fn var(env: Env<'_>, name: &str) -> Option<OsString> {
    env(name).filter(|value| !value.is_empty())
}

/// An XDG base directory: the variable when it holds an absolute path, else the platform's
/// place for it. In a shell switched to a private desktop, whose apps get XDG folders of their
/// own, the person's own folders (kept by `deskhand desktop start`) are the ones read while the
/// variable still names the desktop's folder; one the person set since is theirs.
fn xdg_dir(env: Env<'_>, name: &str, fallback: &str) -> Option<PathBuf> {
    let desktop = var(env, "DESKHAND_DESKTOP")
        .map(PathBuf::from)
        .and_then(|state| state.parent().map(Path::to_path_buf));
    let current = var(env, name);
    let the_desktops = current
        .as_ref()
        .is_none_or(|dir| desktop.is_some_and(|desktop| Path::new(dir).starts_with(desktop)));
    let value = match env(&format!("DESKHAND_USER_{name}")) {
        Some(kept) if the_desktops => Some(kept).filter(|value| !value.is_empty()),
        _ => current,
    };
    value
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| home_dir(env, fallback))
}

/// `$HOME/<fallback>`, the XDG default.
#[cfg(not(any(windows, target_os = "macos")))]
fn home_dir(env: Env<'_>, fallback: &str) -> Option<PathBuf> {
    var(env, "HOME").map(|home| PathBuf::from(home).join(fallback))
}

/// On macOS every kind of file deskhand keeps goes under `~/Library/Application Support`, where
/// Apple places an app's own files: `…/deskhand/policy.toml`, `audit.jsonl`, `memory.sqlite`.
#[cfg(target_os = "macos")]
fn home_dir(env: Env<'_>, _fallback: &str) -> Option<PathBuf> {
    var(env, "HOME").map(|home| deskhand_macos::paths::application_support(&PathBuf::from(home)))
}

/// On Windows every file of deskhand's lives under `%LOCALAPPDATA%`.
#[cfg(windows)]
fn home_dir(env: Env<'_>, _fallback: &str) -> Option<PathBuf> {
    var(env, "LOCALAPPDATA").map(PathBuf::from)
}

pub(crate) fn policy_source(flags: &SafetyFlags, env: Env<'_>) -> PolicySource {
    if let Some(path) = &flags.policy {
        return PolicySource::Named(path.clone());
    }
    if let Some(path) = var(env, "DESKHAND_POLICY") {
        return PolicySource::Named(path.into());
    }
    match xdg_dir(env, "XDG_CONFIG_HOME", ".config") {
        Some(dir) => PolicySource::Default(dir.join("deskhand/policy.toml")),
        None => PolicySource::None,
    }
}

/// The audit log's path, or `None` when it is off.
pub(crate) fn audit_path(flags: &SafetyFlags, env: Env<'_>) -> Result<Option<PathBuf>, String> {
    let named = flags
        .audit
        .clone()
        .map(OsString::from)
        .or_else(|| var(env, "DESKHAND_AUDIT"));
    if let Some(named) = named {
        return Ok((named != "off").then(|| named.into()));
    }
    xdg_dir(env, "XDG_STATE_HOME", ".local/state")
        .map(|dir| Some(dir.join("deskhand/audit.jsonl")))
        .ok_or_else(|| {
            "the audit log has no place: neither XDG_STATE_HOME nor HOME is set; give --audit FILE (or DESKHAND_AUDIT), or --audit off".into()
        })
}

/// The memory store's path, or `None` when memory is off.
pub(crate) fn memory_path(flags: &SafetyFlags, env: Env<'_>) -> Result<Option<PathBuf>, String> {
    let named = flags
        .memory
        .clone()
        .map(OsString::from)
        .or_else(|| var(env, "DESKHAND_MEMORY"));
    if let Some(named) = named {
        return Ok((named != "off").then(|| named.into()));
    }
    xdg_dir(env, "XDG_DATA_HOME", ".local/share")
        .map(|dir| Some(dir.join("deskhand/memory.sqlite")))
        .ok_or_else(|| {
            "memory has no place: neither XDG_DATA_HOME nor HOME is set; give --memory FILE (or DESKHAND_MEMORY), or --memory off".into()
        })
}

/// Opens the memory store; a store that cannot be opened is a startup error naming the file.
pub fn open_memory(
    flags: &SafetyFlags,
) -> anyhow::Result<Option<std::sync::Arc<dyn deskhand_core::memory::Memory>>> {
    let env = |name: &str| std::env::var_os(name);
    Ok(
        match memory_path(flags, &env).map_err(anyhow::Error::msg)? {
            Some(path) => Some(std::sync::Arc::new(deskhand_memory::SqliteMemory::open(
                absolute(&path),
            )?)),
            None => None,
        },
    )
}

pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Loads the policy and opens the audit log; any problem is a startup error naming the file.
pub fn load(flags: &SafetyFlags) -> anyhow::Result<(Policy, AuditLog)> {
    load_with(flags, &|name| std::env::var_os(name))
}

fn load_with(flags: &SafetyFlags, env: Env<'_>) -> anyhow::Result<(Policy, AuditLog)> {
    let policy = match policy_source(flags, env) {
        PolicySource::Named(path) => Policy::load(&absolute(&path))?,
        PolicySource::Default(path) if path.exists() => Policy::load(&path)?,
        PolicySource::Default(_) | PolicySource::None => Policy::default(),
    };
    let audit = match audit_path(flags, env).map_err(anyhow::Error::msg)? {
        Some(path) => AuditLog::open(&absolute(&path))?,
        None => AuditLog::Off,
    };
    Ok((policy, audit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    // A shell where `deskhand desktop start` ran points XDG at the desktop's folders.
    #[cfg(not(any(windows, target_os = "macos")))]
    #[test]
    fn in_a_shell_switched_to_a_private_desktop_the_persons_own_folders_are_read() {
        let none = SafetyFlags::default();
        let switched = env(&[
            ("DESKHAND_DESKTOP", "/tmp/desktop/desktop.json"),
            ("XDG_CONFIG_HOME", "/tmp/desktop/config"),
            ("XDG_STATE_HOME", "/tmp/desktop/state"),
            ("DESKHAND_USER_XDG_CONFIG_HOME", "/home/u/conf"),
            ("DESKHAND_USER_XDG_STATE_HOME", ""),
            ("HOME", "/home/u"),
        ]);
        assert_eq!(
            policy_source(&none, &switched),
            PolicySource::Default("/home/u/conf/deskhand/policy.toml".into())
        );
        // Unset in the person's shell: the default under HOME, not the desktop's folder.
        assert_eq!(
            audit_path(&none, &switched).unwrap(),
            Some("/home/u/.local/state/deskhand/audit.jsonl".into())
        );
        // A folder the person names in that shell is theirs.
        let named = env(&[
            ("DESKHAND_DESKTOP", "/tmp/desktop/desktop.json"),
            ("XDG_CONFIG_HOME", "/home/u/other"),
            ("DESKHAND_USER_XDG_CONFIG_HOME", "/home/u/conf"),
        ]);
        assert_eq!(
            policy_source(&none, &named),
            PolicySource::Default("/home/u/other/deskhand/policy.toml".into())
        );
    }

    // They assert the XDG defaults under $HOME, which macOS replaces.
    #[cfg(not(any(windows, target_os = "macos")))]
    #[test]
    fn the_policy_comes_from_the_flag_then_the_environment_then_xdg() {
        let flags = SafetyFlags {
            policy: Some("/flag.toml".into()),
            ..SafetyFlags::default()
        };
        let all = env(&[
            ("DESKHAND_POLICY", "/env.json"),
            ("XDG_CONFIG_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ]);
        assert_eq!(
            policy_source(&flags, &all),
            PolicySource::Named("/flag.toml".into())
        );
        let none = SafetyFlags::default();
        assert_eq!(
            policy_source(&none, &all),
            PolicySource::Named("/env.json".into())
        );
        assert_eq!(
            policy_source(
                &none,
                &env(&[("XDG_CONFIG_HOME", "/xdg"), ("DESKHAND_POLICY", "")])
            ),
            PolicySource::Default("/xdg/deskhand/policy.toml".into())
        );
        // A relative XDG directory is ignored, as the specification says.
        assert_eq!(
            policy_source(
                &none,
                &env(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/home/u")])
            ),
            PolicySource::Default("/home/u/.config/deskhand/policy.toml".into())
        );
        assert_eq!(policy_source(&none, &env(&[])), PolicySource::None);
    }

    // They assert the XDG defaults under $HOME, which macOS replaces.
    #[cfg(not(any(windows, target_os = "macos")))]
    #[test]
    fn the_audit_log_comes_from_the_flag_then_the_environment_then_xdg() {
        let none = SafetyFlags::default();
        let off = SafetyFlags {
            audit: Some("off".into()),
            ..SafetyFlags::default()
        };
        let home = env(&[("HOME", "/home/u"), ("DESKHAND_AUDIT", "/env.jsonl")]);
        assert_eq!(audit_path(&off, &home), Ok(None));
        assert_eq!(audit_path(&none, &home), Ok(Some("/env.jsonl".into())));
        assert_eq!(
            audit_path(&none, &env(&[("HOME", "/home/u")])),
            Ok(Some("/home/u/.local/state/deskhand/audit.jsonl".into()))
        );
        assert_eq!(
            audit_path(
                &none,
                &env(&[("XDG_STATE_HOME", "/state"), ("HOME", "/home/u")])
            ),
            Ok(Some("/state/deskhand/audit.jsonl".into()))
        );
        assert_eq!(
            audit_path(&none, &env(&[("DESKHAND_AUDIT", "off")])),
            Ok(None)
        );
        assert!(
            audit_path(&none, &env(&[]))
                .unwrap_err()
                .contains("--audit off")
        );
    }

    // They assert the XDG defaults under $HOME, which macOS replaces.
    #[cfg(not(any(windows, target_os = "macos")))]
    #[test]
    fn memory_lives_in_the_xdg_data_dir_unless_named_or_off() {
        let none = SafetyFlags::default();
        let off = SafetyFlags {
            memory: Some("off".into()),
            ..SafetyFlags::default()
        };
        let home = env(&[("HOME", "/home/u")]);
        assert_eq!(memory_path(&off, &home), Ok(None));
        assert_eq!(
            memory_path(&none, &home),
            Ok(Some("/home/u/.local/share/deskhand/memory.sqlite".into()))
        );
        assert_eq!(
            memory_path(
                &none,
                &env(&[("XDG_DATA_HOME", "/data"), ("DESKHAND_MEMORY", "/m.db")])
            ),
            Ok(Some("/m.db".into()))
        );
        assert_eq!(
            memory_path(&none, &env(&[("XDG_DATA_HOME", "/data")])),
            Ok(Some("/data/deskhand/memory.sqlite".into()))
        );
        assert!(
            memory_path(&none, &env(&[]))
                .unwrap_err()
                .contains("--memory off")
        );
    }

    #[test]
    fn no_default_policy_file_means_no_policy_but_a_named_one_must_exist() {
        let dir = std::env::temp_dir().join(format!("deskhand-safety-{}", std::process::id()));
        let config = dir.join("config");
        let vars = [
            ("XDG_CONFIG_HOME", config.to_str().unwrap()),
            ("DESKHAND_AUDIT", "off"),
        ];
        let (policy, audit) = load_with(&SafetyFlags::default(), &env(&vars)).unwrap();
        assert_eq!(policy, Policy::default());
        assert_eq!(audit, AuditLog::Off);

        std::fs::create_dir_all(config.join("deskhand")).unwrap();
        std::fs::write(config.join("deskhand/policy.toml"), "read_only = true\n").unwrap();
        let (policy, _) = load_with(&SafetyFlags::default(), &env(&vars)).unwrap();
        assert!(policy.read_only);
        assert_eq!(policy.source, Some(config.join("deskhand/policy.toml")));

        let missing = SafetyFlags {
            policy: Some(dir.join("missing.toml")),
            ..SafetyFlags::default()
        };
        let err = load_with(&missing, &env(&vars)).unwrap_err().to_string();
        assert!(err.contains("missing.toml cannot be read"), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(target_os = "macos")]
    #[test]
    fn on_macos_the_files_default_to_application_support() {
        let none = SafetyFlags::default();
        let home = env(&[("HOME", "/Users/ada")]);
        assert_eq!(
            audit_path(&none, &home),
            Ok(Some(
                "/Users/ada/Library/Application Support/deskhand/audit.jsonl".into()
            ))
        );
        assert_eq!(
            policy_source(&none, &home),
            PolicySource::Default(
                "/Users/ada/Library/Application Support/deskhand/policy.toml".into()
            )
        );
    }
}
