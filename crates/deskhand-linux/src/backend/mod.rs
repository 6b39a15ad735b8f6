//! The Linux [`Backend`](deskhand_core::backend::Backend): X11, or sway or GNOME on Wayland, for
//! windows, input and pixels (chosen from the session at connect time); AT-SPI2 for trees and
//! actions.
//!
//! x11rb is blocking, so every X request runs on the blocking pool under a deadline; AT-SPI calls
//! carry their own timeouts. No call can hang the server on one unresponsive application.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deskhand_core::backend::{
    Accessibility, Apps, Capture, Clipboard, Hit, Identity, Input, InputOutcome, Partial,
    TextState, Typed, Values, Windows,
};
use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::keys::Keys;
use deskhand_core::model::{
    ClipboardContent, ElementHandle, InstalledApp, Modifier, MouseButton, Point, Rect, RgbImage,
    ScrollDirection, Tree, WindowChange, WindowInfo, WindowKey,
};
use tokio::sync::OnceCell;

use crate::atspi::{
    self as a11y, Application, Atspi, AtspiError, Frame, ObjectRef, WalkLimits, WalkStyle,
};
use crate::gnome::Gnome;
use crate::launch::{self, AppDirs, Entry};
use crate::wayland::{self, Sway};
use crate::x11::clipboard::{self, ClipboardContents, ClipboardError};
use crate::x11::{self, X11, X11Error, XRect, XWindow};

mod errors;
mod frames;
mod on_gnome;
mod on_sway;

use errors::{
    atspi_error, change_error, clipboard_error, element_error, input_error, launch_error,
    refuse_disabled, x_error,
};
use frames::{
    Origin, gnome_origin, match_frame, offset_of, origin_for, popups_over, runs_actions_in_request,
    wayland_inset, wayland_origin,
};
/// One X request round trip never takes this long on a live server.
const X_DEADLINE: Duration = Duration::from_secs(5);

/// A D-Bus call to one accessible object.
const CALL_TIMEOUT: Duration = Duration::from_millis(1500);

/// A responsive application answers a state read well within this; one that does not is busy
/// or blocked.
const ANSWER_PROBE: Duration = Duration::from_millis(300);

/// How long after registering as an accessibility listener synthetic input waits.
const LISTENER_SETTLE: Duration = Duration::from_millis(500);

/// How long `activate` waits for the window manager to hand the window the focus.
const ACTIVATE_WAIT: Duration = Duration::from_millis(1500);

/// How long `change_window` waits for the window manager to apply a change.
const CHANGE_SETTLE: Duration = Duration::from_secs(1);

/// Between two reads of a window that is expected to change.
const WINDOW_POLL: Duration = Duration::from_millis(20);

/// A window that has not moved for this long is no longer being animated.
const STILL_FOR: Duration = Duration::from_millis(60);

/// Longer than any minimize animation (openbox's takes about 150 ms).
const ANIMATION_LIMIT: Duration = Duration::from_millis(600);

/// Apps count a press as the next click of a multi-click when it follows the last release
/// within their double-click time (400 ms in GTK and Qt, 500 ms in Chromium): on Wayland a
/// new press waits until this long after the last release, as X11's input does, so that two
/// calls never merge into a double-click nobody asked for.
const CLICK_SEPARATION: Duration = Duration::from_millis(550);

/// Where windows, input and pixels come from; the accessibility tree is AT-SPI's on both.
enum Display {
    X11(Arc<X11>),
    Sway(Arc<Sway>),
    Gnome(Arc<Gnome>),
}

pub struct LinuxBackend {
    display: Display,
    atspi: OnceCell<Arc<Atspi>>,
    walk_limits: WalkLimits,
    use_cache: bool,
    /// X window → how its toolkit's extents map to the screen, learned when its frame is matched.
    origins: Mutex<HashMap<u64, Origin>>,
    /// The processes `launch` started, by pid: how each ended tells a launch that failed at
    /// once from one still starting.
    launched: Mutex<HashMap<u32, launch::Launched>>,
    /// The deskhand binary that holds written clipboard text; `None`: the running one.
    clipboard_holder: Option<PathBuf>,
    /// When a button last went up on Wayland (X11 keeps its own): see [`CLICK_SEPARATION`].
    last_release: Mutex<Option<Instant>>,
}

