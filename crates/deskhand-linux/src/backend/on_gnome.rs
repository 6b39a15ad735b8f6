//! The display server on GNOME Shell (Wayland), reached through its D-Bus interfaces, its remote
//! desktop portal and deskhand's shell extension: windows, input, pixels and the clipboard;
//! typing through the input method where the focused field takes it. While the extension is
//! absent, windows are known only as accessibility lists them, without their places.

use std::sync::Arc;
use std::time::Duration;

use deskhand_core::backend::{InputOutcome, TextRoute, Typed};
use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::keys::Keys;
use deskhand_core::model::{
    ClipboardContent, Modifier, Monitor, MouseButton, Node, Point, Rect, RgbImage, Role,
    ScrollDirection, WindowChange, WindowInfo, WindowKey,
};
use deskhand_core::render::{escape, plural};

use super::bus::{Bus, Placed};
use super::display::{
    ClickGap, DisplayServer, drag_with_pauses, keysym_chords, modifier_keysyms, tree_of,
    wayland_outcome,
};
use super::errors::atspi_error;
use super::frames::{Origin, gnome_origin, origin_for, wayland_inset, wayland_origin};
use crate::atspi::{Application, Frame};
use crate::gnome::Gnome;
use crate::x11;

/// The protocol that carries input-method text caps one message below 4000 bytes.
const COMMIT_BYTES: usize = 1000;

/// While a person's input is watched, text goes in pieces this small, so that a person who
/// takes over stops a long `type` within a piece: a commit through the input method is no
/// input to Mutter's idle monitor, so their key is told while it goes on.
const WATCHED_COMMIT_BYTES: usize = 48;

/// A field that just took the focus turns its input method on a moment later.
const INPUT_METHOD_WAIT: Duration = Duration::from_millis(150);

/// Why text goes out as keys, which carry only what every keyboard layout has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeysOnly {
    /// The focused window takes no input-method text: what keys cannot carry is pasted.
    NoInputMethod,
    /// The input method is reached through deskhand's extension, which is not running, and so
    /// is the shell that would put the user's clipboard back after a paste.
    NoExtension,
}

const NO_EXTENSION_REFUSAL: &str = "without deskhand's GNOME Shell extension (not running) text goes out as keys, and GNOME types only the keys of its keyboard layout, so characters beyond printable ASCII cannot be typed; set the text with `value` where the element allows it, or run `deskhand gnome-extension install`, then log out and back in";

/// One step of typing on GNOME.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Text for the input method, as GNOME's on-screen keyboard sends it.
    Text(String),
    /// A key: Return and Tab, which the input method does not carry.
    Key(u32),
}

/// Text as input-method pieces between the keys it holds, each piece below the protocol's cap.
fn pieces(text: &str, cap: usize) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut run = String::new();
    for c in text.chars() {
        let key = match c {
            '\n' => Some(xkeysym::key::Return),
            '\t' => Some(xkeysym::key::Tab),
            _ => None,
        };
        if (key.is_some() || run.len() + c.len_utf8() > cap) && !run.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut run)));
        }
        match key {
            Some(keysym) => pieces.push(Piece::Key(keysym)),
            None => run.push(c),
        }
    }
    if !run.is_empty() {
        pieces.push(Piece::Text(run));
    }
    pieces
}

