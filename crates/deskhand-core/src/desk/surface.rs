//! Which surface a call acts on: its target, else the current surface, else the focused window.

use crate::action::TargetId;
use crate::backend::{Accessibility, Capture, Windows};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Rect, WindowInfo, WindowKey};
use crate::render::escape;
use crate::session::{Session, SurfaceKey};

use super::answer::words::{SurfaceSaid, WindowSaid};

/// The window a key names, if it still exists: a window with the same handle in another process
/// is a different window that reused a closed one's id.
pub(crate) async fn live_window<B: Windows>(
    backend: &B,
    key: WindowKey,
) -> Result<Option<WindowInfo>> {
    Ok(backend
        .window(key.handle)
        .await?
        .filter(|window| window.pid == key.pid))
}

/// Where a window's pixels are on the screen. Refused where window positions are unknown: its
/// bounds then hold only its size, at 0,0, and the pixels there may be another window's.
pub(crate) async fn window_pixels<B: Windows>(backend: &B, window: &WindowInfo) -> Result<Rect> {
    match backend.positions_unknown().await {
        None => Ok(window.bounds),
        Some(why) => Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "the pixels of the window \"{}\" cannot be read, for its place on the screen is not known ({why}); take a `screenshot` of the whole screen (`target` \"screen\") or `zoom` into a region of it instead",
                escape(&window.title)
            ),
        )),
    }
}

/// Resolves the named target, else the current surface, else the frontmost window.
pub(crate) async fn resolve<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
) -> Result<Surface> {
    match target.or(session.current) {
        Some(TargetId::Screen) => screen_surface(backend).await,
        Some(TargetId::Monitor(id)) => {
            let name = session.monitor_name(id)?.to_owned();
            let monitors = backend.monitors().await?;
            match monitors.into_iter().find(|monitor| monitor.name == name) {
                Some(monitor) => Ok(Surface {
                    key: SurfaceKey::Monitor(id),
                    label: format!("m{id}"),
                    rect: monitor.bounds,
                    window: None,
                }),
                None => Err(Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "m{id} is gone: the monitor {:?} it named is no longer connected; call `windows` for the monitors there are now",
                        escape(&name)
                    ),
                )),
            }
        }
        Some(TargetId::Window(id)) => {
            let key = session.window_key(id)?;
            match live_window(backend, key).await? {
                Some(window) => Ok(window_surface(session, window)),
                None => {
                    session.window_closed(key);
                    Err(Error::new(
                        ErrorKind::SurfaceGone,
                        format!(
                            "w{id} is gone: no window listed now is the one it named (it was closed, or the desktop now tells its windows apart another way, as GNOME does when deskhand's shell extension starts or stops); call `windows` and pick another window"
                        ),
                    ))
                }
            }
        }
        Some(TargetId::App(id)) => {
            let pid = session.app_pid(id)?;
            let windows = backend.windows().await?;
            let mine: Vec<&WindowInfo> = windows.iter().filter(|w| w.pid == Some(pid)).collect();
            let chosen = mine
                .iter()
                .find(|w| w.focused)
                .or_else(|| mine.iter().rev().find(|w| !w.minimized))
                .or_else(|| mine.last());
            match chosen {
                Some(window) => Ok(window_surface(session, (*window).clone())),
                None => Err(Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "a{id} has no open window now (it quit or closed them all); call `apps` to see what is running"
                    ),
                )),
            }
        }
        None => {
            let windows = backend.windows().await?;
            let front = windows
                .iter()
                .find(|w| w.focused)
                .or_else(|| windows.iter().rev().find(|w| !w.minimized));
            match front {
                Some(window) => Ok(window_surface(session, window.clone())),
                None => screen_surface(backend).await,
            }
        }
    }
}

async fn screen_surface<B: Windows>(backend: &B) -> Result<Surface> {
    Ok(Surface {
        key: SurfaceKey::Screen,
        label: "screen".into(),
        rect: backend.screen().await?,
        window: None,
    })
}

fn window_surface(session: &mut Session, window: WindowInfo) -> Surface {
    Surface {
        key: SurfaceKey::Window(window.key()),
        label: format!("w{}", session.window_id(window.key())),
        rect: window.bounds,
        window: Some(window),
    }
}

/// Makes the surface a successful read used the current one. An app id is resolved to the window
/// it named, so later calls act on what the agent saw even after the app's focus moves.
pub(crate) fn make_current(session: &mut Session, surface: &Surface) {
    session.current = Some(match surface.key {
        SurfaceKey::Screen => TargetId::Screen,
        SurfaceKey::Monitor(id) => TargetId::Monitor(id),
        SurfaceKey::Window(key) => TargetId::Window(session.window_id(key)),
    });
}

pub(crate) fn describe_surface(session: &mut Session, surface: &Surface) -> SurfaceSaid {
    match &surface.window {
        Some(window) => SurfaceSaid::Window {
            window: window_said(session, window),
            app: window.pid.map(|pid| session.app_id(pid)),
            app_name: window.app_name.clone(),
        },
        None => match surface.key {
            SurfaceKey::Monitor(id) => SurfaceSaid::Monitor(id),
            _ => SurfaceSaid::Screen,
        },
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

/// A window as replies name it: `w5 "Save as..."`.
pub(crate) fn window_said(session: &mut Session, window: &WindowInfo) -> WindowSaid {
    WindowSaid {
        id: session.window_id(window.key()),
        title: window.title.clone(),
    }
}