impl LinuxBackend {
    /// Connects to the session's display server: sway or GNOME when the session is theirs on
    /// Wayland (GNOME Shell is reached on first use), else X (XWayland on another compositor);
    /// the accessibility bus is connected on first use.
    pub fn connect() -> Result<Self> {
        let display = match wayland::Session::from_env() {
            wayland::Session::Sway(socket) => Display::Sway(Arc::new(Sway::connect(socket)?)),
            wayland::Session::Gnome => Display::Gnome(Arc::new(Gnome::default())),
            wayland::Session::OtherWayland(_)
                if std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()) =>
            {
                Display::X11(Arc::new(X11::connect().map_err(x_error)?))
            }
            wayland::Session::OtherWayland(name) => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "this is a Wayland session of {name}, and deskhand drives GNOME and sway on Wayland only so far (and X11 everywhere); run it in a GNOME or sway session, under XWayland with DISPLAY set, or on a headless desktop of its own: `eval \"$(deskhand desktop start --wayland sway)\"`"
                    ),
                ));
            }
            wayland::Session::X11 => Display::X11(Arc::new(X11::connect().map_err(x_error)?)),
        };
        Ok(Self {
            display,
            atspi: OnceCell::new(),
            walk_limits: WalkLimits::default(),
            use_cache: true,
            origins: Mutex::new(HashMap::new()),
            launched: Mutex::new(HashMap::new()),
            clipboard_holder: None,
            last_release: Mutex::new(None),
        })
    }

    /// Names the deskhand binary that holds text written to the clipboard, for callers that are
    /// not that binary themselves (tests, benches).
    pub fn with_clipboard_holder(mut self, program: impl Into<PathBuf>) -> Self {
        self.clipboard_holder = Some(program.into());
        self
    }

    /// Reads every element one call at a time instead of starting from the applications' caches:
    /// the slow reference the fast path is checked against.
    pub fn without_cache(mut self) -> Self {
        self.use_cache = false;
        self
    }

    /// D-Bus calls made to the accessibility bus so far.
    pub fn accessibility_calls(&self) -> usize {
        self.atspi.get().map_or(0, |atspi| atspi.calls())
    }

    /// sway, when the session is sway's.
    fn sway(&self) -> Option<&Sway> {
        match &self.display {
            Display::Sway(sway) => Some(sway),
            Display::X11(_) | Display::Gnome(_) => None,
        }
    }

    /// GNOME Shell, when the session is GNOME's on Wayland.
    fn gnome(&self) -> Option<&Gnome> {
        match &self.display {
            Display::Gnome(gnome) => Some(gnome),
            Display::X11(_) | Display::Sway(_) => None,
        }
    }

    async fn atspi(&self) -> Result<&Arc<Atspi>> {
        self.atspi
            .get_or_try_init(|| async { Atspi::connect(CALL_TIMEOUT).await.map(Arc::new) })
            .await
            .map_err(atspi_error)
    }

    /// Runs a blocking X request on the blocking pool, under a deadline.
    async fn x<T, F>(&self, what: &'static str, deadline: Duration, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&X11) -> std::result::Result<T, X11Error> + Send + 'static,
    {
        let Display::X11(x11) = &self.display else {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("{what} needs an X server, and this session is Wayland's"),
            ));
        };
        let x11 = Arc::clone(x11);
        let job = tokio::task::spawn_blocking(move || work(&x11));
        match tokio::time::timeout(deadline, job).await {
            Ok(Ok(result)) => result.map_err(x_error),
            Ok(Err(join)) => Err(Error::platform(format!(
                "the X request for {what} crashed ({join}); try again"
            ))),
            Err(_) => Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "the X server did not answer {what} within {} s; check that the display is alive, then try again",
                    deadline.as_secs()
                ),
            )),
        }
    }

    async fn x_windows(&self) -> Result<(Vec<XWindow>, Option<u32>)> {
        self.x("listing windows", X_DEADLINE, |x| {
            Ok((x.windows()?, x.active_window()?))
        })
        .await
    }

    fn window_info(window: &XWindow, active: Option<u32>) -> WindowInfo {
        let app_name = window
            .pid
            .and_then(crate::process::program_name)
            .or_else(|| window.wm_class.as_deref().map(str::to_lowercase))
            .unwrap_or_else(|| "unknown".into());
        WindowInfo {
            handle: window.id as u64,
            title: window.title.clone(),
            pid: window.pid,
            app_name,
            bounds: rect_of(window.rect),
            focused: active == Some(window.id),
            minimized: window.minimized,
            maximized: window.maximized,
        }
    }

    /// The accessible frame that is this X window, how its extents map to the screen, and the
    /// popups of the same application that show over it (see [`popups_over`]).
    async fn frame_of(&self, window: &WindowInfo) -> Result<(Frame, Origin, Vec<Frame>)> {
        let no_tree = |why: String| {
            Error::window_without_tree(format!(
                "the window \"{}\" exposes no accessibility tree ({why}); use `screenshot` or `zoom` and act with x/y",
                deskhand_core::render::escape(&window.title)
            ))
        };
        let pid = window
            .pid
            .ok_or_else(|| no_tree("it does not say which process owns it".into()))?;
        let atspi = self.atspi().await?;
        let apps: Vec<Application> = atspi
            .applications_of(Some(pid))
            .await
            .map_err(atspi_error)?;
        if apps.is_empty() {
            // A process that has just ended left the bus before the X server took its windows
            // away: that window is going, not one to read from its pixels.
            if crate::process::read_stat(pid).is_none_or(|stat| stat.is_dead()) {
                return Err(Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "the process {pid} of the window \"{}\" has ended, so the window is going away; call `windows`",
                        deskhand_core::render::escape(&window.title)
                    ),
                ));
            }
            return Err(no_tree(format!(
                "process {pid} is not registered on the accessibility bus"
            )));
        }
        if apps.iter().all(|app| !app.answering) {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "the application of the window \"{}\" (process {pid}) did not answer the accessibility bus within {} ms; it may be busy or hung: try again, or use `screenshot` and act with x/y",
                    deskhand_core::render::escape(&window.title),
                    CALL_TIMEOUT.as_millis()
                ),
            ));
        }
        let apps: Vec<Application> = apps.into_iter().filter(|app| app.answering).collect();
        let mut frames: Vec<(Frame, &Application)> = Vec::new();
        for (app, result) in apps
            .iter()
            .zip(futures::future::join_all(apps.iter().map(|app| atspi.frames(app))).await)
        {
            frames.extend(result.map_err(atspi_error)?.into_iter().map(|f| (f, app)));
        }
        // On GNOME the shell's one list gives the siblings and where this window's surface lies.
        let (listed, placement) = match self.gnome() {
            Some(gnome) if gnome.extension_running().await? => {
                let placed = gnome.placed_windows().await?;
                let placement = placed
                    .iter()
                    .find(|(w, _)| w.handle == window.handle)
                    .map(|(_, placement)| *placement);
                (placed.into_iter().map(|(w, _)| w).collect(), placement)
            }
            _ => (self.windows().await?, None),
        };
        let siblings: Vec<WindowInfo> = listed
            .into_iter()
            .filter(|w| w.pid == Some(pid))
            .map(|w| WindowInfo {
                focused: false,
                ..w
            })
            .collect();
        let chosen = match_frame(window, &siblings, &frames).ok_or_else(|| {
            no_tree(format!(
                "none of process {pid}'s accessible frames matches it"
            ))
        })?;
        let (frame, app) = &frames[chosen];
        let origin = match &self.display {
            Display::X11(_) => origin_for(app, frame, window),
            Display::Sway(_) => wayland_origin(
                origin_for(app, frame, window),
                wayland_inset(app, frame, window),
            ),
            Display::Gnome(gnome) => gnome_origin(
                origin_for(app, frame, window),
                window.bounds,
                match placement {
                    Some(placement) => placement,
                    None => gnome.placement(window).await?,
                },
                wayland_inset(app, frame, window),
            ),
        };
        self.origins
            .lock()
            .expect("not poisoned")
            .insert(window.handle, origin);
        Ok((frame.clone(), origin, popups_over(window, chosen, &frames)))
    }

    async fn origin_of(&self, window: &WindowInfo) -> Result<Origin> {
        let known = self
            .origins
            .lock()
            .expect("not poisoned")
            .get(&window.handle)
            .copied();
        match known {
            Some(origin) => Ok(origin),
            None => Ok(self.frame_of(window).await?.1),
        }
    }

    /// Returns once window `id` has stopped moving (or is gone). Window managers animate
    /// minimizing and un-minimizing by moving the frame, so a read during the animation reports
    /// a place the window is only passing through.
    async fn wait_until_still(&self, id: u32) -> Result<()> {
        let until = tokio::time::Instant::now() + ANIMATION_LIMIT;
        let mut last: Option<(XRect, tokio::time::Instant)> = None;
        loop {
            let Some(now) = self
                .x("reading a window", X_DEADLINE, move |x| x.window(id))
                .await?
            else {
                return Ok(());
            };
            match last {
                Some((rect, since)) if rect == now.rect => {
                    if since.elapsed() >= STILL_FOR {
                        return Ok(());
                    }
                }
                _ => last = Some((now.rect, tokio::time::Instant::now())),
            }
            if tokio::time::Instant::now() >= until {
                return Ok(());
            }
            tokio::time::sleep(WINDOW_POLL).await;
        }
    }

    /// Why `window` did not become active while `active` is: window managers focus a modal
    /// dialog instead of the window it belongs to.
    async fn not_activated(&self, window: &WindowInfo, active: Option<u32>) -> Error {
        let title = deskhand_core::render::escape(&window.title);
        let waited = ACTIVATE_WAIT.as_millis();
        let holder = match active {
            Some(other) => self
                .x("reading the active window", X_DEADLINE, move |x| {
                    x.window(other)
                })
                .await
                .ok()
                .flatten(),
            None => None,
        };
        match holder {
            Some(holder) if holder.pid.is_some() && holder.pid == window.pid => {
                Error::platform(format!(
                    "the window manager did not give the window \"{title}\" the focus within {waited} ms and focused \"{}\" of the same application instead, probably a dialog that must be answered first; observe that window and answer it, then call `focus` again",
                    deskhand_core::render::escape(&holder.title)
                ))
            }
            _ => Error::platform(format!(
                "the window manager did not give the window \"{title}\" the focus within {waited} ms of being asked; it may refuse to focus that window: click into the window, or call `focus` again"
            )),
        }
    }

    async fn input<F>(&self, what: &'static str, work: F) -> Result<()>
    where
        F: FnOnce(&X11) -> std::result::Result<(), X11Error> + Send + 'static,
    {
        self.settle_listener().await;
        self.x(what, X_DEADLINE, work).await.map_err(input_error)
    }

    /// Returns once the application with the keyboard focus has read every key sent so far (a
    /// `_NET_WM_PING` round trip), so that the next step (a focus change through
    /// accessibility, which takes another road into the app) cannot overtake the last keys.
    async fn keys_read(&self, sent: &str) -> Result<()> {
        let sent = sent.to_owned();
        self.x("waiting for the app to read the keys", X_DEADLINE * 2, |x| {
            x.wait_for_focused_client()
        })
        .await
        .map_err(|err| {
            Error::new(
                err.kind,
                format!(
                    "all {sent} were sent, but the focused window did not confirm reading them ({})",
                    err.message
                ),
            )
            .after_sending()
        })
    }

    /// The applications on the accessibility bus that own `window`; none when unknown.
    async fn applications_of(&self, window: &WindowInfo) -> Vec<Application> {
        let (Some(pid), Ok(atspi)) = (window.pid, self.atspi().await) else {
            return Vec::new();
        };
        atspi.applications_of(Some(pid)).await.unwrap_or_default()
    }

    /// Waits until a new press on Wayland cannot join the last click (see [`CLICK_SEPARATION`]).
    async fn apart_from_last_click(&self) {
        let last = *self.last_release.lock().expect("not poisoned");
        if let Some(since) = last.map(|released| released.elapsed()) {
            tokio::time::sleep(CLICK_SEPARATION.saturating_sub(since)).await;
        }
    }

    fn released_now(&self) {
        *self.last_release.lock().expect("not poisoned") = Some(Instant::now());
    }

    /// Chromium crashes when input reaches it while it takes in a new accessibility listener;
    /// synthetic input waits until this connection's registration is a moment old.
    async fn settle_listener(&self) {
        let Some(atspi) = self.atspi.get() else {
            return;
        };
        if let Some(age) = atspi.listening_for()
            && age < LISTENER_SETTLE
        {
            tokio::time::sleep(LISTENER_SETTLE - age).await;
        }
    }
}