/// A window's handle while the extension is absent: its frame's accessible object, which lasts
/// as long as the window (FNV-1a, so the same frame gets the same handle in every process).
fn unplaced_handle(frame: &Frame) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in frame
        .object
        .bus
        .bytes()
        .chain([b'|'])
        .chain(frame.object.path.bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// gnome-shell is on the accessibility bus too, with its stage as a window of its own.
fn is_the_shell(app: &Application) -> bool {
    app.name == "gnome-shell" || app.toolkit.eq_ignore_ascii_case("clutter")
}

/// A window as accessibility shows it: its title, process and focus, and only its size, for
/// its extents count from its own corner on Wayland. Whether it is minimized or maximized, an
/// app on Wayland is not told, so neither is said.
fn unplaced_window(frame: &Frame, app: &Application) -> WindowInfo {
    let app_name = app
        .pid
        .and_then(crate::process::program_name)
        .or_else(|| (!app.name.is_empty()).then(|| app.name.clone()))
        .unwrap_or_else(|| "unknown".into());
    let size = frame.extents.unwrap_or(Rect::new(0, 0, 0, 0));
    WindowInfo {
        handle: unplaced_handle(frame),
        title: frame.name.clone(),
        pid: app.pid,
        app_name,
        bounds: Rect::new(0, 0, size.width, size.height),
        focused: frame.active,
        minimized: false,
        maximized: false,
    }
}

/// How many characters of `text`, from its start, GNOME can type as keys of any keyboard
/// layout: printable ASCII, Return and Tab. It drops a keysym its keymap lacks without a word.
fn typable_as_keys(text: &str) -> usize {
    text.chars()
        .take_while(|&c| c == '\n' || c == '\t' || (' '..='~').contains(&c))
        .count()
}

pub(crate) struct GnomeDesk {
    gnome: Gnome,
    bus: Arc<Bus>,
    gap: ClickGap,
    overlay: std::sync::OnceLock<crate::gnome::overlay::GnomeOverlay>,
}

impl GnomeDesk {
    /// GNOME Shell is reached on first use.
    pub(super) fn new(bus: Arc<Bus>) -> Self {
        Self {
            gnome: Gnome::default(),
            bus,
            gap: ClickGap::default(),
            overlay: std::sync::OnceLock::new(),
        }
    }

    /// Starts the overlay the shell extension draws, with the line that an agent is acting.
    pub(super) fn show_overlay(&self) -> std::result::Result<(), String> {
        if self.overlay.get().is_some() {
            return Ok(());
        }
        let overlay = crate::gnome::overlay::start(true).map_err(|err| err.to_string())?;
        let _ = self.overlay.set(overlay);
        Ok(())
    }

    pub(super) fn show_intent(&self, intent: deskhand_core::backend::Intent) {
        if let Some(overlay) = self.overlay.get() {
            overlay.show(intent);
        }
    }

    /// Watches for a person's input through Mutter's idle monitor; input under way stops when
    /// they take over.
    pub(super) fn watch_for_person(
        &self,
        presence: Arc<deskhand_core::person::Presence>,
    ) -> std::result::Result<(), String> {
        crate::gnome::idle::watch(Arc::clone(&presence)).map_err(|err| err.to_string())?;
        self.gnome.heed(presence);
        Ok(())
    }

    /// The windows of every application on the accessibility bus, bottom to top as far as that
    /// is known (the focused one last), each with the frame it is and the toolkit's rule for
    /// extents (which says whether its Showing states hold). An application that does not
    /// answer is left out.
    async fn unplaced_windows(&self) -> Result<Vec<(WindowInfo, Frame, Origin)>> {
        let atspi = self.bus.atspi().await?;
        let apps: Vec<Application> = atspi
            .applications()
            .await
            .map_err(atspi_error)?
            .into_iter()
            .filter(|app| app.answering && !is_the_shell(app))
            .collect();
        let frames = futures::future::join_all(apps.iter().map(|app| atspi.frames(app))).await;
        let mut windows: Vec<(WindowInfo, Frame, Origin)> = apps
            .iter()
            .zip(frames)
            .filter_map(|(app, frames)| Some((app, frames.ok()?)))
            .flat_map(|(app, frames)| {
                frames
                    .into_iter()
                    .filter(|frame| frame.showing)
                    .map(move |frame| {
                        let window = unplaced_window(&frame, app);
                        let origin = wayland_origin(origin_for(app, &frame, &window), (0, 0));
                        (window, frame, origin)
                    })
            })
            .collect();
        windows.sort_by_key(|(window, ..)| window.focused);
        Ok(windows)
    }

    async fn unplaced_frame(&self, window: &WindowInfo) -> Result<(Frame, Origin)> {
        self.unplaced_windows()
            .await?
            .into_iter()
            .find(|(w, ..)| w.handle == window.handle)
            .map(|(_, frame, origin)| (frame, origin))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "the window \"{}\" is gone; call `windows`",
                        escape(&window.title)
                    ),
                )
            })
    }

    /// A window takes the focus on request only through the extension: without it, one that
    /// has the focus already is fine and any other is refused before anything is sent to it.
    async fn unplaced_activate(&self, window: &WindowInfo) -> Result<()> {
        let now = self
            .unplaced_windows()
            .await?
            .into_iter()
            .find(|(w, ..)| w.handle == window.handle);
        match now {
            Some((now, ..)) if now.focused => Ok(()),
            Some(_) => Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "the window \"{}\" does not have the keyboard focus, and GNOME gives a window the focus on request only through deskhand's shell extension, which is not running, so nothing was sent to it; ask the user to click into that window, or run `deskhand gnome-extension install`, then log out and back in",
                    escape(&window.title)
                ),
            )),
            None => Err(Error::new(
                ErrorKind::SurfaceGone,
                format!(
                    "the window \"{}\" is gone; call `windows`",
                    escape(&window.title)
                ),
            )),
        }
    }

    async fn outcome(
        &self,
        sent: (usize, Option<Error>),
        total: usize,
        unit: &'static str,
    ) -> Result<InputOutcome> {
        wayland_outcome(self, &self.bus, self.gnome.sync(), sent, total, unit).await
    }

    async fn type_routed(&self, text: &str) -> Result<Typed> {
        let gnome = &self.gnome;
        let text = text.replace("\r\n", "\n");
        let total = text.chars().count();
        let mut routes = Routes::default();
        if !gnome.extension_running().await? {
            return self
                .type_as_keys(&text, 0, total, KeysOnly::NoExtension, routes)
                .await;
        }
        let mut sent = 0;
        let mut in_flight = false;
        let cap = if gnome.watched() {
            WATCHED_COMMIT_BYTES
        } else {
            COMMIT_BYTES
        };
        for piece in pieces(&text, cap) {
            // Keys go through the shell's input queue and text does not, and the shell hands
            // the app only the last text committed before a frame: whatever went before must
            // have reached the app before the next piece goes.
            if in_flight && let Err(err) = gnome.sync().await {
                return self
                    .typed((sent, Some(err.after_sending())), total, routes, None)
                    .await;
            }
            if let Err(stopped) = gnome.person_took_over() {
                return self.typed((sent, Some(stopped)), total, routes, None).await;
            }
            in_flight = true;
            match piece {
                Piece::Key(keysym) => {
                    if let (_, Some(err)) = gnome.press_chords(&[(Vec::new(), keysym)]).await? {
                        return self.typed((sent, Some(err)), total, routes, None).await;
                    }
                    routes.took(TextRoute::Keys);
                    sent += 1;
                }
                Piece::Text(run) => {
                    let mut committed = gnome.commit_text(&run).await;
                    if matches!(committed, Ok(false)) && sent == 0 {
                        tokio::time::sleep(INPUT_METHOD_WAIT).await;
                        committed = gnome.commit_text(&run).await;
                    }
                    // A commit that failed may have reached the app: what went before it is
                    // the part sent, never a failure of the whole.
                    let committed = match committed {
                        Ok(committed) => committed,
                        Err(err) => {
                            return self.typed((sent, Some(err)), total, routes, None).await;
                        }
                    };
                    if !committed {
                        return self
                            .type_as_keys(&text, sent, total, KeysOnly::NoInputMethod, routes)
                            .await;
                    }
                    routes.took(TextRoute::InputMethod);
                    sent += run.chars().count();
                }
            }
        }
        self.typed((sent, None), total, routes, None).await
    }

    async fn typed(
        &self,
        sent: (usize, Option<Error>),
        total: usize,
        routes: Routes,
        note: Option<String>,
    ) -> Result<Typed> {
        let outcome = self.outcome(sent, total, "characters").await?;
        Ok(Typed {
            outcome,
            routes: routes.0,
            note,
        })
    }

    /// The rest of `text`, from character `sent`, into a window that takes no input-method
    /// text (an XWayland app, Qt 5, a terminal, a list that types ahead): as keys where the
    /// keyboard layout carries them, the rest pasted through the clipboard while the extension,
    /// which puts the user's clipboard back, runs.
    async fn type_as_keys(
        &self,
        text: &str,
        sent: usize,
        total: usize,
        why: KeysOnly,
        mut routes: Routes,
    ) -> Result<Typed> {
        let gnome = &self.gnome;
        let rest: String = text.chars().skip(sent).collect();
        let beyond_keys = typable_as_keys(&rest) < rest.chars().count();
        // Known before anything is sent: typing the part keys can carry would leave the field
        // with a fragment of the text.
        if beyond_keys && why == KeysOnly::NoExtension {
            let refused = Error::new(
                ErrorKind::Unsupported,
                format!("nothing was typed: {NO_EXTENSION_REFUSAL}"),
            );
            return self.typed((sent, Some(refused)), total, routes, None).await;
        }
        let runs = match why {
            KeysOnly::NoInputMethod if beyond_keys => {
                if let Some(refused) = self.paste_refusal().await? {
                    return self.typed((sent, Some(refused)), total, routes, None).await;
                }
                if let Err(refused) = gnome.clipboard_restorable().await {
                    return self.typed((sent, Some(refused)), total, routes, None).await;
                }
                runs(&rest)
            }
            // Everything left is keys: a text beyond them without the extension was refused.
            _ => vec![Run::Keys(rest)],
        };
        let mut sent = sent;
        let mut note = None;
        for run in runs {
            match run {
                Run::Keys(keys) => {
                    let chords: Vec<(Vec<u32>, u32)> = keys
                        .chars()
                        .map(|c| (Vec::new(), x11::keysym_for_char(c)))
                        .collect();
                    let (pressed, failed) = match gnome.press_chords(&chords).await {
                        Ok(pressed) => pressed,
                        Err(err) => (0, Some(err)),
                    };
                    if pressed > 0 {
                        routes.took(TextRoute::Keys);
                    }
                    sent += pressed;
                    if let Some(err) = failed {
                        return self.typed((sent, Some(err)), total, routes, note).await;
                    }
                }
                Run::Paste(paste) => {
                    let pasted = match gnome.paste(&paste).await {
                        Ok(pasted) => pasted,
                        Err(err) => {
                            return self.typed((sent, Some(err)), total, routes, note).await;
                        }
                    };
                    routes.took(TextRoute::Paste);
                    if !pasted.taken {
                        let unconfirmed = Error::platform(format!(
                            "ctrl+v went to the focused window to paste {}, but it did not ask for the clipboard's text within {} ms, so the text may not have arrived (a read-only field ignores a paste); {}",
                            plural(paste.chars().count(), "character", "characters"),
                            crate::gnome::PASTE_WAIT.as_millis(),
                            pasted.clipboard
                        ))
                        .after_sending();
                        return self
                            .typed((sent, Some(unconfirmed)), total, routes, note)
                            .await;
                    }
                    sent += paste.chars().count();
                    if pasted.restore_failed {
                        let harmed = Error::platform(format!(
                            "{} of {total} characters were typed, the last {} by pasting, but {}",
                            sent,
                            paste.chars().count(),
                            pasted.clipboard
                        ))
                        .after_sending();
                        return Err(harmed);
                    }
                    note = Some(pasted.clipboard);
                }
            }
        }
        self.typed((sent, None), total, routes, note).await
    }

    /// Why text must not be pasted into what has the keyboard focus, before anything is sent:
    /// a password field (its text would sit on the clipboard, where clipboard managers keep
    /// it), a terminal (ctrl+v there makes the next key literal), or an element deskhand cannot
    /// see through accessibility, which could be either.
    async fn paste_refusal(&self) -> Result<Option<Error>> {
        let focused = DisplayServer::windows(self)
            .await?
            .into_iter()
            .find(|w| w.focused);
        let Some(window) = focused else {
            return Ok(Some(Error::new(
                ErrorKind::Unsupported,
                "no window has the keyboard focus, so the text would be pasted nowhere; nothing was typed; `focus` the window, click the field, then `type` again",
            )));
        };
        let title = escape(&window.title);
        let mut focused = Vec::new();
        if let Ok(tree) = tree_of(self, &self.bus, &window).await {
            focused_roles(&tree.root, &mut focused);
        }
        // An element and the one inside it may both say they have the focus (a tab and its
        // editor): any of them that must not be pasted into decides.
        let role = [Role::Password, Role::Terminal]
            .into_iter()
            .find(|role| focused.contains(role))
            .or(focused.first().copied());
        let refusal = match role {
            Some(Role::Password) => format!(
                "the focused element of \"{title}\" is a password field, and characters beyond printable ASCII reach this window (it takes no input-method text) only by pasting, which would leave the password on the clipboard, where clipboard managers keep it; nothing was typed; type the password without those characters, or set it with `value` where the field allows it"
            ),
            Some(Role::Terminal) => format!(
                "the focused element of \"{title}\" is a terminal, where ctrl+v does not paste (it makes the next key literal), and characters beyond printable ASCII reach this window (it takes no input-method text) only by pasting; nothing was typed; put the text on the clipboard with `clipboard` and `press` the terminal's own paste keys (ctrl+shift+v in most), or type the text without those characters"
            ),
            Some(_) => return Ok(None),
            None => format!(
                "characters beyond printable ASCII reach \"{title}\" (it takes no input-method text) only by pasting, and deskhand cannot see through accessibility which of its elements has the keyboard focus, so it cannot tell that it is neither a password field (whose text would stay on the clipboard) nor a terminal (where ctrl+v does not paste); nothing was typed; type the text without those characters, or put it on the clipboard with `clipboard` and `press` the window's paste keys"
            ),
        };
        Ok(Some(Error::new(ErrorKind::Unsupported, refusal)))
    }
}

