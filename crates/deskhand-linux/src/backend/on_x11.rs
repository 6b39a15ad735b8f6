//! The display server on X11: EWMH windows, XTEST input, captures through the X server, and the
//! X clipboard. x11rb is blocking, so every X request runs on the blocking pool under a deadline.

use std::sync::Arc;
use std::time::Duration;

use deskhand_core::backend::{InputOutcome, Partial, TextRoute, Typed};
use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::keys::{Chord, Key, Keys};
use deskhand_core::model::{
    ClipboardContent, Modifier, Monitor, MouseButton, Point, Rect, RgbImage, ScrollDirection,
    WindowChange, WindowInfo, WindowKey,
};
use deskhand_core::render::escape;

use super::bus::{Bus, Placed};
use super::clipboard::{ClipboardHolder, read_on_its_own_thread};
use super::display::{DisplayServer, modifier_keysyms};
use super::errors::{input_error, x_error};
use super::frames::origin_for;
use crate::x11::paste::Sent;
use crate::x11::{self, X11, X11Error, XRect, XWindow};

/// One X request round trip never takes this long on a live server.
const X_DEADLINE: Duration = Duration::from_secs(5);

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

/// How long the focused app may take to ask for pasted text once ctrl+v went out.
const PASTE_WAIT: Duration = Duration::from_millis(1500);

/// A whole paste: the person's clipboard saved (its own deadline of 3 s), ctrl+v, the wait.
const PASTE_DEADLINE: Duration = Duration::from_secs(15);

pub(crate) struct X11Desk {
    x11: Arc<X11>,
    bus: Arc<Bus>,
    holder: Arc<ClipboardHolder>,
    overlay: std::sync::OnceLock<Arc<crate::overlay::Overlay>>,
}

impl X11Desk {
    /// The kill switch's corner: the primary monitor's top-left.
    pub(super) async fn corner(&self) -> Result<Point> {
        self.x("reading the primary monitor", X_DEADLINE, |x| {
            x.primary_corner()
        })
        .await
    }

    pub(super) fn connect(bus: Arc<Bus>, holder: Arc<ClipboardHolder>) -> Result<Self> {
        Ok(Self {
            x11: Arc::new(X11::connect().map_err(x_error)?),
            bus,
            holder,
            overlay: std::sync::OnceLock::new(),
        })
    }

    /// Starts the overlay that shows a person where the agent acts, with the indicator that
    /// an agent is connected.
    pub(super) fn show_overlay(&self) -> std::result::Result<(), String> {
        if self.overlay.get().is_some() {
            return Ok(());
        }
        let display = std::env::var("DISPLAY").unwrap_or_default();
        let overlay = crate::overlay::x11::start(&display, true, Arc::clone(&self.x11))
            .map_err(|err| err.to_string())?;
        let _ = self.overlay.set(Arc::new(overlay));
        Ok(())
    }

    pub(super) fn show_intent(&self, intent: deskhand_core::backend::Intent) {
        if let Some(overlay) = self.overlay.get() {
            overlay.show(intent);
        }
    }

    /// Watches the display for a person's input; typing and drags stop at once when they
    /// take over.
    pub(super) fn watch_for_person(
        &self,
        presence: Arc<deskhand_core::person::Presence>,
    ) -> std::result::Result<(), String> {
        let display = std::env::var("DISPLAY").unwrap_or_default();
        crate::person::x11::start(&display, Arc::clone(&presence), Arc::clone(&self.x11))
            .map_err(|err| err.to_string())?;
        self.x11.heed(presence);
        Ok(())
    }

    /// Runs a blocking X request on the blocking pool, under a deadline.
    async fn x<T, F>(&self, what: &'static str, deadline: Duration, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&X11) -> std::result::Result<T, X11Error> + Send + 'static,
    {
        let x11 = Arc::clone(&self.x11);
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

    async fn input<F>(&self, what: &'static str, work: F) -> Result<()>
    where
        F: FnOnce(&X11) -> std::result::Result<(), X11Error> + Send + 'static,
    {
        self.x(what, X_DEADLINE, work).await.map_err(input_error)
    }

    async fn x_windows(&self) -> Result<(Vec<XWindow>, Option<u32>)> {
        self.x("listing windows", X_DEADLINE, |x| x.windows_and_active())
            .await
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
        let title = escape(&window.title);
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
                    escape(&holder.title)
                ))
            }
            _ => Error::platform(format!(
                "the window manager did not give the window \"{title}\" the focus within {waited} ms of being asked; it may refuse to focus that window: click into the window, or call `focus` again"
            )),
        }
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