fn rect_of(r: XRect) -> Rect {
    Rect::new(r.x, r.y, r.width, r.height)
}

fn x_button(button: MouseButton) -> x11::Button {
    match button {
        MouseButton::Left => x11::Button::Left,
        MouseButton::Middle => x11::Button::Middle,
        MouseButton::Right => x11::Button::Right,
    }
}

fn modifier_keysyms(modifiers: &[Modifier]) -> Vec<u32> {
    modifiers
        .iter()
        .map(|&m| x11::modifier_keysym(m.into()))
        .collect()
}

/// The X id of a window this backend listed.
fn x_id(window: &WindowInfo) -> Result<u32> {
    u32::try_from(window.handle).map_err(|_| {
        Error::new(
            ErrorKind::SurfaceGone,
            format!(
                "{:#x} is not an X window id; call `windows` to see the open windows",
                window.handle
            ),
        )
    })
}

/// Whether a window read after `change` shows that the window manager has acted on it: it is
/// as asked, or at least no longer as it was (a size below the window's minimum is refused).
fn change_applied(before: &XWindow, now: &XWindow, change: WindowChange) -> bool {
    match change {
        WindowChange::Move { x, y } => {
            (now.rect.x, now.rect.y) == (x, y)
                || (now.rect.x, now.rect.y) != (before.rect.x, before.rect.y)
        }
        WindowChange::Resize { width, height } => {
            (now.rect.width, now.rect.height) == (width, height)
                || (now.rect.width, now.rect.height) != (before.rect.width, before.rect.height)
        }
        WindowChange::Minimize => now.minimized,
        WindowChange::Maximize => now.maximized,
        WindowChange::Restore => !now.minimized && !now.maximized,
    }
}

