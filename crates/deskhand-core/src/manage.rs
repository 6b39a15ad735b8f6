//! Apps and windows as wholes: launch, focus, close, kill, place and size, and the clipboard.
//! Each change is read back before it is called done.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::action::{TargetId, WindowSpec, WindowState};
use crate::backend::{Accessibility, Apps, Capture, Clipboard, Windows};
use crate::control::Control;
use crate::desk::answer::words::FocusAfterLaunch;
use crate::desk::answer::{Acted, Did, Listed};
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::surface::Surface;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{WindowChange, WindowInfo};
use crate::session::Session;

/// How long a launched app has to show its first window.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a window has to show a requested change or to close.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(3);
const POLL: Duration = Duration::from_millis(50);
/// How long after its window appears a launched app may still take the focus.
const FOCUS_SETTLE: Duration = Duration::from_millis(1500);

/// The window a window action names: `wN`, or the window `aN` resolves to.
async fn target_window<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<(Surface, WindowInfo)> {
    let surface = reach.surface(backend, session).await?;
    let window = surface
        .window
        .clone()
        .ok_or_else(|| Error::bad_argument("this action needs a window, not the screen"))?;
    Ok((surface, window))
}

/// Reads the window again until `test` holds or the time is up; `None` once the window is gone.
async fn settle<B: Windows>(
    backend: &B,
    window: &WindowInfo,
    test: impl Fn(&WindowInfo) -> bool,
) -> Result<(bool, Option<WindowInfo>)> {
    let started = Instant::now();
    loop {
        let now = backend
            .window(window.handle)
            .await?
            .filter(|w| w.pid == window.pid);
        match now {
            Some(now) if test(&now) => return Ok((true, Some(now))),
            None => return Ok((false, None)),
            Some(now) if started.elapsed() >= SETTLE_TIMEOUT => return Ok((false, Some(now))),
            Some(_) => tokio::time::sleep(POLL).await,
        }
    }
}

pub(crate) async fn focus<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<Reply> {
    let (surface, window) = target_window(backend, session, reach).await?;
    backend.activate(&window).await?;
    Ok(Acted::done(Did::Focus {
        window: surface.label,
        title: window.title,
    })
    .into())
}

pub(crate) async fn close<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<Reply> {
    let (surface, window) = target_window(backend, session, reach).await?;
    backend.close(&window).await?;
    let (_, still) = settle(backend, &window, |_| false).await?;
    Ok(Acted::done(Did::Close {
        window: surface.label,
        closed: still.is_none(),
        waited_s: SETTLE_TIMEOUT.as_secs(),
    })
    .into())
}

pub(crate) async fn kill<B: Windows + Accessibility + Capture + Apps>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
) -> Result<Reply> {
    let pid = match reach.target() {
        Some(TargetId::App(id)) => session.app_pid(id)?,
        _ => {
            let (_, window) = target_window(backend, session, reach).await?;
            window.pid.ok_or_else(|| {
                Error::new(
                    ErrorKind::Unsupported,
                    "the window does not say which process owns it, so its app cannot be killed; use `close`",
                )
            })?
        }
    };
    let app = format!("a{}", session.app_id(pid));
    backend.kill(pid).await?;
    Ok(Acted::done(Did::Kill { app, pid }).into())
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

pub(crate) async fn installed<B: Apps>(backend: &B) -> Result<Reply> {
    let installed = backend.installed().await?;
    let not_listed = backend.installed_gaps().await;
    Ok(Listed::Installed {
        installed,
        not_listed,
    }
    .into())
}

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

pub(crate) async fn read_clipboard<B: Clipboard>(backend: &B) -> Result<Reply> {
    let content = backend.read_clipboard().await?;
    Ok(Listed::Clipboard {
        text: content.text,
        types: content.types,
    }
    .into())
}

pub(crate) async fn write_clipboard<B: Clipboard>(backend: &B, text: &str) -> Result<Reply> {
    backend.write_clipboard(text).await?;
    let back = backend.read_clipboard().await?;
    // The text is not echoed: it may be a secret the user asked to paste.
    Ok(Acted::done(Did::WriteClipboard {
        characters: text.chars().count(),
        read_back: back.text.as_deref() == Some(text),
    })
    .into())
}
