//! `set_value` and `select`: changes made through the accessibility interface rather than by
//! input events, each read back or checked level by level so they fail closed.

use std::time::{Duration, Instant};

use crate::action::{Place, ValueArg};
use crate::backend::Backend;
use crate::desk::{Acted, Did, Listed, Page};
use crate::desk::{Config, Reach, Reply, element_failure};
use crate::error::{Error, ErrorKind, Result};
use crate::find::normalize;
use crate::keys::{Chord, Key, Keys};
use crate::memory::Step;
use crate::model::{ElementHandle, Node, Role};
use crate::render::{click_action, escape, plural};
use crate::session::Session;

/// How long an opened menu has to show the next level's items.
const MENU_OPEN_TIMEOUT: Duration = Duration::from_secs(2);
const POLL: Duration = Duration::from_millis(60);
/// How long a set value has to read back as asked (apps may apply it on the next frame).
const READ_BACK_TIMEOUT: Duration = Duration::from_millis(1500);

pub(crate) async fn set_value<B: Backend>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    place: &Place,
    value: &ValueArg,
) -> Result<Reply> {
    let element = reach
        .named(backend, session, place)
        .await?
        .expect("set_value names an element");
    let label = element.label();
    if element.entry.handle.is_read_from_pixels() {
        return Err(Error::bad_argument(format!(
            "{label} is text read from pixels, with no value to set; `click` it and `type`, or set a field the tree shows"
        )));
    }
    let role = element.entry.role;
    let handle = element.entry.handle.clone();
    let failed = |err| element_failure(err, &format!("{label} could not be set"));
    let mut typed = false;
    let mut picked = false;
    let wanted = match (role, value) {
        (Role::Slider | Role::Spin | Role::Scrollbar | Role::Progress, _) => {
            let number = match value {
                ValueArg::Number(n) => *n,
                ValueArg::Text(text) => text.trim().parse::<f64>().map_err(|_| {
                    Error::bad_argument(format!(
                        "{label} takes a number, and \"{}\" is not one",
                        escape(text)
                    ))
                })?,
            };
            backend.set_number(&handle, number).await.map_err(failed)?;
            Wanted::Number(number)
        }
        (Role::Combobox, _) => {
            let text = value_text(value);
            let before = combo_shows(backend, &element.window, &handle)
                .await?
                .taken();
            let invoked = choose_in_combo(backend, &element.window, &handle, &label, &text).await?;
            let ignored = invoked
                && before.as_deref() != Some(text.as_str())
                && combo_unchanged(backend, &element.window, &handle, before.as_deref()).await?;
            // Qt's list item takes its action and moves only the open list's selection: a
            // person clicks the item where the list shows it.
            if ignored {
                picked = click_in_open_list(backend, &element.window, &handle, &text).await?;
            }
            if !invoked || (ignored && !picked) {
                // A web page's drop-down picks the option its typed name starts.
                crate::desk::ensure_focused(backend, &element.window).await?;
                crate::desk::focus_for_typing(backend, &element).await?;
                let mut landed =
                    backend.type_text(&text).await? == crate::backend::InputOutcome::Done;
                // A click that gave the box the focus may have opened its list, where the typed
                // name only highlights the choice: Return takes it.
                if landed
                    && combo_shows(backend, &element.window, &handle)
                        .await?
                        .expanded
                {
                    landed = backend
                        .press_keys(&Keys::from(Chord::key(Key::Return)))
                        .await?
                        == crate::backend::InputOutcome::Done;
                }
                if !landed {
                    return Err(Error::new(
                        ErrorKind::Platform,
                        format!(
                            "{label} was chosen by typing \"{}\", which may have landed only in part; observe it before trying again",
                            escape(&text)
                        ),
                    )
                    .after_sending());
                }
                typed = true;
            }
            Wanted::Text(text)
        }
        _ => {
            let text = value_text(value);
            let before = if role == Role::Password {
                None
            } else {
                backend.element_value(&handle).await.map_err(failed)?
            };
            match backend.set_text(&handle, &text).await {
                Ok(()) if role != Role::Password && before.as_deref() != Some(text.as_str()) => {
                    typed = type_if_ignored(backend, &element, before.as_deref(), &text).await?;
                }
                Ok(()) => {}
                // Chromium's fields have no EditableText: a person would type.
                Err(err) if err.kind == ErrorKind::Unsupported && !err.sent => {
                    type_over(backend, &element, &text).await?;
                    typed = true;
                }
                Err(err) => return Err(failed(err)),
            }
            if role == Role::Password {
                // Its content is never read, so it cannot be read back.
                return Ok(Acted::done(Did::SetPassword {
                    reference: element.id.to_string(),
                    confirmed: false,
                    label,
                })
                .into());
            }
            Wanted::Text(text)
        }
    };
    let started = Instant::now();
    let read = loop {
        let read = match role {
            // A combo box shows its choice as its name in some toolkits, as a value in others.
            Role::Combobox => combo_shows(backend, &element.window, &handle)
                .await?
                .taken(),
            _ => backend.element_value(&handle).await.map_err(failed)?,
        };
        if wanted.matches(read.as_deref()) || started.elapsed() >= READ_BACK_TIMEOUT {
            break read;
        }
        tokio::time::sleep(POLL).await;
    };
    let confirmed = wanted.matches(read.as_deref());
    let how = if typed {
        " by typing (it did not take the change through accessibility)"
    } else if picked {
        " by clicking it in the open list (it did not take the change through accessibility)"
    } else {
        ""
    };
    Ok(Acted::done(Did::SetValue {
        reference: element.id.to_string(),
        value: read,
        confirmed,
        label,
        wanted: wanted.to_string(),
        how,
    })
    .into())
}

