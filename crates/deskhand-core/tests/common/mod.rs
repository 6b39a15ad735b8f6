//! Builders for scripted desktops and a harness that runs calls the way MCP and the CLI do:
//! raw JSON through `parse_call`, then `execute` on a `FakeDesktop`.

// Each test crate uses a different part of this module.
#![allow(dead_code)]

use deskhand_core::fake::{FakeDesktop, Received};
use deskhand_core::model::{ElementHandle, Node, Rect, Role, States, Tree, WindowInfo};
use deskhand_core::{Config, Error, Reply, Session, execute, parse_call};
use serde_json::Value;

/// An enabled, visible element with no value, no actions and no children.
pub fn el(handle: &str, role: Role, name: &str, bounds: (i32, i32, u32, u32)) -> Node {
    let (x, y, width, height) = bounds;
    Node {
        handle: ElementHandle(handle.into()),
        role,
        name: name.into(),
        value: None,
        states: States {
            enabled: true,
            visible: true,
            ..States::default()
        },
        bounds: Some(Rect::new(x, y, width, height)),
        actions: vec![],
        children: vec![],
    }
}

/// Chainable edits of a node, so fixtures read like the tree they build.
pub trait NodeExt: Sized {
    fn actions(self, actions: &[&str]) -> Self;
    fn value(self, value: &str) -> Self;
    fn children(self, children: Vec<Node>) -> Self;
    fn states(self, edit: impl FnOnce(&mut States)) -> Self;
    fn hidden(self) -> Self {
        self.states(|s| s.visible = false)
    }
}

impl NodeExt for Node {
    fn actions(mut self, actions: &[&str]) -> Self {
        self.actions = actions.iter().map(|a| a.to_string()).collect();
        self
    }

    fn value(mut self, value: &str) -> Self {
        self.value = Some(value.into());
        self
    }

    fn children(mut self, children: Vec<Node>) -> Self {
        self.children = children;
        self
    }

    fn states(mut self, edit: impl FnOnce(&mut States)) -> Self {
        edit(&mut self.states);
        self
    }
}

pub fn window(
    handle: u64,
    title: &str,
    pid: u32,
    app: &str,
    bounds: Rect,
    focused: bool,
) -> WindowInfo {
    WindowInfo {
        handle,
        title: title.into(),
        pid: Some(pid),
        app_name: app.into(),
        bounds,
        focused,
        minimized: false,
        maximized: false,
    }
}

pub fn tree(root: Node) -> Tree {
    Tree {
        root,
        partial: None,
    }
}

/// A fake desktop and one session on it.
pub struct Desk {
    pub fake: FakeDesktop,
    pub session: Session,
    pub config: Config,
}

impl Desk {
    pub fn new(fake: FakeDesktop) -> Self {
        Self {
            fake,
            session: Session::default(),
            config: Config::default(),
        }
    }

    /// Runs raw tool arguments exactly as an agent sends them.
    pub async fn call(&mut self, args: Value) -> Result<Reply, Error> {
        let call = parse_call(args)?;
        execute(&self.fake, &mut self.session, &self.config, call).await
    }

    pub async fn ok(&mut self, args: Value) -> Reply {
        match self.call(args.clone()).await {
            Ok(reply) => reply,
            Err(err) => panic!("{args} failed: {}", err.reply_text()),
        }
    }

    pub async fn fail(&mut self, args: Value) -> Error {
        match self.call(args.clone()).await {
            Ok(reply) => panic!("{args} should have failed but replied:\n{}", reply.text),
            Err(err) => err,
        }
    }

    /// The `wN` id `windows` gives the window with this title.
    pub async fn window_id(&mut self, title: &str) -> String {
        let reply = self.ok(serde_json::json!({"action": "windows"})).await;
        listed_id(&reply.data["windows"], "title", title)
    }

    /// The `aN` id `apps` gives the application with this name.
    pub async fn app_id(&mut self, name: &str) -> String {
        let reply = self.ok(serde_json::json!({"action": "apps"})).await;
        listed_id(&reply.data["apps"], "name", name)
    }

    /// What the fake received since the last call to `take`, clearing the record.
    pub fn take(&self) -> Vec<Received> {
        std::mem::take(&mut *self.fake.received.lock().unwrap())
    }

    /// Gives keyboard focus to one window, taking it from all others.
    pub fn focus(&self, handle: u64) {
        for (window, _) in self.fake.windows.lock().unwrap().iter_mut() {
            window.focused = window.handle == handle;
        }
    }

    /// Edits the live tree of one window.
    pub fn edit_tree(&self, handle: u64, edit: impl FnOnce(&mut Node)) {
        let mut windows = self.fake.windows.lock().unwrap();
        let (_, tree) = windows
            .iter_mut()
            .find(|(w, _)| w.handle == handle)
            .expect("no such window in the fake");
        edit(&mut tree.root);
    }
}

fn listed_id(list: &Value, field: &str, wanted: &str) -> String {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|item| item[field] == wanted)
        .and_then(|item| item["id"].as_str())
        .unwrap_or_else(|| panic!("{wanted:?} is not listed in {list}"))
        .to_string()
}

/// The ref an observation gave the first element with this name.
pub fn ref_named(reply: &Reply, name: &str) -> String {
    elements(reply)
        .into_iter()
        .find(|(_, n)| n == name)
        .map(|(r, _)| r)
        .unwrap_or_else(|| panic!("no element named {name:?} in\n{}", reply.text))
}

/// Every listed element of an observation as (ref, name), in order.
pub fn elements(reply: &Reply) -> Vec<(String, String)> {
    reply.data["elements"]
        .as_array()
        .expect("an observation lists elements")
        .iter()
        .map(|e| {
            (
                e["ref"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The first line of a reply: the header of an observation.
pub fn header(reply: &Reply) -> &str {
    reply.text.lines().next().unwrap_or_default()
}