    /// Pastes `text` into the focused field through the clipboard, then gives the person's
    /// clipboard back as it was, every target its owner offered. `Ok(None)` where the
    /// clipboard cannot be read whole: nothing was sent, and keys go instead.
    pub(super) async fn paste(&self, text: &str) -> Result<Option<Typed>> {
        let owned = text.to_owned();
        let x11 = Arc::clone(&self.x11);
        let ctrl_v = x11::chords(&Keys::from(Chord::ctrl(Key::Char('v'))));
        let job = tokio::task::spawn_blocking(move || {
            let focused = x11.active_window().ok().flatten();
            x11::paste::paste(&owned, focused, PASTE_WAIT, || x11.press_chords(&ctrl_v))
        });
        let pasting = match tokio::time::timeout(PASTE_DEADLINE, job).await {
            Ok(Ok(Ok(Some(pasting)))) => pasting,
            // Nothing was sent, and the clipboard is as it was.
            Ok(Ok(Ok(None) | Err(_))) => return Ok(None),
            Ok(Err(join)) => {
                return Err(Error::platform(format!(
                    "pasting the text crashed ({join}), maybe after ctrl+v went out; `read` the field to see what it holds, and `clipboard` to see what the clipboard holds, before typing again"
                ))
                .after_sending());
            }
            Err(_) => {
                return Err(Error::new(
                    ErrorKind::Timeout,
                    format!(
                        "pasting the text did not end within {} s, maybe after ctrl+v went out; `read` the field to see what it holds, and `clipboard` to see what the clipboard holds, before typing again",
                        PASTE_DEADLINE.as_secs()
                    ),
                )
                .after_sending());
            }
        };
        let restored = match &pasting.saved {
            Some(saved) => self.holder.restore(saved).await,
            None => Ok(()),
        };
        // Only once the holder owns the clipboard: it never stands empty in between.
        drop(pasting.keeper);
        let clipboard = match &restored {
            Ok(()) if pasting.replaced => "another program took the clipboard during the paste, so it holds what that program put there, not what it held before (a clipboard manager takes each new clipboard, and may hold the pasted text): set it with `clipboard` if the user needs what it held".to_owned(),
            Ok(()) => "the clipboard was put back as it was".to_owned(),
            Err(err) => format!(
                "the clipboard could not be put back as it was ({}), and it may hold the pasted text now: set it with `clipboard` if the user needs what it held",
                err.message.trim_end_matches('.')
            ),
        };
        let characters = text.chars().count();
        let after_ctrl_v = |what: String| {
            Err(Error::platform(format!(
                "{what}; {clipboard}; `read` the field to see what it holds before typing again"
            ))
            .after_sending())
        };
        match pasting.sent {
            Sent::Taken if restored.is_ok() && !pasting.replaced => Ok(Some(Typed {
                outcome: InputOutcome::Done,
                routes: vec![TextRoute::Paste],
                note: Some(clipboard),
            })),
            Sent::Taken => after_ctrl_v(format!(
                "the focused field took the {characters} characters pasted"
            )),
            Sent::NotTaken if pasting.replaced => after_ctrl_v(format!(
                "ctrl+v went to the focused field to paste {characters} characters, but another program took the clipboard before the field asked for the text, so the field may hold what that program put there"
            )),
            Sent::NotTaken => after_ctrl_v(format!(
                "ctrl+v went to the focused field to paste {characters} characters, but it did not ask for the clipboard's text within {} ms, so the text may not have arrived (a read-only field ignores a paste)",
                PASTE_WAIT.as_millis()
            )),
            Sent::ServingFailed(err) => after_ctrl_v(format!(
                "ctrl+v went to the focused field to paste {characters} characters, but sending it the text failed ({err})"
            )),
            Sent::KeysFailed(err) if restored.is_ok() => Err(x_error(err)),
            Sent::KeysFailed(err) => Err(Error::platform(format!(
                "ctrl+v could not be sent ({err}), so nothing was typed, but {clipboard}"
            ))),
        }
    }

    async fn type_keys(&self, text: &str) -> Result<InputOutcome> {
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

impl DisplayServer for X11Desk {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        let (windows, active) = self.x_windows().await?;
        Ok(windows.iter().map(|w| window_info(w, active)).collect())
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        let Ok(id) = u32::try_from(handle) else {
            return Ok(None);
        };
        let (window, active) = self
            .x("reading a window", X_DEADLINE, move |x| {
                x.window_and_active(id)
            })
            .await?;
        Ok(window.map(|window| window_info(&window, active)))
    }

    async fn screen(&self) -> Result<Rect> {
        let (width, height) = self
            .x("reading the screen size", X_DEADLINE, |x| {
                Ok(x.screen_size())
            })
            .await?;
        Ok(Rect::new(0, 0, width, height))
    }

    async fn monitors(&self) -> Result<Vec<Monitor>> {
        self.x("listing the monitors", X_DEADLINE, |x| x.monitors())
            .await
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
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
        let id = x_id(window)?;
        self.x("closing a window", X_DEADLINE, move |x| x.close(id))
            .await
            .map_err(input_error)
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
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

    async fn unplaced(&self) -> Result<bool> {
        Ok(false)
    }

    async fn frame(&self, window: &WindowInfo) -> Result<Placed> {
        let matched = self
            .bus
            .matched_frame(window, self.windows().await?)
            .await?;
        let origin = origin_for(&matched.app, &matched.frame, window);
        Ok(matched.placed(origin))
    }

    async fn pointer(&self) -> Result<Point> {
        let (x, y) = self
            .x("reading the pointer position", X_DEADLINE, |x| x.pointer())
            .await?;
        Ok(Point { x, y })
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        self.input("moving the pointer", move |x| x.move_pointer(to.x, to.y))
            .await
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        let held = modifier_keysyms(modifiers);
        let what = if down {
            "a button press"
        } else {
            "a button release"
        };
        self.input(what, move |x| x.button(x_button(button), down, &held))
            .await
    }

    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<()> {
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
        duration: Duration,
    ) -> Result<()> {
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
        let chords = x11::chords(keys);
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

    async fn type_text(&self, text: &str) -> Result<Typed> {
        self.type_keys(text).await.map(Typed::from)
    }

    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        let region = XRect {
            x: rect.x,
            y: rect.y,
            width: rect.width,
            height: rect.height,
        };
        let overlay = self.overlay.get().cloned();
        let image = self
            .x("a capture", X_DEADLINE, move |x| {
                // deskhand's own captures never show its overlay.
                let _hidden = overlay.as_ref().map(|o| o.hidden_from(rect));
                x.capture(region)
            })
            .await?;
        Ok(RgbImage {
            width: image.width,
            height: image.height,
            data: image.data,
        })
    }

    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        read_on_its_own_thread("the X server", crate::x11::clipboard::read).await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        self.holder.start(text, false).await
    }
}
