//! What every action (click, type, press, scroll, drag) passes before anything is sent: the
//! kill switch, then the policy; and the audit line every action leaves, whatever its result.
//! The executor calls these stages in turn; nothing here runs the action.
//!
//! The kill switch is the real pointer in the top-left corner of the primary monitor (of the
//! screen where the platform tells no monitors apart). Deskhand's own pointer input can put it
//! there too: a click or drag that ends there stops the next action exactly as the user would,
//! which errs on the safe side.

use serde_json::json;

use crate::action::{Action, Call, Place, Reaches};
use crate::audit::AuditEntry;
use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::coords::to_pixel;
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::{Outcome, Reply};
use crate::error::{Error, ErrorKind, Result};
use crate::model::Point;
use crate::person::Takeover;
use crate::policy::Subject;
use crate::session::Session;

/// The pointer at most this many pixels from the left and the top edge stops deskhand.
pub const CORNER_PIXELS: i32 = 2;

/// The reply to an action refused by the kill switch.
pub const STOPPED_MESSAGE: &str = "the user moved the pointer to the top-left corner of the primary monitor to stop deskhand; nothing was done; ask the user before continuing: deskhand resumes once the pointer leaves the corner";

/// The first line of the reply to the first action that succeeds after a stop.
pub const RESUMED_NOTE: &str = "note: deskhand was stopped by the pointer in the top-left corner; it resumed because the pointer left it";

/// Whether the pointer is where the user puts it to stop deskhand, on a desktop whose corner
/// is at 0,0.
pub fn in_corner(pointer: Point) -> bool {
    in_corner_at(pointer, Point { x: 0, y: 0 })
}

/// Whether the pointer is in the corner whose top-left pixel is `corner`: within a few pixels
/// right of and below it, never beyond. A monitor left of or above the primary has negative
/// coordinates, and none of it is the corner.
pub fn in_corner_at(pointer: Point, corner: Point) -> bool {
    let near = |at: i32, from: i32| {
        (0..=i64::from(CORNER_PIXELS)).contains(&(i64::from(at) - i64::from(from)))
    };
    near(pointer.x, corner.x) && near(pointer.y, corner.y)
}

/// What the guard found before letting an action through.
pub(crate) struct Admitted {
    /// The kill switch had stopped deskhand, and the pointer has left the corner since.
    pub(crate) resumed: bool,
    /// A person's takeover had refused an action, and has ended since.
    pub(crate) after_takeover: bool,
}

/// The kill switch, then the policy: whether the action may run. It records in `entry` the
/// surface and application the action reaches.
pub(crate) async fn admit<B: Windows + Accessibility + Input + Capture>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: &Call,
    reach: &mut Reach,
    entry: &mut AuditEntry,
) -> Result<Admitted> {
    let pointer = backend.pointer().await.map_err(|err| {
        Error::new(
            err.kind,
            format!(
                "the kill switch could not read where the pointer is ({}); nothing was done; try again",
                err.message.trim_end_matches('.')
            ),
        )
    })?;
    if in_corner_at(pointer, backend.corner().await) {
        session.stopped = true;
        return Err(Error::new(ErrorKind::Stopped, STOPPED_MESSAGE));
    }
    if let Some(takeover) = person_at_desk(backend) {
        session.taken_over = true;
        return Err(takeover.refusal());
    }
    let policy = &config.policy;
    policy.check_call(call)?;
    match subjects(backend, session, call, reach, pointer).await {
        Ok(subjects) => {
            if let Some(first) = subjects.first() {
                entry.target = Some(first.surface.clone());
                entry.app = first.app.clone();
            }
            for subject in &subjects {
                policy.check_subject(subject)?;
            }
        }
        // Without a rule on apps the action itself reports what could not be resolved.
        Err(err) if policy.judges_apps() => return Err(err),
        Err(_) => {}
    }
    Ok(Admitted {
        resumed: session.stopped,
        after_takeover: session.taken_over,
    })
}

/// The takeover under way, where the platform watches for a person's input.
pub(crate) fn person_at_desk<B: Input>(backend: &B) -> Option<Takeover> {
    backend.presence().and_then(|presence| presence.current())
}

/// Says in the reply that a person had taken over and actions have resumed, and clears it.
pub(crate) fn note_after_takeover(
    session: &mut Session,
    entry: &mut AuditEntry,
    reply: &mut Reply,
) {
    session.taken_over = false;
    entry.resumed = true;
    reply.text = format!("{}\n{}", crate::person::RESUMED_NOTE, reply.text);
    if let Some(data) = reply.data.as_object_mut() {
        data.insert("resumed_after_takeover".into(), json!(true));
    }
}

