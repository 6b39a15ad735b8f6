//! Clicks: through the element's accessibility action where it has one, else with the pointer.

use crate::action::{
    Action, ActionName, ActionSpec, Changes, ClickSpec, Given, Kept, MAX_CLICKS, Place, Reaches,
};
use crate::backend::{Accessibility, Capture, Hit, Input, Intent, SpotKind, Values, Windows};
use crate::desk::answer::words::click_verb;
use crate::desk::answer::{Acted, ClickPath, Did};
use crate::desk::config::Config;
use crate::desk::focus::ensure_focused;
use crate::desk::reach::{Named, Reach, ref_center};
use crate::desk::reply::{Reply, element_failure, intended};
use crate::desk::surface::window_said;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{ElementHandle, MouseButton, Node, Point, Role, WindowInfo};
use crate::render::click_action;
use crate::render::escape;
use crate::session::{Session, SurfaceKey, element_key};
use crate::values::set::{READ_BACK_TIMEOUT, combo_shows};

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Click,
    text: "click",
    fields: &[
        "target",
        "ref",
        "find",
        "x",
        "y",
        "button",
        "count",
        "modifiers",
    ],
    changes: Changes::Desktop,
    reaches: Reaches::Place,
    keeps: &[Kept::Place, Kept::Button, Kept::Count, Kept::Modifiers],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let count = given.args.count.unwrap_or(1);
    if !(1..=MAX_CLICKS).contains(&count) {
        return Err(Error::bad_argument(format!(
            "`count` is {count}; give 1, 2 (double click) or 3 (triple click)"
        )));
    }
    Ok(Action::Click {
        place: given.place(true)?.expect("required place"),
        click: ClickSpec {
            button: given.args.button.unwrap_or(MouseButton::Left),
            count,
            modifiers: given.modifiers(),
        },
    })
}

pub(super) async fn click_at<B: Windows + Accessibility + Input + Capture + Values>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
    place: Place,
    click: ClickSpec,
) -> Result<Reply> {
    let verb = click_verb(&click);
    if let Some(element) = reach.named(backend, session, &place).await? {
        element.refuse_if_disabled()?;
        session.clicked_password = element.entry.role == Role::Password;
        let label = element.label();
        let said = element.said();
        if let Some(bounds) = element.entry.bounds {
            backend.show_intent(Intent::Element(bounds));
        }
        crate::learn::before(backend, config, session, &element.window).await;
        let failed = |err| element_failure(err, &format!("{label} could not be clicked"));
        let from_pixels = element.entry.handle.is_read_from_pixels();
        // An item of a drop-down's list is chosen with the pointer, in the open list, and read
        // back from the box: Qt's items take their action and only move the list's highlight.
        let dropdown = dropdown_of(session, &element);
        let names = if click.is_plain() && !from_pixels && dropdown.is_none() {
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
                windows_opened(backend, session, &element.window).await
            } else {
                None
            };
            if let Some(opened) = opened {
                // Qt answers an action only once the dialog it opened closes: the window is
                // the confirmation.
                learn_click(config, session, &element, &click);
                return Ok(Acted::done(Did::ClickByAction {
                    reference,
                    path: ClickPath::Accessibility,
                    accessibility_action: action.clone(),
                    opened: Some(opened),
                    closed: false,
                    click,
                    element: said,
                })
                .into());
            }
            ran.map_err(|err| {
                intended(
                    failed(err),
                    &format!("{verb} {label} through its accessibility action \"{action}\""),
                )
            })?;
            let closed = match unblock(backend, session, &element, &click, in_request).await? {
                AfterAction::Answers => false,
                AfterAction::WindowClosed => true,
                AfterAction::Unblocked(reply) => {
                    learn_click(config, session, &element, &click);
                    return Ok(reply);
                }
            };
            learn_click(config, session, &element, &click);
            return Ok(Acted::done(Did::ClickByAction {
                reference,
                path: ClickPath::Accessibility,
                accessibility_action: action.clone(),
                opened: None,
                closed,
                click,
                element: said,
            })
            .into());
        }
        if let Some(dropdown) = &dropdown
            && !list_open(backend, &element, dropdown).await?
        {
            return Err(Error::new(
                ErrorKind::ElementGone,
                format!(
                    "{label} is an item of a drop-down whose list is closed, so it is not on screen; nothing was done: `set_value` the drop-down to \"{}\", or click the drop-down to open its list, observe, and click the item",
                    escape(&element.entry.name)
                ),
            ));
        }
        // The pointer clicks whatever shows at the point: the element's window comes to the
        // front first, or the click would land on a window covering it.
        ensure_focused(backend, &element.window).await?;
        let (pixel, spot) = click_point(backend, &element, &verb).await?;
        backend.show_intent(Intent::Point(pixel));
        backend
            .click(pixel, click.button, click.count, &click.modifiers)
            .await?;
        if let Some(dropdown) = dropdown
            && click.is_plain()
        {
            confirm_chosen(backend, &element, &dropdown, pixel).await?;
        }
        learn_click(config, session, &element, &click);
        return Ok(Acted::done(Did::ClickOnElement {
            reference,
            path: ClickPath::Pointer,
            pixel,
            unblocked: false,
            click,
            element: said,
            from_pixels,
            spot,
        })
        .into());
    }
    let spot = reach.locate(backend, session, &place).await?;
    session.clicked_password = password_at(session, spot.pixel());
    backend.show_intent(Intent::Point(spot.pixel()));
    backend
        .click(spot.pixel(), click.button, click.count, &click.modifiers)
        .await?;
    Ok(Acted::done(Did::ClickAtPoint {
        path: ClickPath::Pointer,
        pixel: spot.pixel(),
        click,
        at: spot,
    })
    .into())
}