/// Types the text over the field's content when the accessibility change left it exactly as
/// it was (Gecko accepts `SetTextContents` and ignores it); true when it typed. A field that
/// changed at all is left to the read-back: typing then could apply the value twice.
async fn type_if_ignored<B: Backend>(
    backend: &B,
    element: &crate::desk::Named,
    before: Option<&str>,
    text: &str,
) -> Result<bool> {
    let started = Instant::now();
    while started.elapsed() < IGNORED_AFTER {
        let now = backend.element_value(&element.entry.handle).await?;
        if now.as_deref() != before {
            return Ok(false);
        }
        tokio::time::sleep(POLL).await;
    }
    type_over(backend, element, text).await?;
    Ok(true)
}

/// Focuses the field, selects all of it and types the text over it.
async fn type_over<B: Backend>(
    backend: &B,
    element: &crate::desk::Named,
    text: &str,
) -> Result<()> {
    crate::desk::ensure_focused(backend, &element.window).await?;
    crate::desk::focus_for_typing(backend, element).await?;
    let select_all = Chord::ctrl(Key::Char('a'));
    let keys = if text.is_empty() {
        Keys::from(vec![select_all, Chord::key(Key::Delete)])
    } else {
        Keys::from(select_all)
    };
    let selected = backend.press_keys(&keys).await?;
    if selected != crate::backend::InputOutcome::Done {
        return Err(Error::new(
            ErrorKind::Platform,
            format!(
                "{} ignored the change through accessibility, and selecting its content to type over it may not have landed; observe it before trying again",
                element.label()
            ),
        )
        .after_sending());
    }
    if !text.is_empty() && backend.type_text(text).await? != crate::backend::InputOutcome::Done {
        return Err(Error::new(
            ErrorKind::Platform,
            format!(
                "{} ignored the change through accessibility, and typing the value over it may have landed only in part; observe it before trying again",
                element.label()
            ),
        )
        .after_sending());
    }
    Ok(())
}

/// Clicks the choice with the pointer where the combo box's open list shows it; true when it
/// did. A list open without it is closed (Escape), to type the choice to the closed box.
async fn click_in_open_list<B: Backend>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
    text: &str,
) -> Result<bool> {
    let tree = backend.tree(window).await?;
    let Some(node) = tree.root.find(combo).filter(|n| n.states.expanded) else {
        return Ok(false);
    };
    let shown = nearest_named(node, text, &is_menu_entry)
        .into_iter()
        .filter(|item| item.states.visible)
        .find_map(|item| item.bounds.filter(|b| !b.is_empty()));
    crate::desk::ensure_focused(backend, window).await?;
    match shown {
        Some(bounds) => {
            backend
                .click(bounds.center(), crate::model::MouseButton::Left, 1, &[])
                .await?;
            Ok(true)
        }
        None => {
            backend.press_keys(&escape_key()).await?;
            Ok(false)
        }
    }
}

/// Whether the combo box still shows `before` a while after its choice was invoked (Gecko's
/// option accepts "select" and keeps the old choice; Qt's list item takes "Toggle" and only its
/// popup's selection moves).
async fn combo_unchanged<B: Backend>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
    before: Option<&str>,
) -> Result<bool> {
    let started = Instant::now();
    while started.elapsed() < IGNORED_AFTER {
        let shown = combo_shows(backend, window, combo).await?;
        if shown.taken().as_deref() != before {
            return Ok(false);
        }
        tokio::time::sleep(POLL).await;
    }
    Ok(true)
}

/// How long a field may take to show a change made through accessibility before it counts as
/// ignored.
const IGNORED_AFTER: Duration = Duration::from_millis(400);

enum Wanted {
    Text(String),
    Number(f64),
}

