//! The platform-free picture of a desktop: surfaces, windows, apps and accessible elements.

use serde::{Deserialize, Serialize};

/// A rectangle in physical screen pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    /// The rectangle with every coordinate and length times `factor`, rounded: a toolkit's own
    /// logical pixels in screen pixels.
    pub fn scaled(self, factor: f64) -> Self {
        if factor == 1.0 {
            return self;
        }
        let at = |v: i32| (f64::from(v) * factor).round() as i32;
        let length = |v: u32| (f64::from(v) * factor).round() as u32;
        Rect::new(
            at(self.x),
            at(self.y),
            length(self.width),
            length(self.height),
        )
    }

    pub fn new(x: i32, y: i32, width: u32, height: u32) -> Self {
        Self {
            x,
            y,
            width,
            height,
        }
    }

    /// Saturating: an application may report any extents, however absurd.
    pub fn center(&self) -> Point {
        Point {
            x: self.x.saturating_add((self.width / 2) as i32),
            y: self.y.saturating_add((self.height / 2) as i32),
        }
    }

    /// The right and bottom edges, exclusive, where `i32` may not hold them.
    fn ends(&self) -> (i64, i64) {
        (
            self.x as i64 + self.width as i64,
            self.y as i64 + self.height as i64,
        )
    }

    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }

    pub fn contains(&self, point: Point) -> bool {
        let (right, bottom) = self.ends();
        point.x >= self.x
            && point.y >= self.y
            && (point.x as i64) < right
            && (point.y as i64) < bottom
    }

    /// The part of `self` inside `bounds`, or `None` when they do not overlap.
    pub fn intersect(&self, bounds: &Rect) -> Option<Rect> {
        let x0 = self.x.max(bounds.x);
        let y0 = self.y.max(bounds.y);
        let (right, bottom) = self.ends();
        let (bounds_right, bounds_bottom) = bounds.ends();
        let x1 = right.min(bounds_right);
        let y1 = bottom.min(bounds_bottom);
        // Both sides fit: x1 - x0 is at most one of the widths.
        (x1 > x0 as i64 && y1 > y0 as i64)
            .then(|| Rect::new(x0, y0, (x1 - x0 as i64) as u32, (y1 - y0 as i64) as u32))
    }
}

/// A point in physical screen pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// A running application that owns at least one window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppInfo {
    pub pid: u32,
    pub name: String,
    pub windows: usize,
    pub focused: bool,
}

impl AppInfo {
    /// The applications that own `windows`, in the order of their first window; a window whose
    /// process is unknown belongs to none.
    pub fn owning(windows: &[WindowInfo]) -> Vec<AppInfo> {
        let mut apps: Vec<AppInfo> = Vec::new();
        for window in windows {
            let Some(pid) = window.pid else { continue };
            match apps.iter_mut().find(|app| app.pid == pid) {
                Some(app) => {
                    app.windows += 1;
                    app.focused |= window.focused;
                }
                None => apps.push(AppInfo {
                    pid,
                    name: window.app_name.clone(),
                    windows: 1,
                    focused: window.focused,
                }),
            }
        }
        apps
    }
}

/// A top-level window as the window system reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowInfo {
    /// The platform's own window id (an X window id on Linux).
    pub handle: u64,
    pub title: String,
    pub pid: Option<u32>,
    pub app_name: String,
    /// The client area in screen pixels; only its size where the backend's
    /// [`Windows::positions_unknown`](crate::backend::Windows::positions_unknown) says why the
    /// place is unknown (then x and y are 0 and name no place on the screen).
    pub bounds: Rect,
    pub focused: bool,
    pub minimized: bool,
    /// Maximized both ways (a window maximized in one direction only counts as not maximized).
    pub maximized: bool,
}

/// One monitor of the desktop, in the desktop's pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Monitor {
    /// The display server's name for it (`HDMI-1`, `HEADLESS-2`).
    pub name: String,
    pub bounds: Rect,
    /// Physical pixels per logical pixel where the display server scales it, else 1.
    pub scale: f64,
    /// The one the display server calls primary (the first, where it calls none so): the
    /// kill switch's corner is its top-left.
    pub primary: bool,
}

