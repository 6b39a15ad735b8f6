//! The one executor: every call, from MCP, the CLI or later a batch, runs through [`execute`].

use serde::Serialize;
use serde_json::json;

use crate::action::{Action, Call, ClickSpec, ObserveSpec, Place, RefId, TargetId};
use crate::audit::AuditLog;
use crate::backend::{Backend, InputOutcome, Partial};
use crate::control::Control;
use crate::coords::{region_to_rect, to_pixel};
use crate::error::{Error, ErrorKind, Result};
use crate::find::{SurfaceTrees, find_one};
use crate::image::{DEFAULT_MAX_EDGE, encode_png, fit};
use crate::keys::{Chord, Key, Keys};
use crate::model::{MouseButton, Point, Rect, WindowInfo, WindowKey};
use crate::policy::Policy;
use crate::render::{FENCE, click_action, escape, one_line, plural, render};
use crate::session::{Observation, RefEntry, Session, SurfaceKey};

#[derive(Debug, Clone)]
pub struct Config {
    /// Screenshots are scaled down so their long edge is at most this many pixels.
    pub max_image_edge: u32,
    /// What the user allows, fixed when the server or CLI starts. Default: everything.
    pub policy: Policy,
    /// Where every action is recorded. Default: nowhere.
    pub audit: AuditLog,
    /// What deskhand remembers across sessions. Default: nothing.
    pub memory: Option<std::sync::Arc<dyn crate::memory::Memory>>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_image_edge: DEFAULT_MAX_EDGE,
            policy: Policy::default(),
            audit: AuditLog::default(),
            memory: None,
        }
    }
}

/// How a successful call ended, which decides the CLI's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// A read: apps, windows, observe, screenshot, zoom.
    Observed,
    /// The system took the input.
    Done,
    /// Part of the input may have landed.
    Unconfirmed,
    /// A wait that timed out, or a batch that stopped before anything changed: nothing was done.
    Failed,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub outcome: Outcome,
    /// PNG bytes for screenshot and zoom.
    pub image: Option<Vec<u8>>,
    /// The structured form of the same reply.
    pub data: serde_json::Value,
}

impl Reply {
    /// Whether the agent must not take the reply for success, though it carries evidence: a wait
    /// that timed out, or a batch that stopped at a failing step (even after earlier steps
    /// changed something). MCP marks it `isError`, the CLI's `--json` says `"ok": false`.
    pub fn is_error(&self) -> bool {
        self.outcome == Outcome::Failed
            || self
                .data
                .get("failed_index")
                .is_some_and(|index| !index.is_null())
    }

    fn observed(text: String, data: serde_json::Value) -> Self {
        Self {
            text,
            outcome: Outcome::Observed,
            image: None,
            data,
        }
    }

    fn input(outcome: InputOutcome, did: String, data: serde_json::Value) -> Self {
        match outcome {
            InputOutcome::Done => Self {
                text: format!("done: {did}\n"),
                outcome: Outcome::Done,
                image: None,
                data,
            },
            InputOutcome::Partial(Partial {
                sent,
                total,
                unit,
                reason,
            }) => Self {
                text: format!(
                    "applied but unconfirmed: only {sent} of {total} {unit} were sent before the input failed ({reason}); intended: {did}; check the target's state before acting again\n"
                ),
                outcome: Outcome::Unconfirmed,
                image: None,
                data,
            },
        }
    }
}

/// A surface resolved to pixels at the moment of the call.
#[derive(Debug, Clone)]
pub(crate) struct Surface {
    pub(crate) key: SurfaceKey,
    /// `w3` or `screen`: the id a header or error names.
    pub(crate) label: String,
    pub(crate) rect: Rect,
    pub(crate) window: Option<WindowInfo>,
}

/// Runs one validated call against the backend, updating the session. An action (click, type,
/// press, scroll, drag, …) first passes the kill switch and the policy, and is audited.
pub async fn execute<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
) -> Result<Reply> {
    execute_with(backend, session, config, call, &Control::default()).await
}

/// [`execute`] for a caller that can cancel the call and hear its progress.
pub async fn execute_with<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
    control: &Control,
) -> Result<Reply> {
    if call.actuates() {
        return crate::safety::guarded(backend, session, config, call, control).await;
    }
    perform(backend, session, config, call, control).await
}