impl Wanted {
    fn matches(&self, read: Option<&str>) -> bool {
        match (self, read) {
            (Wanted::Text(text), Some(read)) => read == text,
            (Wanted::Text(text), None) => text.is_empty(),
            (Wanted::Number(number), Some(read)) => read
                .trim()
                .parse::<f64>()
                .is_ok_and(|r| (r - number).abs() <= 1e-9_f64.max(number.abs() * 1e-9)),
            (Wanted::Number(_), None) => false,
        }
    }
}

impl std::fmt::Display for Wanted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wanted::Text(text) => f.write_str(text),
            Wanted::Number(number) => write!(f, "{number}"),
        }
    }
}

/// The most characters one `read` returns.
pub const READ_PAGE_CHARS: usize = 2_000;

/// A page of an element's whole text, each line quoted like all app text, with where the next
/// page starts.
pub(crate) async fn read_text<B: Backend>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    place: &Place,
    offset: usize,
) -> Result<Reply> {
    let element = reach
        .named(backend, session, place)
        .await?
        .expect("read names an element");
    let mut label = element.label();
    if element.entry.handle.is_read_from_pixels() {
        return Err(Error::bad_argument(format!(
            "{label} is text read from pixels, and its whole text is the name observe listed; observe again to read it anew"
        )));
    }
    if element.entry.role == Role::Password {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("{label} is a password field; its content is never read"),
        ));
    }
    // A canvas or an image draws its text: its name is a caption at most, its pixels hold it.
    let drawn = matches!(element.entry.role, Role::Canvas | Role::Image);
    let text = match reach.reader().filter(|_| drawn).cloned() {
        Some(reader) => {
            let bounds = backend
                .element_bounds(&element.window, &element.entry.handle)
                .await?
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::ElementGone,
                        format!("{label} is not on screen, so its pixels cannot be read; call `observe` again"),
                    )
                })?;
            let mut groups = crate::ocr::read_rect(backend, &reader, bounds).await?;
            groups.sort_by_key(|g| (g.bounds.y, g.bounds.x));
            label = format!("{label} (its pixels, read by OCR)");
            groups
                .into_iter()
                .map(|g| g.text)
                .collect::<Vec<_>>()
                .join("\n")
        }
        None => backend
            .element_text(&element.entry.handle)
            .await
            .map_err(|err| element_failure(err, &format!("{label} could not be read")))?,
    };
    let total = text.chars().count();
    if offset > 0 && offset >= total {
        return Err(Error::bad_argument(format!(
            "`offset` {offset} is past the end of {label}, which has {}; read from 0",
            plural(total, "character", "characters")
        )));
    }
    let page: String = text.chars().skip(offset).take(READ_PAGE_CHARS).collect();
    let end = offset + page.chars().count();
    Ok(Listed::Read(Page {
        text: page,
        offset,
        end,
        total,
        label,
    })
    .into())
}

fn value_text(value: &ValueArg) -> String {
    match value {
        ValueArg::Text(text) => text.clone(),
        ValueArg::Number(number) => number.to_string(),
    }
}

/// The nearest descendants of `scope` named `name`: a same-named item deeper down (in a
/// submenu) does not compete with one nearer, a hidden one (Qt's toolbar button behind its
/// menu's item) not with one shown, and a button not with a menu item.
fn nearest_named<'t>(scope: &'t Node, name: &str, accept: &dyn Fn(&Node) -> bool) -> Vec<&'t Node> {
    let wanted = normalize(name);
    let mut level: Vec<&Node> = scope.children.iter().collect();
    while !level.is_empty() {
        let mut hits: Vec<&Node> = level
            .iter()
            .copied()
            .filter(|n| accept(n) && names_item(&n.name, &wanted))
            .collect();
        if !hits.is_empty() {
            let narrow = |hits: &mut Vec<&Node>, keep: &dyn Fn(&Node) -> bool| {
                if hits.iter().any(|n| keep(n)) {
                    hits.retain(|n| keep(n));
                }
            };
            narrow(&mut hits, &|n| n.states.visible);
            narrow(&mut hits, &|n| {
                matches!(n.role, Role::Menu | Role::Menuitem)
            });
            return hits;
        }
        level = level.iter().flat_map(|n| n.children.iter()).collect();
    }
    Vec::new()
}

/// Whether an item's name is the normalized `wanted`, with or without the shortcut a toolkit
/// writes after it (Chromium's "New tab Ctrl+T").
fn names_item(name: &str, wanted: &str) -> bool {
    normalize(name) == wanted || normalize(without_shortcut(name)) == wanted
}

