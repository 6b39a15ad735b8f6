//! The one executor: every call, from MCP, the CLI or later a batch, runs through [`execute`].
//! This file holds the call's way in and the small actions; the larger ones have a file each.

use serde::Serialize;

use crate::action::{Action, Call};
use crate::audit::{AuditEntry, AuditLog};
use crate::backend::Backend;
use crate::control::Control;
use crate::coords::to_pixel;
use crate::error::{Error, ErrorKind, Result};
use crate::image::DEFAULT_MAX_EDGE;
use crate::model::{Rect, WindowInfo};
use crate::policy::Policy;
use crate::safety;
use crate::session::{Session, SurfaceKey};

mod answer;
mod click;
mod observe;
mod reach;
mod surface;
mod typing;

pub(crate) use answer::{
    Acted, Batched, CENTER, ClickPath, Did, FoundWindow, Listed, Page, ReadBack, Step, Waited,
};
use answer::{AppRow, Captured, Observed, WindowRow};
pub(crate) use click::windows_opened;
use click::{click_at, window_label};
use observe::{capture, observe};
pub(crate) use reach::{Named, Reach};
use reach::{point_on, ref_center};
use surface::{describe_surface, live_window, make_current};
pub(crate) use surface::{resolve, window_pixels};
pub(crate) use typing::{ensure_focused, focus_for_typing};
use typing::{focused_window, type_text};

#[derive(Debug, Clone)]
pub struct Config {
    /// Screenshots are scaled down so their long edge is at most this many pixels.
    pub max_image_edge: u32,
    /// What the user allows, fixed when the server or CLI starts. Default: everything.
    pub policy: Policy,
    /// Where every action is recorded. Default: nowhere.
    pub audit: AuditLog,
    /// What deskhand remembers across sessions. Default: nothing.
    pub memory: Option<std::sync::Arc<dyn crate::memory::Memory>>,
    /// What reads text from pixels, for windows without an accessibility tree. Default: none
    /// (such a window answers `no-accessibility`).
    pub ocr: Option<crate::ocr::TextReader>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_image_edge: DEFAULT_MAX_EDGE,
            policy: Policy::default(),
            audit: AuditLog::default(),
            memory: None,
            ocr: None,
        }
    }
}

/// How a successful call ended, which decides the CLI's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// A read: apps, windows, observe, screenshot, zoom.
    Observed,
    /// The system took the input.
    Done,
    /// Part of the input may have landed.
    Unconfirmed,
    /// A wait that timed out, or a batch that stopped before anything changed: nothing was done.
    Failed,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub outcome: Outcome,
    /// PNG bytes for screenshot and zoom.
    pub image: Option<Vec<u8>>,
    /// The structured form of the same reply.
    pub data: serde_json::Value,
}

impl Reply {
    /// Whether the agent must not take the reply for success, though it carries evidence: a wait
    /// that timed out, or a batch that stopped at a failing step (even after earlier steps
    /// changed something). MCP marks it `isError`, the CLI's `--json` says `"ok": false`.
    pub fn is_error(&self) -> bool {
        self.outcome == Outcome::Failed
            || self
                .data
                .get("failed_index")
                .is_some_and(|index| !index.is_null())
    }

    fn observed(text: String, data: serde_json::Value) -> Self {
        Self {
            text,
            outcome: Outcome::Observed,
            image: None,
            data,
        }
    }
}

/// A surface resolved to pixels at the moment of the call.
#[derive(Debug, Clone)]
pub(crate) struct Surface {
    pub(crate) key: SurfaceKey,
    /// `w3` or `screen`: the id a header or error names.
    pub(crate) label: String,
    pub(crate) rect: Rect,
    pub(crate) window: Option<WindowInfo>,
}

/// Runs one validated call against the backend, updating the session. An action (click, type,
/// press, scroll, drag, …) first passes the kill switch and the policy, and is audited.
pub async fn execute<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
) -> Result<Reply> {
    execute_with(backend, session, config, call, &Control::default()).await
}