/// Runs one call, unguarded.
pub(crate) async fn perform<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
    control: &Control,
) -> Result<Reply> {
    let target = call.target;
    match call.action {
        Action::Apps => apps(backend, session).await,
        Action::Installed => crate::manage::installed(backend).await,
        Action::Windows => windows(backend, session).await,
        Action::Observe(spec) => observe(backend, session, config, target, &spec).await,
        Action::Screenshot => capture(backend, session, config, target, None).await,
        Action::Zoom { region } => capture(backend, session, config, target, Some(region)).await,
        Action::Click { place, click } => {
            click_at(backend, session, config, target, place, click).await
        }
        Action::Type {
            text,
            place,
            replace,
        } => type_text(backend, session, target, &text, place, replace).await,
        Action::Read { place, offset } => {
            crate::values::read_text(backend, session, target, &place, offset).await
        }
        Action::Hover { place } => {
            let spot = locate(backend, session, target, &place).await?;
            backend.move_pointer(spot.pixel).await?;
            Ok(Reply::input(
                InputOutcome::Done,
                format!("moved the pointer to {} without clicking", spot.describe()),
                json!({"action": "hover", "pixel": spot.pixel}),
            ))
        }
        Action::Button {
            down,
            place,
            button,
            modifiers,
        } => {
            let mut at = String::from("where the pointer is");
            if let Some(place) = &place {
                let spot = locate(backend, session, target, place).await?;
                backend.move_pointer(spot.pixel).await?;
                at = format!("at {}", spot.describe());
            }
            backend.button(button, down, &modifiers).await?;
            let verb = if down { "pressed" } else { "released" };
            let button_name = serde_json::to_value(button)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            Ok(Reply::input(
                InputOutcome::Done,
                format!(
                    "{verb} the {button_name} button {at}{}",
                    if down {
                        "; it stays down until `up`"
                    } else {
                        ""
                    }
                ),
                json!({"action": if down { "down" } else { "up" }, "button": button}),
            ))
        }
        Action::Wait(spec) => crate::wait::wait(backend, session, target, &spec, control).await,
        Action::Batch(steps) => {
            Ok(crate::batch::batch(backend, session, config, steps, control).await)
        }
        Action::SetValue { place, value } => {
            crate::values::set_value(backend, session, target, &place, &value).await
        }
        Action::Select { path } => {
            crate::values::select(backend, session, config, target, &path).await
        }
        Action::Launch { app, focus } => {
            crate::manage::launch(backend, session, &app, focus, control).await
        }
        Action::Focus => crate::manage::focus(backend, session, target).await,
        Action::Close => crate::manage::close(backend, session, target).await,
        Action::Kill => crate::manage::kill(backend, session, target).await,
        Action::Window(spec) => crate::manage::arrange(backend, session, target, &spec).await,
        Action::ReadClipboard => crate::manage::read_clipboard(backend).await,
        Action::Recall(request) => {
            let recalled = memory(config)?.recall(&request, std::time::SystemTime::now())?;
            Ok(Reply::observed(recalled.text, recalled.data))
        }
        Action::Forget { app } => {
            let windows = memory(config)?.forget(app.as_deref())?;
            let what = match &app {
                Some(app) => format!("what it knew of \"{}\"", escape(app)),
                None => "everything it knew".to_string(),
            };
            Ok(Reply {
                text: format!(
                    "done: memory forgot {what} ({})\n",
                    plural(windows, "window", "windows")
                ),
                outcome: Outcome::Done,
                image: None,
                data: json!({"action": "forget", "app": app, "windows": windows}),
            })
        }
        Action::WriteClipboard { text } => crate::manage::write_clipboard(backend, &text).await,
        Action::Press { keys } => {
            let into = match focused_window(backend, session).await? {
                Some(label) => format!("in {label}, the focused window"),
                None => "with no window focused".to_string(),
            };
            let outcome = backend.press_keys(&keys).await?;
            Ok(Reply::input(
                outcome,
                format!("pressed {keys} {into}"),
                json!({"action": "press", "keys": keys.to_string()}),
            ))
        }
        Action::Scroll {
            place,
            direction,
            amount,
        } => {
            let at = match &place {
                Some(place) => Some(locate(backend, session, target, place).await?),
                None => None,
            };
            let did = format!(
                "scrolled {} {} {}",
                serde_json::to_value(direction)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                plural(amount as usize, "click", "clicks"),
                at.as_ref()
                    .map(|l| format!("at {}", l.describe()))
                    .unwrap_or_else(|| "where the pointer is".into())
            );
            backend
                .scroll(at.map(|l| l.pixel), direction, amount)
                .await?;
            Ok(Reply::input(
                InputOutcome::Done,
                did,
                json!({"action": "scroll", "direction": direction, "amount": amount}),
            ))
        }
        Action::Drag {
            from,
            to,
            via,
            duration_ms,
            button,
            modifiers,
        } => {
            let start = locate(backend, session, target, &from).await?;
            let end = locate(backend, session, target, &to).await?;
            let mut points = vec![start.pixel];
            if !via.is_empty() {
                let surface = resolve(backend, session, target).await?;
                points.extend(via.iter().map(|[x, y]| to_pixel(&surface.rect, *x, *y)));
            }
            points.push(end.pixel);
            backend
                .drag_path(
                    &points,
                    button,
                    &modifiers,
                    std::time::Duration::from_millis(u64::from(duration_ms)),
                )
                .await?;
            let through = match via.len() {
                0 => String::new(),
                n => format!(" through {}", plural(n, "point", "points")),
            };
            Ok(Reply::input(
                InputOutcome::Done,
                format!(
                    "dragged from {} to {}{through}",
                    start.describe(),
                    end.describe()
                ),
                json!({"action": "drag", "from": start.pixel, "to": end.pixel, "points": points.len()}),
            ))
        }
    }
}

