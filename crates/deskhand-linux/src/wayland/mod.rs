//! The Wayland side of the backend, on sway (wlroots): windows through sway's IPC, input
//! through the virtual pointer and keyboard protocols, pixels through screencopy. The
//! accessibility tree is AT-SPI's, shared with X11.

mod client;
mod corner;
mod glyphs;
pub mod idle;
mod input_method;
pub mod ipc;
mod keymap;
pub mod overlay;
mod registry;
pub mod selection;

pub(crate) use registry::global_interfaces;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{
    MouseButton, Point, Rect, RgbImage, ScrollDirection, WindowChange, WindowInfo,
};

use client::Client;
use ipc::{IpcError, SwayIpc, SwayWindow};

/// One request to the compositor never takes this long while it is alive.
const DEADLINE: Duration = Duration::from_secs(5);
/// How long `activate` and `change_window` wait for sway to apply what was asked.
const SETTLE: Duration = Duration::from_millis(1500);
const POLL: Duration = Duration::from_millis(20);
/// Two reads of a window this far apart that agree: sway has finished changing it.
const STILL: Duration = Duration::from_millis(50);

/// Which desktop the environment names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Session {
    X11,
    /// sway, with its IPC socket.
    Sway(PathBuf),
    /// GNOME Shell (mutter), reached over the session bus.
    Gnome,
    /// A Wayland compositor deskhand has no backend for, by the name the session gives it.
    OtherWayland(String),
}

impl Session {
    /// From `WAYLAND_DISPLAY`, `XDG_SESSION_TYPE`, `SWAYSOCK` and `XDG_CURRENT_DESKTOP`: a
    /// Wayland session is one with a Wayland socket that does not say it is X11; its
    /// compositor is sway when sway's IPC socket is named, GNOME's when the desktop says GNOME
    /// (Ubuntu's says `ubuntu:GNOME`).
    pub fn from_env() -> Session {
        let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
        Self::decide(
            var("WAYLAND_DISPLAY").is_some(),
            var("XDG_SESSION_TYPE").as_deref(),
            var("SWAYSOCK").map(PathBuf::from),
            var("XDG_CURRENT_DESKTOP"),
        )
    }

    fn decide(
        wayland_display: bool,
        session_type: Option<&str>,
        swaysock: Option<PathBuf>,
        current_desktop: Option<String>,
    ) -> Session {
        if !wayland_display || session_type == Some("x11") {
            return Session::X11;
        }
        match (swaysock, current_desktop) {
            (Some(socket), _) => Session::Sway(socket),
            (None, Some(desktop)) if desktop.to_ascii_lowercase().contains("sway") => {
                Session::OtherWayland("sway without SWAYSOCK".to_owned())
            }
            (None, Some(desktop))
                if desktop
                    .split(':')
                    .any(|name| name.eq_ignore_ascii_case("gnome")) =>
            {
                Session::Gnome
            }
            (None, desktop) => {
                Session::OtherWayland(desktop.unwrap_or_else(|| "an unnamed compositor".into()))
            }
        }
    }
}

/// The owner of the session's Wayland socket when that is not this process's user and this
/// process may act as it (root): apps started for the session run as the session's user.
pub fn session_owner() -> Option<(u32, u32)> {
    let display = std::env::var_os("WAYLAND_DISPLAY")?;
    let display = Path::new(&display);
    let socket = if display.is_absolute() {
        display.to_owned()
    } else {
        PathBuf::from(std::env::var_os("XDG_RUNTIME_DIR")?).join(display)
    };
    let meta = std::fs::metadata(socket).ok()?;
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    (euid == 0 && meta.uid() != 0).then(|| (meta.uid(), meta.gid()))
}

/// For a headless sway's life (the desktop's listener calls it): a keyboard and a pointer on
/// the seat, as a person's desktop has, so that windows keep the keyboard focus between calls.
/// Returns only when the compositor goes away.
pub fn hold_input_devices() -> std::result::Result<(), WaylandError> {
    Client::connect()?
        .hold_devices()
        .map(|never| match never {})
}

