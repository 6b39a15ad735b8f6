//! UI Automation, translated: what one cached walk of a window gives for each element
//! ([`Element`]) becomes the core's [`Node`]s with the roles the Linux backend uses, so an
//! observation reads the same on both; an action picks the pattern that does it; failures
//! (HRESULTs) become the core's error kinds. All of it is pure and unit-tested on recorded
//! element data; the COM calls that fill an [`Element`] live in `com` (Windows only).

#[cfg(windows)]
pub mod com;
pub mod dump;
pub mod identity;
#[cfg(windows)]
mod reader;
pub mod walk;

use deskhand_core::error::{Error, ErrorKind};
use deskhand_core::model::{ElementHandle, Node, Rect, Role, States};
use serde::{Deserialize, Serialize};

use identity::{Identity, Link};

/// UI Automation's control type ids (`UIA_*ControlTypeId`).
pub mod control_type {
    pub const BUTTON: i32 = 50000;
    pub const CALENDAR: i32 = 50001;
    pub const CHECK_BOX: i32 = 50002;
    pub const COMBO_BOX: i32 = 50003;
    pub const EDIT: i32 = 50004;
    pub const HYPERLINK: i32 = 50005;
    pub const IMAGE: i32 = 50006;
    pub const LIST_ITEM: i32 = 50007;
    pub const LIST: i32 = 50008;
    pub const MENU: i32 = 50009;
    pub const MENU_BAR: i32 = 50010;
    pub const MENU_ITEM: i32 = 50011;
    pub const PROGRESS_BAR: i32 = 50012;
    pub const RADIO_BUTTON: i32 = 50013;
    pub const SCROLL_BAR: i32 = 50014;
    pub const SLIDER: i32 = 50015;
    pub const SPINNER: i32 = 50016;
    pub const STATUS_BAR: i32 = 50017;
    pub const TAB: i32 = 50018;
    pub const TAB_ITEM: i32 = 50019;
    pub const TEXT: i32 = 50020;
    pub const TOOL_BAR: i32 = 50021;
    pub const TOOL_TIP: i32 = 50022;
    pub const TREE: i32 = 50023;
    pub const TREE_ITEM: i32 = 50024;
    pub const CUSTOM: i32 = 50025;
    pub const GROUP: i32 = 50026;
    pub const THUMB: i32 = 50027;
    pub const DATA_GRID: i32 = 50028;
    pub const DATA_ITEM: i32 = 50029;
    pub const DOCUMENT: i32 = 50030;
    pub const SPLIT_BUTTON: i32 = 50031;
    pub const WINDOW: i32 = 50032;
    pub const PANE: i32 = 50033;
    pub const HEADER: i32 = 50034;
    pub const HEADER_ITEM: i32 = 50035;
    pub const TABLE: i32 = 50036;
    pub const TITLE_BAR: i32 = 50037;
    pub const SEPARATOR: i32 = 50038;
    pub const SEMANTIC_ZOOM: i32 = 50039;
    pub const APP_BAR: i32 = 50040;
}

/// `ToggleState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum Toggle {
    Off,
    On,
    Indeterminate,
}

/// `ExpandCollapseState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum Expand {
    Collapsed,
    Expanded,
    PartiallyExpanded,
    /// Nothing to expand: a menu item without a submenu reports this.
    LeafNode,
}

/// The Value pattern's cached state.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ValueState {
    pub value: String,
    #[serde(default)]
    pub read_only: bool,
}

/// The RangeValue pattern's cached state.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
pub struct RangeState {
    pub value: f64,
    pub minimum: f64,
    pub maximum: f64,
    #[serde(default)]
    pub read_only: bool,
}