fn memory(config: &Config) -> Result<&dyn crate::memory::Memory> {
    config.memory.as_deref().ok_or_else(|| {
        Error::new(
            ErrorKind::Unsupported,
            "memory is off for this deskhand (started with `--memory off`); observe instead, or ask the user to turn memory on",
        )
    })
}

async fn apps<B: Backend>(backend: &B, session: &mut Session) -> Result<Reply> {
    let apps = backend.apps().await?;
    let mut text = format!("apps · {}\n", plural(apps.len(), "app", "apps"));
    let mut listed = Vec::new();
    for app in &apps {
        let id = session.app_id(app.pid);
        text.push_str(&format!(
            "a{id} \"{}\" pid {} · {}{}\n",
            escape(&app.name),
            app.pid,
            plural(app.windows, "window", "windows"),
            if app.focused { " · focused" } else { "" }
        ));
        listed.push(json!({"id": format!("a{id}"), "name": app.name, "pid": app.pid, "windows": app.windows, "focused": app.focused}));
    }
    Ok(Reply::observed(text, json!({"apps": listed})))
}

async fn windows<B: Backend>(backend: &B, session: &mut Session) -> Result<Reply> {
    let windows = backend.windows().await?;
    let mut text = format!(
        "windows · {} · top first\n",
        plural(windows.len(), "window", "windows")
    );
    let mut listed = Vec::new();
    for window in windows.iter().rev() {
        let id = session.window_id(window.key());
        let app = window
            .pid
            .map(|pid| format!("a{} ", session.app_id(pid)))
            .unwrap_or_default();
        let b = window.bounds;
        text.push_str(&format!(
            "w{id} \"{}\" · app {app}\"{}\" · {},{} {}x{}{}{}\n",
            escape(&crate::render::cut(&window.title, crate::render::MAX_NAME_CHARS).0),
            escape(&window.app_name),
            b.x,
            b.y,
            b.width,
            b.height,
            if window.focused { " · focused" } else { "" },
            if window.minimized {
                " · minimized"
            } else {
                ""
            },
        ));
        listed.push(json!({
            "id": format!("w{id}"), "title": window.title, "app": window.app_name,
            "app_id": window.pid.map(|pid| format!("a{}", session.app_id(pid))),
            "bounds": b, "focused": window.focused, "minimized": window.minimized,
        }));
    }
    Ok(Reply::observed(text, json!({"windows": listed})))
}

/// The window a key names, if it still exists: a window with the same handle in another process
/// is a different window that reused a closed one's id.
async fn live_window<B: Backend>(backend: &B, key: WindowKey) -> Result<Option<WindowInfo>> {
    Ok(backend
        .window(key.handle)
        .await?
        .filter(|window| window.pid == key.pid))
}

/// Resolves the named target, else the current surface, else the frontmost window.
pub(crate) async fn resolve<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
) -> Result<Surface> {
    match target.or(session.current) {
        Some(TargetId::Screen) => screen_surface(backend).await,
        Some(TargetId::Window(id)) => {
            let key = session.window_key(id)?;
            match live_window(backend, key).await? {
                Some(window) => Ok(window_surface(session, window)),
                None => Err(Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "w{id} is gone: that window was closed; call `windows` and pick another window"
                    ),
                )),
            }
        }
        Some(TargetId::App(id)) => {
            let pid = session.app_pid(id)?;
            let windows = backend.windows().await?;
            let mine: Vec<&WindowInfo> = windows.iter().filter(|w| w.pid == Some(pid)).collect();
            let chosen = mine
                .iter()
                .find(|w| w.focused)
                .or_else(|| mine.iter().rev().find(|w| !w.minimized))
                .or_else(|| mine.last());
            match chosen {
                Some(window) => Ok(window_surface(session, (*window).clone())),
                None => Err(Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "a{id} has no open window now (it quit or closed them all); call `apps` to see what is running"
                    ),
                )),
            }
        }
        None => {
            let windows = backend.windows().await?;
            let front = windows
                .iter()
                .find(|w| w.focused)
                .or_else(|| windows.iter().rev().find(|w| !w.minimized));
            match front {
                Some(window) => Ok(window_surface(session, window.clone())),
                None => screen_surface(backend).await,
            }
        }
    }
}

async fn screen_surface<B: Backend>(backend: &B) -> Result<Surface> {
    Ok(Surface {
        key: SurfaceKey::Screen,
        label: "screen".into(),
        rect: backend.screen().await?,
        window: None,
    })
}

fn window_surface(session: &mut Session, window: WindowInfo) -> Surface {
    Surface {
        key: SurfaceKey::Window(window.key()),
        label: format!("w{}", session.window_id(window.key())),
        rect: window.bounds,
        window: Some(window),
    }
}

/// Makes the surface a successful read used the current one. An app id is resolved to the window
/// it named, so later calls act on what the agent saw even after the app's focus moves.
fn make_current(session: &mut Session, surface: &Surface) {
    session.current = Some(match surface.key {
        SurfaceKey::Screen => TargetId::Screen,
        SurfaceKey::Window(key) => TargetId::Window(session.window_id(key)),
    });
}