/// [`execute`] for a caller that can cancel the call and hear its progress.
pub async fn execute_with<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
    control: &Control,
) -> Result<Reply> {
    let mut reach = Reach::new(call.target, config.ocr.clone());
    if !call.actuates() {
        return perform(backend, session, config, call, &mut reach, control).await;
    }
    let mut entry = AuditEntry::of(&call, session);
    let guarded = async {
        let admitted =
            safety::admit(backend, session, config, &call, &mut reach, &mut entry).await?;
        // One cheap listing, so a `new_window` wait after this action knows what was there
        // before.
        session.windows_before_action = backend
            .window_keys()
            .await
            .ok()
            .map(|keys| (keys, crate::learn::unix_ms()));
        let performed = perform(backend, session, config, call, &mut reach, control).await;
        session.acted_at_ms = Some(crate::learn::unix_ms());
        let mut reply = performed?;
        if admitted.resumed {
            safety::note_resumed(session, &mut entry, &mut reply);
        }
        Ok::<Reply, Error>(reply)
    };
    let mut result = guarded.await.or_else(|err| {
        if err.sent {
            Ok(Reply::unconfirmed(err))
        } else {
            Err(err)
        }
    });
    safety::audit(config, &mut entry, &mut result);
    result
}

/// Runs one call, unguarded, on what `reach` resolves.
async fn perform<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
    reach: &mut Reach,
    control: &Control,
) -> Result<Reply> {
    match call.action {
        Action::Apps => apps(backend, session).await.map(Reply::from),
        Action::Installed => crate::manage::installed(backend).await,
        Action::Windows => windows(backend, session).await.map(Reply::from),
        Action::Observe(spec) => observe(backend, session, config, reach, &spec).await,
        Action::Screenshot => capture(backend, session, config, reach, None).await,
        Action::Zoom { region } => capture(backend, session, config, reach, Some(region)).await,
        Action::Click { place, click } => {
            click_at(backend, session, config, reach, place, click).await
        }
        Action::Type {
            text,
            place,
            replace,
        } => type_text(backend, session, reach, &text, place, replace).await,
        Action::Read { place, offset } => {
            crate::values::read_text(backend, session, reach, &place, offset).await
        }
        Action::Hover { place } => {
            let spot = reach.locate(backend, session, &place).await?;
            backend.move_pointer(spot.pixel).await?;
            Ok(Acted::done(Did::Hover {
                pixel: spot.pixel,
                at: spot.describe(),
            })
            .into())
        }
        Action::Button {
            down,
            place,
            button,
            modifiers,
        } => {
            let mut at = String::from("where the pointer is");
            if let Some(place) = &place {
                let spot = reach.locate(backend, session, place).await?;
                backend.move_pointer(spot.pixel).await?;
                at = format!("at {}", spot.describe());
            }
            backend.button(button, down, &modifiers).await?;
            let did = if down {
                Did::Down { button, at }
            } else {
                Did::Up { button, at }
            };
            Ok(Acted::done(did).into())
        }
        Action::Wait(spec) => {
            crate::wait::wait(backend, session, config.ocr.as_ref(), reach, &spec, control).await
        }
        Action::Batch(steps) => {
            Ok(crate::batch::batch(backend, session, config, steps, control).await)
        }
        Action::SetValue { place, value } => {
            crate::values::set_value(backend, session, reach, &place, &value).await
        }
        Action::Select { path } => {
            crate::values::select(backend, session, config, reach, &path).await
        }
        Action::Launch { app, focus } => {
            crate::manage::launch(backend, session, &app, focus, control).await
        }
        Action::Focus => crate::manage::focus(backend, session, reach).await,
        Action::Close => crate::manage::close(backend, session, reach).await,
        Action::Kill => crate::manage::kill(backend, session, reach).await,
        Action::Window(spec) => crate::manage::arrange(backend, session, reach, &spec).await,
        Action::ReadClipboard => crate::manage::read_clipboard(backend).await,
        Action::Recall(request) => {
            let recalled = memory(config)?.recall(&request, std::time::SystemTime::now())?;
            Ok(Reply::observed(recalled.text, recalled.data))
        }
        Action::Forget { app } => {
            let windows = memory(config)?.forget(app.as_deref())?;
            Ok(Acted::done(Did::Forget { app, windows }).into())
        }
        Action::WriteClipboard { text } => crate::manage::write_clipboard(backend, &text).await,
        Action::Press { keys } => {
            let into = match focused_window(backend, session).await? {
                Some(label) => format!("in {label}, the focused window"),
                None => "with no window focused".to_string(),
            };
            let sent = backend.press_keys(&keys).await?;
            let keys = keys.to_string();
            Ok(Acted {
                did: Did::Press { keys, into },
                sent,
            }
            .into())
        }
        Action::Scroll {
            place,
            direction,
            amount,
        } => {
            let at = match &place {
                Some(place) => Some(reach.locate(backend, session, place).await?),
                None => None,
            };
            let described = at
                .as_ref()
                .map(|l| format!("at {}", l.describe()))
                .unwrap_or_else(|| "where the pointer is".into());
            backend
                .scroll(at.map(|l| l.pixel), direction, amount)
                .await?;
            Ok(Acted::done(Did::Scroll {
                direction,
                amount,
                at: described,
            })
            .into())
        }
        Action::Drag {
            from,
            to,
            via,
            duration_ms,
            button,
            modifiers,
        } => {
            let start = reach.locate(backend, session, &from).await?;
            let end = reach.locate(backend, session, &to).await?;
            let mut points = vec![start.pixel];
            if !via.is_empty() {
                let surface = reach.surface(backend, session).await?;
                points.extend(via.iter().map(|[x, y]| to_pixel(&surface.rect, *x, *y)));
            }
            points.push(end.pixel);
            backend
                .drag_path(
                    &points,
                    button,
                    &modifiers,
                    std::time::Duration::from_millis(u64::from(duration_ms)),
                )
                .await?;
            Ok(Acted::done(Did::Drag {
                from: start.pixel,
                to: end.pixel,
                points: points.len(),
                from_at: start.describe(),
                to_at: end.describe(),
                via: via.len(),
            })
            .into())
        }
    }
}

