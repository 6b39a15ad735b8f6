//! `window`: minimizes, maximizes, restores, moves or resizes a window, each change read back.

use crate::action::TargetId;
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
use crate::model::{Monitor, Point, Rect, WindowChange, WindowInfo};
use crate::monitors::most_of;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Window,
    text: "window",
    fields: &["target", "state", "position", "size", "monitor"],
    changes: Changes::Desktop,
    reaches: Reaches::Surface,
    keeps: &[Kept::Detail],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let args = given.args;
    if args.state.is_none()
        && args.position.is_none()
        && args.size.is_none()
        && args.monitor.is_none()
    {
        return Err(Error::bad_argument(
            "`window` needs `state` (normal, minimized, maximized), `position` [x, y], `size` [width, height] or `monitor` \"mN\"",
        ));
    }
    let monitor = match args.monitor.as_deref() {
        None => None,
        Some(text) => match TargetId::parse(text) {
            Ok(TargetId::Monitor(id)) => Some(id),
            _ => {
                return Err(Error::bad_argument(format!(
                    "`monitor` {text:?} is not a monitor; give a monitor id like \"m2\" from `windows`"
                )));
            }
        },
    };
    if monitor.is_some() && args.position.is_some() {
        return Err(Error::bad_argument(
            "`monitor` and `position` both say where the window goes; give one of them",
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
        && (args.position.is_some() || args.size.is_some() || monitor.is_some())
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
        monitor,
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
    let mut onto_monitor_bounds = None;
    match spec.monitor {
        // Sized first, then placed: some window managers keep a window's center as they resize.
        Some(id) => {
            let onto = monitor_bounds(backend, session, id).await?;
            onto_monitor_bounds = Some(onto);
            let (place, fitted) =
                onto_monitor(&window, &backend.monitors().await?, onto, spec.size);
            if let Some([width, height]) = fitted {
                changes.push(WindowChange::Resize { width, height });
            }
            changes.push(WindowChange::Move {
                x: place.x,
                y: place.y,
            });
        }
        None => {
            if let Some([width, height]) = spec.size {
                changes.push(WindowChange::Resize { width, height });
            }
        }
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
    // A tiling window manager sizes a window to its place itself: on the monitor asked for, and
    // within it, the size it chose is no failure of the move.
    if let Some(onto) = onto_monitor_bounds
        && spec.size.is_none()
        && within(current.bounds, onto)
    {
        unmet.retain(|change| !matches!(change, WindowChange::Resize { .. }));
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

/// Where monitor `m{id}` is now.
async fn monitor_bounds<B: Windows>(backend: &B, session: &Session, id: u32) -> Result<Rect> {
    let name = session.monitor_name(id)?;
    backend
        .monitors()
        .await?
        .into_iter()
        .find(|monitor| monitor.name == name)
        .map(|monitor| monitor.bounds)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::SurfaceGone,
                format!(
                    "m{id} is gone: the monitor {name:?} it named is no longer connected; call `windows` for the monitors there are now"
                ),
            )
        })
}

/// Where a window goes on another monitor: at the same place relative to that monitor's corner
/// as on the one it is on, moved in to fit, and its size kept where it fits, else cut to the
/// monitor (the new size, when it had to change).
fn onto_monitor(
    window: &WindowInfo,
    monitors: &[Monitor],
    onto: Rect,
    size: Option<[u32; 2]>,
) -> (Point, Option<[u32; 2]>) {
    let [width, height] = size.unwrap_or([window.bounds.width, window.bounds.height]);
    let fitted = [width.min(onto.width), height.min(onto.height)];
    let from = most_of(monitors, window.bounds).map_or(Point { x: 0, y: 0 }, |index| Point {
        x: monitors[index].bounds.x,
        y: monitors[index].bounds.y,
    });
    let place = |offset: i32, start: i32, room: u32, length: u32| {
        let room = i64::from(room) - i64::from(length);
        start + i32::try_from(i64::from(offset).clamp(0, room.max(0))).unwrap_or(0)
    };
    let at = Point {
        x: place(window.bounds.x - from.x, onto.x, onto.width, fitted[0]),
        y: place(window.bounds.y - from.y, onto.y, onto.height, fitted[1]),
    };
    let changed = (fitted != [width, height] || size.is_some()).then_some(fitted);
    (at, changed)
}

fn within(inner: Rect, outer: Rect) -> bool {
    let end = |start: i32, length: u32| i64::from(start) + i64::from(length);
    inner.x >= outer.x
        && inner.y >= outer.y
        && end(inner.x, inner.width) <= end(outer.x, outer.width)
        && end(inner.y, inner.height) <= end(outer.y, outer.height)
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