fn describe_surface(session: &mut Session, surface: &Surface) -> String {
    match &surface.window {
        Some(window) => {
            let app = window
                .pid
                .map(|pid| format!("a{} ", session.app_id(pid)))
                .unwrap_or_default();
            format!(
                "{} \"{}\" · app {app}\"{}\"",
                surface.label,
                escape(&crate::render::cut(&window.title, crate::render::MAX_NAME_CHARS).0),
                escape(&window.app_name)
            )
        }
        None => "screen".into(),
    }
}

async fn observe<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    target: Option<TargetId>,
    spec: &ObserveSpec,
) -> Result<Reply> {
    let read = SurfaceTrees::read(backend, session, target).await?;
    let labelled = read.labelled(session);
    let (surface, trees, unreadable) = (&read.surface, &read.trees, &read.unreadable);
    // Taken out now and put back below: nothing fails from here on.
    let previous = session.take_seen(surface.key);
    let now_ms = crate::learn::unix_ms();
    let mut rendered = render(
        &labelled,
        &surface.rect,
        spec,
        previous.as_ref().map(|(seen, _)| seen.as_slice()),
        session,
    );
    rendered.compared_ms = previous
        .as_ref()
        .filter(|(_, at_ms)| *at_ms > 0)
        .map(|(_, at_ms)| now_ms.saturating_sub(*at_ms));
    let mut header = format!(
        "observe {} · {}x{} px · {}",
        describe_surface(session, surface),
        surface.rect.width,
        surface.rect.height,
        rendered.summary(&surface.label)
    );
    let partial: Vec<String> = trees
        .iter()
        .filter_map(|(window, tree)| {
            let why = tree.partial.as_deref()?;
            Some(match surface.window {
                Some(_) => one_line(why),
                None => format!("w{}: {}", session.window_id(window.key()), one_line(why)),
            })
        })
        .collect();
    if !partial.is_empty() {
        header.push_str(&format!(" · partial: {}", partial.join("; ")));
    }
    if !unreadable.is_empty() {
        header.push_str(&format!(" · unreadable: {}", unreadable.join("; ")));
    }
    let mut data = json!({
        "surface": surface.label,
        "bounds": surface.rect,
        "nodes": rendered.nodes,
        "names_cut": rendered.names_cut,
        "values_cut": rendered.values_cut,
        "hidden": rendered.hidden,
        "partial": partial,
        "elements": rendered.elements,
    });
    // Only what a call asked for, or a cut, adds fields: the common reply stays as short.
    if rendered.total > rendered.elements.len() {
        data["elements_total"] = json!(rendered.total);
        data["limit"] = json!(rendered.limit);
    }
    if let Some((query, matches)) = &rendered.query {
        data["query"] = json!(query);
        data["matches"] = json!(matches);
    }
    if rendered.below_depth > 0 {
        data["below_depth"] = json!(rendered.below_depth);
    }
    if let Some(since) = rendered.since {
        data["since"] = match since {
            Some(changes) => {
                json!({"previous": true, "added": changes.added, "removed": changes.removed, "changed": changes.changed})
            }
            None => json!({"previous": false}),
        };
    }
    // App text is fenced: the line after the header says quoted text is data.
    let mut text = format!("{header}\n{FENCE}\n{}", rendered.body);
    let single = surface.window.is_some();
    for (window, tree) in trees {
        if let Some(note) = crate::learn::observed(config, session, window, tree, single) {
            text.push_str(&note);
            text.push('\n');
            break;
        }
    }
    session.remember(surface.key, std::mem::take(&mut rendered.seen), now_ms);
    session.observed(Observation {
        surface: surface.key,
        label: surface.label.clone(),
        refs: rendered.refs,
    });
    make_current(session, surface);
    Ok(Reply::observed(text, data))
}

async fn capture<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    target: Option<TargetId>,
    region: Option<[f64; 4]>,
) -> Result<Reply> {
    let surface = resolve(backend, session, target).await?;
    let (rect, kind) = match region {
        Some(region) => (region_to_rect(&surface.rect, region)?, "zoom"),
        None => (surface.rect, "screenshot"),
    };
    let image = backend.capture(rect).await?;
    let (native_w, native_h) = (image.width, image.height);
    let image = if region.is_some() {
        image
    } else {
        fit(image, config.max_image_edge)
    };
    let png = encode_png(&image)?;
    let scaled = if (image.width, image.height) != (native_w, native_h) {
        format!(" · scaled to {}x{}", image.width, image.height)
    } else {
        String::new()
    };
    let region_text = region
        .map(|[x0, y0, x1, y1]| format!(" region [{x0}, {y0}, {x1}, {y1}]"))
        .unwrap_or_default();
    let text = format!(
        "{kind} {}{region_text} · {native_w}x{native_h} px{scaled}\n",
        describe_surface(session, &surface)
    );
    let data = json!({
        "surface": surface.label, "kind": kind, "pixels": rect,
        "width": image.width, "height": image.height,
    });
    make_current(session, &surface);
    Ok(Reply {
        text,
        outcome: Outcome::Observed,
        image: Some(png),
        data,
    })
}

