//! The files deskhand keeps: the policy it reads, the audit log and memory store it writes.
//! Checked as deskhand would find them (flags, environment, XDG), without creating anything.

use std::path::{Path, PathBuf};

use deskhand_core::policy::Policy;

use super::{Check, Status};
use crate::safety::{self, Env, PolicySource, SafetyFlags};

const AREA: &str = "files";

pub fn checks(flags: &SafetyFlags, env: Env<'_>) -> Vec<Check> {
    vec![
        policy(flags, env),
        writable_file(
            "audit",
            safety::audit_path(flags, env),
            "--audit FILE (or DESKHAND_AUDIT=FILE) naming a file in a folder you can write, or --audit off",
        ),
        writable_file(
            "memory",
            safety::memory_path(flags, env),
            "--memory FILE (or DESKHAND_MEMORY=FILE) naming a file in a folder you can write, or --memory off",
        ),
    ]
}

fn policy(flags: &SafetyFlags, env: Env<'_>) -> Check {
    let (path, named) = match safety::policy_source(flags, env) {
        PolicySource::Named(path) => (safety::absolute(&path), true),
        PolicySource::Default(path) => (path, false),
        PolicySource::None => {
            return Check::ok(
                AREA,
                "policy",
                "none (neither XDG_CONFIG_HOME nor HOME is set): every action is allowed",
            );
        }
    };
    if !named && !path.exists() {
        return Check::ok(
            AREA,
            "policy",
            format!(
                "no file at {}: every action is allowed (docs/safety.md says how to limit them)",
                path.display()
            ),
        );
    }
    match Policy::load(&path) {
        Ok(_) => Check::ok(AREA, "policy", format!("{} is valid", path.display())),
        Err(err) => Check::problem(
            Status::Fail,
            AREA,
            "policy",
            format!("{err}; deskhand will not start with it"),
            format!(
                "fix the file (docs/safety.md lists its keys), or name another with --policy FILE{}",
                if named { "" } else { " or remove it" }
            ),
        ),
    }
}

/// A file deskhand appends to or opens read-write: it must be a writable file, or not exist yet
/// under a folder that can be made and written.
fn writable_file(name: &str, path: Result<Option<PathBuf>, String>, fix: &str) -> Check {
    let path = match path {
        Ok(Some(path)) => safety::absolute(&path),
        Ok(None) => return Check::ok(AREA, name, "off"),
        Err(why) => return Check::problem(Status::Fail, AREA, name, why, fix),
    };
    match why_not_writable(&path) {
        None => Check::ok(AREA, name, format!("{} can be written", path.display())),
        Some(why) => Check::problem(
            Status::Fail,
            AREA,
            name,
            format!(
                "{} cannot be written ({why}), so deskhand will not start",
                path.display()
            ),
            fix,
        ),
    }
}

fn why_not_writable(path: &Path) -> Option<String> {
    if path.exists() {
        if path.is_dir() {
            return Some("it is a folder".into());
        }
        return (!may_write(path)).then(|| "its permissions do not let this user write it".into());
    }
    // The nearest folder that exists is where deskhand would create the rest.
    let mut ancestor = path.parent();
    while let Some(dir) = ancestor {
        if dir.exists() {
            if !dir.is_dir() {
                return Some(format!("{} is a file, not a folder", dir.display()));
            }
            return (!may_write(dir))
                .then(|| format!("this user may not write in {}", dir.display()));
        }
        ancestor = dir.parent();
    }
    Some("no folder of it exists".into())
}

/// Asks the kernel, which knows about root, read-only mounts and ACLs.
#[cfg(target_os = "linux")]
fn may_write(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path that outlives the call.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn may_write(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| !meta.permissions().readonly())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn a_path_under_a_file_or_a_folder_in_its_place_cannot_be_written() {
        let dir = std::env::temp_dir().join(format!("deskhand-doctor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("blocker");
        std::fs::write(&file, "").unwrap();
        assert!(why_not_writable(&dir.join("new/audit.jsonl")).is_none());
        assert!(why_not_writable(&file).is_none());
        let under_file = why_not_writable(&file.join("audit.jsonl")).expect("not writable");
        assert!(under_file.contains("is a file"), "{under_file}");
        assert_eq!(why_not_writable(&dir).as_deref(), Some("it is a folder"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn off_is_ok_and_a_broken_policy_fails_with_its_fix() {
        let dir = std::env::temp_dir().join(format!("deskhand-policy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let policy = dir.join("policy.toml");
        std::fs::write(&policy, "read_only = maybe\n").unwrap();
        let flags = SafetyFlags {
            policy: Some(policy.clone()),
            audit: Some("off".into()),
            memory: Some("off".into()),
            session: None,
        };
        let checks = checks(&flags, &|_: &str| None::<OsString>);
        assert_eq!(checks[0].status, Status::Fail, "{checks:?}");
        assert!(checks[0].fix.is_some());
        assert_eq!(
            (checks[1].status, checks[2].status),
            (Status::Ok, Status::Ok)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