/// Which patterns an element offers, with their cached state.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Patterns {
    pub invoke: bool,
    pub value: Option<ValueState>,
    pub toggle: Option<Toggle>,
    pub expand_collapse: Option<Expand>,
    /// SelectionItem: whether the item is selected.
    pub selection_item: Option<bool>,
    pub range_value: Option<RangeState>,
    /// LegacyIAccessible's default action name ("Press", "Check"), empty when it has none.
    pub legacy_default_action: Option<String>,
    /// The system said nothing of the element's patterns (Wine 10's UI Automation has no
    /// pattern property): those above are unknown, not absent.
    pub unread: bool,
}

/// One element as a cached walk gives it: every property asked for in one round trip.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Element {
    pub runtime_id: Vec<i32>,
    pub name: String,
    pub control_type: i32,
    pub localized_control_type: String,
    /// `BoundingRectangle`: left, top, width, height in physical screen pixels (the process is
    /// per-monitor aware); empty for an element with no place on screen.
    pub bounds: Option<[f64; 4]>,
    pub enabled: bool,
    pub has_keyboard_focus: bool,
    pub keyboard_focusable: bool,
    pub offscreen: bool,
    pub password: bool,
    pub automation_id: String,
    /// The Window pattern's `IsModal`: a dialog, whatever language names its type.
    pub modal: bool,
    pub patterns: Patterns,
    pub children: Vec<Element>,
}

/// A list with more children than this keeps only those on screen; the rest are counted.
pub const MANY_CHILDREN: usize = 200;

/// The core's role for a UIA element, matching what the Linux backend calls the same control.
pub fn role(element: &Element) -> Role {
    use control_type as c;
    match element.control_type {
        c::BUTTON if element.patterns.toggle.is_some() => Role::Toggle,
        c::BUTTON | c::SPLIT_BUTTON => Role::Button,
        c::CHECK_BOX => Role::Check,
        c::RADIO_BUTTON => Role::Radio,
        c::EDIT if element.password => Role::Password,
        c::EDIT => Role::Text,
        c::HYPERLINK => Role::Link,
        c::IMAGE => Role::Image,
        c::LIST => Role::List,
        c::LIST_ITEM => Role::Listitem,
        c::MENU => Role::Menu,
        c::MENU_BAR => Role::Menubar,
        c::MENU_ITEM => Role::Menuitem,
        c::COMBO_BOX => Role::Combobox,
        c::SLIDER => Role::Slider,
        c::SPINNER => Role::Spin,
        c::SCROLL_BAR => Role::Scrollbar,
        c::PROGRESS_BAR => Role::Progress,
        c::STATUS_BAR => Role::Statusbar,
        c::TAB => Role::Tablist,
        c::TAB_ITEM => Role::Tab,
        c::TEXT => Role::Label,
        c::TOOL_BAR | c::APP_BAR => Role::Toolbar,
        c::TOOL_TIP => Role::Tooltip,
        c::TREE => Role::Tree,
        c::TREE_ITEM => Role::Treeitem,
        c::TABLE | c::DATA_GRID | c::CALENDAR => Role::Table,
        c::DATA_ITEM => Role::Row,
        c::HEADER | c::HEADER_ITEM => Role::Header,
        c::DOCUMENT => Role::Document,
        c::SEPARATOR => Role::Separator,
        c::GROUP => Role::Group,
        // A dialog is a modal window (the Window pattern's `IsModal`, in every language); the
        // English localized type "dialog" stands for it where a provider offers no pattern.
        c::WINDOW
            if element.modal
                || element
                    .localized_control_type
                    .eq_ignore_ascii_case("dialog") =>
        {
            Role::Dialog
        }
        c::WINDOW => Role::Window,
        c::PANE | c::CUSTOM | c::THUMB | c::TITLE_BAR | c::SEMANTIC_ZOOM => Role::Generic,
        _ => Role::Unknown,
    }
}

