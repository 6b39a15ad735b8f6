//! The walk of a window's UI Automation tree and the lookup of one element again, over the
//! narrow [`UiaReader`] that `com` implements with cache requests and the tests with recorded
//! element data. A walk is one request per element (the element's children, each with every
//! property an observation shows), so a big window stops at its budget with what it read so
//! far and a `partial` note, instead of failing whole as one subtree request does.

use std::time::Instant;

use super::{Element, MANY_CHILDREN, hresult};

/// What the walk asks of UI Automation. `Live` is an element the reader can ask again: the
/// COM element kept from the walk, or a place in recorded data.
pub trait UiaReader {
    type Live: Clone;
    /// The element's children in the control view, each with its properties, in one request.
    /// `Err` is the HRESULT of the failed request.
    fn children(&self, parent: &Self::Live) -> Result<Vec<(Self::Live, Element)>, i32>;
    /// The element's properties read now, children aside; `Err` when it is gone or the app
    /// does not answer.
    fn refresh(&self, element: &Self::Live) -> Result<Element, i32>;
}

/// Where a walk or a search stops.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub nodes: usize,
    /// Some WPF and Win32 apps nest hundreds of levels.
    pub depth: usize,
    pub deadline: Instant,
}

/// What a walk left out, for the tree's `partial` note.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Left {
    /// The element budget, once it ran out.
    pub budget: Option<usize>,
    /// The depth limit, when an element there had children.
    pub depth: Option<usize>,
    pub deadline: bool,
    /// The app stopped answering (a UIA or RPC timeout): the walk asks it nothing more.
    pub stalled: bool,
    /// Elements whose children could not be read for another reason.
    pub unreadable: usize,
    /// Items of long lists scrolled out of view, not read.
    pub offscreen: usize,
}