impl DisplayServer for GnomeDesk {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        if !self.gnome.extension_running().await? {
            let found = self.unplaced_windows().await?;
            return Ok(found.into_iter().map(|(window, ..)| window).collect());
        }
        self.gnome.windows().await
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        if !self.gnome.extension_running().await? {
            let found = self.unplaced_windows().await?;
            return Ok(found
                .into_iter()
                .map(|(window, ..)| window)
                .find(|window| window.handle == handle));
        }
        self.gnome.window(handle).await
    }

    async fn screen(&self) -> Result<Rect> {
        self.gnome.screen().await
    }

    async fn monitors(&self) -> Result<Vec<Monitor>> {
        self.gnome.monitors().await
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        Ok(DisplayServer::windows(self)
            .await?
            .iter()
            .map(WindowInfo::key)
            .collect())
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        if !self.gnome.extension_running().await? {
            return self.unplaced_activate(window).await;
        }
        self.gnome.activate(window).await
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        self.gnome.close(window).await
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        self.gnome.change_window(window, change).await
    }

    async fn unplaced(&self) -> Result<bool> {
        Ok(!self.gnome.extension_running().await?)
    }

    async fn frame(&self, window: &WindowInfo) -> Result<Placed> {
        if !self.gnome.extension_running().await? {
            // The window was listed as this frame; its extents are never mapped to the screen.
            let (frame, origin) = self.unplaced_frame(window).await?;
            return Ok(Placed {
                frame,
                origin,
                popups: Vec::new(),
            });
        }
        // The shell's one list gives the siblings and where this window's surface lies.
        let placed = self.gnome.placed_windows().await?;
        let placement = placed
            .iter()
            .find(|(w, _)| w.handle == window.handle)
            .map(|(_, placement)| *placement);
        let listed = placed.into_iter().map(|(w, _)| w).collect();
        let matched = self.bus.matched_frame(window, listed).await?;
        let placement = match placement {
            Some(placement) => placement,
            None => self.gnome.placement(window).await?,
        };
        let percent = self.gnome.layout_percent_at(window.bounds).await?;
        let origin = gnome_origin(
            origin_for(&matched.app, &matched.frame, window),
            window.bounds,
            placement,
            wayland_inset(&matched.app, &matched.frame, window, percent),
            percent,
        );
        Ok(matched.placed(origin))
    }

    async fn pointer(&self) -> Result<Point> {
        self.gnome.pointer().await
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        self.gnome.move_pointer(to).await
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        let held = modifier_keysyms(modifiers);
        if down {
            self.gap.wait().await;
            self.gnome.keys(&held, true).await?;
            self.gnome.button(button, true).await
        } else {
            let released = self.gnome.button(button, false).await;
            let unheld = self.gnome.keys(&held, false).await;
            self.gap.released_now();
            released.and(unheld)
        }
    }

    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<()> {
        self.gap.wait().await;
        let held = modifier_keysyms(modifiers);
        let clicked = self.gnome.click(at, button, count, &held).await;
        self.gap.released_now();
        clicked
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        self.gnome.scroll(at, direction, amount).await
    }

    async fn drag_path(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: Duration,
    ) -> Result<()> {
        drag_with_pauses(self, (points, button, modifiers), duration, |step| {
            self.gnome.wait_unless_taken_over(step)
        })
        .await
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        let chords = keysym_chords(keys);
        let total = chords.len();
        let sent = self.gnome.press_chords(&chords).await?;
        self.outcome(sent, total, "key chords").await
    }

    /// Text through the input method when the focused field takes it, which carries every
    /// character whatever the keymap; as keys otherwise, which carry only what every layout has,
    /// and the rest pasted.
    async fn type_text(&self, text: &str) -> Result<Typed> {
        self.type_routed(text).await
    }

    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        // The screen cast would show the overlay: only the extension's screenshot leaves it out.
        if self.overlay.get().is_some() {
            return self.gnome.shell_capture(rect).await;
        }
        self.gnome.capture(rect).await
    }

    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        self.gnome.read_clipboard().await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        self.gnome.write_clipboard(text).await
    }
}