/// Typing takes time in proportion to its length; the deadline grows with it.
fn typing_deadline(chars: usize) -> Duration {
    X_DEADLINE + Duration::from_millis(5 * chars as u64)
}

impl Windows for LinuxBackend {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        if let Some(sway) = self.sway() {
            return sway.windows().await;
        }
        if let Some(gnome) = self.gnome() {
            if !gnome.extension_running().await? {
                let found = self.unplaced_windows().await?;
                return Ok(found.into_iter().map(|(window, ..)| window).collect());
            }
            return gnome.windows().await;
        }
        let (windows, active) = self.x_windows().await?;
        Ok(windows
            .iter()
            .map(|w| Self::window_info(w, active))
            .collect())
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        if let Some(sway) = self.sway() {
            return sway.window(handle).await;
        }
        if let Some(gnome) = self.gnome() {
            if !gnome.extension_running().await? {
                let found = self.unplaced_windows().await?;
                return Ok(found
                    .into_iter()
                    .map(|(window, ..)| window)
                    .find(|window| window.handle == handle));
            }
            return gnome.window(handle).await;
        }
        let Ok(id) = u32::try_from(handle) else {
            return Ok(None);
        };
        let (window, active) = self
            .x("reading a window", X_DEADLINE, move |x| {
                Ok((x.window(id)?, x.active_window()?))
            })
            .await?;
        let Some(window) = window else {
            return Ok(None);
        };
        Ok(Some(Self::window_info(&window, active)))
    }

    async fn screen(&self) -> Result<Rect> {
        if let Some(sway) = self.sway() {
            return sway.screen().await;
        }
        if let Some(gnome) = self.gnome() {
            return gnome.screen().await;
        }
        let (width, height) = self
            .x("reading the screen size", X_DEADLINE, |x| {
                Ok(x.screen_size())
            })
            .await?;
        Ok(Rect::new(0, 0, width, height))
    }

    async fn positions_unknown(&self) -> Option<String> {
        match self.gnome_unplaced().await {
            Ok(true) => Some(crate::gnome::POSITIONS_UNKNOWN.to_owned()),
            Ok(false) | Err(_) => None,
        }
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        if self.sway().is_some() || self.gnome().is_some() {
            return Ok(self.windows().await?.iter().map(WindowInfo::key).collect());
        }
        let (windows, _) = self.x_windows().await?;
        Ok(windows
            .iter()
            .map(|w| WindowKey {
                handle: u64::from(w.id),
                pid: w.pid,
            })
            .collect())
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        if let Some(sway) = self.sway() {
            return sway.activate(window).await;
        }
        if let Some(gnome) = self.gnome() {
            if !gnome.extension_running().await? {
                return self.unplaced_activate(window).await;
            }
            return gnome.activate(window).await;
        }
        let id = x_id(window)?;
        let was_minimized = self
            .x("activating a window", X_DEADLINE, move |x| {
                let before = x.window(id)?.ok_or(X11Error::WindowGone { window: id })?;
                x.activate(id)?;
                Ok(before.minimized)
            })
            .await
            .map_err(input_error)?;
        let until = tokio::time::Instant::now() + ACTIVATE_WAIT;
        loop {
            let (active, focused) = self
                .x("reading the active window", X_DEADLINE, move |x| {
                    Ok((x.active_window()?, x.holds_input_focus(id)?))
                })
                .await?;
            if active == Some(id) && focused {
                if was_minimized {
                    self.wait_until_still(id).await?;
                }
                return Ok(());
            }
            if tokio::time::Instant::now() >= until {
                return Err(self.not_activated(window, active).await);
            }
            tokio::time::sleep(WINDOW_POLL).await;
        }
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        if let Some(sway) = self.sway() {
            return sway.close(window).await;
        }
        if let Some(gnome) = self.gnome() {
            return gnome.close(window).await;
        }
        let id = x_id(window)?;
        self.x("closing a window", X_DEADLINE, move |x| x.close(id))
            .await
            .map_err(input_error)
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        if let Some(sway) = self.sway() {
            return sway.change_window(window, change).await;
        }
        if let Some(gnome) = self.gnome() {
            return gnome.change_window(window, change).await;
        }
        let id = x_id(window)?;
        let before = self
            .x("changing a window", X_DEADLINE, move |x| {
                let before = x.window(id)?.ok_or(X11Error::WindowGone { window: id })?;
                match change {
                    WindowChange::Move { x: left, y: top } => x.move_window(id, left, top)?,
                    WindowChange::Resize { width, height } => x.resize_window(id, width, height)?,
                    WindowChange::Minimize => x.minimize(id)?,
                    WindowChange::Maximize => x.set_maximized(id, true)?,
                    WindowChange::Restore => {
                        // Also undoes a maximization in one direction only.
                        x.set_maximized(id, false)?;
                        if before.minimized {
                            x.activate(id)?;
                        }
                    }
                }
                Ok(before)
            })
            .await
            .map_err(input_error)?;
        // The window manager acts a moment later; wait for it so that the caller's read shows
        // the result rather than the window as it was.
        let until = tokio::time::Instant::now() + CHANGE_SETTLE;
        while tokio::time::Instant::now() < until {
            tokio::time::sleep(WINDOW_POLL).await;
            let now = self
                .x("reading a window", X_DEADLINE, move |x| x.window(id))
                .await?;
            if now.is_none_or(|now| change_applied(&before, &now, change)) {
                break;
            }
        }
        if change == WindowChange::Minimize || before.minimized {
            self.wait_until_still(id).await?;
        }
        Ok(())
    }
}

