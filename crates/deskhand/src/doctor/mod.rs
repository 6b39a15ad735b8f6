//! `deskhand doctor`: whether deskhand will work on this desktop, and for each thing that will
//! not, the exact fix. It only reads: no file is created, no setting changed, no app started.
//! The MCP server serves the same findings (see `cli::mcp`).

#[cfg(target_os = "linux")]
mod linux;
#[cfg(not(target_os = "linux"))]
mod other;
mod paths;

use std::fmt::Write as _;
use std::time::Instant;

use serde_json::{Value, json};

use crate::safety::SafetyFlags;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    /// deskhand works, less well or not with everything (an app that will not show its tree).
    Warn,
    /// Something deskhand needs is missing.
    Fail,
    /// Nothing here can check it; the fix says how to check it by hand.
    #[cfg_attr(
        any(target_os = "linux", target_os = "macos"),
        expect(
            dead_code,
            reason = "only Windows, where Windows may not say, and a system without a backend have what they cannot check"
        )
    )]
    NotChecked,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::NotChecked => "not checked",
        }
    }
}

/// One finding: what was checked, how it came out, what was seen and what to do.
#[derive(Debug, Clone)]
pub struct Check {
    pub area: &'static str,
    pub name: String,
    pub status: Status,
    pub detail: String,
    pub fix: Option<String>,
}

impl Check {
    pub fn ok(area: &'static str, name: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            area,
            name: name.into(),
            status: Status::Ok,
            detail: detail.into(),
            fix: None,
        }
    }

    pub fn problem(
        status: Status,
        area: &'static str,
        name: impl Into<String>,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self {
            area,
            name: name.into(),
            status,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// Every finding, in the order they are shown.
#[derive(Debug, Clone)]
pub struct Report {
    pub platform: &'static str,
    pub checks: Vec<Check>,
    pub elapsed_ms: u128,
}

impl Report {
    fn problems(&self) -> impl Iterator<Item = &Check> {
        self.checks
            .iter()
            .filter(|check| matches!(check.status, Status::Warn | Status::Fail))
    }

    /// 0 when every check that ran is ok, 1 when any warns or fails.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.problems().next().is_some())
    }

    pub fn text(&self) -> String {
        let fails = self
            .checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .count();
        let warns = self
            .checks
            .iter()
            .filter(|c| c.status == Status::Warn)
            .count();
        let mut out = match (fails, warns) {
            (0, 0) => format!(
                "deskhand doctor: everything deskhand needs is here ({} checks on {}, {} ms)\n",
                self.checks.len(),
                self.platform,
                self.elapsed_ms
            ),
            _ => format!(
                "deskhand doctor: {fails} failed, {warns} warned of {} checks on {} ({} ms); each says its fix\n",
                self.checks.len(),
                self.platform,
                self.elapsed_ms
            ),
        };
        let width = self
            .checks
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(0);
        let mut area = "";
        for check in &self.checks {
            if check.area != area {
                area = check.area;
                let _ = writeln!(out, "\n{area}");
            }
            let _ = writeln!(
                out,
                "  {:<11} {:<width$}  {}",
                check.status.as_str(),
                check.name,
                check.detail
            );
            if let Some(fix) = &check.fix {
                let _ = writeln!(out, "  {:<11} {:<width$}  fix: {fix}", "", "");
            }
        }
        out
    }

    pub fn json(&self) -> Value {
        json!({
            "ok": self.exit_code() == 0,
            "platform": self.platform,
            "elapsed_ms": self.elapsed_ms,
            "checks": self.checks.iter().map(|check| json!({
                "area": check.area,
                "name": check.name,
                "status": check.status.as_str(),
                "detail": check.detail,
                "fix": check.fix,
            })).collect::<Vec<_>>(),
        })
    }

    /// One line for the MCP server's instructions when something warns or fails: what, and
    /// where the fixes are. `None` when all is well.
    pub fn summary_line(&self) -> Option<String> {
        let problems: Vec<String> = self
            .problems()
            .map(|check| format!("{} {}", check.name, check.status.as_str()))
            .collect();
        (!problems.is_empty()).then(|| {
            format!(
                "Setup problems on this desktop ({}): read the resource {} or run `deskhand doctor` for each fix.",
                problems.join(", "),
                deskhand_mcp::DOCTOR_URI
            )
        })
    }
}

/// How deep the checks go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Everything, Tesseract's models loaded as a read of pixels would: `deskhand doctor`.
    Full,
    /// Tesseract's model files looked for, not loaded: the MCP server's check at start, which
    /// every client waits for.
    Quick,
}

/// Runs every check for this platform and the files deskhand keeps.
pub fn run(flags: &SafetyFlags, depth: Depth) -> Report {
    let started = Instant::now();
    #[cfg(target_os = "linux")]
    let (platform, mut checks) = ("Linux", linux::checks(depth == Depth::Full));
    // Elsewhere nothing is slow enough to skip.
    #[cfg(not(target_os = "linux"))]
    let (platform, mut checks) = {
        let _ = depth;
        other::checks()
    };
    checks.extend(paths::checks(flags, &|name| std::env::var_os(name)));
    Report {
        platform,
        checks,
        elapsed_ms: started.elapsed().as_millis(),
    }
}

/// `deskhand doctor [--json]`.
/// `deskhand doctor --dump-tree WINDOW`: prints what the platform's reader returns for the
/// window, as the reader tests replay it (see the Windows and macOS crates' `dump`).
pub fn dump_tree(window: &str) -> anyhow::Result<u8> {
    #[cfg(target_os = "linux")]
    let dumped = linux::dump_tree(window);
    #[cfg(not(target_os = "linux"))]
    let dumped = other::dump_tree(window);
    println!("{}", dumped?);
    Ok(0)
}

pub fn command(json_out: bool, flags: &SafetyFlags) -> anyhow::Result<u8> {
    let report = run(flags, Depth::Full);
    if json_out {
        println!("{}", report.json());
    } else {
        print!("{}", report.text());
    }
    Ok(report.exit_code())
}