/// A failure talking to the compositor.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WaylandError {
    #[error(
        "could not connect to the Wayland compositor ({0}); check WAYLAND_DISPLAY and XDG_RUNTIME_DIR, or start a headless one with `eval \"$(deskhand desktop start --wayland sway)\"`"
    )]
    Connect(String),
    #[error(
        "the compositor does not offer {0}, which deskhand needs for this; run `deskhand doctor`"
    )]
    Missing(&'static str),
    #[error(
        "the connection to the compositor broke while {operation} ({cause}); check that it still runs"
    )]
    Lost {
        operation: &'static str,
        cause: String,
    },
    #[error("shared memory for the compositor could not be made ({0}); try again")]
    Memory(String),
    #[error("the compositor has no output named {0}; call `windows` and try again")]
    NoOutput(String),
    #[error("the compositor refused to copy the screen; try again")]
    CaptureFailed,
    #[error("the compositor offered the screen in a pixel format deskhand cannot read ({0})")]
    CaptureFormat(String),
    #[error(transparent)]
    Ipc(#[from] IpcError),
    #[error(
        "a person started using the desktop with their own mouse or keyboard, so deskhand stopped at once: the rest was not sent, and any button or key it held was released"
    )]
    PersonTookOver,
}

pub(crate) fn wayland_error(err: WaylandError) -> Error {
    let kind = match &err {
        WaylandError::Connect(_)
        | WaylandError::Lost { .. }
        | WaylandError::Ipc(IpcError::Connect { .. } | IpcError::Io { .. }) => ErrorKind::NoDisplay,
        WaylandError::Missing(_) | WaylandError::CaptureFormat(_) => ErrorKind::Unsupported,
        WaylandError::PersonTookOver => ErrorKind::Stopped,
        _ => ErrorKind::Platform,
    };
    Error::new(kind, err.to_string())
}

/// sway: its IPC socket, and one Wayland connection for input and capture.
pub struct Sway {
    socket: PathBuf,
    client: Arc<Mutex<Client>>,
    /// Where deskhand's virtual pointer was last sent; see [`Sway::pointer`].
    pointer: Mutex<Option<Point>>,
    /// The kill switch's look at the corner, connected on first need; `None` inside: the
    /// compositor cannot show it.
    corner: tokio::sync::OnceCell<Option<Arc<Mutex<corner::CornerProbe>>>>,
    /// The overlay that shows a person where the agent acts, once started.
    overlay: OnceLock<Arc<crate::overlay::Overlay>>,
    /// A person at the desk, once their input is watched: it stops input under way.
    presence: OnceLock<Arc<deskhand_core::person::Presence>>,
}

impl Sway {
    pub fn connect(socket: PathBuf) -> Result<Self> {
        SwayIpc::connect(&socket)
            .map_err(|err| wayland_error(err.into()))?
            .output_names()
            .map_err(|err| wayland_error(err.into()))?;
        let client = Client::connect().map_err(wayland_error)?;
        Ok(Self {
            socket,
            client: Arc::new(Mutex::new(client)),
            pointer: Mutex::new(None),
            corner: tokio::sync::OnceCell::new(),
            overlay: OnceLock::new(),
            presence: OnceLock::new(),
        })
    }

    /// Watches for a person's input (sway's idle notices) and makes input under way stop at
    /// once when they take over: a `type` between two runs of keys, a drag between two moves,
    /// and a button or modifiers held by `down` released.
    pub fn watch_for_person(
        &self,
        presence: Arc<deskhand_core::person::Presence>,
    ) -> std::result::Result<(), idle::IdleWatchError> {
        let client = Arc::clone(&self.client);
        let let_go = move || {
            // Releasing is deskhand's own input: it cannot make things worse for the person,
            // and a failure leaves nothing else to do.
            let _ = client
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .let_go();
        };
        idle::watch(Arc::clone(&presence), let_go)?;
        let _ = self.presence.set(presence);
        Ok(())
    }