/// Whether a password field of the latest observation covers the pixel a click goes to.
fn password_at(session: &Session, pixel: Point) -> bool {
    session.latest.as_ref().is_some_and(|latest| {
        latest.refs.values().any(|entry| {
            entry.role == Role::Password && entry.bounds.is_some_and(|b| b.contains(pixel))
        })
    })
}

/// Where inside an element, as fractions of its width and height, a pointer click is tried
/// when neither its center nor a spot it names takes the click: the lower middle first, where
/// an icon view draws an item's text.
const FALLBACK_SPOTS: [(f64, f64); 8] = [
    (0.5, 0.8),
    (0.5, 0.2),
    (0.2, 0.5),
    (0.8, 0.5),
    (0.2, 0.8),
    (0.8, 0.8),
    (0.2, 0.2),
    (0.8, 0.2),
];

/// Where a pointer click by ref goes: the element's center when the toolkit says the pointer
/// reaches the element there, or cannot say; else the first point of it that does (its text,
/// a child, then points across it). An icon view's item can be empty at its center, and a
/// click there selects nothing. A toolkit that finds nothing at any point (WebKit's hit test)
/// says nothing either way: the center is clicked. When something covers the element at every
/// point, nothing is clicked.
async fn click_point<B: Windows + Accessibility>(
    backend: &B,
    element: &Named,
    verb: &str,
) -> Result<(crate::model::Point, SpotKind)> {
    let (window, handle) = (&element.window, &element.entry.handle);
    let center = ref_center(backend, element.id, &element.entry, window).await?;
    if handle.is_read_from_pixels() {
        return Ok((center, SpotKind::Center));
    }
    let at_center = backend.reaches(window, handle, center).await?;
    if matches!(at_center, None | Some(Hit::Element)) {
        return Ok((center, SpotKind::Center));
    }
    let mut covered = at_center == Some(Hit::Other);
    let bounds = backend.element_bounds(window, handle).await?;
    let mut spots = backend.element_spots(window, handle).await?;
    if let Some(bounds) = bounds {
        spots.extend(FALLBACK_SPOTS.iter().map(|(fx, fy)| {
            let at = crate::model::Point {
                x: bounds.x + (f64::from(bounds.width) * fx) as i32,
                y: bounds.y + (f64::from(bounds.height) * fy) as i32,
            };
            (at, SpotKind::Inside)
        }));
    }
    for (spot, what) in spots {
        if !bounds.is_some_and(|b| b.contains(spot)) {
            continue;
        }
        match backend.reaches(window, handle, spot).await? {
            Some(Hit::Element) => return Ok((spot, what)),
            Some(Hit::Other) => covered = true,
            _ => {}
        }
    }
    if !covered {
        return Ok((center, SpotKind::Center));
    }
    Err(Error::new(
        ErrorKind::ElementGone,
        format!(
            "{} was not {verb}: at its center (pixel {},{}) and at every other point of it tried, the app's element under the pointer is another or none (something covers it); nothing was done: take a `zoom` of it and click by `x`/`y` where it shows",
            element.label(),
            center.x,
            center.y
        ),
    ))
}