pub fn states(element: &Element) -> States {
    let patterns = &element.patterns;
    let expand = patterns.expand_collapse;
    let editable = patterns
        .value
        .as_ref()
        .is_some_and(|value| !value.read_only)
        && matches!(
            element.control_type,
            control_type::EDIT | control_type::COMBO_BOX | control_type::DOCUMENT
        );
    States {
        enabled: element.enabled,
        visible: !element.offscreen && element.bounds.is_some_and(|b| b[2] > 0.0 && b[3] > 0.0),
        focused: element.has_keyboard_focus,
        focusable: element.keyboard_focusable,
        checked: patterns.toggle == Some(Toggle::On),
        checkable: patterns.toggle.is_some(),
        selected: patterns.selection_item == Some(true),
        expanded: matches!(expand, Some(Expand::Expanded | Expand::PartiallyExpanded)),
        expandable: matches!(
            expand,
            Some(Expand::Collapsed | Expand::Expanded | Expand::PartiallyExpanded)
        ),
        editable,
        pressed: element.control_type == control_type::BUTTON
            && patterns.toggle == Some(Toggle::On),
        modal: element.modal,
        from_pixels: false,
    }
}

/// The value an observation shows: the Value pattern's text, or a range's number. A password
/// field's is never read, whatever the walk cached.
pub fn value(element: &Element) -> Option<String> {
    if element.password {
        return None;
    }
    if let Some(value) = &element.patterns.value {
        return Some(value.value.clone());
    }
    element
        .patterns
        .range_value
        .map(|range| format_number(range.value))
}

fn format_number(number: f64) -> String {
    if number.fract() == 0.0 && number.abs() < 1e15 {
        format!("{}", number as i64)
    } else {
        format!("{number}")
    }
}

/// `BoundingRectangle` as whole pixels; an empty one is no place.
pub fn bounds(element: &Element) -> Option<Rect> {
    let [left, top, width, height] = element.bounds?;
    (width >= 1.0 && height >= 1.0).then(|| {
        Rect::new(
            left.round() as i32,
            top.round() as i32,
            width.round() as u32,
            height.round() as u32,
        )
    })
}

/// An element's handle: the window, the runtime id (which a later process can search for) and
/// what tells the element from a neighbour that took its runtime id
/// (`uia2:<hwnd>:<id.id.id>:<control type>:<name hash>:<trail>`, see [`identity`]).
pub fn handle(window: u64, identity: &Identity) -> ElementHandle {
    let id: Vec<String> = identity.runtime_id.iter().map(i32::to_string).collect();
    ElementHandle(format!(
        "{HANDLE_VERSION}{window}:{}:{}:{:08x}:{:08x}",
        id.join("."),
        identity.control_type,
        identity.name_hash,
        identity.trail
    ))
}

/// The prefix of handles that carry an identity; those of the first version (`uia:`, the
/// runtime id alone) could reach a neighbour and are refused.
const HANDLE_VERSION: &str = "uia2:";

/// The window and identity a handle names; `None` for what no UIA walk of this version made.
pub fn parse_handle(handle: &ElementHandle) -> Option<(u64, Identity)> {
    let mut parts = handle.0.strip_prefix(HANDLE_VERSION)?.split(':');
    let window = parts.next()?.parse().ok()?;
    let runtime_id = parts
        .next()?
        .split('.')
        .map(str::parse)
        .collect::<Result<Vec<i32>, _>>()
        .ok()?;
    let control_type = parts.next()?.parse().ok()?;
    let name_hash = u32::from_str_radix(parts.next()?, 16).ok()?;
    let trail = u32::from_str_radix(parts.next()?, 16).ok()?;
    if parts.next().is_some() || runtime_id.is_empty() {
        return None;
    }
    Some((
        window,
        Identity {
            runtime_id,
            control_type,
            name_hash,
            trail,
        },
    ))
}

/// How many children of a list were left out because they are scrolled out of view.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    pub offscreen: usize,
}

/// The element and its subtree as the core's node. Of an element with more than
/// [`MANY_CHILDREN`] children, only those on screen are kept; `pruned` counts the others.
pub fn node(window: u64, element: &Element, pruned: &mut Pruned) -> Node {
    node_below(window, element, None, &mut Vec::new(), pruned)
}

