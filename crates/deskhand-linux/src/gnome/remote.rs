//! Pointer and keys on GNOME's Wayland session through `org.gnome.Mutter.RemoteDesktop`, the
//! interface GNOME's own remote desktop uses. Its absolute pointer motion is relative to a
//! screen-cast stream of one monitor, so one stream is recorded per monitor; no client connects
//! to them, so Mutter renders no frame for them. Pixels come from a screen cast of their own
//! ([`super::cast`]), which needs no remote-desktop session and its virtual devices. The
//! session also takes part in the clipboard ([`SessionClipboard`]): how text beyond the keymap
//! is pasted into apps that take no input-method text.

use std::collections::HashMap;
use std::io::{ErrorKind as IoKind, Read, Write};
use std::os::fd::AsRawFd;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use deskhand_core::model::{MouseButton, Point, Rect};
use futures::StreamExt;
use zbus::zvariant::{OwnedFd, OwnedObjectPath, OwnedValue, Value};

use super::{GnomeError, call};

const REMOTE: &str = "org.gnome.Mutter.RemoteDesktop";
const REMOTE_SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";
const CAST: &str = "org.gnome.Mutter.ScreenCast";
const CAST_SESSION: &str = "org.gnome.Mutter.ScreenCast.Session";
const DISPLAY: &str = "org.gnome.Mutter.DisplayConfig";
/// Events mutter forwards from a remote-desktop session carry the time they are handled, so a
/// press and release sent back to back reach the app at the same instant, and GTK3 ignored such
/// a click (seen on a drawing area), as it ignored a press right after a motion (a drag's
/// start): a button event follows the pointer's last event by this much.
const BUTTON_GAP: Duration = Duration::from_millis(100);
/// Between the events of a multi-click after its first press: the presses must fall within the
/// apps' double-click time (400 ms in GTK) although each event is stamped when the shell gets
/// to it, and a loaded shell answered each call in about 100 ms (a double click on GNOME came as
/// two single clicks with `BUTTON_GAP` between every event).
const REPEAT_GAP: Duration = Duration::from_millis(30);
/// Time for mutter to add a new session's virtual keyboard and pointer to the seat.
const DEVICES_SETTLE: Duration = Duration::from_millis(300);

/// Pipes to and from Mutter are polled this often while they are full or empty.
const PIPE_POLL: Duration = Duration::from_millis(5);
/// A clipboard larger than this is not read: it is no text a person copied.
pub const MAX_CLIPBOARD_BYTES: usize = 16 << 20;

/// Linux input event codes (`BTN_LEFT` …) that `NotifyPointerButton` takes.
fn button_code(button: MouseButton) -> i32 {
    match button {
        MouseButton::Left => 0x110,
        MouseButton::Right => 0x111,
        MouseButton::Middle => 0x112,
    }
}

/// A monitor's place in the screen's layout and the stream its pointer motion is relative to.
#[derive(Debug, Clone, PartialEq)]
struct MonitorStream {
    area: Rect,
    stream: OwnedObjectPath,
}

type Mode = (
    String,
    i32,
    i32,
    f64,
    f64,
    Vec<f64>,
    HashMap<String, OwnedValue>,
);
type Monitor = (
    (String, String, String, String),
    Vec<Mode>,
    HashMap<String, OwnedValue>,
);
type LogicalMonitor = (
    i32,
    i32,
    f64,
    u32,
    bool,
    Vec<(String, String, String, String)>,
    HashMap<String, OwnedValue>,
);
type DisplayState = (
    u32,
    Vec<Monitor>,
    Vec<LogicalMonitor>,
    HashMap<String, OwnedValue>,
);

/// Each monitor's connector and its area in the layout, from `GetCurrentState`: the size is the
/// current mode's, divided by the scale in GNOME's logical layout.
fn monitor_areas(state: &DisplayState) -> Vec<(String, Rect)> {
    described_monitors(state)
        .into_iter()
        .map(|monitor| (monitor.name, monitor.bounds))
        .collect()
}