/// The windows of `window`'s process that appeared since the latest action began; none when
/// what was there before is unknown (then no window can be told apart as new).
async fn opened_since_action<B: Windows>(
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

/// How long after an unanswered action its window may still appear: Qt answers an action only
/// once the modal dialog it opened closes, and a dialog that takes long to build (KDE's file
/// dialog) shows well after the request timed out.
const OPENED_WAIT: std::time::Duration = std::time::Duration::from_secs(4);

/// The windows an action that went unanswered opened, as replies name them (`w5 "Save As"`),
/// waiting up to [`OPENED_WAIT`] for the first; `None` when none appeared.
pub(crate) async fn windows_opened<B: Windows>(
    backend: &B,
    session: &mut Session,
    window: &WindowInfo,
) -> Option<String> {
    let until = std::time::Instant::now() + OPENED_WAIT;
    loop {
        let opened = opened_since_action(backend, session, window)
            .await
            .unwrap_or_default();
        if !opened.is_empty() {
            let labels: Vec<String> = opened
                .iter()
                .map(|w| window_said(session, w).to_string())
                .collect();
            return Some(labels.join(", "));
        }
        if std::time::Instant::now() >= until || session.windows_before_action.is_none() {
            return None;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// How long an app has to answer again once the dialog that blocked it is closed.
const UNBLOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long a window whose app stopped answering after an action has to go away, when the
/// action ended the app.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// What became of an app after an accessibility action that may have run inside the request.
enum AfterAction {
    /// It answers: nothing to do.
    Answers,
    /// Its window went away: the action closed it (a dialog's button that ends its app).
    WindowClosed,
    /// A dialog the action opened blocked it; the dialog was closed and the element clicked
    /// with the pointer.
    Unblocked(Reply),
}

/// After an accessibility action in a toolkit that runs it inside the request (GTK3,
/// LibreOffice): if the action opened a modal dialog, the app serves no accessibility request
/// while the dialog is open, and a key sent meanwhile can hang it for good. Then the dialog is
/// closed at once (which cancels it), and the element is clicked with the pointer instead, so
/// the dialog runs from the app's own event loop and can be read and answered. `None`: the app
/// answers, nothing to do.
async fn unblock<B: Windows + Accessibility + Input>(
    backend: &B,
    session: &mut Session,
    element: &Named,
    click: &ClickSpec,
    in_request: bool,
) -> Result<AfterAction> {
    let verb = click_verb(click);
    let window = &element.window;
    if !in_request || backend.answers(window).await {
        return Ok(AfterAction::Answers);
    }
    let label = element.label();
    let opened = opened_since_action(backend, session, window).await?;
    if opened.is_empty() {
        // An app that ends cannot answer: its window going away says what happened.
        let until = std::time::Instant::now() + CLOSE_WAIT;
        loop {
            if backend.window(window.handle).await?.is_none() {
                return Ok(AfterAction::WindowClosed);
            }
            if std::time::Instant::now() >= until {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
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
    Ok(AfterAction::Unblocked(
        Acted::done(Did::ClickOnElement {
            reference: element.id.to_string(),
            path: ClickPath::Pointer,
            pixel,
            unblocked: true,
            click: click.clone(),
            element: element.said(),
            from_pixels: false,
            spot: SpotKind::Center,
        })
        .into(),
    ))
}

/// GTK ignores a button's activation while the previous one is still being shown (250 ms), and
/// Qt's press animates the button for 100 ms and counts a press within it as the same click, so
/// the same element is activated again only this long after its last activation.
const REACTIVATION_GAP_MS: u64 = 400;

/// Runs an element's accessibility action, keeping repeated activations of one element far
/// enough apart that the toolkit counts each of them, whatever was activated in between.
async fn run_action<B: Accessibility>(
    backend: &B,
    session: &mut Session,
    element: &crate::model::ElementHandle,
    index: usize,
) -> Result<()> {
    let now = crate::learn::unix_ms();
    session
        .activations
        .retain(|(_, at_ms)| now.saturating_sub(*at_ms) < REACTIVATION_GAP_MS);
    if let Some((_, at_ms)) = session.activations.iter().find(|(e, _)| e == element) {
        let since = now.saturating_sub(*at_ms);
        tokio::time::sleep(std::time::Duration::from_millis(
            REACTIVATION_GAP_MS - since,
        ))
        .await;
    }
    let result = backend.do_action(element, index).await;
    if result.as_ref().is_ok() || result.as_ref().is_err_and(|err| err.sent) {
        session.activations.retain(|(e, _)| e != element);
        session
            .activations
            .push((element.clone(), crate::learn::unix_ms()));
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

/// The drop-down the observation listed a list item in, if it was: its handle.
fn dropdown_of(session: &Session, element: &Named) -> Option<ElementHandle> {
    if element.entry.role != Role::Listitem {
        return None;
    }
    let seen = session.seen(SurfaceKey::Window(element.entry.window))?;
    let key = element_key(&element.entry.handle, element.entry.role);
    let at = seen.iter().position(|s| s.key == key)?;
    let mut depth = seen[at].depth;
    for ancestor in seen[..at].iter().rev() {
        if ancestor.depth < depth {
            if ancestor.role == Role::Combobox {
                let (handle, _) = ancestor.key.rsplit_once('|')?;
                return Some(ElementHandle(handle.to_owned()));
            }
            depth = ancestor.depth;
        }
    }
    None
}

/// Whether the item shows in the drop-down's open list: Qt keeps the places of a closed list's
/// items, and gives the list itself no size while it is closed.
async fn list_open<B: Accessibility>(
    backend: &B,
    element: &Named,
    dropdown: &ElementHandle,
) -> Result<bool> {
    fn parent_of<'n>(node: &'n Node, child: &ElementHandle) -> Option<&'n Node> {
        if node.children.iter().any(|c| &c.handle == child) {
            return Some(node);
        }
        node.children.iter().find_map(|c| parent_of(c, child))
    }
    let tree = backend.tree(&element.window).await?;
    let Some(combo) = tree.root.find(dropdown) else {
        return Ok(false);
    };
    let Some(item) = combo.find(&element.entry.handle) else {
        return Ok(false);
    };
    let list = parent_of(combo, &item.handle).and_then(|list| list.bounds);
    Ok(match (list, item.bounds) {
        (Some(list), Some(item)) => !list.is_empty() && list.contains(item.center()),
        _ => false,
    })
}

/// Waits for the drop-down to show the clicked item as its choice; the click went out, so a box
/// that keeps another choice makes the click applied but unconfirmed, naming what it shows.
async fn confirm_chosen<B: Accessibility + Values>(
    backend: &B,
    element: &Named,
    dropdown: &ElementHandle,
    pixel: crate::model::Point,
) -> Result<()> {
    let wanted = element.entry.name.as_str();
    let started = std::time::Instant::now();
    loop {
        let shown = combo_shows(backend, &element.window, dropdown).await?;
        let taken = shown.taken();
        if taken.as_deref().map(str::trim) == Some(wanted.trim()) {
            return Ok(());
        }
        if started.elapsed() >= READ_BACK_TIMEOUT {
            let keeps =
                taken.map_or_else(|| "no choice".to_owned(), |t| format!("\"{}\"", escape(&t)));
            return Err(Error::new(
                ErrorKind::Platform,
                format!(
                    "{} was clicked with the pointer (pixel {},{}), and its drop-down still shows {keeps}; observe it, or `set_value` the drop-down to \"{}\"",
                    element.label(),
                    pixel.x,
                    pixel.y,
                    escape(wanted)
                ),
            )
            .after_sending());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
