//! GNOME on Wayland as the capability traits need it: windows, focus, geometry and pixels from
//! deskhand's shell extension, pointer and keys through Mutter's remote desktop, pixels also
//! through Mutter's screen cast, all in the core's terms and errors. Without the extension
//! (installed, but not loaded until the user logs in again) keys still go out, the screen's
//! pixels and where the pointer is come through the screen cast, and moving the pointer, which
//! needs window positions, is refused.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{MouseButton, Point, Rect, ScrollDirection, WindowChange, WindowInfo};
use deskhand_core::person::{Handover, Presence};
use deskhand_core::render::escape;
use tokio::sync::OnceCell;

use super::cast::Recording;
use super::cursor::{CursorWatch, Pointer};
use super::extension::VERSION;
use super::remote::RemoteInput;
use super::shell::{Shell, ShellWindow, WindowState};
use super::{GnomeError, session_bus};

mod clipboard;
mod pixels;

pub use clipboard::PASTE_WAIT;
use pixels::{FRAME, look_once};

/// One D-Bus round trip to the shell or to Mutter never takes this long when they are alive.
const CALL_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a window may take to show a focus, place or state it was given.
const SETTLE: Duration = Duration::from_millis(1500);
const POLL: Duration = Duration::from_millis(30);
/// How long a new remote-desktop session's pointer may take to join the seat, and how often
/// its first motion is sent again meanwhile.
const POINTER_JOIN: Duration = Duration::from_secs(2);
const POINTER_RESEND: Duration = Duration::from_millis(300);
/// How long after the shell first reads a new session's pointer where it was sent a press still
/// waits: the seat moves the pointer before the shell gives the window under it the pointer's
/// focus, and a press in between reached no app (a held-button test lost 2 presses in 6 on a
/// loaded machine without this wait, none in 6 with it).
const FIRST_MOTION_SETTLE: Duration = Duration::from_millis(150);
/// How long an extension found absent counts as absent before the shell is asked again: one
/// call sees one mode, and an extension that loads later is found.
const ABSENCE_RECHECK: Duration = Duration::from_secs(5);

pub fn gnome_error(err: GnomeError) -> Error {
    let kind = match &err {
        GnomeError::ExtensionAbsent(_)
        | GnomeError::ExtensionOutdated { .. }
        | GnomeError::NoRemoteDesktop(_)
        | GnomeError::NoScreenCast(_) => ErrorKind::NoDisplay,
        GnomeError::Unplaced(_) => ErrorKind::Unsupported,
        GnomeError::OffScreen(_) => ErrorKind::BadArgument,
        GnomeError::Timeout { .. } => ErrorKind::Timeout,
        GnomeError::PersonTookOver => ErrorKind::Stopped,
        GnomeError::Call { .. }
        | GnomeError::BadReply(_)
        | GnomeError::NoFrame { .. }
        | GnomeError::NoCursor { .. } => ErrorKind::Platform,
    };
    Error::new(kind, err.to_string())
}

/// Where a window's surface lies on GNOME, which only the shell knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The whole surface, client-side shadows included.
    pub buffer: Rect,
    /// An XWayland window, whose toolkit counts in X's screen coordinates.
    pub x11: bool,
}

/// The connection to GNOME Shell, made on first use; the remote-desktop session is started on
/// the first input, since it shows a screen-sharing indicator while it lasts.
#[derive(Default)]
pub struct Gnome {
    bus: OnceCell<zbus::Connection>,
    shell: OnceCell<Shell>,
    /// Shared with the task that lets go of held input when a person takes over.
    input: Arc<OnceCell<RemoteInput>>,
    /// The person at the desk, once their input is watched: input under way stops when they
    /// take over.
    presence: std::sync::OnceLock<Arc<Presence>>,
    /// When the shell last said the extension is not running.
    found_absent: Mutex<Option<Instant>>,
    /// The screen cast pixels are read from, kept from one capture to the next.
    recording: tokio::sync::Mutex<Option<Recording>>,
    /// The screen cast the pointer is read from while the extension is absent, kept connected.
    cursor: tokio::sync::Mutex<Option<CursorWatch>>,
    /// One paste at a time: each saves and puts back the user's clipboard.
    pasting: tokio::sync::Mutex<()>,
}