/// Each monitor as `windows` lists it: its connector, its area in the layout (as in
/// [`monitor_areas`]), its logical monitor's scale and whether that one is primary.
fn described_monitors(state: &DisplayState) -> Vec<deskhand_core::model::Monitor> {
    let (_, monitors, logical, _) = state;
    let logical_layout = lays_out_logical_pixels(state);
    let mut described = Vec::new();
    for (x, y, scale, _, primary, connectors, _) in logical {
        for (connector, ..) in connectors {
            let Some((_, modes, _)) = monitors.iter().find(|(spec, ..)| &spec.0 == connector)
            else {
                continue;
            };
            let current = modes.iter().find(|(.., props)| {
                props
                    .get("is-current")
                    .and_then(|v| bool::try_from(v).ok())
                    .unwrap_or(false)
            });
            let Some((_, width, height, ..)) = current else {
                continue;
            };
            let divide = if logical_layout && *scale > 0.0 {
                *scale
            } else {
                1.0
            };
            described.push(deskhand_core::model::Monitor {
                name: connector.clone(),
                bounds: Rect::new(
                    *x,
                    *y,
                    (*width as f64 / divide).round() as u32,
                    (*height as f64 / divide).round() as u32,
                ),
                scale: *scale,
                primary: *primary,
            });
        }
    }
    described
}

/// The rectangle around `areas`; empty when there are none.
pub(super) fn bounding(areas: impl Iterator<Item = Rect> + Clone) -> Rect {
    let left = areas.clone().map(|a| a.x).min().unwrap_or(0);
    let top = areas.clone().map(|a| a.y).min().unwrap_or(0);
    let right = areas
        .clone()
        .map(|a| a.x + a.width as i32)
        .max()
        .unwrap_or(0);
    let bottom = areas.map(|a| a.y + a.height as i32).max().unwrap_or(0);
    Rect::new(left, top, (right - left) as u32, (bottom - top) as u32)
}

async fn display_state(
    conn: &zbus::Connection,
    timeout: Duration,
) -> Result<DisplayState, GnomeError> {
    call(
        conn,
        DISPLAY,
        "/org/gnome/Mutter/DisplayConfig",
        DISPLAY,
        "GetCurrentState",
        &(),
        timeout,
    )
    .await
}

/// Each monitor's connector and area in the screen's layout.
pub async fn monitors_of(
    conn: &zbus::Connection,
    timeout: Duration,
) -> Result<Vec<(String, Rect)>, GnomeError> {
    Ok(monitor_areas(&display_state(conn, timeout).await?))
}

/// Whether GNOME's layout counts logical pixels (each monitor's divided by its scale), not the
/// physical ones it counts by default.
fn lays_out_logical_pixels(state: &DisplayState) -> bool {
    state
        .3
        .get("layout-mode")
        .and_then(|mode| u32::try_from(mode).ok())
        .is_none_or(|mode| mode == 1)
}

/// How many hundredths of a layout pixel an app's logical pixel is within `area`: the scale of
/// the monitor showing most of it where the layout counts physical pixels, else 100.
fn layout_percent(state: &DisplayState, area: Rect) -> u32 {
    if lays_out_logical_pixels(state) {
        return 100;
    }
    let monitors = described_monitors(state);
    deskhand_core::monitors::most_of(&monitors, area)
        .map_or(100, |index| (monitors[index].scale * 100.0).round() as u32)
}

/// How many hundredths of a layout pixel an app's logical pixel is within `area`, read from
/// Mutter's display configuration now.
pub async fn layout_percent_at(
    conn: &zbus::Connection,
    timeout: Duration,
    area: Rect,
) -> Result<u32, GnomeError> {
    Ok(layout_percent(&display_state(conn, timeout).await?, area))
}

/// Every monitor, named by its connector, with its scale and which is primary.
pub async fn listed_monitors(
    conn: &zbus::Connection,
    timeout: Duration,
) -> Result<Vec<deskhand_core::model::Monitor>, GnomeError> {
    Ok(described_monitors(&display_state(conn, timeout).await?))
}

/// The screen's extent, every monitor's area together, read from Mutter's display
/// configuration: without a remote-desktop session, which shows a screen-sharing indicator.
pub async fn screen_of(conn: &zbus::Connection, timeout: Duration) -> Result<Rect, GnomeError> {
    let areas = monitors_of(conn, timeout).await?;
    Ok(bounding(areas.into_iter().map(|(_, area)| area)))
}

/// A remote-desktop session: it lasts as long as the D-Bus connection that created it, and a
/// screen-sharing indicator shows in the top bar meanwhile.
pub struct RemoteInput {
    conn: zbus::Connection,
    session: OwnedObjectPath,
    monitors: Vec<MonitorStream>,
    timeout: Duration,
    /// When the pointer last moved or a button changed; `None` before this session's first
    /// pointer event.
    last_pointer: Mutex<Option<Instant>>,
    /// The buttons and keys this session holds down, to be let go of when a person takes over.
    held: Mutex<Held>,
    clipboard_enabled: tokio::sync::OnceCell<()>,
}