/// `links`: the ancestors between the window and `element`, for its handle's trail.
fn node_below(
    window: u64,
    element: &Element,
    parent: Option<&Element>,
    links: &mut Vec<Link>,
    pruned: &mut Pruned,
) -> Node {
    let handle = handle(window, &Identity::of(element, links));
    // The window is where every trail starts: its title changes without anything moving.
    let link = parent.map(|parent| Link::of(element, parent));
    let linked = link.is_some();
    links.extend(link);
    let many = element.children.len() > MANY_CHILDREN;
    let mut children = Vec::new();
    for child in &element.children {
        if many && child.offscreen {
            pruned.offscreen += 1;
        } else {
            children.push(node_below(window, child, Some(element), links, pruned));
        }
    }
    if linked {
        links.pop();
    }
    Node {
        handle,
        role: role(element),
        name: element.name.trim().to_owned(),
        value: value(element),
        states: states(element),
        bounds: bounds(element),
        actions: action_names(&element.patterns)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        children,
    }
}

/// What an action runs on the element, by the patterns it offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    Invoke,
    Toggle,
    Expand,
    Collapse,
    Select,
    DefaultAction,
}

impl Act {
    /// The programmatic name the core sees in `action_names`, in the vocabulary its plain click
    /// looks for (`render::click_action`: "click", "toggle", "open", "select"), so a click on a
    /// button runs Invoke as one on Linux runs AT-SPI's "click". The legacy default action and
    /// Collapse are not clicks: a plain click on an element with only those uses the pointer.
    pub fn name(self) -> &'static str {
        match self {
            Act::Invoke => "click",
            Act::Toggle => "toggle",
            Act::Expand => "open",
            Act::Collapse => "collapse",
            Act::Select => "select",
            Act::DefaultAction => "default",
        }
    }

    pub fn from_name(name: &str) -> Option<Act> {
        [
            Act::Invoke,
            Act::Toggle,
            Act::Expand,
            Act::Collapse,
            Act::Select,
            Act::DefaultAction,
        ]
        .into_iter()
        .find(|act| act.name() == name)
    }

    /// Whether the app may run it synchronously inside the request and block on what it opens
    /// (Invoke and the default action wait for a button's handler, which may show a modal
    /// dialog): such an action runs on a thread of its own and an unanswered one is reported
    /// applied but unconfirmed.
    pub fn may_block(self) -> bool {
        matches!(self, Act::Invoke | Act::DefaultAction)
    }
}

/// The element's actions in the order a click prefers them: what a click means for a control
/// (Invoke a button, Toggle a check box, Select a list item, Expand or Collapse a menu or combo
/// box) first, the legacy default action last.
pub fn actions(patterns: &Patterns) -> Vec<Act> {
    let mut found = Vec::new();
    if patterns.invoke {
        found.push(Act::Invoke);
    }
    if patterns.toggle.is_some() {
        found.push(Act::Toggle);
    }
    if patterns.selection_item.is_some() {
        found.push(Act::Select);
    }
    match patterns.expand_collapse {
        Some(Expand::Collapsed | Expand::PartiallyExpanded) => found.push(Act::Expand),
        Some(Expand::Expanded) => found.push(Act::Collapse),
        Some(Expand::LeafNode) | None => {}
    }
    if patterns
        .legacy_default_action
        .as_deref()
        .is_some_and(|name| !name.is_empty())
    {
        found.push(Act::DefaultAction);
    }
    found
}

pub fn action_names(patterns: &Patterns) -> Vec<&'static str> {
    actions(patterns).into_iter().map(Act::name).collect()
}

/// Checks a number against the range before anything is sent.
pub fn check_range(range: &RangeState, number: f64) -> Result<(), Error> {
    if range.read_only {
        return Err(Error::new(
            ErrorKind::Disabled,
            "the control's value is read-only; it cannot be set",
        ));
    }
    if !(range.minimum..=range.maximum).contains(&number) {
        return Err(Error::bad_argument(format!(
            "{number} is outside the control's range {}–{}; give a number within it",
            format_number(range.minimum),
            format_number(range.maximum)
        )));
    }
    Ok(())
}

