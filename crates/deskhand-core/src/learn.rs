//! Feeding memory as a side effect of ordinary calls: every observed window is a sighting, and a
//! step on a named control is learned once an observation shows what it led to. The agent does
//! nothing extra; with memory off none of this runs.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::backend::Accessibility;
use crate::desk::config::Config;
use crate::memory::{Control, Effect, Sighting, Step, Transition, sighting};
use crate::model::{Tree, WindowInfo};
use crate::render::one_line;
use crate::session::{PendingStep, Session};

/// A step's effect counts only if it is observed this soon after the step.
const EFFECT_WINDOW: Duration = Duration::from_secs(60);

/// Now, in unix milliseconds: what the CLI's session file can keep.
pub(crate) fn unix_ms() -> u64 {
    now_ms(SystemTime::now())
}

fn now_ms(now: SystemTime) -> u64 {
    now.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

/// After a window was observed: remember what it looked like and, when it was observed alone
/// (`single`), learn what the pending step led to. Returns a note for the reply when memory
/// could not be written.
pub(crate) fn observed(
    config: &Config,
    session: &mut Session,
    window: &WindowInfo,
    tree: &Tree,
    single: bool,
) -> Option<String> {
    let memory = config.memory.as_ref()?;
    // A partial tree would be remembered as a different, smaller window.
    if tree.partial.is_some() {
        return None;
    }
    let now = SystemTime::now();
    let seen = sighting(&window.app_name, &window.title, &tree.root);
    let mut failures = Vec::new();
    let mut revealed = false;
    if single
        && let Some(pending) = session.pending_step.take()
        && now_ms(now).saturating_sub(pending.at_ms) <= EFFECT_WINDOW.as_millis() as u64
        && let Some(from) = session.sighting_of(pending.window).cloned()
    {
        let effect = if pending.window != window.key() {
            // A window of another app observed next is not the step's doing: no app's control
            // opens another app's window that memory could route through.
            (from.app == seen.app).then(|| Effect::Window(seen.clone()))
        } else {
            let appeared: Vec<Control> = seen
                .controls
                .iter()
                .filter(|c| !from.controls.contains(c))
                .cloned()
                .collect();
            (!appeared.is_empty()).then_some(Effect::Controls(appeared))
        };
        if let Some(effect) = effect {
            revealed = matches!(effect, Effect::Controls(_));
            let transition = Transition {
                from,
                step: pending.step,
                effect,
            };
            if let Err(err) = memory.learned(&transition, now) {
                failures.push(err.message);
            }
        }
    }
    // Controls a step revealed are remembered as the step's doing, not as what the window
    // shows when it opens: a route to them takes the step.
    if !revealed && let Err(err) = memory.saw(&seen, now) {
        failures.push(err.message);
    }
    session.remember_sighting(window.key(), seen);
    (!failures.is_empty()).then(|| {
        format!(
            "note: memory could not record this ({}); the call itself worked",
            one_line(&failures.join("; "))
        )
    })
}

/// Before a step on a control of `window`: makes sure memory knows what the window looked like
/// before it, reading it now if it was never observed.
pub(crate) async fn before<B: Accessibility>(
    backend: &B,
    config: &Config,
    session: &mut Session,
    window: &WindowInfo,
) {
    let Some(memory) = config.memory.as_ref() else {
        return;
    };
    if session.sighting_of(window.key()).is_some() {
        return;
    }
    let Ok(tree) = backend.tree(window).await else {
        return;
    };
    if tree.partial.is_some() {
        return;
    }
    let seen: Sighting = sighting(&window.app_name, &window.title, &tree.root);
    // Best effort: a failed write shows up on the next observe's reply.
    let _ = memory.saw(&seen, SystemTime::now());
    session.remember_sighting(window.key(), seen);
}

/// After a step on a named control of `window` succeeded: memory learns its effect from the
/// next observation.
pub(crate) fn acted(config: &Config, session: &mut Session, window: &WindowInfo, step: Step) {
    if config.memory.is_none() || session.sighting_of(window.key()).is_none() {
        return;
    }
    session.pending_step = Some(PendingStep {
        window: window.key(),
        step,
        at_ms: now_ms(SystemTime::now()),
    });
}