/// What a session holds down: button codes and keysyms.
#[derive(Debug, Default)]
struct Held {
    buttons: Vec<i32>,
    keysyms: Vec<u32>,
}

/// Notes `item` as held after a press, as let go of after a release.
fn note_held<T: PartialEq>(held: &mut Vec<T>, item: T, down: bool) {
    held.retain(|h| *h != item);
    if down {
        held.push(item);
    }
}

impl RemoteInput {
    pub async fn start(conn: zbus::Connection, timeout: Duration) -> Result<Self, GnomeError> {
        let unreachable = |err: GnomeError| match err {
            GnomeError::Call { what, source } => {
                GnomeError::NoRemoteDesktop(format!("{what}: {source}"))
            }
            other => other,
        };
        let session: OwnedObjectPath = call(
            &conn,
            REMOTE,
            "/org/gnome/Mutter/RemoteDesktop",
            REMOTE,
            "CreateSession",
            &(),
            timeout,
        )
        .await
        .map_err(unreachable)?;
        let id: OwnedValue = call(
            &conn,
            REMOTE,
            session.as_str(),
            "org.freedesktop.DBus.Properties",
            "Get",
            &(REMOTE_SESSION, "SessionId"),
            timeout,
        )
        .await?;
        let id = String::try_from(id)
            .map_err(|err| GnomeError::BadReply(format!("the session id: {err}")))?;
        let cast_options = HashMap::from([("remote-desktop-session-id", Value::from(id))]);
        let cast: OwnedObjectPath = call(
            &conn,
            CAST,
            "/org/gnome/Mutter/ScreenCast",
            CAST,
            "CreateSession",
            &(cast_options,),
            timeout,
        )
        .await
        .map_err(unreachable)?;
        let state = display_state(&conn, timeout).await?;
        let mut monitors = Vec::new();
        for (connector, area) in monitor_areas(&state) {
            let stream: OwnedObjectPath = call(
                &conn,
                CAST,
                cast.as_str(),
                CAST_SESSION,
                "RecordMonitor",
                &(connector.as_str(), HashMap::<&str, Value>::new()),
                timeout,
            )
            .await?;
            monitors.push(MonitorStream { area, stream });
        }
        if monitors.is_empty() {
            return Err(GnomeError::BadReply(
                "GNOME reports no monitor with a current mode".into(),
            ));
        }
        let input = Self {
            conn,
            session,
            monitors,
            timeout,
            last_pointer: Mutex::new(None),
            held: Mutex::default(),
            clipboard_enabled: tokio::sync::OnceCell::new(),
        };
        input.session_call("Start", &()).await?;
        // Mutter adds the session's virtual devices to the seat after `Start` answers; events
        // sent before that are lost.
        tokio::time::sleep(DEVICES_SETTLE).await;
        // A new session drops its first key event: spend it on a key that types nothing.
        input.key(xkeysym::key::Shift_L, true).await?;
        input.key(xkeysym::key::Shift_L, false).await?;
        tokio::time::sleep(DEVICES_SETTLE).await;
        Ok(input)
    }