/// What tells one window from every other for the whole session: the platform handle alone is not
/// enough, since X reuses a closed client's window ids for the next client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WindowKey {
    pub handle: u64,
    pub pid: Option<u32>,
}

impl WindowInfo {
    pub fn key(&self) -> WindowKey {
        WindowKey {
            handle: self.handle,
            pid: self.pid,
        }
    }
}

/// The platform's own name for one accessible element, as a string a later process can resolve.
///
/// The CLI keeps a session's refs on disk between calls, each `eN` with the handle it stands
/// for, and the next `deskhand click e4` runs in a new process. So a handle must:
/// - name the element from outside the process that read it: no pointer, COM object or
///   connection-local id;
/// - resolve to that same element or to nothing, never to another one: when the element is
///   gone or replaced the backend answers that it is gone, and deskhand asks the agent to
///   observe again;
/// - be cheap to compare: refs stay with an element across observes by handle equality.
///
/// On Linux it is the application's bus name and the element's object path
/// (`:1.42/org/a11y/atspi/accessible/17`), which AT-SPI keeps for the element's life. A
/// platform without such paths builds one from what it can re-find: UI Automation from the
/// window handle and the element's runtime id (valid while the element lives, compared on
/// resolving), with the path of child indices from the window as the way back to it; the macOS
/// Accessibility API, which has no ids, from the pid, the window and the path of child indices,
/// with the role and name checked on resolving so a reordered tree answers "gone" rather than
/// reaching a neighbour.
///
/// Text read from a window's pixels (see [`crate::ocr`]) has a handle of the core's own,
/// [`ElementHandle::read_from_pixels`]: where the text is, relative to its window, and what it
/// says. No platform call can resolve it; the core acts on it with the pointer.
///
/// Some elements get a new platform name each time they are read (Qt 5's tree view hands out a
/// new object for each of its cells at every ask, which follows its row for as long as it
/// lives). Their handle, [`ElementHandle::with_identity`], joins the name just read, which the
/// platform acts on, to what tells the element apart from one read to the next (its place
/// under a parent that keeps its own name, and its name), which refs and `since` key on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ElementHandle(pub String);

impl ElementHandle {
    const PIXELS: &str = "ocr:";
    /// Parts a handle's platform address from its identity; no platform's address holds it.
    const IDENTITY: char = '\u{1f}';

    /// The handle of an element the platform names anew at each read: `address` is what it
    /// acts on, `identity` what the element keeps from one read to the next.
    pub fn with_identity(address: &str, identity: &str) -> ElementHandle {
        ElementHandle(format!("{address}{}{identity}", Self::IDENTITY))
    }

    /// What the platform resolves and acts on.
    pub fn address(&self) -> &str {
        self.0
            .split_once(Self::IDENTITY)
            .map_or(self.0.as_str(), |(address, _)| address)
    }

    /// What tells the element apart across reads: the identity given with
    /// [`ElementHandle::with_identity`], else the whole handle.
    pub fn identity(&self) -> &str {
        self.0
            .split_once(Self::IDENTITY)
            .map_or(self.0.as_str(), |(_, identity)| identity)
    }

    /// The handle of text read from pixels at `bounds`, relative to its window's top-left
    /// corner: the same text in the same place of the window keeps its ref number.
    pub fn read_from_pixels(bounds: Rect, text: &str) -> ElementHandle {
        ElementHandle(format!(
            "{}{},{},{},{}:{text}",
            Self::PIXELS,
            bounds.x,
            bounds.y,
            bounds.width,
            bounds.height
        ))
    }

    pub fn is_read_from_pixels(&self) -> bool {
        self.0.starts_with(Self::PIXELS)
    }

    /// Where text read from pixels is, relative to its window; `None` for any other handle.
    pub fn pixel_bounds(&self) -> Option<Rect> {
        let rest = self.0.strip_prefix(Self::PIXELS)?;
        let (place, _) = rest.split_once(':')?;
        let mut parts = place.split(',');
        let mut next = || parts.next()?.parse::<i64>().ok();
        let (x, y, width, height) = (next()?, next()?, next()?, next()?);
        Some(Rect::new(
            i32::try_from(x).ok()?,
            i32::try_from(y).ok()?,
            u32::try_from(width).ok()?,
            u32::try_from(height).ok()?,
        ))
    }
}

