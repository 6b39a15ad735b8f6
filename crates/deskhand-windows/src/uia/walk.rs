//! The walk of a window's UI Automation tree and the lookup of one element again, over the
//! narrow [`UiaReader`] that `com` implements with cache requests and the tests with recorded
//! element data. A walk is one request per element (the element's children, each with every
//! property an observation shows), so a big window stops at its budget with what it read so
//! far and a `partial` note, instead of failing whole as one subtree request does.

use std::time::Instant;

use std::time::Duration;

use super::identity::{Identity, Link, is_item};
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

/// A walked tree: the elements read, what was left, and each element's live handle, which
/// later calls use instead of searching the window again.
pub struct Walked<L> {
    pub root: Element,
    pub left: Left,
    pub live: Vec<Kept<L>>,
}

/// One element kept from a walk, with its parent's place in the same list (the root has none),
/// so that its ancestors can be checked again.
#[derive(Debug, Clone)]
pub struct Kept<L> {
    pub runtime_id: Vec<i32>,
    pub live: L,
    pub parent: Option<usize>,
}

/// The kept elements from the root's child down to the element at `index`: what [`lookup`]
/// checks again.
pub fn kept_chain<L: Clone>(kept: &[Kept<L>], index: usize) -> Vec<L> {
    let mut chain = Vec::new();
    let mut at = Some(index);
    while let Some(index) = at {
        let Some(entry) = kept.get(index) else {
            return Vec::new();
        };
        if entry.parent.is_none() {
            break;
        }
        chain.push(entry.live.clone());
        at = entry.parent;
    }
    chain.reverse();
    chain
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
    live: Vec<Kept<R::Live>>,
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
    let root = walk.element(root, element, 0, None);
    Walked {
        root,
        left: walk.left,
        live: walk.live,
    }
}

impl<R: UiaReader> Walk<'_, R> {
    fn element(
        &mut self,
        live: R::Live,
        mut element: Element,
        depth: usize,
        parent: Option<usize>,
    ) -> Element {
        let index = self.live.len();
        self.live.push(Kept {
            runtime_id: element.runtime_id.clone(),
            live: live.clone(),
            parent,
        });
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
                        let child = self.element(child_live, child, depth + 1, Some(index));
                        element.children.push(child);
                    }
                }
                Err(code) if is_stall(code) => self.left.stalled = true,
                // Gone while the walk read it: nothing to say about it.
                Err(code) if code == hresult::UIA_E_ELEMENTNOTAVAILABLE => {}
                Err(_) => self.left.unreadable += 1,
            }
        }
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

/// Reads a window (`root` reads its element), and while a web document in it is still empty
/// (Chromium building its tree after being woken) reads it again after `gap`, up to `looks`
/// times. Every look shares the one budget: the last returns what it read, marked partial,
/// rather than a fresh budget per look outrunning the caller's deadline and failing the whole
/// observation.
pub fn walk_window<R: UiaReader>(
    reader: &R,
    mut root: impl FnMut() -> Result<(R::Live, Element), i32>,
    budget: Budget,
    looks: usize,
    gap: Duration,
) -> Result<Walked<R::Live>, i32> {
    let mut looked = 0;
    loop {
        let (live, element) = root()?;
        let walked = walk(reader, live, element, budget);
        looked += 1;
        let again = looked < looks
            && web_content_pending(&walked.root)
            && Instant::now() + gap < budget.deadline;
        if !again {
            return Ok(walked);
        }
        std::thread::sleep(gap);
    }
}

/// Why an element could not be found again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotFound {
    /// Nothing in the window is the element now: no element has its runtime id, or the one
    /// that has it differs in type, name or ancestors (a neighbour that took an index-based id).
    Gone,
    /// The search ran out of its budget, or the app stopped answering, before finding it.
    Unsearched,
    /// A request failed with this HRESULT.
    Failed(i32),
}

/// What reading an item's words again may cost while its descendant is checked.
const ITEM_BUDGET: (usize, Duration) = (200, Duration::from_secs(2));