/// Says in the reply that deskhand had been stopped and has resumed, and clears the stop.
pub(crate) fn note_resumed(session: &mut Session, entry: &mut AuditEntry, reply: &mut Reply) {
    session.stopped = false;
    entry.resumed = true;
    reply.text = format!("{RESUMED_NOTE}\n{}", reply.text);
    if let Some(data) = reply.data.as_object_mut() {
        data.insert("resumed_after_stop".into(), json!(true));
    }
}
/// Writes the action's audit line; a log that cannot be written is said in the reply.
pub(crate) fn audit(config: &Config, entry: &mut AuditEntry, result: &mut Result<Reply>) {
    match &*result {
        Ok(reply) => {
            entry.result = match reply.outcome {
                Outcome::Unconfirmed => "unconfirmed",
                Outcome::Failed => "failed",
                Outcome::Done | Outcome::Observed => "done",
            }
        }
        Err(err) => {
            entry.kind = Some(err.kind.as_str());
            if matches!(err.kind, ErrorKind::Denied | ErrorKind::Stopped) {
                entry.message = Some(err.message.clone());
            }
        }
    }
    entry.session.clone_from(&config.session);
    if let Err(why) = config.audit.append(entry) {
        let path = config
            .audit
            .path()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let note = format!(
            "the audit log {path} could not be written ({why}), so this call is missing from it; tell the user"
        );
        match result {
            Ok(reply) => reply.text.push_str(&format!("note: {note}\n")),
            Err(err) => err.message.push_str(&format!("; also, {note}")),
        }
    }
}

/// The applications an action would reach, as far as they can be known before acting.
async fn subjects<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    call: &Call,
    reach: &mut Reach,
    pointer: Point,
) -> Result<Vec<Subject>> {
    let mut found = Vec::new();
    let places = call.action.places();
    match call.name.spec().reaches {
        Reaches::Nothing => {}
        Reaches::Place => {
            for place in places {
                found.extend(place_subjects(backend, session, reach, place).await?);
            }
        }
        Reaches::PlaceOrFocus | Reaches::PlaceOrPointer if !places.is_empty() => {
            for place in places {
                found.extend(place_subjects(backend, session, reach, place).await?);
            }
        }
        Reaches::PlaceOrFocus if call.target.is_some() => {
            found.push(surface_subject(backend, session, reach).await?);
        }
        Reaches::Surface => found.push(surface_subject(backend, session, reach).await?),
        Reaches::Started => {
            if let Action::Launch { app, .. } = &call.action {
                found.push(Subject {
                    surface: "new".into(),
                    label: format!("the app it starts, {app:?}"),
                    app: Some(app.clone()),
                });
            }
        }
        Reaches::PlaceOrFocus | Reaches::Focus => {
            let windows = backend.windows().await?;
            found.push(match windows.iter().find(|w| w.focused) {
                Some(window) => {
                    let id = session.window_id(window.key());
                    Subject {
                        surface: format!("w{id}"),
                        label: format!("the focused window w{id}"),
                        app: Some(window.app_name.clone()),
                    }
                }
                None => Subject {
                    surface: "focused".into(),
                    label: "the focused window (no window has focus)".into(),
                    app: None,
                },
            });
        }
        Reaches::PlaceOrPointer => {
            found.push(Subject {
                surface: "screen".into(),
                label: format!(
                    "wherever the pointer is (pixel {},{})",
                    pointer.x, pointer.y
                ),
                app: None,
            });
            found.extend(top_window_at(backend, session, pointer).await?);
        }
    }
    Ok(found)
}

/// The surface a call names, as a subject: its window's app.
async fn surface_subject<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<Subject> {
    let surface = reach.surface(backend, session).await?;
    Ok(Subject {
        surface: surface.label.clone(),
        label: surface.label.clone(),
        app: surface.window.as_ref().map(|w| w.app_name.clone()),
    })
}

/// A ref or find reaches its element's window. A point reaches its surface, and whatever
/// window is on top there: both must pass. A point of "screen" names no application.
async fn place_subjects<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    place: &Place,
) -> Result<Vec<Subject>> {
    // A find looks only inside its surface, so on a window the element is that window's: its
    // tree is read once, when the action runs, not here as well.
    if let Place::Find(find) = place {
        let surface = reach.surface(backend, session).await?;
        if let Some(window) = &surface.window {
            return Ok(vec![Subject {
                label: format!("{find} in {}", surface.label),
                surface: surface.label.clone(),
                app: Some(window.app_name.clone()),
            }]);
        }
    }
    if let Some(element) = reach.named(backend, session, place).await? {
        let surface = format!("w{}", session.window_id(element.window.key()));
        return Ok(vec![Subject {
            label: format!("{} in {surface}", element.id),
            surface,
            app: Some(element.window.app_name),
        }]);
    }
    let Place::Point { x, y } = *place else {
        unreachable!("a place that names no element is a point")
    };
    let surface = reach.surface(backend, session).await?;
    let pixel = to_pixel(&surface.rect, x, y);
    let mut found = vec![Subject {
        surface: surface.label.clone(),
        label: if surface.window.is_some() {
            surface.label.clone()
        } else {
            format!(
                "the point {x},{y} of screen (pixel {},{})",
                pixel.x, pixel.y
            )
        },
        app: surface.window.as_ref().map(|w| w.app_name.clone()),
    }];
    if let Some(top) = top_window_at(backend, session, pixel).await?
        && top.surface != surface.label
    {
        found.push(top);
    }
    Ok(found)
}

/// The window on top at a pixel, from the window stack: what a pointer action there reaches.
async fn top_window_at<B: Windows>(
    backend: &B,
    session: &mut Session,
    pixel: Point,
) -> Result<Option<Subject>> {
    let windows = backend.windows().await?;
    Ok(windows
        .iter()
        .rev()
        .find(|w| !w.minimized && w.bounds.contains(pixel))
        .map(|window| {
            let id = session.window_id(window.key());
            Subject {
                surface: format!("w{id}"),
                label: format!("w{id}, the window on top at pixel {},{}", pixel.x, pixel.y),
                app: Some(window.app_name.clone()),
            }
        }))
}