impl Accessibility for LinuxBackend {
    async fn tree(&self, window: &WindowInfo) -> Result<Tree> {
        let unplaced = self.gnome_unplaced().await?;
        let (frame, origin, popups) = if unplaced {
            // The window was listed as this frame; its extents are never mapped to the screen.
            let (frame, origin) = self.unplaced_frame(window).await?;
            (frame, origin, Vec::new())
        } else {
            self.frame_of(window).await?
        };
        let atspi = self.atspi().await?;
        let style = WalkStyle {
            offset: offset_of(origin, window),
            // Window-relative extents and toplevel-only Showing come together: GTK4.
            showing_reliable: matches!(origin, Origin::Screen | Origin::Surface { .. }),
            use_cache: self.use_cache,
        };
        let mut walked = atspi
            .tree(&frame.object, style, self.walk_limits)
            .await
            .map_err(atspi_error)?;
        if unplaced {
            on_gnome::without_extents(&mut walked.root);
        }
        // An open popup is part of what the window shows: its items are listed, found and
        // selected like the window's own. One that closed while it was read is left out.
        for popup in popups {
            if let Ok(popup) = atspi.tree(&popup.object, style, self.walk_limits).await {
                walked.root.children.push(popup.root);
            }
        }
        Ok(Tree {
            root: walked.root,
            partial: walked.partial,
        })
    }