/// A resolved place: the pixel, and how to describe it in a reply.
struct Located {
    pixel: Point,
    what: String,
}

impl Located {
    fn describe(&self) -> String {
        self.what.clone()
    }
}

/// A ref's entry after checking it belongs to the call's surface and its window still exists.
pub(crate) async fn ref_entry<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
    id: RefId,
) -> Result<(RefEntry, WindowInfo)> {
    let (observation, entry) = session.resolve_ref(id)?;
    let (observed_on, observed_label, entry) = (
        observation.surface,
        observation.label.clone(),
        entry.clone(),
    );
    if let Some(named) = target {
        let surface = resolve(backend, session, Some(named)).await?;
        if surface.key != observed_on {
            return Err(Error::new(
                ErrorKind::RefWrongSurface,
                format!(
                    "{id} was observed on {observed_label}, not on {}; observe {named} and use its refs, or leave out `target`",
                    if surface.label == named.to_string() {
                        surface.label.clone()
                    } else {
                        format!("{named} ({})", surface.label)
                    }
                ),
            ));
        }
    }
    match live_window(backend, entry.window).await? {
        Some(window) => Ok((entry, window)),
        None => Err(Error::new(
            ErrorKind::SurfaceGone,
            format!(
                "{id} was in a window that is gone now; call `windows`, then observe the window you want"
            ),
        )),
    }
}

fn ref_label(id: RefId, entry: &RefEntry) -> String {
    if entry.name.is_empty() {
        format!("{id} {}", entry.role.as_str())
    } else {
        format!("{id} {} \"{}\"", entry.role.as_str(), escape(&entry.name))
    }
}

/// The current center of a ref's element, read again so a moved window is followed.
async fn ref_center<B: Backend>(
    backend: &B,
    id: RefId,
    entry: &RefEntry,
    window: &WindowInfo,
) -> Result<Point> {
    // An element off screen (a closed menu's item) can report extents far outside any window.
    let screen = backend.screen().await?;
    match backend.element_bounds(window, &entry.handle).await? {
        Some(bounds) if !bounds.is_empty() && screen.contains(bounds.center()) => {
            Ok(bounds.center())
        }
        _ => Err(Error::new(
            ErrorKind::ElementGone,
            format!(
                "{} is not on screen (removed, hidden, in a closed menu or zero-sized); call `observe` again",
                ref_label(id, entry)
            ),
        )),
    }
}

/// An element a call names, by ref or by `find`.
pub(crate) struct Named {
    pub(crate) id: RefId,
    pub(crate) entry: RefEntry,
    pub(crate) window: WindowInfo,
}

impl Named {
    pub(crate) fn label(&self) -> String {
        ref_label(self.id, &self.entry)
    }
}

/// The element a place names; `None` for a point.
pub(crate) async fn named<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
    place: &Place,
) -> Result<Option<Named>> {
    match place {
        Place::Ref(id) => {
            let (entry, window) = ref_entry(backend, session, target, *id).await?;
            Ok(Some(Named {
                id: *id,
                entry,
                window,
            }))
        }
        Place::Find(find) => {
            let (id, entry, window) = find_one(backend, session, target, find).await?;
            Ok(Some(Named { id, entry, window }))
        }
        Place::Point { .. } => Ok(None),
    }
}

async fn locate<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
    place: &Place,
) -> Result<Located> {
    if let Some(element) = named(backend, session, target, place).await? {
        let pixel = ref_center(backend, element.id, &element.entry, &element.window).await?;
        return Ok(Located {
            pixel,
            what: format!("{} (pixel {},{})", element.label(), pixel.x, pixel.y),
        });
    }
    let Place::Point { x, y } = *place else {
        unreachable!("a place that names no element is a point")
    };
    let surface = resolve(backend, session, target).await?;
    Ok(point_on(&surface, x, y))
}

/// A point 0–1000 of a resolved surface.
fn point_on(surface: &Surface, x: f64, y: f64) -> Located {
    let pixel = to_pixel(&surface.rect, x, y);
    Located {
        pixel,
        what: format!(
            "{x},{y} of {} (pixel {},{})",
            surface.label, pixel.x, pixel.y
        ),
    }
}

fn click_verb(click: &ClickSpec) -> String {
    let times = match click.count {
        1 => "",
        2 => "double-",
        _ => "triple-",
    };
    let button = match click.button {
        MouseButton::Left => "",
        MouseButton::Middle => "middle-",
        MouseButton::Right => "right-",
    };
    let held = if click.modifiers.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = click
            .modifiers
            .iter()
            .filter_map(|m| serde_json::to_value(m).ok())
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        format!(" with {} held", names.join("+"))
    };
    format!("{button}{times}clicked{held}")
}

