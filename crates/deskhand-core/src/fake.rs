//! A scripted in-memory desktop for unit tests of the core; it records every input it receives.

use std::sync::Mutex;

use crate::backend::{
    Accessibility, Apps, Capture, Clipboard, Hit, Identity, Input, InputOutcome, SpotKind, Values,
    Windows,
};
use crate::error::{Error, ErrorKind, Result};
use crate::keys::Keys;
use crate::model::{
    ClipboardContent, ElementHandle, InstalledApp, Modifier, Monitor, MouseButton, Node, Point,
    Rect, RgbImage, ScrollDirection, Tree, WindowChange, WindowInfo, WindowKey,
};

/// One input the fake desktop received.
#[derive(Debug, Clone, PartialEq)]
pub enum Received {
    Action(ElementHandle, String),
    Focus(ElementHandle),
    Click(Point, MouseButton, u32),
    Scroll(Option<Point>, ScrollDirection, u32),
    Drag(Vec<Point>),
    Move(Point),
    Button(MouseButton, bool),
    Keys(String),
    Text(String),
    Activate(u64),
    Close(u64),
    Kill(u32),
    Change(u64, WindowChange),
    SetText(ElementHandle, String),
    SetNumber(ElementHandle, f64),
    Launch(String),
}

#[derive(Debug)]
pub struct FakeDesktop {
    pub screen: Rect,
    /// Windows bottom to top, each with its tree.
    pub windows: Mutex<Vec<(WindowInfo, Tree)>>,
    pub received: Mutex<Vec<Received>>,
    /// Where the pointer is; starts at the center of the screen.
    pub pointer: Mutex<Point>,
    pub clipboard: Mutex<ClipboardContent>,
    /// What `set_text` and `set_number` store, read back by `element_value`; an element absent
    /// here reads back the value its node has.
    pub values: Mutex<Vec<(ElementHandle, String)>>,
    /// How often the desktop was read: a window list (`windows`), one window (`window`) or a
    /// tree (`tree`).
    pub reads: std::sync::atomic::AtomicUsize,
    /// What `installed_gaps` answers: kinds of apps this desktop cannot list.
    pub installed_gaps: Mutex<Vec<String>>,
    /// Elements that take the pointer only in part of their bounds (an icon view's item, on
    /// its text): `reaches` answers by this part, `element_spots` gives its center.
    pub hit_areas: Mutex<Vec<(ElementHandle, Rect)>>,
    /// Elements something covers: `reaches` finds another element at every point of them.
    pub covered: Mutex<Vec<ElementHandle>>,
    /// The monitors; none means the screen is one.
    pub monitors: Mutex<Vec<Monitor>>,
    /// The person at the desk, once a test gives the fake one to watch for.
    pub presence: Mutex<Option<std::sync::Arc<crate::person::Presence>>>,
    /// How many tree reads still time out, as an app busy in a modal loop answers nothing.
    pub busy_trees: std::sync::atomic::AtomicUsize,
}

impl FakeDesktop {
    pub fn new(screen: Rect, windows: Vec<(WindowInfo, Tree)>) -> Self {
        Self {
            screen,
            windows: Mutex::new(windows),
            received: Mutex::new(Vec::new()),
            pointer: Mutex::new(screen.center()),
            clipboard: Mutex::new(ClipboardContent::default()),
            values: Mutex::new(Vec::new()),
            reads: Default::default(),
            installed_gaps: Mutex::new(Vec::new()),
            hit_areas: Mutex::new(Vec::new()),
            covered: Mutex::new(Vec::new()),
            monitors: Mutex::new(Vec::new()),
            presence: Mutex::new(None),
            busy_trees: Default::default(),
        }
    }

    /// Moves the pointer the way a person would, without recording an input.
    pub fn move_pointer(&self, to: Point) {
        *self.pointer.lock().unwrap() = to;
    }