/// A name without a trailing key shortcut: modifiers and a key joined by "+" ("Ctrl+Shift+N"),
/// or a function key ("F11").
fn without_shortcut(name: &str) -> &str {
    let name = name.trim_end();
    let Some((rest, last)) = name.rsplit_once([' ', '\t']) else {
        return name;
    };
    let keys: Vec<&str> = last.split('+').collect();
    let modifier = |key: &&str| {
        ["ctrl", "shift", "alt", "super", "meta"]
            .iter()
            .any(|m| key.eq_ignore_ascii_case(m))
    };
    let chord = keys.len() >= 2
        && keys[..keys.len() - 1].iter().all(modifier)
        && keys.last().is_some_and(|key| !key.is_empty());
    let function_key = last
        .strip_prefix('F')
        .is_some_and(|n| (1..=2).contains(&n.len()) && n.chars().all(|c| c.is_ascii_digit()));
    if chord || function_key {
        rest.trim_end()
    } else {
        name
    }
}

/// Every descendant of `scope`, at any depth and in tree order, named `name` that `accept`
/// takes.
fn named_inside<'t>(scope: &'t Node, name: &str, accept: &dyn Fn(&Node) -> bool) -> Vec<&'t Node> {
    fn collect<'n>(
        node: &'n Node,
        wanted: &str,
        accept: &dyn Fn(&Node) -> bool,
        found: &mut Vec<&'n Node>,
    ) {
        for child in &node.children {
            if accept(child) && names_item(&child.name, wanted) {
                found.push(child);
            }
            collect(child, wanted, accept, found);
        }
    }
    let mut found = Vec::new();
    collect(scope, &normalize(name), accept, &mut found);
    found
}

/// Named choices under `scope` an agent could have meant, for an error message: the nearest
/// level that has any (a menu bar's menus, not every item of every menu).
fn choices(scope: &Node, accept: &dyn Fn(&Node) -> bool) -> String {
    let mut names: Vec<String> = Vec::new();
    let mut level: Vec<&Node> = scope.children.iter().collect();
    while !level.is_empty() && names.is_empty() {
        for node in &level {
            let name = node.name.trim();
            if accept(node) && !name.is_empty() && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        level = level.iter().flat_map(|n| n.children.iter()).collect();
    }
    if names.is_empty() {
        return "none shown".into();
    }
    let shown: Vec<String> = names
        .iter()
        .take(20)
        .map(|n| format!("\"{}\"", escape(n)))
        .collect();
    let more = names.len().saturating_sub(20);
    if more > 0 {
        format!("{}, and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

fn is_menu_entry(node: &Node) -> bool {
    matches!(
        node.role,
        Role::Menu
            | Role::Menuitem
            | Role::Check
            | Role::Radio
            | Role::Toggle
            | Role::Button
            | Role::Listitem
    )
}

/// Runs an element's own click action; fails closed when it has none.
async fn invoke<B: Backend>(backend: &B, node: &Node, what: &str) -> Result<()> {
    run_action(backend, node, what, &click_action).await
}

/// The menu bar entries named `name`: when the nearest is one that offers no way to open it,
/// any shown same-named entry anywhere in the window that does (LibreOffice lists a second,
/// inert menu bar above its real one).
async fn top_menus<'t, B: Backend>(
    backend: &B,
    window: &'t Node,
    name: &str,
    nearest: Vec<&'t Node>,
) -> Vec<&'t Node> {
    let opens = |names: &[String]| menu_opener(Role::Menu, names).is_some();
    if let [only] = nearest.as_slice()
        && let Ok(names) = backend.action_names(&only.handle).await
        && !opens(&names)
    {
        let shown_entry = |n: &Node| is_menu_entry(n) && n.states.visible;
        for other in named_inside(window, name, &shown_entry) {
            if other.handle != only.handle
                && let Ok(names) = backend.action_names(&other.handle).await
                && opens(&names)
            {
                return vec![other];
            }
        }
    }
    nearest
}

/// The action that opens a menu: its click action, else the `ShowMenu` a Qt menu bar offers.
fn menu_opener(role: Role, names: &[String]) -> Option<usize> {
    click_action(role, names).or_else(|| {
        names
            .iter()
            .position(|n| n.eq_ignore_ascii_case("showmenu"))
    })
}

/// Opens a menu through [`menu_opener`]'s action.
async fn open_menu<B: Backend>(backend: &B, node: &Node, what: &str) -> Result<()> {
    run_action(backend, node, what, &menu_opener).await
}

/// Runs the action `pick` chooses on the element, else on the first same-named element inside
/// it that has one: GTK4 wraps a menu button's inner button, which alone acts, in an outer
/// one of the same name.
async fn run_action<B: Backend>(
    backend: &B,
    node: &Node,
    what: &str,
    pick: &(dyn Fn(Role, &[String]) -> Option<usize> + Sync),
) -> Result<()> {
    let mut same_named = vec![node];
    same_named.extend(named_inside(node, &node.name, &|_| true));
    let mut offered = Vec::new();
    for candidate in same_named {
        let names = backend
            .action_names(&candidate.handle)
            .await
            .map_err(|err| element_failure(err, &format!("{what} could not be read")))?;
        if let Some(index) = pick(candidate.role, &names) {
            return backend
                .do_action(&candidate.handle, index)
                .await
                .map_err(|err| element_failure(err, &format!("{what} could not be invoked")));
        }
        offered.extend(names);
    }
    Err(Error::new(
        ErrorKind::Unsupported,
        format!(
            "{what} has no accessibility action to invoke it (it offers: {}); click it by ref with the pointer instead",
            if offered.is_empty() {
                "none".to_string()
            } else {
                offered.join(", ")
            }
        ),
    ))
}

async fn choose_in_combo<B: Backend>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
    label: &str,
    text: &str,
) -> Result<bool> {
    let gone = || {
        Error::new(
            ErrorKind::ElementGone,
            format!("{label} is no longer in its window; call `observe` again"),
        )
    };
    let mut tree = backend.tree(window).await?;
    let mut opened = false;
    let started = Instant::now();
    loop {
        let node = tree.root.find(combo).ok_or_else(gone)?;
        let hits = nearest_named(node, text, &is_menu_entry);
        match hits.as_slice() {
            [item] => {
                if !item.states.enabled {
                    if opened {
                        // The list it opened is closed again, leaving the choice as it was.
                        let _ = backend.press_keys(&escape_key()).await;
                    }
                    return Err(Error::new(
                        ErrorKind::Disabled,
                        format!(
                            "\"{}\" in {label} is disabled; nothing was changed; pick another choice",
                            escape(text)
                        ),
                    ));
                }
                invoke(backend, item, &format!("\"{}\" in {label}", escape(text))).await?;
                return Ok(true);
            }
            // Toolkits that list a combo box's choices only while its list is open.
            [] if started.elapsed() < MENU_OPEN_TIMEOUT => {
                if !opened {
                    invoke(backend, node, label).await?;
                    opened = true;
                }
                tokio::time::sleep(POLL).await;
                tree = backend.tree(window).await?;
            }
            [] => {
                let listed = choices(node, &is_menu_entry);
                if opened {
                    // The list it opened is closed again, leaving the choice as it was.
                    let _ = backend.press_keys(&escape_key()).await;
                }
                // A web page's drop-down lists its options in a window of its own.
                if !node.any(&|n| {
                    n.handle != node.handle && is_menu_entry(n) && !n.name.trim().is_empty()
                }) {
                    return Ok(false);
                }
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "{label} has no choice \"{}\"; its choices: {listed}; nothing was changed",
                        escape(text)
                    ),
                ));
            }
            many => {
                if opened {
                    let _ = backend.press_keys(&escape_key()).await;
                }
                return Err(Error::new(
                    ErrorKind::Ambiguous,
                    format!(
                        "{label} has {} choices named \"{}\"; nothing was changed; click it to open its list, observe, and click the one you mean by ref",
                        many.len(),
                        escape(text)
                    ),
                ));
            }
        }
    }
}