/// Roles, reduced to what an agent needs to tell controls apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    Window,
    Dialog,
    Button,
    Toggle,
    Check,
    Radio,
    Text,
    /// A terminal: its latest output is at the end of its text.
    Terminal,
    Password,
    Label,
    Link,
    Image,
    Menubar,
    Menu,
    Menuitem,
    Combobox,
    Slider,
    Spin,
    Scrollbar,
    List,
    Listitem,
    Tree,
    Treeitem,
    Table,
    Row,
    Cell,
    Header,
    Tablist,
    Tab,
    Toolbar,
    Statusbar,
    Progress,
    Separator,
    Document,
    Heading,
    Paragraph,
    Group,
    Form,
    Alert,
    Tooltip,
    Canvas,
    Scrollpane,
    /// Layout without meaning of its own: filler, panel, section with no name.
    Generic,
    Unknown,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Window => "window",
            Role::Dialog => "dialog",
            Role::Button => "button",
            Role::Toggle => "toggle",
            Role::Check => "check",
            Role::Radio => "radio",
            Role::Text => "text",
            Role::Terminal => "terminal",
            Role::Password => "password",
            Role::Label => "label",
            Role::Link => "link",
            Role::Image => "image",
            Role::Menubar => "menubar",
            Role::Menu => "menu",
            Role::Menuitem => "menuitem",
            Role::Combobox => "combobox",
            Role::Slider => "slider",
            Role::Spin => "spin",
            Role::Scrollbar => "scrollbar",
            Role::List => "list",
            Role::Listitem => "listitem",
            Role::Tree => "tree",
            Role::Treeitem => "treeitem",
            Role::Table => "table",
            Role::Row => "row",
            Role::Cell => "cell",
            Role::Header => "header",
            Role::Tablist => "tablist",
            Role::Tab => "tab",
            Role::Toolbar => "toolbar",
            Role::Statusbar => "statusbar",
            Role::Progress => "progress",
            Role::Separator => "separator",
            Role::Document => "document",
            Role::Heading => "heading",
            Role::Paragraph => "paragraph",
            Role::Group => "group",
            Role::Form => "form",
            Role::Alert => "alert",
            Role::Tooltip => "tooltip",
            Role::Canvas => "canvas",
            Role::Scrollpane => "scrollpane",
            Role::Generic => "generic",
            Role::Unknown => "unknown",
        }
    }

    /// Roles an agent acts on; they are listed even when they carry no name.
    pub fn is_control(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::Toggle
                | Role::Check
                | Role::Radio
                | Role::Text
                | Role::Terminal
                | Role::Password
                | Role::Link
                | Role::Menuitem
                | Role::Combobox
                | Role::Slider
                | Role::Spin
                | Role::Listitem
                | Role::Treeitem
                | Role::Cell
                | Role::Tab
                | Role::Canvas
        )
    }

    /// Roles that only arrange other elements: printed only when they carry a name.
    pub fn is_layout(self) -> bool {
        matches!(
            self,
            Role::Generic
                | Role::Group
                | Role::Unknown
                | Role::Scrollpane
                | Role::Separator
                | Role::Row
                | Role::Form
                | Role::Paragraph
        )
    }
}

/// Element states an agent needs to know before acting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct States {
    pub enabled: bool,
    pub visible: bool,
    pub focused: bool,
    pub focusable: bool,
    pub checked: bool,
    pub checkable: bool,
    pub selected: bool,
    pub expanded: bool,
    pub expandable: bool,
    pub editable: bool,
    pub pressed: bool,
    pub modal: bool,
    /// Its name was read from its pixels (OCR), not given by the accessibility tree: text on a
    /// surface without a tree, or the caption drawn on an unnamed icon button.
    pub from_pixels: bool,
}

/// One accessible element and its subtree, with extents already in screen pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub handle: ElementHandle,
    pub role: Role,
    pub name: String,
    /// `None` for password fields: their content is never read.
    pub value: Option<String>,
    pub states: States,
    pub bounds: Option<Rect>,
    /// The element's accessibility actions as the platform lists them cheaply (names may be
    /// translated or empty). They only decide whether an unnamed element is listed, so a reader
    /// may leave them out for controls and named elements; what a click runs is asked at click
    /// time from the programmatic names.
    pub actions: Vec<String>,
    pub children: Vec<Node>,
}

