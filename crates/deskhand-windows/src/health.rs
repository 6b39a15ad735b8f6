//! What `deskhand doctor` says of the Windows process itself: the integrity level it runs at
//! (which apps take its input), whether it is per-monitor DPI aware (whether windows, the
//! pointer and pixels agree on a scaled monitor) and Windows' foreground lock (whether it may
//! bring a window to the front). The facts are read on Windows; what they mean is decided here.

use crate::uipi::rid;

/// What was read; `None` where Windows would not say (Wine has no integrity levels).
#[derive(Debug, Clone, Copy, Default)]
pub struct Facts {
    pub integrity: Option<u32>,
    pub per_monitor_v2: Option<bool>,
    /// `SPI_GETFOREGROUNDLOCKTIMEOUT`, in milliseconds: 0 when there is no lock.
    pub foreground_lock_ms: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// deskhand works, less well or not with everything.
    Warn,
    NotChecked,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub name: &'static str,
    pub verdict: Verdict,
    pub detail: String,
    pub fix: Option<String>,
}

fn ok(name: &'static str, detail: impl Into<String>) -> Finding {
    Finding {
        name,
        verdict: Verdict::Ok,
        detail: detail.into(),
        fix: None,
    }
}

fn problem(name: &'static str, verdict: Verdict, detail: &str, fix: &str) -> Finding {
    Finding {
        name,
        verdict,
        detail: detail.to_owned(),
        fix: Some(fix.to_owned()),
    }
}

pub fn findings(facts: &Facts) -> Vec<Finding> {
    let integrity = match facts.integrity {
        None => problem(
            "integrity level",
            Verdict::NotChecked,
            "Windows would not say deskhand's integrity level",
            "in Task Manager's Details tab, add the Elevated column: apps elevated where \
             deskhand is not refuse its input",
        ),
        Some(level) if level >= rid::HIGH => ok(
            "integrity level",
            "deskhand runs elevated: every app on the desktop takes its input",
        ),
        Some(level) if level >= rid::MEDIUM => ok(
            "integrity level",
            "deskhand runs at medium integrity: apps run as administrator refuse its input, and \
             it says so; run deskhand as administrator to drive them",
        ),
        Some(_) => problem(
            "integrity level",
            Verdict::Warn,
            "deskhand runs at low integrity (a sandbox): normal apps drop its input",
            "run deskhand outside the sandbox, as the signed-in user",
        ),
    };
    let dpi = match facts.per_monitor_v2 {
        Some(true) => ok(
            "dpi awareness",
            "per-monitor (v2): windows, the pointer and screenshots agree on every monitor",
        ),
        Some(false) => problem(
            "dpi awareness",
            Verdict::Warn,
            "deskhand is not per-monitor DPI aware (v2): on a scaled monitor Windows scales what \
             it reports, and clicks can land off their target",
            "use Windows 10 1703 or later, and clear the compatibility setting \"Override high \
             DPI scaling behavior\" on deskhand.exe",
        ),
        None => problem(
            "dpi awareness",
            Verdict::NotChecked,
            "Windows would not say deskhand's DPI awareness",
            "check that screenshots and clicks line up on a scaled monitor",
        ),
    };
    let foreground = match facts.foreground_lock_ms {
        Some(0) => ok(
            "foreground",
            "no foreground lock: deskhand may bring any window to the front",
        ),
        Some(ms) => ok(
            "foreground",
            format!(
                "Windows' foreground lock is on ({} s, the default): deskhand asks again after \
                 a key nothing binds, and says so when a window still does not come forward",
                ms / 1000
            ),
        ),
        None => problem(
            "foreground",
            Verdict::NotChecked,
            "Windows would not say whether its foreground lock is on",
            "if focusing a window fails, click into it first",
        ),
    };
    vec![integrity, dpi, foreground]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doctor_names_integrity_dpi_and_the_foreground_lock_with_a_fix_where_it_matters() {
        let normal = Facts {
            integrity: Some(rid::MEDIUM),
            per_monitor_v2: Some(true),
            foreground_lock_ms: Some(200_000),
        };
        let found = findings(&normal);
        assert_eq!(
            found
                .iter()
                .map(|f| (f.name, f.verdict))
                .collect::<Vec<_>>(),
            [
                ("integrity level", Verdict::Ok),
                ("dpi awareness", Verdict::Ok),
                ("foreground", Verdict::Ok)
            ]
        );
        assert!(found[0].detail.contains("run deskhand as administrator"));
        assert!(found[2].detail.contains("200 s"));
        let sandboxed = Facts {
            integrity: Some(rid::LOW),
            per_monitor_v2: Some(false),
            foreground_lock_ms: None,
        };
        let found = findings(&sandboxed);
        assert!(
            found[..2]
                .iter()
                .all(|f| f.verdict == Verdict::Warn && f.fix.is_some())
        );
        assert_eq!(found[2].verdict, Verdict::NotChecked);
        // Under Wine: nothing to read, and it says so rather than passing.
        let wine = findings(&Facts::default());
        assert!(wine.iter().all(|f| f.verdict == Verdict::NotChecked));
    }
}