fn window_info(window: &ShellWindow) -> WindowInfo {
    let app_name = crate::process::program_name(window.pid)
        .or_else(|| (!window.app_id.is_empty()).then(|| window.app_id.clone()))
        .or_else(|| (!window.wm_class.is_empty()).then(|| window.wm_class.clone()))
        .unwrap_or_else(|| "unknown".into());
    WindowInfo {
        handle: window.id,
        title: window.title.clone(),
        pid: (window.pid > 0).then_some(window.pid),
        app_name,
        bounds: window.frame_rect(),
        focused: window.focused,
        minimized: window.minimized,
        maximized: window.maximized,
    }
}

impl Gnome {
    /// The session bus, connected once for the shell, the display configuration and the
    /// remote-desktop session, which lasts as long as this connection.
    async fn bus(&self) -> Result<&zbus::Connection> {
        self.bus
            .get_or_try_init(|| session_bus(CALL_TIMEOUT))
            .await
            .map_err(gnome_error)
    }

    async fn shell(&self) -> Result<&Shell> {
        let bus = self.bus().await?;
        let found = self
            .shell
            .get_or_try_init(|| async {
                let shell = Shell::new(bus.clone(), CALL_TIMEOUT);
                let running = shell.version().await?;
                if running < VERSION {
                    return Err(GnomeError::ExtensionOutdated { running });
                }
                Ok(shell)
            })
            .await;
        if let Err(GnomeError::ExtensionAbsent(_)) = &found {
            *self.absence() = Some(Instant::now());
        }
        found.map_err(gnome_error)
    }

