//! An element's handle: the Accessibility API has no ids, so a handle names the element by its
//! process, its window and the path of child indices from there, with its role and a hash of its
//! name, which resolving checks so that a reordered tree answers "gone" rather than reaching a
//! neighbour.

use std::fmt;

use deskhand_core::model::ElementHandle;

/// One step down from an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The n-th of the element's `AXChildren`.
    Child(usize),
    /// The row whose `AXIndex` is n among the table's or outline's `AXRows`: visible rows move
    /// as the table scrolls, a row's index does not.
    Row(usize),
    /// From a window to its application's `AXMenuBar`, which macOS keeps at the top of the
    /// screen rather than in the window; an observation lists it first in the window.
    MenuBar,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handle {
    pub pid: u32,
    /// The window's `CGWindowID`.
    pub window: u64,
    pub path: Vec<Step>,
    pub role: String,
    pub name_hash: u32,
}

/// FNV-1a: stable across processes and builds, unlike the standard library's hasher.
pub fn name_hash(title: &str, description: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in title.bytes().chain([0x1f]).chain(description.bytes()) {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ax:{}:{}:", self.pid, self.window)?;
        if self.path.is_empty() {
            f.write_str("-")?;
        }
        for (i, step) in self.path.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            match step {
                Step::Child(n) => write!(f, "{n}")?,
                Step::Row(n) => write!(f, "r{n}")?,
                Step::MenuBar => f.write_str("m")?,
            }
        }
        write!(f, ":{}:{:08x}", self.role, self.name_hash)
    }
}

impl Handle {
    pub fn to_element(&self) -> ElementHandle {
        ElementHandle(self.to_string())
    }

    /// The handle an [`ElementHandle`] of this backend holds; `None` for anything else.
    pub fn parse(handle: &ElementHandle) -> Option<Handle> {
        let mut parts = handle.0.strip_prefix("ax:")?.split(':');
        let pid = parts.next()?.parse().ok()?;
        let window = parts.next()?.parse().ok()?;
        let path = match parts.next()? {
            "-" => Vec::new(),
            path => path
                .split('.')
                .map(|step| match (step, step.strip_prefix('r')) {
                    ("m", _) => Some(Step::MenuBar),
                    (_, Some(row)) => row.parse().ok().map(Step::Row),
                    (_, None) => step.parse().ok().map(Step::Child),
                })
                .collect::<Option<Vec<_>>>()?,
        };
        let role = parts.next()?.to_owned();
        let name_hash = u32::from_str_radix(parts.next()?, 16).ok()?;
        if parts.next().is_some() || !role.starts_with("AX") {
            return None;
        }
        Some(Handle {
            pid,
            window,
            path,
            role,
            name_hash,
        })
    }

    /// The handle of this element's child one `step` down.
    pub fn child(&self, step: Step, role: &str, name_hash: u32) -> Handle {
        let mut path = self.path.clone();
        path.push(step);
        Handle {
            pid: self.pid,
            window: self.window,
            path,
            role: role.to_owned(),
            name_hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_read_back_as_they_were_written() {
        let window = Handle {
            pid: 412,
            window: 9031,
            path: vec![],
            role: "AXWindow".into(),
            name_hash: name_hash("Untitled", ""),
        };
        let text = window.to_element();
        assert_eq!(
            text.0,
            format!("ax:412:9031:-:AXWindow:{:08x}", window.name_hash)
        );
        assert_eq!(Handle::parse(&text), Some(window.clone()));

        let cell = window
            .child(Step::Child(2), "AXScrollArea", name_hash("", ""))
            .child(Step::Child(0), "AXOutline", name_hash("", ""))
            .child(Step::Row(117), "AXRow", name_hash("", ""))
            .child(Step::Child(1), "AXCell", name_hash("", ""));
        assert!(cell.to_element().0.contains(":2.0.r117.1:AXCell:"));
        assert_eq!(Handle::parse(&cell.to_element()), Some(cell));

        let item = window
            .child(Step::MenuBar, "AXMenuBar", name_hash("", ""))
            .child(Step::Child(3), "AXMenuBarItem", name_hash("Format", ""));
        assert!(item.to_element().0.contains(":m.3:AXMenuBarItem:"));
        assert_eq!(Handle::parse(&item.to_element()), Some(item));
    }

    #[test]
    fn other_platforms_handles_and_garbage_are_refused() {
        for text in [
            ":1.42/org/a11y/atspi/accessible/17",
            "ax:1:2:x:AXButton:00000000",
            "ax:1:2:-:Button:00000000",
            "ax:1:2:-:AXButton:00000000:extra",
            "ax:1:2:-:AXButton",
        ] {
            assert_eq!(Handle::parse(&ElementHandle(text.into())), None, "{text}");
        }
    }

    #[test]
    fn the_name_hash_tells_title_from_description() {
        assert_ne!(name_hash("Save", ""), name_hash("", "Save"));
        assert_eq!(name_hash("Save", ""), name_hash("Save", ""));
    }
}