/// HRESULTs UI Automation and COM answer.
pub mod hresult {
    pub const E_ACCESSDENIED: i32 = 0x8007_0005_u32 as i32;
    pub const E_NOTIMPL: i32 = 0x8000_4001_u32 as i32;
    pub const REGDB_E_CLASSNOTREG: i32 = 0x8004_0154_u32 as i32;
    pub const UIA_E_ELEMENTNOTENABLED: i32 = 0x8004_0200_u32 as i32;
    pub const UIA_E_ELEMENTNOTAVAILABLE: i32 = 0x8004_0201_u32 as i32;
    pub const UIA_E_NOCLICKABLEPOINT: i32 = 0x8004_0202_u32 as i32;
    pub const UIA_E_NOTSUPPORTED: i32 = 0x8004_0204_u32 as i32;
    pub const UIA_E_TIMEOUT: i32 = 0x8013_1505_u32 as i32;
    pub const UIA_E_INVALIDOPERATION: i32 = 0x8013_1509_u32 as i32;
    pub const RPC_S_SERVER_UNAVAILABLE: i32 = 0x8007_06BA_u32 as i32;
    pub const RPC_E_DISCONNECTED: i32 = 0x8001_0108_u32 as i32;
    pub const CO_E_OBJNOTCONNECTED: i32 = 0x8004_01FD_u32 as i32;
}

/// A UIA failure as the core's error. `sent`: the request had gone out, so an app that timed
/// out or vanished may have acted on it and the executor reports it applied but unconfirmed.
pub fn classify(code: i32, what: &str, sent: bool) -> Error {
    use hresult as h;
    let (kind, why) = match code {
        h::REGDB_E_CLASSNOTREG => (
            ErrorKind::NoAccessibility,
            "UI Automation is not available on this system (its CUIAutomation class is not \
             registered, as under Wine); use screenshot and clicks at points instead",
        ),
        h::UIA_E_ELEMENTNOTAVAILABLE | h::RPC_E_DISCONNECTED | h::CO_E_OBJNOTCONNECTED => (
            ErrorKind::ElementGone,
            "the element is gone; call observe again",
        ),
        h::RPC_S_SERVER_UNAVAILABLE => (
            ErrorKind::SurfaceGone,
            "the application has exited; call windows to see what is open",
        ),
        h::UIA_E_ELEMENTNOTENABLED => (
            ErrorKind::Disabled,
            "the element is disabled; do what enables it first",
        ),
        h::UIA_E_NOTSUPPORTED | h::UIA_E_NOCLICKABLEPOINT => (
            ErrorKind::Unsupported,
            "the element does not offer that through UI Automation; click it with the pointer",
        ),
        h::E_NOTIMPL => (
            ErrorKind::Unsupported,
            "this system's UI Automation does not implement that call (Wine's implements no \
             pattern and no focus call); click or type at the element's place instead",
        ),
        h::UIA_E_TIMEOUT => (
            ErrorKind::Timeout,
            "the application did not answer in time; it may be busy or showing a dialog",
        ),
        h::E_ACCESSDENIED => (
            ErrorKind::Platform,
            "Windows denied access: the app runs elevated; run deskhand as administrator to \
             drive it",
        ),
        h::UIA_E_INVALIDOPERATION => (
            ErrorKind::Platform,
            "the element refused it in its current state",
        ),
        _ => (ErrorKind::Platform, "UI Automation failed"),
    };
    let error = Error::new(
        kind,
        format!("{what} failed: {why} (HRESULT 0x{:08X})", code as u32),
    );
    let may_have_acted = matches!(kind, ErrorKind::Timeout | ErrorKind::SurfaceGone);
    if sent && may_have_acted {
        error.after_sending()
    } else {
        error
    }
}

#[cfg(test)]
mod tests;