/// The routes typed text took, each once, in the order first used.
#[derive(Debug, Default)]
struct Routes(Vec<TextRoute>);

impl Routes {
    fn took(&mut self, route: TextRoute) {
        if !self.0.contains(&route) {
            self.0.push(route);
        }
    }
}

/// One run of text into a window that takes no input-method text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Run {
    Keys(String),
    Paste(String),
}

/// Text as keys while the keyboard layout carries it, and pasted from the first character it
/// does not carry to the end of the line or the next tab: Return and Tab stay keys, which a
/// field may act on, and the characters keep their order.
fn runs(text: &str) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let keys: usize = rest
            .chars()
            .take(typable_as_keys(rest))
            .map(char::len_utf8)
            .sum();
        if keys > 0 {
            runs.push(Run::Keys(rest[..keys].to_owned()));
            rest = &rest[keys..];
        }
        let paste = rest.find(['\n', '\t']).unwrap_or(rest.len());
        if paste > 0 {
            runs.push(Run::Paste(rest[..paste].to_owned()));
            rest = &rest[paste..];
        }
    }
    runs
}

/// The roles of the elements that say they have the keyboard focus.
fn focused_roles(node: &Node, roles: &mut Vec<Role>) {
    if node.states.focused {
        roles.push(node.role);
    }
    for child in &node.children {
        focused_roles(child, roles);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_goes_to_the_input_method_between_returns_and_tabs_in_capped_pieces() {
        assert_eq!(
            pieces("Hé\n€\tx", COMMIT_BYTES),
            vec![
                Piece::Text("Hé".into()),
                Piece::Key(xkeysym::key::Return),
                Piece::Text("€".into()),
                Piece::Key(xkeysym::key::Tab),
                Piece::Text("x".into()),
            ]
        );
        assert_eq!(
            pieces("\n\n", COMMIT_BYTES),
            vec![Piece::Key(xkeysym::key::Return); 2]
        );
        let long = "€".repeat(COMMIT_BYTES);
        let split = pieces(&long, COMMIT_BYTES);
        assert!(split.len() > 1);
        assert!(
            split
                .iter()
                .all(|p| matches!(p, Piece::Text(t) if t.len() <= COMMIT_BYTES))
        );
        let joined: String = split
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.as_str(),
                Piece::Key(_) => "",
            })
            .collect();
        assert_eq!(joined, long);
    }

    fn frame(path: &str, active: bool) -> Frame {
        Frame {
            object: crate::atspi::ObjectRef {
                bus: ":1.42".into(),
                path: path.into(),
            },
            name: "Fixture".into(),
            extents: Some(Rect::new(0, 0, 652, 603)),
            active,
            showing: true,
        }
    }

    #[test]
    fn a_window_without_the_extension_has_its_frame_as_handle_and_only_its_size() {
        let app = Application {
            root: crate::atspi::ObjectRef {
                bus: ":1.42".into(),
                path: "/org/a11y/atspi/accessible/root".into(),
            },
            pid: None,
            name: "fixture_app.py".into(),
            toolkit: "GTK".into(),
            toolkit_version: "3.24.38".into(),
            answering: true,
        };
        let window = unplaced_window(&frame("/org/a11y/atspi/accessible/123", true), &app);
        assert_eq!(window.bounds, Rect::new(0, 0, 652, 603));
        assert_eq!(window.app_name, "fixture_app.py");
        assert!(window.focused);
        let again = unplaced_window(&frame("/org/a11y/atspi/accessible/123", false), &app);
        let other = unplaced_window(&frame("/org/a11y/atspi/accessible/124", true), &app);
        assert_eq!(window.handle, again.handle);
        assert_ne!(window.handle, other.handle);
        assert!(!is_the_shell(&app));
    }

    #[test]
    fn what_keys_cannot_carry_is_pasted_to_the_line_end_in_order() {
        assert_eq!(
            runs("héllo ✓ π"),
            vec![Run::Keys("h".into()), Run::Paste("éllo ✓ π".into())]
        );
        assert_eq!(
            runs("ab\né x\ty\n€"),
            vec![
                Run::Keys("ab\n".into()),
                Run::Paste("é x".into()),
                Run::Keys("\ty\n".into()),
                Run::Paste("€".into()),
            ]
        );
        assert_eq!(runs("plain\n"), vec![Run::Keys("plain\n".into())]);
        let joined: String = runs("x€\n\tπy")
            .into_iter()
            .map(|run| match run {
                Run::Keys(t) | Run::Paste(t) => t,
            })
            .collect();
        assert_eq!(joined, "x€\n\tπy");
    }

    #[test]
    fn every_element_that_says_it_has_the_focus_is_found() {
        let node = |role, focused, children| Node {
            handle: deskhand_core::model::ElementHandle(":1.42|/a".into()),
            role,
            name: String::new(),
            value: None,
            states: deskhand_core::model::States {
                focused,
                ..Default::default()
            },
            bounds: None,
            actions: Vec::new(),
            children,
        };
        let field = node(Role::Password, true, Vec::new());
        let form = node(
            Role::Unknown,
            true,
            vec![node(Role::Text, false, Vec::new()), field],
        );
        let window = node(Role::Window, false, vec![form]);
        let mut roles = Vec::new();
        focused_roles(&window, &mut roles);
        assert_eq!(roles, vec![Role::Unknown, Role::Password]);
        let mut none = Vec::new();
        focused_roles(&node(Role::Window, false, Vec::new()), &mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn only_printable_ascii_returns_and_tabs_are_typed_as_keys() {
        assert_eq!(typable_as_keys("ls -la ~\n\tok"), 12);
        assert_eq!(typable_as_keys("abc€d"), 3);
        assert_eq!(typable_as_keys("é"), 0);
    }
}