/// What a combo box shows: its choice (its value, else its selected item's name, else its
/// name) and its own name.
struct ComboShows {
    choice: Option<String>,
    name: String,
    expanded: bool,
    /// Its name is the name of one of its list's items: the box is named by its choice (Qt,
    /// GTK without a label).
    name_is_item: bool,
}

impl ComboShows {
    /// What the tree shows of the box: its selected item, else its name, as its choice.
    fn of(node: &Node) -> Self {
        fn selected(node: &Node) -> Option<&Node> {
            node.children.iter().find_map(|c| {
                if c.states.selected {
                    Some(c)
                } else {
                    selected(c)
                }
            })
        }
        let name = node.name.trim();
        // An app may name the combo box itself ("Color"): its chosen item says more.
        ComboShows {
            choice: selected(node)
                .map(|n| n.name.clone())
                .or_else(|| (!name.is_empty()).then(|| node.name.clone())),
            name_is_item: !name.is_empty()
                && node
                    .any(&|n| n.handle != node.handle && is_menu_entry(n) && n.name.trim() == name),
            name: node.name.clone(),
            expanded: node.states.expanded,
        }
    }

    /// The choice the box took: its name where it is named by its choice (a selection made only
    /// in its list, which Qt's popup keeps and the box never takes, is not mistaken for it),
    /// else its choice.
    fn taken(&self) -> Option<String> {
        if self.name_is_item {
            Some(self.name.clone())
        } else {
            self.choice.clone()
        }
    }
}