    /// A person took over: what is about to be sent must not go.
    fn person_took_over(&self) -> Result<()> {
        match self.presence.get() {
            Some(presence) if presence.taken_over() => {
                Err(wayland_error(WaylandError::PersonTookOver))
            }
            _ => Ok(()),
        }
    }

    /// Waits `duration`, or until a person takes over: then says so.
    pub async fn pause(&self, duration: Duration) -> Result<()> {
        crate::person::wait_unless_taken_over(duration, || self.person_took_over()).await
    }

    /// Whether a person has taken over, for a blocking loop that checks between two steps.
    fn stop_flag(&self) -> impl Fn() -> bool + Send + 'static {
        let presence = self.presence.get().cloned();
        move || presence.as_ref().is_some_and(|p| p.taken_over())
    }

    /// Starts the overlay that shows a person where the agent acts, with the line that an
    /// agent is acting; says why where it cannot be drawn.
    pub fn show_overlay(&self) -> std::result::Result<(), String> {
        if self.overlay.get().is_some() {
            return Ok(());
        }
        let overlay = overlay::start(self.socket.clone(), true).map_err(|err| err.to_string())?;
        let _ = self.overlay.set(Arc::new(overlay));
        Ok(())
    }

    /// Shows where an action is about to act, when the overlay is drawn; never waits.
    pub fn show_intent(&self, intent: deskhand_core::backend::Intent) {
        if let Some(overlay) = self.overlay.get() {
            overlay.show(intent);
        }
    }

    /// Runs blocking work on the blocking pool under a deadline.
    async fn blocking<T, F>(&self, what: &'static str, deadline: Duration, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce() -> std::result::Result<T, WaylandError> + Send + 'static,
    {
        match tokio::time::timeout(deadline, tokio::task::spawn_blocking(work)).await {
            Ok(Ok(result)) => result.map_err(wayland_error),
            Ok(Err(join)) => Err(Error::platform(format!(
                "the compositor request for {what} crashed ({join}); try again"
            ))),
            Err(_) => Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "the compositor did not answer {what} within {} s; check that it is alive, then try again",
                    deadline.as_secs()
                ),
            )
            .after_sending()),
        }
    }

    async fn ipc<T, F>(&self, what: &'static str, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut SwayIpc) -> std::result::Result<T, IpcError> + Send + 'static,
    {
        let socket = self.socket.clone();
        self.blocking(what, DEADLINE, move || {
            let mut ipc = SwayIpc::connect(&socket)?;
            Ok(work(&mut ipc)?)
        })
        .await
    }

    async fn with_client<T, F>(&self, what: &'static str, deadline: Duration, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Client) -> std::result::Result<T, WaylandError> + Send + 'static,
    {
        let client = Arc::clone(&self.client);
        self.blocking(what, deadline, move || {
            let mut client = client.lock().unwrap_or_else(PoisonError::into_inner);
            work(&mut client)
        })
        .await
    }

    async fn sway_windows(&self) -> Result<Vec<SwayWindow>> {
        self.ipc("listing windows", |ipc| ipc.windows()).await
    }

    pub async fn windows(&self) -> Result<Vec<WindowInfo>> {
        Ok(self.sway_windows().await?.iter().map(window_info).collect())
    }

    pub async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        Ok(self
            .sway_windows()
            .await?
            .iter()
            .find(|w| w.id == handle)
            .map(window_info))
    }

    pub async fn screen(&self) -> Result<Rect> {
        let (x, y, width, height) = self
            .ipc("reading the screen size", |ipc| ipc.screen())
            .await?;
        Ok(Rect::new(x, y, width, height))
    }

    pub async fn monitors(&self) -> Result<Vec<deskhand_core::model::Monitor>> {
        self.ipc("listing the outputs", |ipc| ipc.monitors()).await
    }

    async fn command(&self, what: &'static str, command: String) -> Result<()> {
        self.ipc(what, move |ipc| ipc.command(&command))
            .await
            .map_err(|err| Error::new(err.kind, err.message).after_sending())
    }

    pub async fn activate(&self, window: &WindowInfo) -> Result<()> {
        let id = window.handle;
        let shown = if window.minimized {
            "scratchpad show, "
        } else {
            ""
        };
        self.command("focusing a window", format!("[con_id={id}] {shown}focus"))
            .await?;
        let until = tokio::time::Instant::now() + SETTLE;
        loop {
            let windows = self.sway_windows().await?;
            match windows.iter().find(|w| w.id == id) {
                None => {
                    return Err(Error::new(
                        ErrorKind::SurfaceGone,
                        format!(
                            "the window \"{}\" closed while it was being focused; call `windows`",
                            deskhand_core::render::escape(&window.title)
                        ),
                    ));
                }
                Some(found) if found.focused => return Ok(()),
                Some(_) => {}
            }
            if tokio::time::Instant::now() >= until {
                let holder = windows.iter().find(|w| w.focused).map(|w| w.title.clone());
                return Err(Error::platform(format!(
                    "sway did not give the window \"{}\" the focus within {} ms{}; answer any dialog of that app first, then call `focus` again",
                    deskhand_core::render::escape(&window.title),
                    SETTLE.as_millis(),
                    holder.map_or_else(String::new, |title| format!(
                        " and focused \"{}\" instead",
                        deskhand_core::render::escape(&title)
                    ))
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    pub async fn close(&self, window: &WindowInfo) -> Result<()> {
        self.command(
            "closing a window",
            format!("[con_id={}] kill", window.handle),
        )
        .await
    }

    pub async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        let id = window.handle;
        // A tiled window has no place or size of its own: it floats to take one.
        let command = match change {
            WindowChange::Move { x, y } => {
                format!("[con_id={id}] floating enable, move absolute position {x} {y}")
            }
            WindowChange::Resize { width, height } => {
                format!("[con_id={id}] floating enable, resize set {width} px {height} px")
            }
            WindowChange::Minimize => format!("[con_id={id}] move scratchpad"),
            WindowChange::Maximize => format!("[con_id={id}] fullscreen enable"),
            WindowChange::Restore if window.minimized => {
                format!("[con_id={id}] scratchpad show, floating disable")
            }
            WindowChange::Restore => format!("[con_id={id}] fullscreen disable"),
        };
        self.command("changing a window", command).await?;
        let Some(now) = self.changed_from(window).await? else {
            return Ok(());
        };
        // sway places and sizes the container, borders and title bar included; deskhand's
        // bounds are the window's own surface inside it: correct once by the difference.
        let correction = match change {
            WindowChange::Move { x, y } if (now.bounds.x, now.bounds.y) != (x, y) => Some(format!(
                "[con_id={id}] move absolute position {} {}",
                2 * x - now.bounds.x,
                2 * y - now.bounds.y
            )),
            WindowChange::Resize { width, height }
                if (now.bounds.width, now.bounds.height) != (width, height) =>
            {
                let grow = |asked: u32, got: u32| (2 * i64::from(asked) - i64::from(got)).max(1);
                Some(format!(
                    "[con_id={id}] resize set {} px {} px",
                    grow(width, now.bounds.width),
                    grow(height, now.bounds.height)
                ))
            }
            _ => None,
        };
        if let Some(command) = correction {
            self.command("changing a window", command).await?;
            self.changed_from(&now).await?;
        }
        Ok(())
    }

    /// The window once it no longer reads as `before` and has stopped changing (sway applies
    /// a floating enable and a move or resize in steps), or as it is after `SETTLE`; `None`
    /// once it is gone.
    async fn changed_from(&self, before: &WindowInfo) -> Result<Option<WindowInfo>> {
        let until = tokio::time::Instant::now() + SETTLE;
        let mut last: Option<WindowInfo> = None;
        loop {
            let Some(now) = self.window(before.handle).await? else {
                return Ok(None);
            };
            let settled = last.as_ref() == Some(&now) && now != *before;
            if settled || tokio::time::Instant::now() >= until {
                return Ok(Some(now));
            }
            last = Some(now);
            tokio::time::sleep(STILL).await;
        }
    }

    /// The layout's bounding box, which absolute pointer motion spans.
    async fn layout(&self) -> Result<(i32, i32, u32, u32)> {
        self.ipc("reading the screen size", |ipc| ipc.screen())
            .await
    }

    pub async fn move_pointer(&self, to: Point) -> Result<()> {
        self.person_took_over()?;
        let layout = self.layout().await?;
        self.with_client("moving the pointer", DEADLINE, move |client| {
            client.move_pointer((to.x, to.y), layout)
        })
        .await?;
        *self.pointer.lock().unwrap_or_else(PoisonError::into_inner) = Some(to);
        Ok(())
    }

    /// Where the pointer is, as far as a Wayland client can know: the top-left corner of the
    /// screen when the kill switch's look finds the pointer there (whoever moved it), else where
    /// deskhand last sent it (unless that was the corner, which the pointer has left since), or
    /// the middle of the screen where sway puts the cursor at start. Where a person moved it
    /// outside the corner is not seen.
    pub async fn pointer(&self) -> Result<Point> {
        let in_corner = match self.corner_probe().await {
            Some(probe) => Some(
                self.blocking("looking at the kill switch's corner", DEADLINE, move || {
                    probe
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .pointer_in_corner()
                })
                .await?,
            ),
            None => None,
        };
        if in_corner == Some(true) {
            return Ok(Point { x: 0, y: 0 });
        }
        let known = *self.pointer.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = known
            && !(in_corner == Some(false) && deskhand_core::safety::in_corner(known))
        {
            return Ok(known);
        }
        let screen = self.screen().await?;
        Ok(screen.center())
    }

    /// The kill switch's look at the corner of the primary output (the one at the layout's
    /// origin, else the top-left one: sway calls none primary, and a layout may leave its
    /// origin on no output), connected the first time it is needed. Where it cannot be (a
    /// compositor without the layer shell), the kill switch sees deskhand's own moves only.
    async fn corner_probe(&self) -> Option<Arc<Mutex<corner::CornerProbe>>> {
        self.corner
            .get_or_init(|| async {
                let monitors = self
                    .ipc("listing outputs", |ipc| ipc.monitors())
                    .await
                    .ok()?;
                let name = deskhand_core::monitors::ordered(monitors)
                    .into_iter()
                    .next()?
                    .name;
                let side = deskhand_core::safety::CORNER_PIXELS as u32 + 1;
                self.blocking(
                    "connecting for the kill switch's corner",
                    DEADLINE,
                    move || corner::CornerProbe::connect(&name, side),
                )
                .await
                .ok()
                .map(|probe| Arc::new(Mutex::new(probe)))
            })
            .await
            .clone()
    }

    /// Presses or releases `button`; a release goes even after a person took over.
    pub async fn button(&self, button: MouseButton, down: bool) -> Result<()> {
        if down {
            self.person_took_over()?;
        }
        let code = match button {
            MouseButton::Left => client::BTN_LEFT,
            MouseButton::Right => client::BTN_RIGHT,
            MouseButton::Middle => client::BTN_MIDDLE,
        };
        self.with_client("a button press", DEADLINE, move |client| {
            client.button(code, down)
        })
        .await
    }

    /// Holds modifier keys (keysyms) down until the next call; none releases them.
    pub async fn hold_modifiers(&self, modifiers: Vec<u32>) -> Result<()> {
        if !modifiers.is_empty() {
            self.person_took_over()?;
        }
        self.with_client("holding modifier keys", DEADLINE, move |client| {
            client.hold_modifiers(&modifiers)
        })
        .await
    }

    /// A click with modifiers held: the modifiers go down through the keyboard first.
    pub async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[u32],
    ) -> Result<()> {
        self.move_pointer(at).await?;
        let held = modifiers.to_vec();
        let code = match button {
            MouseButton::Left => client::BTN_LEFT,
            MouseButton::Right => client::BTN_RIGHT,
            MouseButton::Middle => client::BTN_MIDDLE,
        };
        self.with_client("a click", DEADLINE, move |client| {
            client.hold_modifiers(&held)?;
            let mut clicked = Ok(());
            for _ in 0..count {
                clicked = client
                    .button(code, true)
                    .and_then(|()| client.button(code, false));
                if clicked.is_err() {
                    break;
                }
            }
            client.hold_modifiers(&[])?;
            clicked
        })
        .await
    }

    pub async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        if let Some(at) = at {
            self.move_pointer(at).await?;
        }
        let steps = i32::try_from(amount).unwrap_or(i32::MAX);
        let (vertical, steps) = match direction {
            ScrollDirection::Up => (true, -steps),
            ScrollDirection::Down => (true, steps),
            ScrollDirection::Left => (false, -steps),
            ScrollDirection::Right => (false, steps),
        };
        self.with_client("a scroll", DEADLINE, move |client| {
            client.scroll(vertical, steps)
        })
        .await
    }

    /// Presses each chord (modifier keysyms, key keysym) in turn; how many went out.
    pub async fn press_chords(
        &self,
        chords: Vec<(Vec<u32>, u32)>,
    ) -> Result<(usize, Option<Error>)> {
        let stop = self.stop_flag();
        self.with_client("pressing keys", DEADLINE, move |client| {
            let mut pressed = 0;
            for (modifiers, key) in &chords {
                if stop() {
                    return Ok((pressed, Some(wayland_error(WaylandError::PersonTookOver))));
                }
                if let Err(err) = client.press_chord(modifiers, *key) {
                    return Ok((pressed, Some(wayland_error(err))));
                }
                pressed += 1;
            }
            Ok((pressed, None))
        })
        .await
    }

    /// Types keysyms; how many went out, and why the rest did not.
    pub async fn type_keysyms(&self, keysyms: Vec<u32>) -> Result<(usize, Option<Error>)> {
        let deadline = DEADLINE + Duration::from_millis(2 * keysyms.len() as u64);
        let stop = self.stop_flag();
        self.with_client("typing", deadline, move |client| {
            let mut sent = 0;
            match client.type_keysyms(&keysyms, &mut sent, &stop) {
                Ok(()) => Ok((sent, None)),
                Err(err) => Ok((sent, Some(wayland_error(err)))),
            }
        })
        .await
    }

    /// Commits `text` to the focused field through the input method: `Ok(false)` where the
    /// field takes no input-method text and nothing was sent (keys go instead). An error whose
    /// `sent` is set may have changed the field.
    pub async fn commit_text(&self, text: &str) -> Result<bool> {
        self.person_took_over()?;
        let text = text.to_owned();
        let stop = self.stop_flag();
        let committed = self
            .blocking(
                "committing text through the input method",
                DEADLINE,
                move || input_method::commit_text(&text, stop),
            )
            .await?;
        match committed {
            input_method::Commit::Sent => Ok(true),
            input_method::Commit::Declined => Ok(false),
            input_method::Commit::Unconfirmed(err) => Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "the text was committed to the focused field through the input method, but {err}; `read` the element to see what it holds before typing again"
                ),
            )
            .after_sending()),
        }
    }

    /// The pixels of a rectangle of the layout, clipped to the output that holds its middle.
    pub async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        // deskhand's own captures never show its overlay, which screencopy would copy.
        let _hidden = match self.overlay.get().cloned() {
            Some(overlay) => Some(
                self.blocking("hiding the overlay from a capture", DEADLINE, move || {
                    Ok(overlay.hidden_from(rect))
                })
                .await?,
            ),
            None => None,
        };
        let outputs = self.ipc("listing outputs", |ipc| ipc.outputs()).await?;
        if outputs.is_empty() {
            return Err(Error::platform(
                "sway has no active output, so there is nothing to capture; check the session",
            ));
        }
        let parts: Vec<(String, Rect, Rect)> = outputs
            .into_iter()
            .filter_map(|(name, output)| {
                let region = rect.intersect(&output)?;
                Some((name, output, region))
            })
            .collect();
        match parts.as_slice() {
            [] => Ok(RgbImage {
                width: 0,
                height: 0,
                data: Vec::new(),
            }),
            // One output: its own pixels, at its scale.
            [(name, output, region)] => self.capture_on(name, *output, *region).await,
            // Across outputs, whose scales may differ: each part at the layout's size, in place.
            several => {
                let mut canvas = RgbImage {
                    width: rect.width,
                    height: rect.height,
                    data: vec![0; rect.width as usize * rect.height as usize * 3],
                };
                for (name, output, region) in several {
                    let part = self.capture_on(name, *output, *region).await?;
                    let part = deskhand_core::image::resized(&part, region.width, region.height);
                    let at = ((region.x - rect.x) as u32, (region.y - rect.y) as u32);
                    deskhand_core::image::paste(&mut canvas, &part, at);
                }
                Ok(canvas)
            }
        }
    }

    /// The pixels of `region`, a part of the output `name` placed at `output` in the layout, in
    /// the output's own pixels.
    async fn capture_on(&self, name: &str, output: Rect, region: Rect) -> Result<RgbImage> {
        let local = (
            region.x - output.x,
            region.y - output.y,
            region.width,
            region.height,
        );
        let name = name.to_owned();
        let pixels = self
            .with_client("a capture", DEADLINE, move |client| {
                client.capture(&name, local)
            })
            .await?;
        Ok(RgbImage {
            width: pixels.width,
            height: pixels.height,
            data: pixels.data,
        })
    }

    /// Returns once the compositor has handled everything sent so far.
    pub async fn sync(&self) -> Result<()> {
        self.with_client("waiting for the compositor", DEADLINE, |client| {
            client.sync()
        })
        .await
    }
}

