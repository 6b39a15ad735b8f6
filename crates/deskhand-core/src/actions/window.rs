//! `window`: minimizes, maximizes, restores, moves or resizes a window, each change read back.

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Given, Kept, MAX_WINDOW_PIXELS, Reaches, WindowSpec,
    WindowState,
};
use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::settle::{settle, target_window};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{WindowChange, WindowInfo};
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Window,
    text: "window",
    fields: &["target", "state", "position", "size"],
    changes: Changes::Desktop,
    reaches: Reaches::Surface,
    keeps: &[Kept::Detail],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let args = given.args;
    if args.state.is_none() && args.position.is_none() && args.size.is_none() {
        return Err(Error::bad_argument(
            "`window` needs `state` (normal, minimized, maximized), `position` [x, y] or `size` [width, height]",
        ));
    }
    if let Some([w, h]) = args.size
        && (w == 0 || h == 0 || w > MAX_WINDOW_PIXELS || h > MAX_WINDOW_PIXELS)
    {
        return Err(Error::bad_argument(format!(
            "`size` is [{w}, {h}]; give a width and height of 1–{MAX_WINDOW_PIXELS} pixels"
        )));
    }
    if args.state == Some(WindowState::Minimized)
        && (args.position.is_some() || args.size.is_some())
    {
        return Err(Error::bad_argument(
            "a minimized window cannot be moved or resized; give `state` \"normal\" with `position` or `size`",
        ));
    }
    given.window_target()?;
    Ok(Action::Window(WindowSpec {
        state: args.state,
        position: args.position,
        size: args.size,
    }))
}

pub(crate) async fn arrange<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    spec: &WindowSpec,
) -> Result<Reply> {
    let (surface, window) = target_window(backend, session, reach).await?;
    let screen = backend.screen().await?;
    let mut changes = Vec::new();
    match spec.state {
        Some(WindowState::Minimized) => changes.push(WindowChange::Minimize),
        Some(WindowState::Maximized) => changes.push(WindowChange::Maximize),
        Some(WindowState::Normal) => changes.push(WindowChange::Restore),
        None => {}
    }
    if let Some([x, y]) = spec.position {
        changes.push(WindowChange::Move { x, y });
    }
    if let Some([width, height]) = spec.size {
        changes.push(WindowChange::Resize { width, height });
    }
    let mut unmet = Vec::new();
    let mut current = window.clone();
    for change in changes {
        backend.change_window(&current, change).await?;
        let (met, now) = settle(backend, &window, |w| shows(w, change, &screen)).await?;
        let Some(now) = now else {
            return Err(Error::new(
                ErrorKind::SurfaceGone,
                format!(
                    "{} closed while it was being changed; call `windows`",
                    surface.label
                ),
            ));
        };
        if !met {
            unmet.push(change);
        }
        current = now;
    }
    let state = if current.minimized {
        "minimized"
    } else if current.maximized {
        "maximized"
    } else {
        "normal"
    };
    Ok(Acted::done(Did::Window {
        window: surface.label,
        bounds: current.bounds,
        state,
        unmet,
    })
    .into())
}

/// Whether the window shows the change. Window managers may adjust a size to the app's
/// size steps or the screen, so sizes and places are checked within a few pixels.
fn shows(window: &WindowInfo, change: WindowChange, screen: &crate::model::Rect) -> bool {
    let near = |a: i64, b: i64, slack: i64| (a - b).abs() <= slack;
    match change {
        WindowChange::Move { x, y } => {
            near(window.bounds.x.into(), x.into(), 2) && near(window.bounds.y.into(), y.into(), 2)
        }
        WindowChange::Resize { width, height } => {
            let fits_w = width.min(screen.width);
            let fits_h = height.min(screen.height);
            near(window.bounds.width.into(), fits_w.into(), 16)
                && near(window.bounds.height.into(), fits_h.into(), 16)
        }
        WindowChange::Minimize => window.minimized,
        WindowChange::Maximize => window.maximized,
        WindowChange::Restore => !window.minimized && !window.maximized,
    }
}