async fn combo_shows<B: Backend>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
) -> Result<ComboShows> {
    if let Some(value) = backend
        .element_value(combo)
        .await?
        .filter(|v| !v.is_empty())
    {
        return Ok(ComboShows {
            choice: Some(value),
            name: String::new(),
            expanded: false,
            name_is_item: false,
        });
    }
    let tree = backend.tree(window).await?;
    Ok(tree.root.find(combo).map_or(
        ComboShows {
            choice: None,
            name: String::new(),
            expanded: false,
            name_is_item: false,
        },
        ComboShows::of,
    ))
}

pub(crate) async fn select<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
    path: &[String],
) -> Result<Reply> {
    let surface = reach.surface(backend, session).await?;
    let window = surface.window.clone().ok_or_else(|| {
        Error::bad_argument(
            "`select` needs a window: give `target` \"wN\" (menus belong to windows)",
        )
    })?;
    let label = surface.label.clone();
    // A popover or menu of a window without the focus closes as soon as it opens (GTK4), and
    // the Escape that closes what select opened must reach this window.
    crate::desk::ensure_focused(backend, &window).await?;
    let in_request = backend.actions_run_in_request(&window).await;
    crate::learn::before(backend, config, session, &window).await;
    let mut tree = backend.tree(&window).await?;
    // The element the next segment is looked for under; the window's root at first.
    let mut scope = tree.root.handle.clone();
    let mut walked: Vec<String> = Vec::new();
    // The items walked so far, and whether each was opened: a toolkit may list a menu's items
    // only once the menu and every menu above it are open.
    let mut levels: Vec<(ElementHandle, bool)> = Vec::new();
    // What showed before anything was opened: a menu may open away from its button (Firefox's
    // application menu is a panel elsewhere in the window), and then its items are what shows
    // that did not before.
    let shown_before = shown_handles(&tree.root);
    for (level, segment) in path.iter().enumerate() {
        let last = level + 1 == path.len();
        let started = Instant::now();
        let item = loop {
            let scope_node = tree.root.find(&scope).ok_or_else(|| {
                Error::new(
                    ErrorKind::ElementGone,
                    format!(
                        "the menu {} closed or went away while selecting; observe {label} and try again",
                        menu_label(&walked)
                    ),
                )
            })?;
            let mut hits = nearest_named(scope_node, segment, &is_menu_entry);
            if level == 0 {
                hits = top_menus(backend, scope_node, segment, hits).await;
            }
            if !hits.iter().any(|n| n.states.visible) && levels.iter().any(|(_, opened)| *opened) {
                let newly_shown = |n: &Node| {
                    is_menu_entry(n) && n.states.visible && !shown_before.contains(&n.handle)
                };
                let elsewhere = nearest_named(&tree.root, segment, &newly_shown);
                if !elsewhere.is_empty() {
                    hits = elsewhere;
                }
            }
            // An app updates its items when their menu opens: a closed menu's disabled item
            // may be enabled by then (Copy once there is a selection).
            let stale = level > 0 && levels.iter().any(|(_, opened)| !opened);
            let waited_out = started.elapsed() >= MENU_OPEN_TIMEOUT;
            match hits.as_slice() {
                [item] if item.states.enabled || !stale || waited_out => break (*item).clone(),
                [_] | [] if level > 0 && !waited_out => {
                    open_levels(backend, &window, &mut tree, &mut levels, &walked).await?;
                    tokio::time::sleep(POLL).await;
                    tree = backend.tree(&window).await?;
                }
                [] => {
                    let closed = close_opened(backend, &window, &levels).await;
                    return Err(Error::new(
                        ErrorKind::NotFound,
                        format!(
                            "{} has no item \"{}\"; the items there: {}; nothing was selected{}",
                            if level == 0 {
                                label.clone()
                            } else {
                                menu_label(&walked)
                            },
                            escape(segment),
                            choices(scope_node, &is_menu_entry),
                            closed
                        ),
                    ));
                }
                [item] => break (*item).clone(),
                many => {
                    let roles: Vec<&str> = many.iter().map(|n| n.role.as_str()).collect();
                    let closed = close_opened(backend, &window, &levels).await;
                    return Err(Error::new(
                        ErrorKind::Ambiguous,
                        format!(
                            "{} has {} items named \"{}\" ({}); nothing was selected; select by ref after observing{}",
                            if level == 0 {
                                label.clone()
                            } else {
                                menu_label(&walked)
                            },
                            many.len(),
                            escape(segment),
                            roles.join(", "),
                            closed
                        ),
                    ));
                }
            }
        };
        walked.push(item.name.trim().to_owned());
        if !item.states.enabled {
            let closed = close_opened(backend, &window, &levels).await;
            return Err(Error::new(
                ErrorKind::Disabled,
                format!(
                    "{} is disabled in its open menu; nothing was selected{closed}",
                    menu_label(&walked),
                ),
            ));
        }
        if last {
            if in_request {
                click_open_item(backend, &window, &mut tree, &mut levels, &item, &walked).await?;
            } else {
                match invoke(backend, &item, &menu_label(&walked)).await {
                    Err(err) if err.sent => {
                        // Qt answers the item only once the modal dialog it opened closes: the
                        // window is the confirmation. Its menu is left alone, as an Escape
                        // would go to the dialog.
                        let Some(opened) =
                            crate::desk::windows_opened(backend, session, &window).await
                        else {
                            return Err(err);
                        };
                        crate::learn::acted(config, session, &window, Step::Select(walked.clone()));
                        return Ok(Acted::done(Did::Select {
                            window: label,
                            item: menu_label(&walked),
                            path: walked,
                            through_pointer: false,
                            opened: Some(opened),
                        })
                        .into());
                    }
                    invoked => invoked?,
                }
                // Qt runs the item yet leaves its menu open, and the open menu takes the next
                // keys.
                tokio::time::sleep(POLL).await;
                close_opened(backend, &window, &levels).await;
            }
        }
        levels.push((item.handle.clone(), false));
        scope = item.handle.clone();
    }
    crate::learn::acted(config, session, &window, Step::Select(walked.clone()));
    Ok(Acted::done(Did::Select {
        window: label,
        item: menu_label(&walked),
        path: walked,
        through_pointer: in_request,
        opened: None,
    })
    .into())
}