    async fn element_bounds(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Rect>> {
        let object = object_of(element)?;
        if self.gnome_unplaced().await? {
            return Err(Self::unplaced_error("Reaching an element with the pointer"));
        }
        let origin = self.origin_of(window).await?;
        let atspi = self.atspi().await?;
        let (dx, dy) = offset_of(origin, window);
        match atspi.extents(&object).await {
            Ok(extents) => Ok(extents.map(|e| Rect::new(e.x + dx, e.y + dy, e.width, e.height))),
            Err(AtspiError::Call { .. }) => Ok(None),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn element_identity(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Identity>> {
        let object = object_of(element)?;
        // Without GNOME's extension the window was matched to its frame from AT-SPI alone.
        let origin = if self.gnome_unplaced().await? {
            self.unplaced_frame(window).await?.1
        } else {
            self.origin_of(window).await?
        };
        // GTK4 is the toolkit whose extents are window-relative, and whose names the walk
        // cleans of class names and doubled labels.
        let gtk4 = matches!(origin, Origin::Window { .. });
        let identity = self
            .atspi()
            .await?
            .identity(&object, gtk4)
            .await
            .map_err(atspi_error)?;
        Ok(identity.map(|(role, name)| Identity { role, name }))
    }

    async fn reaches(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
        at: Point,
    ) -> Result<Option<Hit>> {
        let object = object_of(element)?;
        if self.gnome_unplaced().await? {
            return Ok(None);
        }
        let (dx, dy) = offset_of(self.origin_of(window).await?, window);
        self.atspi()
            .await?
            .reaches(&object, at.x - dx, at.y - dy)
            .await
            .map_err(atspi_error)
    }

    async fn element_spots(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Vec<(Point, &'static str)>> {
        let object = object_of(element)?;
        if self.gnome_unplaced().await? {
            return Ok(Vec::new());
        }
        let (dx, dy) = offset_of(self.origin_of(window).await?, window);
        match self.atspi().await?.spots(&object).await {
            Ok(spots) => Ok(spots
                .into_iter()
                .map(|(rect, what)| {
                    let center = rect.center();
                    (
                        Point {
                            x: center.x + dx,
                            y: center.y + dy,
                        },
                        what,
                    )
                })
                .collect()),
            Err(AtspiError::Call { .. }) => Ok(Vec::new()),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn action_names(&self, element: &ElementHandle) -> Result<Vec<String>> {
        let object = object_of(element)?;
        match self.atspi().await?.action_names(&object).await {
            Ok(names) => Ok(names),
            // An element without the Action interface answers with an error: it has no actions.
            Err(AtspiError::Call { .. }) => Ok(Vec::new()),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn do_action(&self, element: &ElementHandle, index: usize) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.atspi().await?;
        // GTK3 answers a disabled button's action with success and does nothing: a click there
        // would report done for nothing.
        refuse_disabled(
            atspi.enabled(&object).await,
            "its action was not run and nothing was done",
        )?;
        let done = atspi
            .do_action(&object, index)
            .await
            .map_err(change_error)?;
        if done {
            Ok(())
        } else {
            Err(Error::platform(
                "the element refused its accessibility action (it may be disabled or gone)",
            ))
        }
    }

    async fn actions_run_in_request(&self, window: &WindowInfo) -> bool {
        self.applications_of(window)
            .await
            .iter()
            .any(|app| runs_actions_in_request(&app.toolkit, &app.toolkit_version))
    }

    async fn answers(&self, window: &WindowInfo) -> bool {
        let Ok(atspi) = self.atspi().await else {
            return false;
        };
        let apps = self.applications_of(window).await;
        let probes = apps
            .iter()
            .map(|app| atspi.answers(&app.root.bus, ANSWER_PROBE));
        let answers = futures::future::join_all(probes).await;
        !answers.is_empty() && answers.into_iter().all(|answered| answered)
    }

    async fn focus_element(&self, element: &ElementHandle) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.atspi().await?;
        match atspi.grab_focus(&object).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(Error::new(
                ErrorKind::Unsupported,
                "the element refused to take the keyboard focus when asked",
            )),
            // GTK4 text views and other elements without the Component interface's GrabFocus
            // answer NotSupported: they are there, they only cannot be focused this way.
            Err(AtspiError::Call { .. }) if atspi.exists(&object).await => Err(Error::new(
                ErrorKind::Unsupported,
                "the element cannot be asked to take the keyboard focus through accessibility",
            )),
            Err(err) => Err(match err {
                AtspiError::Call { .. } => element_error(err),
                err => change_error(err),
            }),
        }
    }

    async fn element_focused(&self, element: &ElementHandle) -> Result<bool> {
        let object = object_of(element)?;
        self.atspi()
            .await?
            .focus_within(&object)
            .await
            .map_err(element_error)
    }
}

impl Values for LinuxBackend {
    async fn text_state(&self, element: &ElementHandle) -> Result<TextState> {
        let object = object_of(element)?;
        let (text, caret, selection) = self
            .atspi()
            .await?
            .text_state(&object)
            .await
            .map_err(element_error)?;
        let offset = |n: i32| usize::try_from(n).ok();
        Ok(TextState {
            text,
            caret: caret.and_then(offset),
            selection: selection.and_then(|(start, end)| Some((offset(start)?, offset(end)?))),
        })
    }

    async fn select_all_text(&self, element: &ElementHandle) -> Result<()> {
        let object = object_of(element)?;
        match self.atspi().await?.select_all_text(&object).await {
            Ok(true) => Ok(()),
            Ok(false) | Err(AtspiError::Call { .. }) => Err(Error::new(
                ErrorKind::Unsupported,
                "the element's text cannot be selected through accessibility",
            )),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn set_text(&self, element: &ElementHandle, text: &str) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.atspi().await?;
        let (interfaces, enabled) = tokio::join!(atspi.interfaces(&object), atspi.enabled(&object));
        if !interfaces
            .map_err(element_error)?
            .iter()
            .any(|i| i == a11y::EDITABLE_TEXT)
        {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the element's text cannot be replaced through accessibility: it does not implement EditableText (Chromium's fields and read-only texts do not); click it, `press` \"ctrl+a\" and `type` the text instead",
            ));
        }
        refuse_disabled(enabled, "its text cannot be replaced")?;
        // Errors name the call and the element, never the text: it may be a password.
        if atspi
            .set_text_contents(&object, text)
            .await
            .map_err(change_error)?
        {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::Unsupported,
                "the element refused to have its text replaced (it may be read-only); check its states with `observe`, or click it and `type` the text",
            ))
        }
    }

    async fn set_number(&self, element: &ElementHandle, value: f64) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.atspi().await?;
        let (interfaces, enabled, min, max) = tokio::join!(
            atspi.interfaces(&object),
            atspi.enabled(&object),
            atspi.number(&object, "MinimumValue"),
            atspi.number(&object, "MaximumValue"),
        );
        if !interfaces
            .map_err(element_error)?
            .iter()
            .any(|i| i == a11y::VALUE)
        {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the element has no number to set: it does not implement Value (sliders and spin buttons do); set a text `value` on a text field, or click or `press` keys",
            ));
        }
        refuse_disabled(enabled, "its value cannot be set")?;
        // A toolkit that reports no usable range (minimum above maximum) leaves the check to it.
        if let (Some(min), Some(max)) = (min.map_err(atspi_error)?, max.map_err(atspi_error)?)
            && min <= max
            && !(min..=max).contains(&value)
        {
            let (min, max) = (a11y::format_number(min), a11y::format_number(max));
            return Err(Error::bad_argument(format!(
                "{} is outside the element's range {min} to {max}; pass a number from {min} to {max}",
                a11y::format_number(value)
            )));
        }
        atspi
            .set_current_value(&object, value)
            .await
            .map_err(|err| match err {
                AtspiError::Call { .. } => Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "the application refused to set the value through accessibility ({err}); drag or click the control, or focus it and `press` arrow keys"
                    ),
                ),
                err => change_error(err),
            })
    }

    async fn element_value(&self, element: &ElementHandle) -> Result<Option<String>> {
        let object = object_of(element)?;
        self.atspi()
            .await?
            .element_value(&object)
            .await
            .map_err(element_error)
    }

    async fn element_text(&self, element: &ElementHandle) -> Result<String> {
        let object = object_of(element)?;
        self.atspi()
            .await?
            .element_text(&object)
            .await
            .map_err(element_error)
    }
}