impl Left {
    pub fn note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.stalled {
            parts.push("the application stopped answering during the walk".to_owned());
        }
        if let Some(budget) = self.budget {
            parts.push(format!(
                "the walk stopped at its budget of {budget} elements"
            ));
        }
        if self.deadline {
            parts.push("the walk ran out of time".to_owned());
        }
        if let Some(depth) = self.depth {
            parts.push(format!("elements deeper than {depth} levels were not read"));
        }
        if self.unreadable > 0 {
            parts.push(format!(
                "the children of {} elements could not be read",
                self.unreadable
            ));
        }
        if self.offscreen > 0 {
            parts.push(format!(
                "{} list items scrolled out of view were not read",
                self.offscreen
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A walked tree: the elements read, what was left, and each element's live handle by runtime
/// id, which later calls use instead of searching the window again.
pub struct Walked<L> {
    pub root: Element,
    pub left: Left,
    pub live: Vec<(Vec<i32>, L)>,
}

/// Whether a failure means the app stopped answering, after which nothing more is asked.
pub fn is_stall(code: i32) -> bool {
    matches!(
        code,
        hresult::UIA_E_TIMEOUT | hresult::RPC_E_DISCONNECTED | hresult::RPC_S_SERVER_UNAVAILABLE
    )
}

struct Walk<'r, R: UiaReader> {
    reader: &'r R,
    budget: Budget,
    read: usize,
    left: Left,
    live: Vec<(Vec<i32>, R::Live)>,
}

/// Walks from `root` (read by the caller) depth first, in the order the window shows its
/// elements. Of a list of more than [`MANY_CHILDREN`] items, those scrolled out of view are
/// counted, not read.
pub fn walk<R: UiaReader>(
    reader: &R,
    root: R::Live,
    element: Element,
    budget: Budget,
) -> Walked<R::Live> {
    let mut walk = Walk {
        reader,
        budget,
        read: 1,
        left: Left::default(),
        live: Vec::new(),
    };
    let root = walk.element(root, element, 0);
    Walked {
        root,
        left: walk.left,
        live: walk.live,
    }
}

impl<R: UiaReader> Walk<'_, R> {
    fn element(&mut self, live: R::Live, mut element: Element, depth: usize) -> Element {
        if !self.stopped() {
            match self.reader.children(&live) {
                Ok(children) if depth >= self.budget.depth => {
                    if !children.is_empty() {
                        self.left.depth = Some(self.budget.depth);
                    }
                }
                Ok(children) => {
                    let many = children.len() > MANY_CHILDREN;
                    for (child_live, child) in children {
                        if many && child.offscreen {
                            self.left.offscreen += 1;
                            continue;
                        }
                        if self.stopped() {
                            break;
                        }
                        self.read += 1;
                        let child = self.element(child_live, child, depth + 1);
                        element.children.push(child);
                    }
                }
                Err(code) if is_stall(code) => self.left.stalled = true,
                // Gone while the walk read it: nothing to say about it.
                Err(code) if code == hresult::UIA_E_ELEMENTNOTAVAILABLE => {}
                Err(_) => self.left.unreadable += 1,
            }
        }
        self.live.push((element.runtime_id.clone(), live));
        element
    }

    /// Whether the walk must stop here, noting why.
    fn stopped(&mut self) -> bool {
        if self.left.stalled {
            return true;
        }
        if self.read >= self.budget.nodes {
            self.left.budget = Some(self.budget.nodes);
            return true;
        }
        if Instant::now() >= self.budget.deadline {
            self.left.deadline = true;
            return true;
        }
        false
    }
}

/// Why an element could not be found again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotFound {
    /// Nothing in the window has the runtime id now.
    Gone,
    /// The search ran out of its budget, or the app stopped answering, before finding it.
    Unsearched,
    /// A request failed with this HRESULT.
    Failed(i32),
}

/// The element with runtime id `wanted`, with its properties read now: the one kept from the
/// last walk when it still answers with that id, else searched for from `root`, breadth
/// first within `budget`. Never another element: a kept one that answers another id (or none)
/// is not used, and the search compares runtime ids alone.
pub fn lookup<R: UiaReader>(
    reader: &R,
    kept: Option<&R::Live>,
    root: &R::Live,
    wanted: &[i32],
    budget: Budget,
) -> Result<(R::Live, Element), NotFound> {
    if let Some(kept) = kept {
        match reader.refresh(kept) {
            Ok(element) if element.runtime_id == wanted => return Ok((kept.clone(), element)),
            Err(code) if is_stall(code) => return Err(NotFound::Failed(code)),
            // Gone, or a provider that reuses the object for another element: search.
            _ => {}
        }
    }
    let root_now = reader.refresh(root).map_err(|code| {
        if code == hresult::UIA_E_ELEMENTNOTAVAILABLE {
            NotFound::Gone
        } else {
            NotFound::Failed(code)
        }
    })?;
    if root_now.runtime_id == wanted {
        return Ok((root.clone(), root_now));
    }
    let mut level = vec![root.clone()];
    let mut read = 1;
    for _ in 0..budget.depth {
        let mut next = Vec::new();
        for parent in &level {
            if read >= budget.nodes || Instant::now() >= budget.deadline {
                return Err(NotFound::Unsearched);
            }
            let children = match reader.children(parent) {
                Ok(children) => children,
                Err(code) if is_stall(code) => return Err(NotFound::Unsearched),
                Err(_) => continue,
            };
            for (live, element) in children {
                read += 1;
                if element.runtime_id == wanted {
                    return Ok((live, element));
                }
                next.push(live);
            }
        }
        if next.is_empty() {
            return Err(NotFound::Gone);
        }
        level = next;
    }
    Err(NotFound::Unsearched)
}

/// Whether a web document in the tree has nothing in it yet: Chromium builds its tree only
/// after something asked for it, so a first walk right after that may find it empty and is
/// worth doing again shortly.
pub fn web_content_pending(root: &Element) -> bool {
    if root.control_type == super::control_type::DOCUMENT && root.children.is_empty() {
        return true;
    }
    root.children.iter().any(web_content_pending)
}