async fn click_at<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    target: Option<TargetId>,
    place: Place,
    click: ClickSpec,
) -> Result<Reply> {
    let verb = click_verb(&click);
    if let Some(element) = named(backend, session, target, &place).await? {
        let label = element.label();
        crate::learn::before(backend, config, session, &element.window).await;
        let failed = |err| element_failure(err, &format!("{label} could not be clicked"));
        let names = if click.is_plain() {
            backend
                .action_names(&element.entry.handle)
                .await
                .map_err(failed)?
        } else {
            Vec::new()
        };
        let reference = element.id.to_string();
        if let Some(index) = click_action(element.entry.role, &names) {
            let action = &names[index];
            // Asked before the action: an app blocked by it could no longer say.
            let in_request = backend.actions_run_in_request(&element.window).await;
            let ran = run_action(backend, session, &element.entry.handle, index).await;
            let opened = if !in_request && ran.as_ref().is_err_and(|err| err.sent) {
                opened_since_action(backend, session, &element.window)
                    .await
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            if !opened.is_empty() {
                let opened: Vec<String> = opened.iter().map(|w| window_label(session, w)).collect();
                let opened = opened.join(", ");
                // Qt answers an action only once the dialog it opened closes: the window is
                // the confirmation.
                learn_click(config, session, &element, &click);
                return Ok(Reply::input(
                    InputOutcome::Done,
                    format!(
                        "{verb} {label} through its accessibility action \"{action}\"; it opened {opened} (the app answers the request only once that window closes)"
                    ),
                    json!({"action": "click", "ref": reference, "path": "accessibility", "accessibility_action": action, "opened": opened}),
                ));
            }
            ran.map_err(|err| {
                intended(
                    failed(err),
                    &format!("{verb} {label} through its accessibility action \"{action}\""),
                )
            })?;
            if let Some(reply) = unblock(backend, session, &element, &verb, in_request).await? {
                learn_click(config, session, &element, &click);
                return Ok(reply);
            }
            learn_click(config, session, &element, &click);
            return Ok(Reply::input(
                InputOutcome::Done,
                format!(
                    "{verb} {label} through its accessibility action \"{action}\" (pointer not moved)"
                ),
                json!({"action": "click", "ref": reference, "path": "accessibility", "accessibility_action": action}),
            ));
        }
        // The pointer clicks whatever shows at the point: the element's window comes to the
        // front first, or the click would land on a window covering it.
        ensure_focused(backend, &element.window).await?;
        let pixel = ref_center(backend, element.id, &element.entry, &element.window).await?;
        backend
            .click(pixel, click.button, click.count, &click.modifiers)
            .await?;
        learn_click(config, session, &element, &click);
        return Ok(Reply::input(
            InputOutcome::Done,
            format!(
                "{verb} {label} with the pointer at its center (pixel {},{})",
                pixel.x, pixel.y
            ),
            json!({"action": "click", "ref": reference, "path": "pointer", "pixel": pixel}),
        ));
    }
    let spot = locate(backend, session, target, &place).await?;
    backend
        .click(spot.pixel, click.button, click.count, &click.modifiers)
        .await?;
    Ok(Reply::input(
        InputOutcome::Done,
        format!("{verb} at {} with the pointer", spot.describe()),
        json!({"action": "click", "path": "pointer", "pixel": spot.pixel}),
    ))
}

/// The windows of `window`'s process that appeared since the latest action began; none when
/// what was there before is unknown (then no window can be told apart as new).
async fn opened_since_action<B: Backend>(
    backend: &B,
    session: &Session,
    window: &WindowInfo,
) -> Result<Vec<WindowInfo>> {
    let Some((before, _)) = &session.windows_before_action else {
        return Ok(Vec::new());
    };
    Ok(backend
        .windows()
        .await?
        .into_iter()
        .filter(|w| w.pid == window.pid && !before.contains(&w.key()))
        .collect())
}

/// A window as replies name it: `w5 "Save as..."`.
fn window_label(session: &mut Session, window: &WindowInfo) -> String {
    format!(
        "w{} \"{}\"",
        session.window_id(window.key()),
        escape(&crate::render::cut(&window.title, crate::render::MAX_NAME_CHARS).0)
    )
}

/// How long an app has to answer again once the dialog that blocked it is closed.
const UNBLOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// After an accessibility action in a toolkit that runs it inside the request (GTK3,
/// LibreOffice): if the action opened a modal dialog, the app serves no accessibility request
/// while the dialog is open, and a key sent meanwhile can hang it for good. Then the dialog is
/// closed at once (which cancels it), and the element is clicked with the pointer instead, so
/// the dialog runs from the app's own event loop and can be read and answered. `None`: the app
/// answers, nothing to do.
pub(crate) async fn unblock<B: Backend>(
    backend: &B,
    session: &mut Session,
    element: &Named,
    verb: &str,
    in_request: bool,
) -> Result<Option<Reply>> {
    let window = &element.window;
    if !in_request || backend.answers(window).await {
        return Ok(None);
    }
    let label = element.label();
    let opened = opened_since_action(backend, session, window).await?;
    if opened.is_empty() {
        return Err(Error::new(
            ErrorKind::Timeout,
            format!(
                "{verb} {label} through its accessibility action, and the app has not answered since: it may be busy with what the click started; do not press keys yet: `wait` a few seconds, then observe"
            ),
        )
        .after_sending());
    }
    for dialog in &opened {
        backend.close(dialog).await?;
    }
    let until = std::time::Instant::now() + UNBLOCK_WAIT;
    while !backend.answers(window).await {
        if std::time::Instant::now() >= until {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "{verb} {label} through its accessibility action; it opened a dialog that keeps the app from answering, and the app still does not answer after that dialog was asked to close; do not press keys: take a `screenshot` and close the dialog with the pointer"
                ),
            )
            .after_sending());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let screen = backend.screen().await?;
    let bounds = backend
        .element_bounds(window, &element.entry.handle)
        .await?
        .filter(|b| !b.is_empty() && screen.contains(b.center()));
    let Some(bounds) = bounds else {
        return Err(Error::new(
            ErrorKind::Platform,
            format!(
                "{verb} {label} through its accessibility action; it opened a dialog inside the accessibility request, which keeps the app from answering, so deskhand closed that dialog again; the element is not on screen to click with the pointer: open what holds it (for a menu item, `select` its menu path), then click it"
            ),
        )
        .after_sending());
    };
    ensure_focused(backend, window).await?;
    let pixel = bounds.center();
    backend.click(pixel, MouseButton::Left, 1, &[]).await?;
    Ok(Some(Reply::input(
        InputOutcome::Done,
        format!(
            "{verb} {label} with the pointer at its center (pixel {},{}): its accessibility action opened a dialog inside the accessibility request, which keeps this app from answering until the dialog closes, so deskhand closed that dialog at once and clicked with the pointer instead; the dialog it opens can be observed and answered",
            pixel.x, pixel.y
        ),
        json!({"action": "click", "ref": element.id.to_string(), "path": "pointer", "pixel": pixel, "unblocked": true}),
    )))
}