fn memory(config: &Config) -> Result<&dyn crate::memory::Memory> {
    config.memory.as_deref().ok_or_else(|| {
        Error::new(
            ErrorKind::Unsupported,
            "memory is off for this deskhand (started with `--memory off`); observe instead, or ask the user to turn memory on",
        )
    })
}

async fn apps<B: Backend>(backend: &B, session: &mut Session) -> Result<Listed> {
    let apps = backend.apps().await?;
    let apps = apps
        .into_iter()
        .map(|app| AppRow {
            id: format!("a{}", session.app_id(app.pid)),
            name: app.name,
            pid: app.pid,
            windows: app.windows,
            focused: app.focused,
        })
        .collect();
    Ok(Listed::Apps { apps })
}

async fn windows<B: Backend>(backend: &B, session: &mut Session) -> Result<Listed> {
    let windows = backend.windows().await?;
    let positions_unknown = backend.positions_unknown().await;
    let placed = positions_unknown.is_none();
    let windows = windows
        .into_iter()
        .rev()
        .map(|window| {
            let b = window.bounds;
            WindowRow {
                id: format!("w{}", session.window_id(window.key())),
                app_id: window.pid.map(|pid| format!("a{}", session.app_id(pid))),
                title: window.title,
                app: window.app_name,
                bounds: placed.then_some(b),
                size: (!placed).then_some([b.width, b.height]),
                focused: window.focused,
                minimized: window.minimized,
            }
        })
        .collect();
    Ok(Listed::Windows {
        windows,
        positions_unknown,
    })
}

/// A failure after the request went out, saying what was asked: the reply calls it applied but
/// unconfirmed, and must say what may have happened.
pub(crate) fn intended(err: Error, did: &str) -> Error {
    if err.sent {
        Error {
            message: format!("{did}: {}", err.message),
            ..err
        }
    } else {
        err
    }
}

/// A platform failure on one element most often means the element went away; a disabled one
/// is named, so the agent knows which element to wait for.
pub(crate) fn element_failure(err: Error, what: &str) -> Error {
    match err.kind {
        _ if err.sent => err,
        ErrorKind::Disabled => Error::new(ErrorKind::Disabled, format!("{what}: {}", err.message)),
        ErrorKind::Platform => {
            let why = err.message.trim_end_matches('.');
            let why = why.strip_suffix("; call `observe` again").unwrap_or(why);
            Error::new(
                ErrorKind::ElementGone,
                format!("{what}: {why}; call `observe` again"),
            )
        }
        _ => err,
    }
}