/// The element `wanted` names, with its properties read now: the one kept from the last walk
/// (`kept`: the kept elements from the root's child down to it) when it still answers with that
/// runtime id, else searched for from `root`, breadth first within `budget`. Either way the
/// element and its ancestors are read again and checked against the handle's type, name and
/// trail: never another element.
pub fn lookup<R: UiaReader>(
    reader: &R,
    kept: Option<&[R::Live]>,
    root: &R::Live,
    wanted: &Identity,
    budget: Budget,
) -> Result<(R::Live, Element), NotFound> {
    let root_now = reader.refresh(root).map_err(|code| {
        if code == hresult::UIA_E_ELEMENTNOTAVAILABLE {
            NotFound::Gone
        } else {
            NotFound::Failed(code)
        }
    })?;
    if let Some((element, ancestors)) = kept.and_then(<[_]>::split_last) {
        match reader.refresh(element) {
            Ok(now) if now.runtime_id == wanted.runtime_id => {
                let mut chain = Vec::with_capacity(ancestors.len() + 1);
                for ancestor in ancestors {
                    match reader.refresh(ancestor) {
                        Ok(read) => chain.push((ancestor.clone(), read)),
                        Err(code) if is_stall(code) => return Err(NotFound::Failed(code)),
                        Err(_) => return Err(NotFound::Gone),
                    }
                }
                chain.push((element.clone(), now));
                return checked(reader, &root_now, chain, wanted, budget.deadline);
            }
            Err(code) if is_stall(code) => return Err(NotFound::Failed(code)),
            // Gone, or a provider that reuses the object for another element: search.
            _ => {}
        }
    }
    if root_now.runtime_id == wanted.runtime_id {
        return if wanted.matches(&root_now, &[]) {
            Ok((root.clone(), root_now))
        } else {
            Err(NotFound::Gone)
        };
    }
    // Every element the search read, with its parent's place here (`None`: the root's child).
    let mut seen: Vec<(R::Live, Element, Option<usize>)> = Vec::new();
    let mut level: Vec<(R::Live, Option<usize>)> = vec![(root.clone(), None)];
    let mut read = 1;
    for _ in 0..budget.depth {
        let mut next = Vec::new();
        for (parent, parent_place) in &level {
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
                let found = element.runtime_id == wanted.runtime_id;
                seen.push((live.clone(), element, *parent_place));
                if found {
                    let mut chain = Vec::new();
                    let mut at = Some(seen.len() - 1);
                    while let Some(place) = at {
                        let (live, element, parent) = &seen[place];
                        chain.push((live.clone(), element.clone()));
                        at = *parent;
                    }
                    chain.reverse();
                    return checked(reader, &root_now, chain, wanted, budget.deadline);
                }
                next.push((live, Some(seen.len() - 1)));
            }
        }
        if next.is_empty() {
            return Err(NotFound::Gone);
        }
        level = next;
    }
    Err(NotFound::Unsearched)
}

/// The last of `chain` (read now, from the root's child down) when it is the element `wanted`
/// names; each item among its ancestors is read again for the words it shows.
fn checked<R: UiaReader>(
    reader: &R,
    root: &Element,
    chain: Vec<(R::Live, Element)>,
    wanted: &Identity,
    deadline: Instant,
) -> Result<(R::Live, Element), NotFound> {
    let mut links = Vec::with_capacity(chain.len());
    let mut parent = root.clone();
    let Some(((live, element), ancestors)) = chain.split_last() else {
        return Err(NotFound::Gone);
    };
    for (ancestor_live, ancestor) in ancestors {
        let link = if is_item(ancestor, &parent) {
            let item_budget = Budget {
                nodes: ITEM_BUDGET.0,
                depth: 16,
                deadline: deadline.min(Instant::now() + ITEM_BUDGET.1),
            };
            let item = walk(reader, ancestor_live.clone(), ancestor.clone(), item_budget);
            if item.left.stalled {
                return Err(NotFound::Unsearched);
            }
            Link::of(&item.root, &parent)
        } else {
            Link::of(ancestor, &parent)
        };
        links.push(link);
        parent = ancestor.clone();
    }
    if wanted.matches(element, &links) {
        Ok((live.clone(), element.clone()))
    } else {
        Err(NotFound::Gone)
    }
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
