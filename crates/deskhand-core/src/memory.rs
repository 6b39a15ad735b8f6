//! What deskhand remembers across sessions: windows it has seen (by structure, never by
//! content), their named controls, and what acting on a control led to. The core decides what
//! is remembered; a store (SQLite in the `deskhand-memory` crate) keeps it and answers `recall`.

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::{Node, Role};

/// A named control as memory keeps it: role and name, never a value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Control {
    pub role: Role,
    pub name: String,
}

/// A window as one observation saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sighting {
    /// The application's name, as `apps` shows it.
    pub app: String,
    pub title: String,
    /// Same structure, same fingerprint, however its fields are filled or its title reads.
    pub fingerprint: String,
    /// Its named controls, sorted, without duplicates.
    pub controls: Vec<Control>,
}

/// What an agent did to a control of a window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    Click(Control),
    /// A menu path, e.g. ["Edit", "Preferences…"].
    Select(Vec<String>),
}

/// What followed a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Effect {
    /// Another window of the app appeared or took the focus.
    Window(Sighting),
    /// Named controls appeared in the same window (a tab's page, a pane).
    Controls(Vec<Control>),
}

/// One step on a control of window `from`, and what it led to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub from: Sighting,
    pub step: Step,
    pub effect: Effect,
}

/// What `recall` asks, widening in steps: nothing, an app, an app's window, or a query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recall {
    pub app: Option<String>,
    /// A piece of a window title.
    pub window: Option<String>,
    /// Text to find among remembered controls and window titles.
    pub query: Option<String>,
}

/// A recall's answer: the text an agent reads and its structured form.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    pub text: String,
    pub data: serde_json::Value,
}

/// A store of what deskhand has seen. Writes are best-effort for the caller: a failed write
/// is reported in the reply, never fails the action that caused it.
pub trait Memory: Send + Sync + std::fmt::Debug {
    fn saw(&self, sighting: &Sighting, at: SystemTime) -> Result<()>;
    fn learned(&self, transition: &Transition, at: SystemTime) -> Result<()>;
    fn recall(&self, request: &Recall, now: SystemTime) -> Result<Recalled>;
    /// Forgets one app (by name) or, with `None`, everything; returns how many windows went.
    fn forget(&self, app: Option<&str>) -> Result<usize>;
}

/// Roles that make up a window's structure. Content (list items, cells, links in a page's
/// text, labels) changes with what the window shows and is left out, and so are combo boxes,
/// which toolkits name after their current choice.
fn is_structural(role: Role) -> bool {
    matches!(
        role,
        Role::Button
            | Role::Toggle
            | Role::Check
            | Role::Radio
            | Role::Text
            | Role::Terminal
            | Role::Password
            | Role::Menu
            | Role::Menuitem
            | Role::Slider
            | Role::Spin
            | Role::Tab
    )
}

/// The named structural controls of a window's tree that are shown. Only names are read: a
/// password field contributes its label, never its content. Hidden ones (a closed menu's items,
/// another tab's page) are left out: memory would know them without knowing how to reach them.
pub fn controls_of(root: &Node) -> Vec<Control> {
    let mut found = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if !node.states.visible && !std::ptr::eq(node, root) {
            continue;
        }
        let name = node.name.trim();
        if is_structural(node.role) && !name.is_empty() && name.chars().count() <= 80 {
            found.insert(Control {
                role: node.role,
                name: name.to_owned(),
            });
        }
        stack.extend(node.children.iter());
    }
    found.into_iter().collect()
}

/// A fingerprint of the window's kind: its app, root role and controls. A stable hash (FNV-1a),
/// so fingerprints stored by one build still match in the next.
pub fn fingerprint(app: &str, root_role: Role, controls: &[Control]) -> String {
    let mut hasher = Fnv::default();
    app.hash(&mut hasher);
    root_role.as_str().hash(&mut hasher);
    for control in controls {
        control.role.as_str().hash(&mut hasher);
        control.name.hash(&mut hasher);
    }
    format!("{:016x}", hasher.finish())
}

pub fn sighting(app: &str, title: &str, root: &Node) -> Sighting {
    let controls = controls_of(root);
    Sighting {
        app: app.to_owned(),
        title: title.to_owned(),
        fingerprint: fingerprint(app, root.role, &controls),
        controls,
    }
}

struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ElementHandle, States};

    fn node(role: Role, name: &str, value: Option<&str>, children: Vec<Node>) -> Node {
        Node {
            handle: ElementHandle(format!("{}:{name}", role.as_str())),
            role,
            name: name.into(),
            value: value.map(str::to_owned),
            states: States {
                visible: true,
                ..States::default()
            },
            bounds: None,
            actions: vec![],
            children,
        }
    }

    #[test]
    fn the_same_dialog_filled_differently_has_one_fingerprint() {
        let dialog = |value: &str, title_label: &str| {
            node(
                Role::Dialog,
                "Preferences",
                None,
                vec![
                    node(Role::Text, "Font", Some(value), vec![]),
                    node(Role::Label, title_label, None, vec![]),
                    node(Role::Button, "Close", None, vec![]),
                    node(Role::Listitem, value, None, vec![]),
                ],
            )
        };
        let one = sighting("mousepad", "Preferences", &dialog("Monospace 10", "a"));
        let two = sighting("mousepad", "Preferences — x", &dialog("Serif 12", "b"));
        assert_eq!(one.fingerprint, two.fingerprint);
        assert_eq!(
            one.controls,
            vec![
                Control {
                    role: Role::Button,
                    name: "Close".into()
                },
                Control {
                    role: Role::Text,
                    name: "Font".into()
                },
            ]
        );
        let other = sighting("gedit", "Preferences", &dialog("Serif 12", "b"));
        assert_ne!(one.fingerprint, other.fingerprint);
    }

    #[test]
    fn hidden_controls_are_not_remembered_as_in_the_window() {
        let mut closed_menu = node(
            Role::Menu,
            "Edit",
            None,
            vec![node(Role::Menuitem, "Preferences…", None, vec![])],
        );
        closed_menu.children[0].states.visible = false;
        let window = node(Role::Window, "Editor", None, vec![closed_menu]);
        assert_eq!(
            controls_of(&window),
            vec![Control {
                role: Role::Menu,
                name: "Edit".into()
            }]
        );
    }
}