/// Opens, top down, each walked menu level not opened yet, reading the tree again after each:
/// a toolkit may list a menu's items only once the menu and every menu above it are open.
async fn open_levels<B: Backend>(
    backend: &B,
    window: &crate::model::WindowInfo,
    tree: &mut crate::model::Tree,
    levels: &mut [(ElementHandle, bool)],
    walked: &[String],
) -> Result<()> {
    for index in 0..levels.len() {
        if levels[index].1 {
            continue;
        }
        let Some(node) = tree.root.find(&levels[index].0) else {
            break;
        };
        let shown = node.bounds.filter(|b| node.states.visible && !b.is_empty());
        let before = shown_handles(&tree.root);
        // A menu without an action of its own (one of LibreOffice's two menu bars) opens
        // with the pointer, as a person would open it.
        match open_menu(backend, node, &menu_label(&walked[..=index])).await {
            Err(err) if err.kind == ErrorKind::Unsupported && !err.sent && shown.is_some() => {}
            opened => opened?,
        }
        levels[index].1 = true;
        let asked = Instant::now();
        let opened = loop {
            tokio::time::sleep(POLL).await;
            *tree = backend.tree(window).await?;
            let opened = shown_handles(&tree.root)
                .iter()
                .any(|handle| !before.contains(handle));
            if opened || asked.elapsed() >= OPEN_BY_ACTION_WAIT {
                break opened;
            }
        };
        // Firefox's menu buttons take their "press" action and open nothing; a person clicks.
        if let Some(bounds) = shown
            && !opened
        {
            backend
                .click(bounds.center(), crate::model::MouseButton::Left, 1, &[])
                .await?;
            tokio::time::sleep(POLL).await;
            *tree = backend.tree(window).await?;
        }
    }
    Ok(())
}

/// How long a menu opened through its action may take to show before the pointer opens it.
const OPEN_BY_ACTION_WAIT: Duration = Duration::from_millis(700);

/// The elements of a tree that show on screen.
fn shown_handles(root: &Node) -> std::collections::HashSet<ElementHandle> {
    fn collect(node: &Node, into: &mut std::collections::HashSet<ElementHandle>) {
        if node.states.visible {
            into.insert(node.handle.clone());
            for child in &node.children {
                collect(child, into);
            }
        }
    }
    let mut shown = std::collections::HashSet::new();
    collect(root, &mut shown);
    shown
}

/// Selects a menu item with the pointer, opening the menus above it first: in a toolkit that
/// runs an accessibility action inside the request (GTK3, LibreOffice), an item that opens a
/// modal dialog would keep the app from answering until the dialog closed. Opening a menu is
/// safe that way; the item itself is clicked where it shows.
async fn click_open_item<B: Backend>(
    backend: &B,
    window: &crate::model::WindowInfo,
    tree: &mut crate::model::Tree,
    levels: &mut [(ElementHandle, bool)],
    item: &Node,
    walked: &[String],
) -> Result<()> {
    open_levels(backend, window, tree, levels, walked).await?;
    let started = Instant::now();
    loop {
        let shown = tree
            .root
            .find(&item.handle)
            .filter(|node| node.states.visible)
            .and_then(|node| node.bounds)
            .filter(|bounds| !bounds.is_empty());
        if let Some(bounds) = shown {
            return backend
                .click(bounds.center(), crate::model::MouseButton::Left, 1, &[])
                .await;
        }
        if started.elapsed() >= MENU_OPEN_TIMEOUT {
            let closed = close_opened(backend, window, levels).await;
            return Err(Error::new(
                ErrorKind::Platform,
                format!(
                    "{} did not show on screen once its menu was opened, so it was not clicked; nothing was selected{closed}",
                    menu_label(walked)
                ),
            ));
        }
        tokio::time::sleep(POLL).await;
        *tree = backend.tree(window).await?;
    }
}