    async fn session_call<B>(&self, method: &str, body: &B) -> Result<(), GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        call(
            &self.conn,
            REMOTE,
            self.session.as_str(),
            REMOTE_SESSION,
            method,
            body,
            self.timeout,
        )
        .await
    }

    /// An input event, noted as deskhand's before it goes and again once Mutter has it: the
    /// watch for a person sees it arrive some time in between, or just after.
    async fn notify<B>(&self, method: &str, body: &B) -> Result<(), GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        crate::person::sending_now();
        let sent = self.session_call(method, body).await;
        crate::person::sending_now();
        sent
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Releases every button and key this session holds down (a `down`, a drag, a click under
    /// way), so that a person who takes over gets a mouse and keyboard of their own. Best
    /// effort: a release that fails leaves nothing more to try.
    pub async fn let_go(&self) {
        let Held { buttons, keysyms } = std::mem::take(&mut *self.held());
        for code in buttons {
            let _ = self.notify("NotifyPointerButton", &(code, false)).await;
        }
        for keysym in keysyms.into_iter().rev() {
            let _ = self.notify("NotifyKeyboardKeysym", &(keysym, false)).await;
        }
    }

    /// The screen's extent: every monitor's area together.
    pub fn screen(&self) -> Rect {
        bounding(self.monitors.iter().map(|m| m.area))
    }

    pub async fn move_to(&self, to: Point) -> Result<(), GnomeError> {
        let monitor = self
            .monitors
            .iter()
            .find(|m| m.area.contains(to))
            .ok_or_else(|| {
                GnomeError::BadReply(format!(
                    "pixel {},{} is on no monitor of this screen",
                    to.x, to.y
                ))
            })?;
        let x = f64::from(to.x - monitor.area.x);
        let y = f64::from(to.y - monitor.area.y);
        let sent = self
            .notify(
                "NotifyPointerMotionAbsolute",
                &(monitor.stream.as_str(), x, y),
            )
            .await;
        self.pointer_event_now();
        sent
    }

    /// A button pressed or released, `BUTTON_GAP` after the pointer's last event.
    pub async fn button(&self, button: MouseButton, down: bool) -> Result<(), GnomeError> {
        self.button_after(BUTTON_GAP, button, down).await
    }

    async fn button_after(
        &self,
        gap: Duration,
        button: MouseButton,
        down: bool,
    ) -> Result<(), GnomeError> {
        self.after_pointer_gap(gap).await;
        note_held(&mut self.held().buttons, button_code(button), down);
        let sent = self
            .notify("NotifyPointerButton", &(button_code(button), down))
            .await;
        self.pointer_event_now();
        sent
    }

    /// `count` clicks where the pointer is, as a person makes them: the first press and
    /// release apart, the clicks after it quick enough to count as one multi-click.
    pub async fn clicks(&self, button: MouseButton, count: u32) -> Result<(), GnomeError> {
        self.button(button, true).await?;
        self.button(button, false).await?;
        for _ in 1..count {
            self.button_after(REPEAT_GAP, button, true).await?;
            self.button_after(REPEAT_GAP, button, false).await?;
        }
        Ok(())
    }

    fn last_pointer_event(&self) -> Option<Instant> {
        *self
            .last_pointer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn pointer_event_now(&self) {
        *self
            .last_pointer
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }

    /// Whether this session's pointer has moved yet: mutter delivers a new session's wheel and
    /// buttons only after its pointer has moved once (a scroll where the pointer already was
    /// reached no app).
    pub fn pointer_moved(&self) -> bool {
        self.last_pointer_event().is_some()
    }

    /// A key by keysym; GNOME finds it in the current keymap and drops one that is not there.
    pub async fn key(&self, keysym: u32, down: bool) -> Result<(), GnomeError> {
        note_held(&mut self.held().keysyms, keysym, down);
        self.notify("NotifyKeyboardKeysym", &(keysym, down)).await
    }

    /// Wheel clicks: positive steps scroll down (or right).
    pub async fn scroll(&self, vertical: bool, steps: i32) -> Result<(), GnomeError> {
        let axis: u32 = if vertical { 0 } else { 1 };
        self.after_pointer_gap(BUTTON_GAP).await;
        let sent = self
            .notify("NotifyPointerAxisDiscrete", &(axis, steps))
            .await;
        self.pointer_event_now();
        sent
    }

    /// Waits until `gap` has passed since the pointer's last event.
    async fn after_pointer_gap(&self, gap: Duration) {
        let since = self.last_pointer_event().map_or(gap, |last| last.elapsed());
        if since < gap {
            tokio::time::sleep(gap - since).await;
        }
    }
}

/// The session's part in the clipboard, for one paste: what it offers apps, and their
/// requests for it, until [`SessionClipboard::withdraw`].
pub struct SessionClipboard<'a> {
    input: &'a RemoteInput,
    signals: zbus::MessageStream,
}

impl RemoteInput {
    /// Takes part in the clipboard, for one paste. The session's clipboard is enabled once for
    /// its life: Mutter 43 keeps it counted as enabled after `DisableClipboard`, which also
    /// stops its signals, so it is never disabled.
    pub async fn clipboard(&self) -> Result<SessionClipboard<'_>, GnomeError> {
        let bad_rule = |err: zbus::Error| GnomeError::Call {
            what: "watching the remote-desktop clipboard".into(),
            source: err,
        };
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface(REMOTE_SESSION)
            .and_then(|rule| rule.path(self.session.as_str()))
            .and_then(|rule| rule.member("SelectionTransfer"))
            .map_err(bad_rule)?
            .build();
        let signals = tokio::time::timeout(
            self.timeout,
            zbus::MessageStream::for_match_rule(rule, &self.conn, Some(64)),
        )
        .await
        .map_err(|_| GnomeError::Timeout {
            what: "watching the remote-desktop clipboard".into(),
            ms: self.timeout.as_millis(),
        })?
        .map_err(bad_rule)?;
        let no_options = (HashMap::<&str, Value>::new(),);
        self.clipboard_enabled
            .get_or_try_init(|| self.session_call("EnableClipboard", &no_options))
            .await?;
        Ok(SessionClipboard {
            input: self,
            signals,
        })
    }
}

