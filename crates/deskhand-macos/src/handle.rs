//! An element's handle: the Accessibility API has no ids, so a handle names the element by its
//! process, its window and the path of child indices from there, with its role, a hash of its
//! name and a hash of what tells its ancestors apart (the `trail`, see `tree::identity`), which
//! resolving checks so that a reordered tree answers "gone" rather than reaching a neighbour:
//! a row inserted above moves the path onto the next row, whose "Delete" has the same role and
//! name, but whose words differ.
//!
//! The text starts with its version, `ax2:`; a handle of the first version (`ax:`, no trail)
//! could not tell a neighbour apart and is refused rather than trusted.

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
    /// The hash of the ancestors between the window and the element; 0 while the walk that
    /// makes the handle has not reached its end (`tree::identity::seal`).
    pub trail: u32,
}

/// The prefix of a handle of the first version, which had no trail.
const FIRST_VERSION: &str = "ax:";
const VERSION: &str = "ax2:";

/// FNV-1a: stable across processes and builds, unlike the standard library's hasher.
pub fn fnv(bytes: impl IntoIterator<Item = u8>) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

pub fn name_hash(title: &str, description: &str) -> u32 {
    fnv(title.bytes().chain([0x1f]).chain(description.bytes()))
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{VERSION}{}:{}:", self.pid, self.window)?;
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
        write!(
            f,
            ":{}:{:08x}:{:08x}",
            self.role, self.name_hash, self.trail
        )
    }
}

impl Handle {
    pub fn to_element(&self) -> ElementHandle {
        ElementHandle(self.to_string())
    }

    /// The handle an [`ElementHandle`] of this backend holds; `None` for anything else.
    pub fn parse(handle: &ElementHandle) -> Option<Handle> {
        let mut parts = handle.0.strip_prefix(VERSION)?.split(':');
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
        let trail = u32::from_str_radix(parts.next()?, 16).ok()?;
        if parts.next().is_some() || !role.starts_with("AX") {
            return None;
        }
        Some(Handle {
            pid,
            window,
            path,
            role,
            name_hash,
            trail,
        })
    }

    /// Whether the text is a handle of the first version, made before the trail existed.
    pub fn is_first_version(handle: &ElementHandle) -> bool {
        handle.0.starts_with(FIRST_VERSION)
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
            trail: 0,
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
            trail: 0,
        };
        let text = window.to_element();
        assert_eq!(
            text.0,
            format!("ax2:412:9031:-:AXWindow:{:08x}:00000000", window.name_hash)
        );
        assert_eq!(Handle::parse(&text), Some(window.clone()));

        let mut cell = window
            .child(Step::Child(2), "AXScrollArea", name_hash("", ""))
            .child(Step::Child(0), "AXOutline", name_hash("", ""))
            .child(Step::Row(117), "AXRow", name_hash("", ""))
            .child(Step::Child(1), "AXCell", name_hash("", ""));
        cell.trail = 0xdead_beef;
        assert!(cell.to_element().0.contains(":2.0.r117.1:AXCell:"));
        assert!(cell.to_element().0.ends_with(":deadbeef"));
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
            "ax2:1:2:x:AXButton:00000000:00000000",
            "ax2:1:2:-:Button:00000000:00000000",
            "ax2:1:2:-:AXButton:00000000:00000000:extra",
            "ax2:1:2:-:AXButton:00000000",
            "ax2:1:2:-:AXButton",
        ] {
            assert_eq!(Handle::parse(&ElementHandle(text.into())), None, "{text}");
        }
    }

    #[test]
    fn a_first_version_handle_is_refused_and_known_as_such() {
        let old = ElementHandle("ax:1:2:0.3:AXButton:0badc0de".into());
        assert_eq!(Handle::parse(&old), None, "it has no trail to check");
        assert!(Handle::is_first_version(&old));
        assert!(!Handle::is_first_version(&ElementHandle(
            "ax2:1:2:0.3:AXButton:0badc0de:00000000".into()
        )));
    }

    #[test]
    fn the_name_hash_tells_title_from_description() {
        assert_ne!(name_hash("Save", ""), name_hash("", "Save"));
        assert_eq!(name_hash("Save", ""), name_hash("Save", ""));
    }
}
