//! How each step of a recording went when it was replayed: what `deskhand replay` prints after
//! the run and keeps beside the rerun's own recording.

use crate::format::{Recording, Verdict, VerdictKind};
use crate::replay::{ReplayError, Replayed};

/// How each recorded step went in the rerun: same, different (the first difference) or not
/// run, from the lines `replay` logged and how it ended. A refused replay ran nothing: none.
pub fn verdicts(
    recording: &Recording,
    replayed: &[String],
    result: &Result<Replayed, ReplayError>,
) -> Vec<Verdict> {
    let stopped = match result {
        Ok(_) => None,
        Err(ReplayError::Stopped {
            step,
            looked_for,
            found,
            ..
        }) => Some((*step, format!("{looked_for}, and found {found}"))),
        Err(ReplayError::Refused(_)) => return Vec::new(),
    };
    let mut verdicts = Vec::new();
    for (at, step) in recording.steps.iter().enumerate() {
        let skipped = replayed
            .get(at)
            .and_then(|line| line.split_once(" skipped: "))
            .map(|(_, why)| why.to_owned());
        let (verdict, why) = match &stopped {
            Some((at, why)) if *at == step.index => (VerdictKind::Different, Some(why.clone())),
            Some((at, _)) if step.index > *at => (VerdictKind::NotRun, None),
            _ => match skipped {
                Some(why) => (VerdictKind::NotRun, Some(why)),
                None => (VerdictKind::Same, None),
            },
        };
        verdicts.push(Verdict {
            step: step.index,
            verdict,
            why,
        });
    }
    verdicts
}