/// An app's request for the session's offer.
struct Transfer {
    mime: String,
    serial: u32,
}

impl SessionClipboard<'_> {
    /// The next app's request for the session's offer, or `None` at `until`.
    async fn next_transfer(&mut self, until: tokio::time::Instant) -> Option<Transfer> {
        loop {
            let message = tokio::time::timeout_at(until, self.signals.next())
                .await
                .ok()??
                .ok()?;
            if let Ok((mime, serial)) = message.body().deserialize::<(String, u32)>() {
                return Some(Transfer { mime, serial });
            }
        }
    }

    async fn call<B, R>(&self, method: &str, body: &B) -> Result<R, GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
        R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
    {
        call(
            &self.input.conn,
            REMOTE,
            self.input.session.as_str(),
            REMOTE_SESSION,
            method,
            body,
            self.input.timeout,
        )
        .await
    }

    /// The clipboard's content as `mime`, from the app that owns it, within `timeout`.
    pub async fn read(&self, mime: &str, timeout: Duration) -> Result<Vec<u8>, GnomeError> {
        let (fd,): (OwnedFd,) = self.call("SelectionRead", &(mime,)).await?;
        let mut pipe = nonblocking(fd)?;
        let until = Instant::now() + timeout;
        let mut content = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => return Ok(content),
                Ok(n) if content.len() + n > MAX_CLIPBOARD_BYTES => {
                    return Err(GnomeError::BadReply(format!(
                        "the clipboard holds more than {} MiB as {mime}",
                        MAX_CLIPBOARD_BYTES >> 20
                    )));
                }
                Ok(n) => content.extend_from_slice(&chunk[..n]),
                Err(err) if err.kind() == IoKind::Interrupted => {}
                Err(err) if err.kind() == IoKind::WouldBlock => {
                    if Instant::now() >= until {
                        return Err(GnomeError::Timeout {
                            what: format!(
                                "reading the clipboard as {mime} from the app that holds it"
                            ),
                            ms: timeout.as_millis(),
                        });
                    }
                    tokio::time::sleep(PIPE_POLL).await;
                }
                Err(err) => {
                    return Err(GnomeError::BadReply(format!(
                        "reading the clipboard as {mime}: {err}"
                    )));
                }
            }
        }
    }

    /// Puts the session on the clipboard, offering `types`; apps then ask for the content with
    /// [`SessionClipboard::serve`].
    pub async fn offer(&self, types: &[&str]) -> Result<(), GnomeError> {
        let options = HashMap::from([("mime-types", Value::from(types.to_vec()))]);
        self.call("SetSelection", &(options,)).await
    }

    /// Leaves unanswered the requests for the offer that come within `quiet` of each other
    /// before the paste's ctrl+v: they are not the app's. Mutter's own clipboard manager asks
    /// for a copy of every new offer at once, to keep it once its owner is gone, and would put
    /// the pasted text on the clipboard after the offer is withdrawn. Withdrawing the offer
    /// cancels these requests, so no copy of the pasted text outlives the paste. How many.
    pub async fn leave_early_requests(&mut self, quiet: Duration) -> usize {
        let mut left = 0;
        while self
            .next_transfer(tokio::time::Instant::now() + quiet)
            .await
            .is_some()
        {
            left += 1;
        }
        left
    }

    /// Answers apps' requests for the session's offer with `content`: the first must come
    /// within `first`, and it stops once none has come for `quiet` after the last. How many
    /// requests were answered.
    pub async fn serve(
        &mut self,
        content: &[u8],
        first: Duration,
        quiet: Duration,
    ) -> Result<usize, GnomeError> {
        let mut served = 0;
        let mut until = tokio::time::Instant::now() + first;
        while let Some(Transfer { mime, serial }) = self.next_transfer(until).await {
            let (fd,): (OwnedFd,) = self.call("SelectionWrite", &(serial,)).await?;
            let written = write_all(fd, content, self.input.timeout).await;
            let _: () = self
                .call("SelectionWriteDone", &(serial, written.is_ok()))
                .await?;
            written.map_err(|err| {
                GnomeError::BadReply(format!("writing the clipboard's text as {mime}: {err}"))
            })?;
            served += 1;
            until = tokio::time::Instant::now() + quiet;
        }
        Ok(served)
    }

    /// Takes the session's offer off the clipboard if it is still there: an app or the shell
    /// that took the clipboard since keeps it.
    pub async fn withdraw(self) -> Result<(), GnomeError> {
        self.call("SetSelection", &(HashMap::<&str, Value>::new(),))
            .await
    }
}