impl Node {
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(Node::count).sum::<usize>()
    }

    /// The element `handle` in this subtree.
    pub fn find(&self, handle: &ElementHandle) -> Option<&Node> {
        if &self.handle == handle {
            return Some(self);
        }
        self.children.iter().find_map(|child| child.find(handle))
    }

    /// Whether any element of this subtree passes `test`.
    pub fn any(&self, test: &dyn Fn(&Node) -> bool) -> bool {
        test(self) || self.children.iter().any(|child| child.any(test))
    }
}

/// The accessibility tree of one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub root: Node,
    /// Why the tree is incomplete, when it is.
    pub partial: Option<String>,
}

/// An RGB8 image, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    Left,
    Middle,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Modifier {
    Shift,
    Ctrl,
    Alt,
    #[serde(alias = "meta", alias = "cmd", alias = "win")]
    Super,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

/// A change to a window's place, size or state. Pixels are screen pixels of the client area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WindowChange {
    Move {
        x: i32,
        y: i32,
    },
    Resize {
        width: u32,
        height: u32,
    },
    Minimize,
    Maximize,
    /// Back to normal from minimized or maximized.
    Restore,
}

/// What the clipboard holds now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClipboardContent {
    /// The text, when the owner offers text.
    pub text: Option<String>,
    /// The formats the owner offers (MIME types or X target names), as it names them.
    pub types: Vec<String>,
}

/// An application the system can start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledApp {
    /// The desktop-file id, e.g. "org.gnome.Calculator".
    pub id: String,
    pub name: String,
    /// The command line the system runs, for display.
    pub command: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(handle: u64, pid: Option<u32>, app: &str, focused: bool) -> WindowInfo {
        WindowInfo {
            handle,
            title: format!("window {handle}"),
            pid,
            app_name: app.into(),
            bounds: Rect::new(0, 0, 100, 100),
            focused,
            minimized: false,
            maximized: false,
        }
    }

    #[test]
    fn a_handle_of_text_read_from_pixels_keeps_where_the_text_is() {
        let handle = ElementHandle::read_from_pixels(Rect::new(42, -3, 86, 25), "a: b");
        assert!(handle.is_read_from_pixels());
        assert_eq!(handle.pixel_bounds(), Some(Rect::new(42, -3, 86, 25)));
        let tree = ElementHandle(":1.42/org/a11y/atspi/accessible/17".into());
        assert!(!tree.is_read_from_pixels());
        assert_eq!(tree.pixel_bounds(), None);
        assert_eq!(ElementHandle("ocr:1,2:x".into()).pixel_bounds(), None);
    }

    #[test]
    fn a_handle_named_anew_at_each_read_acts_on_its_address_and_keys_on_its_identity() {
        let first = ElementHandle::with_identity(":1.4|/a/31", ":1.4|/a/9#2:beta.png");
        let again = ElementHandle::with_identity(":1.4|/a/57", ":1.4|/a/9#2:beta.png");
        assert_eq!(first.address(), ":1.4|/a/31");
        assert_eq!(again.identity(), first.identity());
        assert_ne!(again, first);
        let plain = ElementHandle(":1.4|/a/9".into());
        assert_eq!(plain.address(), plain.identity());
        assert_eq!(plain.identity(), ":1.4|/a/9");
    }

    #[test]
    fn apps_group_their_windows_by_process_and_own_the_focus_if_any_window_has_it() {
        let windows = [
            window(1, Some(10), "editor", false),
            window(2, Some(20), "calculator", false),
            window(3, None, "unknown", true),
            window(4, Some(10), "editor", true),
        ];
        assert_eq!(
            AppInfo::owning(&windows),
            [
                AppInfo {
                    pid: 10,
                    name: "editor".into(),
                    windows: 2,
                    focused: true,
                },
                AppInfo {
                    pid: 20,
                    name: "calculator".into(),
                    windows: 1,
                    focused: false,
                },
            ]
        );
    }
}