    fn absence(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.found_absent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether deskhand's extension runs in the shell: false when it is not installed, or
    /// installed and waiting for the next log-in. An outdated one is an error that says so.
    pub async fn extension_running(&self) -> Result<bool> {
        if self.shell.get().is_some() {
            return Ok(true);
        }
        if self
            .absence()
            .is_some_and(|since| since.elapsed() < ABSENCE_RECHECK)
        {
            return Ok(false);
        }
        let asked = Instant::now();
        match self.shell().await {
            Ok(_) => Ok(true),
            Err(_) if self.absence().is_some_and(|since| since >= asked) => Ok(false),
            Err(err) => Err(err),
        }
    }

    /// Refuses `what`, which needs screen positions, while the extension is absent.
    async fn placed(&self, what: &str) -> Result<()> {
        if self.extension_running().await? {
            Ok(())
        } else {
            Err(gnome_error(GnomeError::Unplaced(what.to_owned())))
        }
    }

    /// Makes input stop at once, between two keys or two steps of a drag, when a person takes
    /// over, and lets go of whatever deskhand holds down then. Called on the async runtime the
    /// input runs on.
    pub fn heed(&self, presence: Arc<Presence>) {
        let mut handovers = presence.subscribe();
        if self.presence.set(presence).is_err() {
            return;
        }
        let input = Arc::clone(&self.input);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            loop {
                match handovers.recv().await {
                    Ok(Handover::TookOver { .. }) => {
                        if let Some(input) = input.get() {
                            input.let_go().await;
                        }
                    }
                    Ok(Handover::Resumed { .. })
                    | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// Whether a person's input is watched.
    pub fn watched(&self) -> bool {
        self.presence.get().is_some()
    }

    /// Refuses to send more once a person has taken over.
    pub fn person_took_over(&self) -> Result<()> {
        match self.presence.get() {
            Some(presence) if presence.taken_over() => {
                Err(gnome_error(GnomeError::PersonTookOver).after_sending())
            }
            _ => Ok(()),
        }
    }

    /// Waits `wait`, unless a person takes over meanwhile: then at once refuses to go on.
    pub async fn wait_unless_taken_over(&self, wait: Duration) -> Result<()> {
        crate::person::wait_unless_taken_over(wait, || self.person_took_over()).await
    }

    async fn input(&self) -> Result<&RemoteInput> {
        let bus = self.bus().await?;
        self.input
            .get_or_try_init(|| RemoteInput::start(bus.clone(), CALL_TIMEOUT))
            .await
            .map_err(gnome_error)
    }

    /// Windows as the shell lists them, bottom to top, with their frames and buffers.
    async fn shell_windows(&self) -> Result<Vec<ShellWindow>> {
        self.shell().await?.windows().await.map_err(gnome_error)
    }

    /// Windows top first, as the core lists them.
    pub async fn windows(&self) -> Result<Vec<WindowInfo>> {
        let mut windows: Vec<WindowInfo> = self
            .shell_windows()
            .await?
            .iter()
            .map(window_info)
            .collect();
        windows.reverse();
        Ok(windows)
    }

    pub async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        Ok(self
            .shell_windows()
            .await?
            .iter()
            .find(|w| w.id == handle)
            .map(window_info))
    }

    /// Windows top first, each with where its surface lies, client-side shadows included: what
    /// GTK3's window-relative accessibility extents count from (GTK4's count from the frame).
    /// One read of the shell's list serves a frame match, which needs both.
    pub async fn placed_windows(&self) -> Result<Vec<(WindowInfo, Placement)>> {
        let mut placed: Vec<(WindowInfo, Placement)> = self
            .shell_windows()
            .await?
            .iter()
            .map(|w| {
                let placement = Placement {
                    buffer: w.buffer_rect(),
                    x11: w.x11,
                };
                (window_info(w), placement)
            })
            .collect();
        placed.reverse();
        Ok(placed)
    }

    /// Where the window's surface lies (see [`Gnome::placed_windows`]).
    pub async fn placement(&self, window: &WindowInfo) -> Result<Placement> {
        self.shell_windows()
            .await?
            .iter()
            .find(|w| w.id == window.handle)
            .map(|w| Placement {
                buffer: w.buffer_rect(),
                x11: w.x11,
            })
            .ok_or_else(|| Self::gone(window, "read"))
    }

    /// How many hundredths of a layout pixel an app's logical pixel is within `area`.
    pub async fn layout_percent_at(&self, area: Rect) -> Result<u32> {
        super::remote::layout_percent_at(self.bus().await?, CALL_TIMEOUT, area)
            .await
            .map_err(gnome_error)
    }

    /// Every monitor, read from Mutter's display configuration.
    pub async fn monitors(&self) -> Result<Vec<deskhand_core::model::Monitor>> {
        super::remote::listed_monitors(self.bus().await?, CALL_TIMEOUT)
            .await
            .map_err(gnome_error)
    }

    /// Read without starting the remote-desktop session a read has no need of.
    pub async fn screen(&self) -> Result<Rect> {
        if let Some(input) = self.input.get() {
            return Ok(input.screen());
        }
        super::remote::screen_of(self.bus().await?, CALL_TIMEOUT)
            .await
            .map_err(gnome_error)
    }

    fn gone(window: &WindowInfo, doing: &str) -> Error {
        Error::new(
            ErrorKind::SurfaceGone,
            format!(
                "the window \"{}\" closed before it could be {doing}; call `windows`",
                escape(&window.title)
            ),
        )
    }

    pub async fn activate(&self, window: &WindowInfo) -> Result<()> {
        let shell = self.shell().await?;
        if !shell.activate(window.handle).await.map_err(gnome_error)? {
            return Err(Self::gone(window, "focused"));
        }
        let until = tokio::time::Instant::now() + SETTLE;
        loop {
            let windows = self.shell_windows().await?;
            match windows.iter().find(|w| w.id == window.handle) {
                None => return Err(Self::gone(window, "focused")),
                Some(found) if found.focused => return Ok(()),
                Some(_) => {}
            }
            if tokio::time::Instant::now() >= until {
                let holder = windows.iter().find(|w| w.focused);
                return Err(Error::platform(format!(
                    "GNOME did not give the window \"{}\" the focus within {} ms{}; answer any dialog of that app first, then call `focus` again",
                    escape(&window.title),
                    SETTLE.as_millis(),
                    holder.map_or_else(String::new, |w| format!(
                        " and kept it on \"{}\"",
                        escape(&w.title)
                    ))
                ))
                .after_sending());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    pub async fn close(&self, window: &WindowInfo) -> Result<()> {
        let closed = self
            .shell()
            .await?
            .close(window.handle)
            .await
            .map_err(|err| gnome_error(err).after_sending())?;
        if closed {
            Ok(())
        } else {
            Err(Self::gone(window, "closed"))
        }
    }

    pub async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        let shell = self.shell().await?;
        let frame = window.bounds;
        let found = match change {
            WindowChange::Move { x, y } => {
                shell
                    .move_resize(window.handle, Rect::new(x, y, frame.width, frame.height))
                    .await
            }
            WindowChange::Resize { width, height } => {
                shell
                    .move_resize(window.handle, Rect::new(frame.x, frame.y, width, height))
                    .await
            }
            WindowChange::Minimize => shell.set_state(window.handle, WindowState::Minimized).await,
            WindowChange::Maximize => shell.set_state(window.handle, WindowState::Maximized).await,
            WindowChange::Restore => shell.set_state(window.handle, WindowState::Normal).await,
        }
        .map_err(|err| gnome_error(err).after_sending())?;
        if !found {
            return Err(Self::gone(window, "changed"));
        }
        let until = tokio::time::Instant::now() + SETTLE;
        while tokio::time::Instant::now() < until {
            match self.window(window.handle).await? {
                Some(now) if now == *window => tokio::time::sleep(POLL).await,
                _ => break,
            }
        }
        Ok(())
    }

    /// Where the pointer is: from the shell extension while it runs, else from a screen cast
    /// that carries the pointer beside its pixels.
    pub async fn pointer(&self) -> Result<Point> {
        if !self.extension_running().await? {
            return self.cast_pointer().await;
        }
        let (x, y) = self.shell().await?.pointer().await.map_err(gnome_error)?;
        Ok(Point { x, y })
    }

    /// Where the pointer is, from the kept screen cast (see `cursor.rs` for why what it reads
    /// is current): a watch of a layout that has changed since is replaced, and so, once, is a
    /// watch that told nothing.
    pub async fn cast_pointer(&self) -> Result<Point> {
        let bus = self.bus().await?;
        let (mut watch, monitors, kept) = self.current_watch().await?;
        let seen = match look_once(&mut watch, bus, &monitors).await {
            Err(GnomeError::NoCursor { .. }) if kept => look_once(&mut watch, bus, &monitors).await,
            other => other,
        }
        .map_err(gnome_error)?;
        drop(watch);
        match seen {
            Pointer::At(point) => Ok(point),
            // Hidden where it was last seen in the corner: the stop holds (a screen that locks
            // hides the pointer a user left there).
            Pointer::Hidden { last: Some(last) } if deskhand_core::safety::in_corner(last) => {
                Ok(last)
            }
            // GNOME hides the pointer until a pointing device moves it (and while none is in
            // use), and moving one shows it: a hidden pointer was not put in the corner. It is
            // said to be in the middle of the screen, where GNOME puts it at start.
            Pointer::Hidden { .. } => Ok(self.screen().await?.center()),
        }
    }

    pub async fn move_pointer(&self, to: Point) -> Result<()> {
        self.person_took_over()?;
        self.placed("Moving the pointer").await?;
        self.pointer_to(self.input().await?, to).await
    }

    /// The pointer moved to `to`. A session's first motion is sent until the shell reads the
    /// pointer there: mutter drops what a session sends before its virtual pointer has joined
    /// the seat, which on a loaded machine took longer than the session's start waits (a drag
    /// was then pressed wherever the pointer had been, and reached no app).
    async fn pointer_to(&self, input: &RemoteInput, to: Point) -> Result<()> {
        let sent = |err| gnome_error(err).after_sending();
        if input.pointer_moved() {
            return input.move_to(to).await.map_err(sent);
        }
        // A pointer already at `to` (where GNOME put it at start: the middle of the screen,
        // where a centred window's middle lies) would seem to have followed a first motion the
        // shell dropped, and the press after it would be dropped too: that first motion goes
        // beside `to`, where only a motion that arrived puts the pointer.
        let beside = if self.pointer().await? == to {
            Point {
                x: if to.x > 0 { to.x - 1 } else { to.x + 1 },
                y: to.y,
            }
        } else {
            to
        };
        self.first_motion(input, beside).await?;
        if beside != to {
            input.move_to(to).await.map_err(sent)?;
        }
        Ok(())
    }

    /// A session's first motion, sent again until the shell reads the pointer at `to`.
    async fn first_motion(&self, input: &RemoteInput, to: Point) -> Result<()> {
        let sent = |err| gnome_error(err).after_sending();
        input.move_to(to).await.map_err(sent)?;
        let start = Instant::now();
        let mut sent_at = start;
        loop {
            if self.pointer().await? == to {
                tokio::time::sleep(FIRST_MOTION_SETTLE).await;
                return Ok(());
            }
            if start.elapsed() >= POINTER_JOIN {
                return Err(Error::new(
                    ErrorKind::Timeout,
                    format!(
                        "the pointer did not reach {},{} within {} ms: GNOME has not yet taken deskhand's virtual pointer into its seat; call again",
                        to.x,
                        to.y,
                        POINTER_JOIN.as_millis()
                    ),
                )
                .after_sending());
            }
            if sent_at.elapsed() >= POINTER_RESEND {
                input.move_to(to).await.map_err(sent)?;
                sent_at = Instant::now();
            }
            tokio::time::sleep(POLL).await;
        }
    }

    pub async fn button(&self, button: MouseButton, down: bool) -> Result<()> {
        if down {
            self.person_took_over()?;
        }
        self.placed("A mouse button").await?;
        let input = self.input().await?;
        if !input.pointer_moved() {
            let here = self.pointer().await?;
            self.pointer_to(input, here).await?;
        }
        input
            .button(button, down)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    /// Wheel clicks at `at` (where the pointer is when `None`).
    pub async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        self.placed("Scrolling with the wheel").await?;
        let input = self.input().await?;
        let at = match at {
            Some(at) => Some(at),
            None if !input.pointer_moved() => Some(self.pointer().await?),
            None => None,
        };
        if let Some(at) = at {
            self.pointer_to(input, at).await?;
        }
        let steps = i32::try_from(amount).unwrap_or(i32::MAX);
        let (vertical, steps) = match direction {
            ScrollDirection::Up => (true, -steps),
            ScrollDirection::Down => (true, steps),
            ScrollDirection::Left => (false, -steps),
            ScrollDirection::Right => (false, steps),
        };
        input
            .scroll(vertical, steps)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    /// Keys by keysym pressed (or released, in reverse order): modifiers held around a button.
    pub async fn keys(&self, keysyms: &[u32], down: bool) -> Result<()> {
        let input = self.input().await?;
        let sent = async {
            if down {
                for &keysym in keysyms {
                    input.key(keysym, true).await?;
                }
            } else {
                for &keysym in keysyms.iter().rev() {
                    input.key(keysym, false).await?;
                }
            }
            Ok(())
        };
        sent.await.map_err(|err| gnome_error(err).after_sending())
    }

    /// A click as a person makes one, with `held` modifier keysyms down around it.
    pub async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        held: &[u32],
    ) -> Result<()> {
        self.placed("A click at a point").await?;
        let input = self.input().await?;
        let sent = async {
            for &keysym in held {
                input
                    .key(keysym, true)
                    .await
                    .map_err(|err| gnome_error(err).after_sending())?;
            }
            let clicked = match self.pointer_to(input, at).await {
                Ok(()) => input
                    .clicks(button, count.max(1))
                    .await
                    .map_err(|err| gnome_error(err).after_sending()),
                Err(err) => Err(err),
            };
            // Released even when the click failed, so no modifier stays held.
            for &keysym in held.iter().rev() {
                input
                    .key(keysym, false)
                    .await
                    .map_err(|err| gnome_error(err).after_sending())?;
            }
            clicked
        };
        sent.await
    }

    /// Chords as (modifier keysyms, key keysym): how many went out, and why the rest did not.
    pub async fn press_chords(&self, chords: &[(Vec<u32>, u32)]) -> Result<(usize, Option<Error>)> {
        let input = self.input().await?;
        for (pressed, (modifiers, key)) in chords.iter().enumerate() {
            if let Err(stopped) = self.person_took_over() {
                return Ok((pressed, Some(stopped)));
            }
            let chord = async {
                for &modifier in modifiers {
                    input.key(modifier, true).await?;
                }
                let tapped = async {
                    input.key(*key, true).await?;
                    input.key(*key, false).await
                }
                .await;
                for &modifier in modifiers.iter().rev() {
                    input.key(modifier, false).await?;
                }
                tapped
            };
            if let Err(err) = chord.await {
                return Ok((pressed, Some(gnome_error(err))));
            }
        }
        Ok((chords.len(), None))
    }

    /// Sends text to the focused field through the input method; false when no field takes it.
    pub async fn commit_text(&self, text: &str) -> Result<bool> {
        self.shell()
            .await?
            .commit_text(text)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    /// A round trip through the shell's main loop, which delivers input to the apps: what was
    /// sent before it has been handed on once it answers and a frame has passed.
    pub async fn sync(&self) -> Result<()> {
        if self.extension_running().await? {
            self.shell().await?.pointer().await.map_err(gnome_error)?;
        } else {
            // Mutter answers its display configuration on the same main loop.
            super::remote::screen_of(self.bus().await?, CALL_TIMEOUT)
                .await
                .map_err(gnome_error)?;
        }
        tokio::time::sleep(FRAME).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::clipboard::{lost_forms, text_type_of};
    use super::*;

    #[test]
    fn a_window_keeps_the_shell_id_and_its_frame_as_bounds() {
        let shell = ShellWindow {
            id: 7,
            title: "Calculator".into(),
            pid: 0,
            wm_class: "gnome-calculator".into(),
            app_id: "org.gnome.Calculator".into(),
            frame: [98, 134, 360, 489],
            buffer: [37, 79, 482, 611],
            focused: true,
            minimized: false,
            maximized: false,
            fullscreen: false,
            x11: false,
        };
        let info = window_info(&shell);
        assert_eq!(info.handle, 7);
        assert_eq!(info.pid, None);
        assert_eq!(info.app_name, "org.gnome.Calculator");
        assert_eq!(info.bounds, Rect::new(98, 134, 360, 489));
        assert!(info.focused);
    }

    #[test]
    fn a_clipboard_is_put_back_by_its_text_and_one_without_text_is_refused() {
        let types = |list: &[&str]| list.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(text_type_of(&[]).unwrap(), None);
        let rich = types(&[
            "text/html",
            "UTF8_STRING",
            "text/plain;charset=utf-8",
            "TARGETS",
        ]);
        assert_eq!(
            text_type_of(&rich).unwrap(),
            Some("text/plain;charset=utf-8")
        );
        assert_eq!(lost_forms(&rich), vec!["text/html".to_string()]);
        assert!(lost_forms(&types(&["text/plain", "STRING", "TEXT"])).is_empty());
        let image = text_type_of(&types(&["image/png"])).unwrap_err();
        assert_eq!(image.kind, ErrorKind::Unsupported);
        assert!(
            image.message.contains("holds no text but image/png"),
            "{}",
            image.message
        );
    }

    #[test]
    fn a_missing_extension_names_the_install_command() {
        let err = gnome_error(GnomeError::ExtensionAbsent("no owner".into()));
        assert_eq!(err.kind, ErrorKind::NoDisplay);
        assert!(err.message.contains("deskhand gnome-extension install"));
        assert!(err.message.contains("log out"));
    }
}