/// A pipe from Mutter as a file that never blocks: a full or empty pipe is waited on in steps.
fn nonblocking(fd: OwnedFd) -> Result<std::fs::File, GnomeError> {
    let file = std::fs::File::from(std::os::fd::OwnedFd::from(fd));
    let raw = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns, with flags it just read.
    let set = unsafe {
        let flags = libc::fcntl(raw, libc::F_GETFL);
        flags >= 0 && libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
    };
    if set {
        Ok(file)
    } else {
        Err(GnomeError::BadReply(format!(
            "the clipboard's pipe cannot be made non-blocking: {}",
            std::io::Error::last_os_error()
        )))
    }
}

/// Writes `content` into a pipe Mutter hands the app, then closes it: the end of the content.
async fn write_all(fd: OwnedFd, content: &[u8], timeout: Duration) -> std::io::Result<()> {
    let mut pipe = nonblocking(fd).map_err(|err| std::io::Error::other(err.to_string()))?;
    let until = Instant::now() + timeout;
    let mut rest = content;
    while !rest.is_empty() {
        match pipe.write(rest) {
            Ok(n) => rest = &rest[n..],
            Err(err) if err.kind() == IoKind::Interrupted => {}
            Err(err) if err.kind() == IoKind::WouldBlock && Instant::now() < until => {
                tokio::time::sleep(PIPE_POLL).await;
            }
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(width: i32, height: i32, current: bool) -> Mode {
        let props = HashMap::from([("is-current".to_string(), OwnedValue::from(current))]);
        ("m".into(), width, height, 60.0, 1.0, vec![1.0], props)
    }

    fn monitor(connector: &str, modes: Vec<Mode>) -> Monitor {
        (
            (connector.into(), "v".into(), "p".into(), "s".into()),
            modes,
            HashMap::new(),
        )
    }

    fn logical(x: i32, y: i32, scale: f64, connector: &str) -> LogicalMonitor {
        (
            x,
            y,
            scale,
            0,
            x == 0,
            vec![(connector.into(), "v".into(), "p".into(), "s".into())],
            HashMap::new(),
        )
    }

    #[test]
    fn each_monitor_is_placed_with_its_current_mode_in_logical_pixels() {
        let state: DisplayState = (
            2,
            vec![
                monitor(
                    "Meta-0",
                    vec![mode(1920, 1080, false), mode(1280, 800, true)],
                ),
                monitor("HDMI-1", vec![mode(3840, 2160, true)]),
                monitor("DP-9", vec![mode(640, 480, false)]),
            ],
            vec![
                logical(0, 0, 1.0, "Meta-0"),
                logical(1280, 0, 2.0, "HDMI-1"),
            ],
            HashMap::new(),
        );
        assert_eq!(
            monitor_areas(&state),
            vec![
                ("Meta-0".to_string(), Rect::new(0, 0, 1280, 800)),
                ("HDMI-1".to_string(), Rect::new(1280, 0, 1920, 1080)),
            ]
        );
        let described = described_monitors(&state);
        assert_eq!(
            described
                .iter()
                .map(|m| (m.name.as_str(), m.scale, m.primary))
                .collect::<Vec<_>>(),
            [("Meta-0", 1.0, true), ("HDMI-1", 2.0, false)]
        );
        // Physical pixels laid out (GNOME's default): an app on HDMI-1 counts two to its pixel.
        let mut physical = state.clone();
        physical
            .3
            .insert("layout-mode".into(), OwnedValue::from(2u32));
        assert_eq!(
            layout_percent(&physical, Rect::new(1300, 10, 100, 100)),
            200
        );
        assert_eq!(layout_percent(&physical, Rect::new(10, 10, 100, 100)), 100);
        assert_eq!(layout_percent(&state, Rect::new(1300, 10, 100, 100)), 100);
    }

    #[test]
    fn buttons_are_the_kernel_codes_gnome_expects() {
        assert_eq!(button_code(MouseButton::Left), 0x110);
        assert_eq!(button_code(MouseButton::Right), 0x111);
        assert_eq!(button_code(MouseButton::Middle), 0x112);
    }
}