    pub fn close(&self, handle: u64) {
        self.windows
            .lock()
            .unwrap()
            .retain(|(w, _)| w.handle != handle);
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    fn count_read(&self) {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn record(&self, input: Received) {
        self.received.lock().unwrap().push(input);
    }

    fn store_value(&self, element: &ElementHandle, value: String) {
        let mut values = self.values.lock().unwrap();
        values.retain(|(h, _)| h != element);
        values.push((element.clone(), value));
    }

    fn hit_area(&self, handle: &ElementHandle) -> Option<Rect> {
        self.hit_areas
            .lock()
            .unwrap()
            .iter()
            .find(|(h, _)| h == handle)
            .map(|(_, area)| *area)
    }

    fn find(&self, handle: &ElementHandle) -> Option<Node> {
        self.windows
            .lock()
            .unwrap()
            .iter()
            .find_map(|(_, tree)| tree.root.find(handle).cloned())
    }
}

impl Windows for FakeDesktop {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        self.count_read();
        Ok(self
            .windows
            .lock()
            .unwrap()
            .iter()
            .map(|(w, _)| w.clone())
            .collect())
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        self.count_read();
        Ok(self
            .windows
            .lock()
            .unwrap()
            .iter()
            .find(|(w, _)| w.handle == handle)
            .map(|(w, _)| w.clone()))
    }

    async fn screen(&self) -> Result<Rect> {
        Ok(self.screen)
    }

    async fn monitors(&self) -> Result<Vec<Monitor>> {
        let monitors = self.monitors.lock().unwrap().clone();
        Ok(if monitors.is_empty() {
            vec![Monitor {
                name: "screen".into(),
                bounds: self.screen,
                scale: 1.0,
                primary: true,
            }]
        } else {
            monitors
        })
    }

    async fn corner(&self) -> Point {
        let monitors = self.monitors().await.unwrap_or_default();
        crate::monitors::corner(&crate::monitors::ordered(monitors))
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        Ok(self
            .windows
            .lock()
            .unwrap()
            .iter()
            .map(|(w, _)| w.key())
            .collect())
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        self.record(Received::Activate(window.handle));
        let mut windows = self.windows.lock().unwrap();
        let index = windows
            .iter()
            .position(|(w, _)| w.handle == window.handle)
            .ok_or_else(|| Error::new(ErrorKind::SurfaceGone, "the window is gone"))?;
        let mut entry = windows.remove(index);
        for (w, _) in windows.iter_mut() {
            w.focused = false;
        }
        entry.0.focused = true;
        entry.0.minimized = false;
        windows.push(entry);
        Ok(())
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        self.record(Received::Close(window.handle));
        self.close(window.handle);
        Ok(())
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        self.record(Received::Change(window.handle, change));
        let mut windows = self.windows.lock().unwrap();
        if let Some((w, _)) = windows.iter_mut().find(|(w, _)| w.handle == window.handle) {
            match change {
                WindowChange::Move { x, y } => (w.bounds.x, w.bounds.y) = (x, y),
                WindowChange::Resize { width, height } => {
                    (w.bounds.width, w.bounds.height) = (width, height)
                }
                WindowChange::Minimize => w.minimized = true,
                WindowChange::Maximize => (w.bounds, w.maximized) = (self.screen, true),
                WindowChange::Restore => (w.minimized, w.maximized) = (false, false),
            }
        }
        Ok(())
    }
}

impl Accessibility for FakeDesktop {
    async fn tree(&self, window: &WindowInfo) -> Result<Tree> {
        self.count_read();
        let busy = self.busy_trees.fetch_update(
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
            |left| left.checked_sub(1),
        );
        if busy.is_ok() {
            return Err(Error::new(
                ErrorKind::Timeout,
                "the app did not answer within 2 s: it is busy",
            ));
        }
        self.windows
            .lock()
            .unwrap()
            .iter()
            .find(|(w, _)| w.handle == window.handle)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| Error::new(ErrorKind::SurfaceGone, "the window is gone"))
    }

