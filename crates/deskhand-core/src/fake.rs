//! A scripted in-memory desktop for unit tests of the core; it records every input it receives.

use std::sync::Mutex;

use crate::backend::{Backend, InputOutcome};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{
    AppInfo, ElementHandle, Modifier, MouseButton, Node, Point, Rect, RgbImage, ScrollDirection,
    Tree, WindowInfo,
};

/// One input the fake desktop received.
#[derive(Debug, Clone, PartialEq)]
pub enum Received {
    Action(ElementHandle, String),
    Focus(ElementHandle),
    Click(Point, MouseButton, u32),
    Scroll(Option<Point>, ScrollDirection, u32),
    Drag(Point, Point),
    Keys(String),
    Text(String),
}

#[derive(Debug)]
pub struct FakeDesktop {
    pub screen: Rect,
    /// Windows bottom to top, each with its tree.
    pub windows: Mutex<Vec<(WindowInfo, Tree)>>,
    pub received: Mutex<Vec<Received>>,
    /// Where the pointer is; starts at the center of the screen.
    pub pointer: Mutex<Point>,
}

impl FakeDesktop {
    pub fn new(screen: Rect, windows: Vec<(WindowInfo, Tree)>) -> Self {
        Self {
            screen,
            windows: Mutex::new(windows),
            received: Mutex::new(Vec::new()),
            pointer: Mutex::new(screen.center()),
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

    fn record(&self, input: Received) {
        self.received.lock().unwrap().push(input);
    }

    fn find(&self, handle: &ElementHandle) -> Option<Node> {
        fn search(node: &Node, handle: &ElementHandle) -> Option<Node> {
            if &node.handle == handle {
                return Some(node.clone());
            }
            node.children.iter().find_map(|c| search(c, handle))
        }
        self.windows
            .lock()
            .unwrap()
            .iter()
            .find_map(|(_, tree)| search(&tree.root, handle))
    }
}

impl Backend for FakeDesktop {
    async fn apps(&self) -> Result<Vec<AppInfo>> {
        let windows = self.windows.lock().unwrap();
        let mut apps: Vec<AppInfo> = Vec::new();
        for (window, _) in windows.iter() {
            let Some(pid) = window.pid else { continue };
            match apps.iter_mut().find(|a| a.pid == pid) {
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
        Ok(apps)
    }

    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        Ok(self
            .windows
            .lock()
            .unwrap()
            .iter()
            .map(|(w, _)| w.clone())
            .collect())
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
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

    async fn tree(&self, window: &WindowInfo) -> Result<Tree> {
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

    async fn focus_element(&self, element: &ElementHandle) -> Result<()> {
        self.record(Received::Focus(element.clone()));
        Ok(())
    }

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

    async fn drag(&self, from: Point, to: Point, _: MouseButton, _: &[Modifier]) -> Result<()> {
        self.record(Received::Drag(from, to));
        Ok(())
    }

    fn check_keys(&self, keys: &str) -> Result<()> {
        if keys.contains("nosuchkey") {
            return Err(Error::bad_argument("unknown key `nosuchkey`"));
        }
        Ok(())
    }

    async fn press_keys(&self, keys: &str) -> Result<InputOutcome> {
        self.record(Received::Keys(keys.into()));
        Ok(InputOutcome::Done)
    }

    async fn type_text(&self, text: &str) -> Result<InputOutcome> {
        self.record(Received::Text(text.into()));
        Ok(InputOutcome::Done)
    }

    async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        Ok(RgbImage {
            width: rect.width,
            height: rect.height,
            data: vec![128; (rect.width * rect.height * 3) as usize],
        })
    }

    async fn pointer(&self) -> Result<Point> {
        Ok(*self.pointer.lock().unwrap())
    }
}