impl Input for LinuxBackend {
    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<()> {
        if let Some(sway) = self.sway() {
            self.settle_listener().await;
            self.apart_from_last_click().await;
            let held = modifier_keysyms(modifiers);
            let clicked = sway
                .click(at, button, count, &held)
                .await
                .map_err(input_error);
            self.released_now();
            return clicked;
        }
        if let Some(gnome) = self.gnome() {
            self.settle_listener().await;
            self.apart_from_last_click().await;
            let held = modifier_keysyms(modifiers);
            let clicked = gnome.click(at, button, count, &held).await;
            self.released_now();
            return clicked;
        }
        let held = modifier_keysyms(modifiers);
        self.input("a click", move |x| {
            x.click(at.x, at.y, x_button(button), count, &held)
        })
        .await
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        if let Some(sway) = self.sway() {
            self.settle_listener().await;
            return sway
                .scroll(at, direction, amount)
                .await
                .map_err(input_error);
        }
        if let Some(gnome) = self.gnome() {
            self.settle_listener().await;
            return gnome.scroll(at, direction, amount).await;
        }
        let direction = match direction {
            ScrollDirection::Up => x11::ScrollDirection::Up,
            ScrollDirection::Down => x11::ScrollDirection::Down,
            ScrollDirection::Left => x11::ScrollDirection::Left,
            ScrollDirection::Right => x11::ScrollDirection::Right,
        };
        self.input("a scroll", move |x| {
            if let Some(at) = at {
                x.move_pointer(at.x, at.y)?;
            }
            x.scroll(direction, amount)
        })
        .await
    }

    async fn drag_path(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: std::time::Duration,
    ) -> Result<()> {
        if self.sway().is_some() || self.gnome().is_some() {
            return self.pointer_drag(points, button, modifiers, duration).await;
        }
        let Some((from, rest)) = points.split_first() else {
            return Err(Error::bad_argument(
                "a drag needs at least one point: where to press, then the points to move through, the last one where to release",
            ));
        };
        let from = (from.x, from.y);
        let path: Vec<(i32, i32)> = rest.iter().map(|p| (p.x, p.y)).collect();
        let held = modifier_keysyms(modifiers);
        self.x("a drag", X_DEADLINE + duration, move |x| {
            x.drag(from, &path, x_button(button), &held, duration)
        })
        .await
        .map_err(input_error)
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        if self.sway().is_some() {
            return self.sway_press_keys(keys).await;
        }
        if self.gnome().is_some() {
            return self.gnome_press_keys(keys).await;
        }
        let chords = x11::chords(keys);
        self.settle_listener().await;
        let total = chords.len();
        let pressed = self
            .x("pressing keys", X_DEADLINE, move |x| {
                let mut pressed = 0;
                for chord in &chords {
                    if let Err(err) = x.press_chords(std::slice::from_ref(chord)) {
                        return Ok((pressed, Some(err)));
                    }
                    pressed += 1;
                }
                Ok((pressed, None))
            })
            .await
            .map_err(input_error)?;
        match pressed {
            (_, None) => {
                self.keys_read(&format!("{total} key chords")).await?;
                Ok(InputOutcome::Done)
            }
            (0, Some(err)) => Err(x_error(err)),
            (sent, Some(err)) => Ok(InputOutcome::Partial(Partial {
                sent,
                total,
                unit: "key chords",
                reason: err.to_string(),
            })),
        }
    }

    async fn type_text(&self, text: &str) -> Result<InputOutcome> {
        if self.sway().is_some() {
            return self.sway_type_text(text).await;
        }
        if self.gnome().is_some() {
            return self.gnome_type_text(text).await.map(|typed| typed.outcome);
        }
        self.settle_listener().await;
        let owned = text.to_owned();
        let chars = text.chars().count();
        let result = self
            .x("typing", typing_deadline(chars), move |x| {
                Ok(x.type_text(&owned))
            })
            .await
            .map_err(input_error)?;
        match result {
            Ok(()) => {
                self.keys_read(&format!("{chars} characters")).await?;
                Ok(InputOutcome::Done)
            }
            Err(err) if err.sent == 0 => Err(x_error(err.cause)),
            Err(err) => Ok(InputOutcome::Partial(Partial {
                sent: err.sent,
                total: err.total,
                unit: "characters",
                reason: err.cause.to_string(),
            })),
        }
    }

    async fn type_text_routed(&self, text: &str) -> Result<Typed> {
        if self.gnome().is_some() {
            return self.gnome_type_text(text).await;
        }
        self.type_text(text).await.map(Typed::from)
    }