/// Closes, deepest first, each menu `select` opened that still shows its items (Escape goes
/// to the open menu, which holds the keyboard); says what it left, for a failure's message.
async fn close_opened<B: Backend>(
    backend: &B,
    window: &crate::model::WindowInfo,
    levels: &[(ElementHandle, bool)],
) -> &'static str {
    let opened: Vec<&ElementHandle> = levels
        .iter()
        .filter(|(_, opened)| *opened)
        .map(|(handle, _)| handle)
        .rev()
        .collect();
    if opened.is_empty() {
        return "";
    }
    for handle in opened {
        let Ok(tree) = backend.tree(window).await else {
            return " (a menu it opened may still be open: press Escape)";
        };
        let showing = tree
            .root
            .find(handle)
            .is_some_and(|menu| menu.children.iter().any(|item| item.states.visible));
        let focused = matches!(backend.window(window.handle).await, Ok(Some(w)) if w.focused);
        if showing && (!focused || backend.press_keys(&escape_key()).await.is_err()) {
            return " (a menu it opened may still be open: press Escape)";
        }
    }
    " (the menus it opened were closed again)"
}

/// `"File" > "Save As…"`.
/// Closes what a menu or list opened, as a user backs out of one.
fn escape_key() -> Keys {
    Keys::from(Chord::key(Key::Escape))
}

fn menu_label(walked: &[String]) -> String {
    walked
        .iter()
        .map(|s| format!("\"{}\"", escape(s)))
        .collect::<Vec<_>>()
        .join(" > ")
}

#[cfg(test)]
fn node(role: Role, name: &str, children: Vec<Node>) -> Node {
    Node {
        handle: ElementHandle(format!("{}:{name}", role.as_str())),
        role,
        name: name.into(),
        value: None,
        states: crate::model::States {
            enabled: true,
            visible: true,
            ..Default::default()
        },
        bounds: None,
        actions: vec!["click".into()],
        children,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_named_by_one_of_its_items_has_taken_what_its_name_says() {
        let item = |name: &str, selected: bool| {
            let mut item = node(Role::Listitem, name, vec![]);
            item.states.selected = selected;
            item
        };
        let combo = |name: &str, items: Vec<Node>| {
            node(Role::Combobox, name, vec![node(Role::List, "", items)])
        };
        // Qt: the list's selection moved to "Windows", the box still shows "Fusion".
        let qt = ComboShows::of(&combo(
            "Fusion",
            vec![item("Windows", true), item("Fusion", false)],
        ));
        assert_eq!(qt.taken().as_deref(), Some("Fusion"));
        // A box labelled "Color": its selected item says the choice.
        let labelled = ComboShows::of(&combo(
            "Color",
            vec![item("Red", true), item("Blue", false)],
        ));
        assert_eq!(labelled.taken().as_deref(), Some("Red"));
        // A labelled box whose items are listed only while it is open.
        let closed = ComboShows::of(&combo("Color", vec![]));
        assert_eq!(closed.taken().as_deref(), Some("Color"));
    }

    #[test]
    fn an_item_is_named_with_or_without_its_shortcut() {
        assert!(names_item("New tab Ctrl+T", "new tab"));
        assert!(names_item(
            "Delete browsing data… Ctrl+Shift+Del",
            "delete browsing data..."
        ));
        assert!(names_item("Full screen F11", "full screen"));
        assert!(names_item("New tab Ctrl+T", "new tab ctrl+t"));
        for (name, wanted) in [
            ("Zoom in+out", "zoom in"),
            ("Channel F100", "channel"),
            ("Shift+", "shift"),
            ("Save as", "save"),
        ] {
            assert!(!names_item(name, wanted), "{name:?}");
        }
    }

    #[test]
    fn a_nearer_item_wins_over_a_same_named_one_in_a_submenu() {
        let menu = node(
            Role::Menu,
            "File",
            vec![
                node(Role::Menuitem, "Open…", vec![]),
                node(
                    Role::Menu,
                    "Recent",
                    vec![node(Role::Menuitem, "Open...", vec![])],
                ),
            ],
        );
        let hits = nearest_named(&menu, "open...", &is_menu_entry);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].name, "Open…");
        assert!(nearest_named(&menu, "Close", &is_menu_entry).is_empty());
        assert_eq!(choices(&menu, &is_menu_entry), "\"Open…\", \"Recent\"");
    }
}