fn window_info(window: &SwayWindow) -> WindowInfo {
    let app_name = window
        .pid
        .and_then(crate::process::program_name)
        .or_else(|| window.app_id.clone())
        .unwrap_or_else(|| "unknown".into());
    WindowInfo {
        handle: window.id,
        title: window.title.clone(),
        pid: window.pid,
        app_name,
        bounds: Rect::new(window.x, window.y, window.width, window.height),
        focused: window.focused,
        minimized: window.hidden,
        maximized: window.fullscreen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_is_wayland_only_with_a_wayland_socket_sway_with_its_socket_and_gnome_by_name() {
        let sock = || Some(PathBuf::from("/run/sway.sock"));
        assert_eq!(
            Session::decide(false, Some("wayland"), sock(), None),
            Session::X11
        );
        assert_eq!(
            Session::decide(true, Some("x11"), sock(), None),
            Session::X11
        );
        assert_eq!(
            Session::decide(true, Some("wayland"), sock(), None),
            Session::Sway(PathBuf::from("/run/sway.sock"))
        );
        assert_eq!(
            Session::decide(true, None, None, Some("ubuntu:GNOME".into())),
            Session::Gnome
        );
        assert_eq!(
            Session::decide(true, None, None, Some("KDE".into())),
            Session::OtherWayland("KDE".into())
        );
    }
}