    async fn pointer(&self) -> Result<Point> {
        if let Some(sway) = self.sway() {
            return sway.pointer().await;
        }
        if let Some(gnome) = self.gnome() {
            return gnome.pointer().await;
        }
        let (x, y) = self
            .x("reading the pointer position", X_DEADLINE, |x| x.pointer())
            .await?;
        Ok(Point { x, y })
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        if let Some(sway) = self.sway() {
            self.settle_listener().await;
            return sway.move_pointer(to).await.map_err(input_error);
        }
        if let Some(gnome) = self.gnome() {
            self.settle_listener().await;
            return gnome.move_pointer(to).await;
        }
        self.input("moving the pointer", move |x| x.move_pointer(to.x, to.y))
            .await
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        if self.sway().is_some() || self.gnome().is_some() {
            if down {
                self.apart_from_last_click().await;
            }
            let sent = match self.sway() {
                Some(_) => self.sway_button(button, down, modifiers).await,
                None => self.gnome_button(button, down, modifiers).await,
            };
            if !down {
                self.released_now();
            }
            return sent;
        }
        let held = modifier_keysyms(modifiers);
        let what = if down {
            "a button press"
        } else {
            "a button release"
        };
        self.input(what, move |x| x.button(x_button(button), down, &held))
            .await
    }
}

impl Capture for LinuxBackend {
    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        if let Some(sway) = self.sway() {
            return sway.capture(rect).await;
        }
        if let Some(gnome) = self.gnome() {
            return gnome.capture(rect).await;
        }
        let region = XRect {
            x: rect.x,
            y: rect.y,
            width: rect.width,
            height: rect.height,
        };
        let image = self
            .x("a capture", X_DEADLINE, move |x| x.capture(region))
            .await?;
        Ok(RgbImage {
            width: image.width,
            height: image.height,
            data: image.data,
        })
    }
}

impl Clipboard for LinuxBackend {
    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        if let Some(gnome) = self.gnome() {
            return gnome.read_clipboard().await;
        }
        let read = if self.sway().is_some() {
            read_on_its_own_thread("the Wayland compositor", crate::wayland::selection::read)
                .await?
        } else {
            read_on_its_own_thread("the X server", clipboard::read).await?
        };
        Ok(ClipboardContent {
            text: read.text,
            types: read.types,
        })
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        if let Some(gnome) = self.gnome() {
            return gnome.write_clipboard(text).await;
        }
        clipboard::start_holder(
            self.clipboard_holder.as_deref(),
            text,
            self.sway().is_some(),
        )
        .await
        .map_err(clipboard_error)
    }
}

/// Runs a clipboard read on a thread of its own rather than the blocking pool: the read bounds
/// its waits on the owner itself, and should the display server (named by `server` in the error)
/// stop answering, an abandoned thread does not hold up the runtime's shutdown as an unfinished
/// blocking task would.
async fn read_on_its_own_thread<F>(server: &str, read: F) -> Result<ClipboardContents>
where
    F: FnOnce(Instant) -> std::result::Result<ClipboardContents, ClipboardError> + Send + 'static,
{
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("clipboard-read".into())
        .spawn(move || {
            let _ = sender.send(read(Instant::now() + clipboard::READ_DEADLINE));
        })
        .map_err(|err| {
            Error::platform(format!(
                "no thread could be started to read the clipboard ({err}); try again"
            ))
        })?;
    let deadline = clipboard::READ_DEADLINE + X_DEADLINE;
    match tokio::time::timeout(deadline, receiver).await {
        Ok(Ok(read)) => read.map_err(clipboard_error),
        Ok(Err(_)) => Err(Error::platform("reading the clipboard crashed; try again")),
        Err(_) => Err(Error::new(
            ErrorKind::Timeout,
            format!(
                "{server} did not answer reading the clipboard within {} s; check that the display is alive, then try again",
                deadline.as_secs()
            ),
        )),
    }
}

impl Apps for LinuxBackend {
    async fn kill(&self, pid: u32) -> Result<()> {
        crate::process::kill(pid).await
    }

    async fn installed(&self) -> Result<Vec<InstalledApp>> {
        let entries = tokio::task::spawn_blocking(|| AppDirs::from_env().entries())
            .await
            .map_err(|join| {
                Error::platform(format!(
                    "reading the installed applications crashed ({join}); try again"
                ))
            })?;
        Ok(entries.iter().map(Entry::installed_app).collect())
    }

    async fn launch(&self, id: &str) -> Result<u32> {
        let query = id.to_owned();
        let launched =
            tokio::task::spawn_blocking(move || launch::spawn(&AppDirs::from_env().find(&query)?))
                .await
                .map_err(|join| {
                    Error::platform(format!(
                        "starting the application crashed ({join}); try again"
                    ))
                })?
                .map_err(launch_error)?;
        let pid = launched.pid;
        let mut all = self.launched.lock().expect("not poisoned");
        // A long-lived server forgets the launches that ended, once there are many.
        if all.len() >= REMEMBERED_LAUNCHES {
            all.retain(|_, l| l.ended.get().is_none());
        }
        all.insert(pid, launched);
        Ok(pid)
    }

    async fn launch_failed(&self, pid: u32) -> Option<String> {
        let ended = self
            .launched
            .lock()
            .expect("not poisoned")
            .get(&pid)?
            .ended
            .get()?
            .clone();
        (ended.failed() && !crate::process::group_alive(pid)).then(|| ended.describe())
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        crate::process::descends_from(pid, ancestor)
    }
}

/// How many launched processes are kept before those that ended are forgotten.
const REMEMBERED_LAUNCHES: usize = 64;

fn object_of(element: &ElementHandle) -> Result<ObjectRef> {
    ObjectRef::from_handle(element).ok_or_else(|| {
        Error::new(
            ErrorKind::ElementGone,
            format!(
                "element handle {:?} is not an accessible object; call `observe` again",
                element.0
            ),
        )
    })
}
