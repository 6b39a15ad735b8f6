//! The one executor: every call, from MCP, the CLI or later a batch, runs through [`execute`].
//! This file holds the call's way in and the small actions; the larger ones have a file each.

use std::future::Future;
use std::pin::Pin;

use crate::action::{Action, Call};
use crate::audit::AuditEntry;
use crate::backend::{Backend, Windows};
use crate::batch::RunStep;
use crate::control::Control;
use crate::coords::to_pixel;
use crate::error::{Error, ErrorKind, Result};
use crate::safety;
use crate::session::Session;

pub(crate) mod answer;
pub(crate) mod click;
pub(crate) mod config;
mod observe;
pub(crate) mod reach;
pub(crate) mod reply;
pub(crate) mod surface;
pub(crate) mod typing;

use answer::{Acted, AppRow, Did, Listed, WindowRow};
use click::click_at;
pub use config::Config;
use observe::{capture, observe};
use reach::Reach;
pub use reply::{Outcome, Reply};
use typing::{focused_window, type_text};

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

/// The executor as a batch runs its steps through it.
struct Executor<'a, B> {
    backend: &'a B,
    config: &'a Config,
    control: &'a Control,
}

impl<B: Backend> RunStep for Executor<'_, B> {
    fn run<'a>(
        &'a self,
        session: &'a mut Session,
        step: Call,
    ) -> Pin<Box<dyn Future<Output = Result<Reply>> + Send + 'a>> {
        Box::pin(execute_with(
            self.backend,
            session,
            self.config,
            step,
            self.control,
        ))
    }
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
            backend.move_pointer(spot.pixel()).await?;
            Ok(Acted::done(Did::Hover {
                pixel: spot.pixel(),
                at: spot,
            })
            .into())
        }
        Action::Button {
            down,
            place,
            button,
            modifiers,
        } => {
            let mut at = None;
            if let Some(place) = &place {
                let spot = reach.locate(backend, session, place).await?;
                backend.move_pointer(spot.pixel()).await?;
                at = Some(spot);
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
            let executor = Executor {
                backend,
                config,
                control,
            };
            Ok(crate::batch::batch(backend, session, steps, control, &executor).await)
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
            let into = focused_window(backend, session).await?;
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
            backend
                .scroll(at.as_ref().map(|l| l.pixel()), direction, amount)
                .await?;
            Ok(Acted::done(Did::Scroll {
                direction,
                amount,
                at,
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
            let mut points = vec![start.pixel()];
            if !via.is_empty() {
                let surface = reach.surface(backend, session).await?;
                points.extend(via.iter().map(|[x, y]| to_pixel(&surface.rect, *x, *y)));
            }
            points.push(end.pixel());
            backend
                .drag_path(
                    &points,
                    button,
                    &modifiers,
                    std::time::Duration::from_millis(u64::from(duration_ms)),
                )
                .await?;
            Ok(Acted::done(Did::Drag {
                from: start.pixel(),
                to: end.pixel(),
                points: points.len(),
                from_at: start,
                to_at: end,
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

async fn apps<B: Windows>(backend: &B, session: &mut Session) -> Result<Listed> {
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

async fn windows<B: Windows>(backend: &B, session: &mut Session) -> Result<Listed> {
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