/// GTK ignores a button's activation while the previous one is still being shown (250 ms), so
/// the same element is activated again only this long after its last activation.
const REACTIVATION_GAP_MS: u64 = 400;

/// Runs an element's accessibility action, keeping repeated activations of one element far
/// enough apart that the toolkit counts each of them.
pub(crate) async fn run_action<B: Backend>(
    backend: &B,
    session: &mut Session,
    element: &crate::model::ElementHandle,
    index: usize,
) -> Result<()> {
    if let Some((last, at_ms)) = &session.last_activation
        && last == element
    {
        let since = crate::learn::unix_ms().saturating_sub(*at_ms);
        if since < REACTIVATION_GAP_MS {
            tokio::time::sleep(std::time::Duration::from_millis(
                REACTIVATION_GAP_MS - since,
            ))
            .await;
        }
    }
    let result = backend.do_action(element, index).await;
    if result.as_ref().is_ok() || result.as_ref().is_err_and(|err| err.sent) {
        session.last_activation = Some((element.clone(), crate::learn::unix_ms()));
    }
    result
}

/// A plain click on a named control is a step memory can learn the effect of.
fn learn_click(config: &Config, session: &mut Session, element: &Named, click: &ClickSpec) {
    if click.is_plain() && !element.entry.name.is_empty() {
        let control = crate::memory::Control {
            role: element.entry.role,
            name: element.entry.name.clone(),
        };
        crate::learn::acted(
            config,
            session,
            &element.window,
            crate::memory::Step::Click(control),
        );
    }
}

/// A failure after the request went out, saying what was asked: the reply calls it applied but
/// unconfirmed, and must say what may have happened.
pub(crate) fn intended(err: Error, did: &str) -> Error {
    if err.sent {
        Error {
            message: format!("{did}: {}", err.message),
            ..err
        }
    } else {
        err
    }
}

/// A platform failure on one element most often means the element went away.
pub(crate) fn element_failure(err: Error, what: &str) -> Error {
    match err.kind {
        _ if err.sent => err,
        ErrorKind::Platform => {
            let why = err.message.trim_end_matches('.');
            let why = why.strip_suffix("; call `observe` again").unwrap_or(why);
            Error::new(
                ErrorKind::ElementGone,
                format!("{what}: {why}; call `observe` again"),
            )
        }
        _ => err,
    }
}

