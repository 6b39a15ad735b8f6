//! `launch`: starts an app and waits for its window, keeping the focus where asked.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Kept, Reaches, TargetId};
use crate::backend::{Apps, Windows};
use crate::control::Control;
use crate::desk::answer::words::FocusAfterLaunch;
use crate::desk::answer::{Acted, Did};
use crate::desk::reply::Reply;
use crate::desk::settle::POLL;
use crate::error::{Error, ErrorKind, Result};
use crate::model::WindowInfo;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Launch,
    text: "launch",
    fields: &["app", "focus"],
    changes: Changes::Desktop,
    reaches: Reaches::Started,
    keeps: &[Kept::Detail],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let app = given.args.app.clone().unwrap_or_default();
    if app.trim().is_empty() {
        return Err(Error::bad_argument(
            "`launch` needs `app`: a desktop-file id or a name from apps {\"installed\": true}",
        ));
    }
    Ok(Action::Launch {
        app: app.trim().to_owned(),
        focus: given.args.focus.unwrap_or(true),
    })
}

/// How long a launched app has to show its first window.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);

/// How long after its window appears a launched app may still take the focus.
const FOCUS_SETTLE: Duration = Duration::from_millis(1500);

pub(crate) async fn launch<B: Windows + Apps>(
    backend: &B,
    session: &mut Session,
    app: &str,
    focus: bool,
    control: &Control,
) -> Result<Reply> {
    let before: Vec<WindowInfo> = backend.windows().await?;
    let known: HashSet<_> = before.iter().map(|w| w.key()).collect();
    let focused_before = before.iter().find(|w| w.focused).cloned();
    let pid = backend.launch(app).await?;
    let started = Instant::now();
    let window = loop {
        let windows = backend.windows().await?;
        let mine = windows.iter().rev().find(|w| {
            !known.contains(&w.key()) && w.pid.is_some_and(|p| backend.descends_from(p, pid))
        });
        if let Some(window) = mine {
            break window.clone();
        }
        if let Some(how) = backend.launch_failed(pid).await {
            return Err(Error::new(
                ErrorKind::Platform,
                format!(
                    "{app} (process {pid}) ended before showing a window, and nothing of it runs: it {how}; fix what it says, or launch another app"
                ),
            ));
        }
        if started.elapsed() >= LAUNCH_TIMEOUT {
            return Ok(Acted::done(Did::LaunchedUnseen {
                app: app.to_owned(),
                pid,
                waited_s: LAUNCH_TIMEOUT.as_secs(),
            })
            .into());
        }
        if !control.sleep(POLL * 2).await {
            return Err(Error::new(
                ErrorKind::Cancelled,
                format!(
                    "the launch was cancelled while waiting for a window; {app} was started (process {pid}) and keeps running"
                ),
            ));
        }
    };
    let mut focus_after = FocusAfterLaunch::OnNew;
    if focus {
        backend.activate(&window).await?;
    } else if let Some(previous) = &focused_before {
        focus_after = keep_focus(backend, session, &window, previous).await?;
    }
    let window_id = format!("w{}", session.window_id(window.key()));
    let app_id = format!("a{}", session.app_id(window.pid.unwrap_or(pid)));
    session.current = Some(TargetId::Window(session.window_id(window.key())));
    Ok(Acted::done(Did::Launch {
        app: app_id,
        window: window_id,
        pid,
        title: window.title,
        name: app.to_owned(),
        seconds: started.elapsed().as_secs_f64(),
        focus: focus_after,
    })
    .into())
}

/// Window managers focus a new window a moment after it maps: for a while the focus is given
/// back each time the new window takes it, and the reply says where it ended.
async fn keep_focus<B: Windows>(
    backend: &B,
    session: &mut Session,
    new: &WindowInfo,
    previous: &WindowInfo,
) -> Result<FocusAfterLaunch> {
    let started = Instant::now();
    let mut gave_back = false;
    while started.elapsed() < FOCUS_SETTLE {
        if backend.window(new.handle).await?.is_some_and(|w| w.focused) {
            backend.activate(previous).await?;
            gave_back = true;
        }
        tokio::time::sleep(POLL * 2).await;
    }
    let kept = backend
        .window(previous.handle)
        .await?
        .is_some_and(|w| w.focused && w.pid == previous.pid);
    let id = session.window_id(previous.key());
    Ok(match (kept, gave_back) {
        (true, true) => FocusAfterLaunch::GivenBack(id),
        (true, false) => FocusAfterLaunch::Stayed(id),
        (false, _) => FocusAfterLaunch::Lost(id),
    })
}