    async fn element_bounds(
        &self,
        _: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Rect>> {
        Ok(self.find(element).and_then(|n| n.bounds))
    }

    async fn element_identity(
        &self,
        _: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Identity>> {
        Ok(self.find(element).map(|node| Identity {
            role: node.role,
            name: node.name,
            enabled: node.states.enabled,
        }))
    }

    async fn reaches(
        &self,
        _: &WindowInfo,
        element: &ElementHandle,
        at: Point,
    ) -> Result<Option<Hit>> {
        if self.covered.lock().unwrap().contains(element) {
            return Ok(Some(Hit::Other));
        }
        let area = self
            .hit_area(element)
            .or_else(|| self.find(element).and_then(|n| n.bounds));
        Ok(area.map(|area| {
            if area.contains(at) {
                Hit::Element
            } else {
                Hit::Nothing
            }
        }))
    }

    async fn element_spots(
        &self,
        _: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Vec<(Point, SpotKind)>> {
        Ok(self
            .hit_area(element)
            .map(|area| vec![(area.center(), SpotKind::Text)])
            .unwrap_or_default())
    }

    async fn action_names(&self, element: &ElementHandle) -> Result<Vec<String>> {
        self.find(element)
            .map(|node| node.actions)
            .ok_or_else(|| Error::platform("the element is gone"))
    }

    async fn do_action(&self, element: &ElementHandle, index: usize) -> Result<()> {
        let names = self.action_names(element).await?;
        let name = names
            .get(index)
            .ok_or_else(|| Error::platform("the element has no such action"))?;
        self.record(Received::Action(element.clone(), name.clone()));
        Ok(())
    }

    async fn actions_run_in_request(&self, _: &WindowInfo) -> bool {
        false
    }

    async fn answers(&self, _: &WindowInfo) -> bool {
        true
    }

    async fn focus_element(&self, element: &ElementHandle) -> Result<()> {
        self.record(Received::Focus(element.clone()));
        Ok(())
    }

    async fn element_focused(&self, element: &ElementHandle) -> Result<bool> {
        self.find(element)
            .map(|_| true)
            .ok_or_else(|| Error::platform("the element is gone"))
    }
}

impl Values for FakeDesktop {
    async fn set_text(&self, element: &ElementHandle, text: &str) -> Result<()> {
        self.record(Received::SetText(element.clone(), text.into()));
        self.store_value(element, text.into());
        Ok(())
    }

    async fn set_number(&self, element: &ElementHandle, value: f64) -> Result<()> {
        self.record(Received::SetNumber(element.clone(), value));
        self.store_value(element, value.to_string());
        Ok(())
    }

    async fn element_text(&self, element: &ElementHandle) -> Result<String> {
        let node = self
            .find(element)
            .ok_or_else(|| Error::platform("the element is gone"))?;
        Ok(self.element_value(element).await?.unwrap_or(node.name))
    }

    async fn element_value(&self, element: &ElementHandle) -> Result<Option<String>> {
        let stored = self
            .values
            .lock()
            .unwrap()
            .iter()
            .find(|(h, _)| h == element)
            .map(|(_, v)| v.clone());
        match stored {
            Some(value) => Ok(Some(value)),
            None => self
                .find(element)
                .map(|node| node.value)
                .ok_or_else(|| Error::platform("the element is gone")),
        }
    }
}

impl Input for FakeDesktop {
    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        _: &[Modifier],
    ) -> Result<()> {
        self.record(Received::Click(at, button, count));
        Ok(())
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        self.record(Received::Scroll(at, direction, amount));
        Ok(())
    }

    async fn drag_path(
        &self,
        points: &[Point],
        _: MouseButton,
        _: &[Modifier],
        _: std::time::Duration,
    ) -> Result<()> {
        self.record(Received::Drag(points.to_vec()));
        Ok(())
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        self.record(Received::Keys(keys.to_string()));
        Ok(InputOutcome::Done)
    }

    async fn type_text(&self, text: &str) -> Result<InputOutcome> {
        self.record(Received::Text(text.into()));
        Ok(InputOutcome::Done)
    }

    async fn pointer(&self) -> Result<Point> {
        Ok(*self.pointer.lock().unwrap())
    }

    fn presence(&self) -> Option<std::sync::Arc<crate::person::Presence>> {
        self.presence.lock().unwrap().clone()
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        self.record(Received::Move(to));
        *self.pointer.lock().unwrap() = to;
        Ok(())
    }

    async fn button(&self, button: MouseButton, down: bool, _: &[Modifier]) -> Result<()> {
        self.record(Received::Button(button, down));
        Ok(())
    }
}

impl Capture for FakeDesktop {
    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        Ok(RgbImage {
            width: rect.width,
            height: rect.height,
            data: vec![128; (rect.width * rect.height * 3) as usize],
        })
    }
}

impl Clipboard for FakeDesktop {
    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        Ok(self.clipboard.lock().unwrap().clone())
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        *self.clipboard.lock().unwrap() = ClipboardContent {
            text: Some(text.into()),
            types: vec!["UTF8_STRING".into(), "text/plain;charset=utf-8".into()],
        };
        Ok(())
    }
}

impl Apps for FakeDesktop {
    async fn kill(&self, pid: u32) -> Result<()> {
        self.record(Received::Kill(pid));
        self.windows
            .lock()
            .unwrap()
            .retain(|(w, _)| w.pid != Some(pid));
        Ok(())
    }

    async fn installed(&self) -> Result<Vec<InstalledApp>> {
        Ok(vec![InstalledApp {
            id: "org.example.Editor".into(),
            name: "Editor".into(),
            command: "editor".into(),
        }])
    }

    async fn installed_gaps(&self) -> Vec<String> {
        self.installed_gaps.lock().unwrap().clone()
    }

    async fn launch(&self, id: &str) -> Result<u32> {
        self.record(Received::Launch(id.into()));
        Ok(4242)
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        pid == ancestor
    }
}