/// How long an element has to report the keyboard focus it was given.
const FOCUS_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Waits until the element reports the keyboard focus; false if it does not within
/// [`FOCUS_WAIT`].
async fn focus_arrives<B: Backend>(backend: &B, element: &Named) -> Result<bool> {
    let until = std::time::Instant::now() + FOCUS_WAIT;
    loop {
        if backend.element_focused(&element.entry.handle).await? {
            return Ok(true);
        }
        if std::time::Instant::now() >= until {
            return Ok(false);
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Gives the element the keyboard focus and confirms it has it before a key is sent: asked
/// through accessibility first, else by a pointer click at its center. Returns how the reply
/// names what the keys went into.
pub(crate) async fn focus_for_typing<B: Backend>(backend: &B, element: &Named) -> Result<String> {
    let label = element.label();
    let not_typed = |err: Error| {
        intended(
            element_failure(err, &format!("{label} could not take keyboard focus")),
            &format!("moving the keyboard focus to {label} (nothing was typed)"),
        )
    };
    let asked = match backend.focus_element(&element.entry.handle).await {
        Ok(()) => None,
        Err(err) if err.kind == ErrorKind::Unsupported => Some(err.message),
        Err(err) => return Err(not_typed(err)),
    };
    // Where it cannot be asked, a click would move the caret: only when it is not focused yet.
    let focused = match asked {
        None => focus_arrives(backend, element).await,
        Some(_) => backend.element_focused(&element.entry.handle).await,
    };
    if focused.map_err(not_typed)? {
        return Ok(label);
    }
    let pixel = ref_center(backend, element.id, &element.entry, &element.window).await?;
    backend.click(pixel, MouseButton::Left, 1, &[]).await?;
    if focus_arrives(backend, element).await.map_err(not_typed)? {
        return Ok(format!(
            "{label} (focused by a click at pixel {},{})",
            pixel.x, pixel.y
        ));
    }
    let why = asked.unwrap_or_else(|| {
        format!(
            "asked to take the keyboard focus, it did not report having it within {} ms",
            FOCUS_WAIT.as_millis()
        )
    });
    Err(Error::new(
        ErrorKind::Platform,
        format!(
            "{label} did not take the keyboard focus ({}), and after a click at its center (pixel {},{}) it still did not report it, so nothing was typed; observe to see where the focus is, click the field you mean, then `type` without a ref",
            why.trim_end_matches('.'),
            pixel.x,
            pixel.y
        ),
    )
    .after_sending())
}

/// The window with the keyboard focus, as `w3 "Title"`: where untargeted keys go.
async fn focused_window<B: Backend>(backend: &B, session: &mut Session) -> Result<Option<String>> {
    let windows = backend.windows().await?;
    Ok(windows
        .iter()
        .find(|w| w.focused)
        .map(|window| window_label(session, window)))
}

/// Raises and focuses the window unless it already has the focus: keys go to the focused
/// window, so typing "into" anything starts here.
pub(crate) async fn ensure_focused<B: Backend>(backend: &B, window: &WindowInfo) -> Result<()> {
    let now = backend.window(window.handle).await?;
    if now.as_ref().is_some_and(|w| w.focused) {
        return Ok(());
    }
    backend.activate(window).await
}

async fn type_text<B: Backend>(
    backend: &B,
    session: &mut Session,
    target: Option<TargetId>,
    text: &str,
    place: Option<Place>,
    replace: bool,
) -> Result<Reply> {
    let chars = text.chars().count();
    // Focusing and typing happen in one call, so nothing can take the focus in between.
    let into = match &place {
        Some(place @ (Place::Ref(_) | Place::Find(_))) => {
            let element = named(backend, session, target, place)
                .await?
                .expect("a ref or find names an element");
            ensure_focused(backend, &element.window).await?;
            let into = focus_for_typing(backend, &element).await?;
            format!("{into} in {}", window_label(session, &element.window))
        }
        Some(Place::Point { x, y }) => {
            let surface = resolve(backend, session, target).await?;
            let spot = point_on(&surface, *x, *y);
            if let Some(window) = &surface.window {
                ensure_focused(backend, window).await?;
            }
            backend.click(spot.pixel, MouseButton::Left, 1, &[]).await?;
            format!("what was clicked at {}", spot.describe())
        }
        None => match target {
            Some(named_target) => {
                let surface = resolve(backend, session, Some(named_target)).await?;
                let Some(window) = &surface.window else {
                    return Err(Error::bad_argument(
                        "`type` cannot focus the whole screen; give a window (`target` \"wN\") or an element (`ref`, `find`)",
                    ));
                };
                ensure_focused(backend, window).await?;
                format!("the focused element of {}", surface.label)
            }
            None => match focused_window(backend, session).await? {
                Some(label) => format!("the focused element of {label}"),
                None => "the focused element (no window has the focus)".to_string(),
            },
        },
    };
    // Typing over a selection replaces it, in every toolkit's text fields.
    if replace {
        let selected = backend
            .press_keys(&Keys::from(Chord::ctrl(Key::Char('a'))))
            .await?;
        if selected != InputOutcome::Done {
            return Ok(Reply::input(
                selected,
                format!("selected all in {into} to replace it, but typed nothing"),
                json!({"action": "type", "characters": 0, "replace": true}),
            ));
        }
    }
    // The text is never echoed: it may be a password.
    let outcome = backend.type_text(text).await?;
    let typed = plural(chars, "character", "characters");
    Ok(Reply::input(
        outcome,
        if replace {
            format!("replaced the content of {into} with {typed}")
        } else {
            format!("typed {typed} into {into}")
        },
        json!({"action": "type", "characters": chars, "replace": replace}),
    ))
}
