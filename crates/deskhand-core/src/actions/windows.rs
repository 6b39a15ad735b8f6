//! `windows`: every window, front to back, with its id, app, title and bounds.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches};
use crate::backend::Windows;
use crate::desk::answer::{Listed, MonitorRow, WindowRow};
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::model::{Monitor, WindowInfo};
use crate::monitors::{most_of, ordered};
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Windows,
    text: "windows",
    fields: &[],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(_: &Given) -> Result<Action> {
    Ok(Action::Windows)
}

pub(crate) async fn windows<B: Windows>(backend: &B, session: &mut Session) -> Result<Reply> {
    let windows = backend.windows().await?;
    session.windows_listed(&windows.iter().map(WindowInfo::key).collect::<Vec<_>>());
    let positions_unknown = backend.positions_unknown().await;
    let placed = positions_unknown.is_none();
    // One monitor is the screen: it costs no line.
    let monitors: Vec<Monitor> = match backend.monitors().await {
        Ok(monitors) if monitors.len() > 1 => ordered(monitors),
        _ => Vec::new(),
    };
    let ids: Vec<String> = monitors
        .iter()
        .map(|monitor| format!("m{}", session.monitor_id(&monitor.name)))
        .collect();
    let windows = windows
        .into_iter()
        .rev()
        .map(|window| {
            let b = window.bounds;
            WindowRow {
                monitor: placed
                    .then(|| most_of(&monitors, b))
                    .flatten()
                    .map(|index| ids[index].clone()),
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
        monitors: ids
            .into_iter()
            .zip(monitors)
            .map(|(id, monitor)| MonitorRow {
                id,
                name: monitor.name,
                bounds: monitor.bounds,
                scale: monitor.scale,
                primary: monitor.primary,
            })
            .collect(),
    }
    .into())
}
