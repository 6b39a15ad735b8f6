//! An application's tree as the core lists it: the cache read once, the rest asked element by
//! element, under a node budget and a deadline.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use futures::future::{BoxFuture, FutureExt, join_all};
use zbus::zvariant::OwnedObjectPath;

use deskhand_core::model::{Node, Rect, Role};

use super::cache::Snapshot;
mod children;
mod rewalk;
mod stacked;
pub(super) use children::manages_descendants;
pub(super) use rewalk::{Reuse, count_nodes};

use super::cells::{MAX_NESTED_CELLS, Place, merge_nested_cells, name_by_place, places_in_order};
use super::element::{ValueReads, chosen_unless_name, finish_value};
use super::*;

impl Atspi {
    pub async fn tree(
        &self,
        root: &ObjectRef,
        style: WalkStyle,
        limits: WalkLimits,
    ) -> Result<Walked, AtspiError> {
        let snapshot = if style.use_cache {
            self.listen_for_changes().await;
            self.snapshot(&root.bus).await
        } else {
            Snapshot::default()
        };
        let walk = Walk::new(self, snapshot, style, limits, &root.bus, Reuse::default());
        walk.reserve(1);
        let (root_node, _) = walk.node(root.clone(), true).await?;
        let nodes = walk.nodes.load(Ordering::Relaxed);
        let failed = walk.failed.load(Ordering::Relaxed);
        let unanswered = walk.unanswered.load(Ordering::Relaxed);
        let partial = if unanswered > 0 {
            Some(format!(
                "the app stopped answering ({unanswered} {} no answer within {} ms), so elements, values or points are missing",
                if unanswered == 1 {
                    "request got"
                } else {
                    "requests got"
                },
                self.call_timeout.as_millis()
            ))
        } else if walk.cut.load(Ordering::Relaxed) {
            Some(format!(
                "stopped after {:.1} s at {nodes} nodes (limit {} nodes, {} s)",
                walk.started.elapsed().as_secs_f64(),
                limits.max_nodes,
                limits.deadline.as_secs()
            ))
        } else if failed > 0 {
            Some(format!("{failed} elements did not answer and are missing"))
        } else {
            None
        };
        let mut managed = walk.managed.into_inner().expect("not poisoned");
        // Firefox marks everything in a window that is covered or minimized as not showing.
        if !root_node.children.is_empty() && root_node.children.iter().all(|c| !c.states.visible) {
            managed.push(
                "the app reports nothing in this window as showing: it may be covered or minimized; `focus` it and observe again"
                    .to_string(),
            );
        }
        let off_screen = walk.paragraphs_off_screen.load(Ordering::Relaxed);
        if off_screen > 0 {
            managed.push(format!(
                "{} off screen {} not read (scroll to bring {} into view)",
                deskhand_core::render::plural(off_screen, "paragraph", "paragraphs"),
                if off_screen == 1 { "was" } else { "were" },
                if off_screen == 1 { "it" } else { "them" },
            ));
        }
        let partial = match (partial, managed.is_empty()) {
            (partial, true) => partial,
            (None, false) => Some(managed.join("; ")),
            (Some(partial), false) => Some(format!("{partial}; {}", managed.join("; "))),
        };
        Ok(Walked {
            root: root_node,
            partial,
            links: walk.links.into_inner().expect("not poisoned"),
        })
    }
}

/// What the walk knows of an element before reading its subtree.
pub(super) struct Basics {
    role: u32,
    states: Vec<u32>,
    interfaces: Vec<String>,
    name: String,
    children: Vec<ObjectRef>,
    cells: Option<CellsOnDemand>,
    /// One of the cells a table gave for its visible block (see `Walk::sheet_cells`).
    sheet_cell: bool,
}

/// A table that creates its cells on demand, of which only the visible ones were read.
pub(super) struct CellsOnDemand {
    what: String,
    read: usize,
    total: i64,
    /// Where each child read stands, headers first, where the table hands out a new object for
    /// a cell at every ask.
    places: Option<Vec<Place>>,
}

impl CellsOnDemand {
    /// The `partial` note: what was read, and that the empty cells among them are not listed
    /// (a sheet's window shows hundreds; an agent reaches any cell through the Name Box).
    pub(super) fn note(&self, empty: usize) -> String {
        let mut note = format!(
            "{} creates its cells on demand, so only the {} visible of {} were read",
            self.what,
            deskhand_core::render::thousands(self.read),
            deskhand_core::render::thousands(usize::try_from(self.total).unwrap_or_default())
        );
        if empty > 0 {
            note.push_str(&format!(
                " ({} empty, not listed)",
                deskhand_core::render::plural(empty, "cell", "cells")
            ));
        }
        note
    }
}

pub(super) struct Walk<'a> {
    atspi: &'a Atspi,
    snapshot: Snapshot,
    style: WalkStyle,
    started: Instant,
    limits: WalkLimits,
    nodes: AtomicUsize,
    failed: AtomicUsize,
    /// Calls the application did not answer: it is hung, busy or gone.
    unanswered: AtomicUsize,
    cut: AtomicBool,
    /// Paragraphs of a page or document that do not show: the rest of a long text.
    paragraphs_off_screen: AtomicUsize,
    /// What was left unread of elements that create their children on demand.
    managed: std::sync::Mutex<Vec<String>>,
    /// Cells a table that creates them on demand gave for its visible block: their role, their
    /// interfaces (Component, Text) and that they have no children are known, so only their
    /// states, text and (unless it was derived) address are asked, and their extents only when
    /// they hold something.
    sheet_cells: std::sync::Mutex<HashMap<ObjectRef, Option<String>>>,
    /// The bus of the window's application: an element on another is part of a tree embedded
    /// in the window (a WebKit page, from its web process).
    window_bus: String,
    /// What a kept tree gives unread.
    reuse: Reuse<'a>,
    /// The hyperlinks read.
    links: std::sync::Mutex<HashSet<ObjectRef>>,
    /// Children were narrowed to those that show, without the application's cache.
    narrowed: AtomicBool,
}

impl<'a> Walk<'a> {
    fn new(
        atspi: &'a Atspi,
        snapshot: Snapshot,
        style: WalkStyle,
        limits: WalkLimits,
        window_bus: &str,
        reuse: Reuse<'a>,
    ) -> Self {
        Walk {
            atspi,
            snapshot,
            style,
            started: Instant::now(),
            limits,
            nodes: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            unanswered: AtomicUsize::new(0),
            cut: AtomicBool::new(false),
            paragraphs_off_screen: AtomicUsize::new(0),
            managed: std::sync::Mutex::new(Vec::new()),
            sheet_cells: std::sync::Mutex::new(HashMap::new()),
            window_bus: window_bus.to_owned(),
            reuse,
            links: std::sync::Mutex::new(HashSet::new()),
            narrowed: AtomicBool::new(false),
        }
    }

    /// Takes up to `wanted` nodes of what is left of the budget, and how many it got; getting
    /// fewer cuts the tree.
    pub(super) fn reserve(&self, wanted: usize) -> usize {
        let max = self.limits.max_nodes;
        let before = self
            .nodes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |taken| {
                Some(taken + wanted.min(max.saturating_sub(taken)))
            })
            .unwrap_or_else(|taken| taken);
        let granted = wanted.min(max.saturating_sub(before));
        if granted < wanted {
            self.cut.store(true, Ordering::Relaxed);
        }
        granted
    }

    pub(super) fn over_budget(&self) -> bool {
        let over = self.nodes.load(Ordering::Relaxed) >= self.limits.max_nodes
            || self.started.elapsed() >= self.limits.deadline;
        if over {
            self.cut.store(true, Ordering::Relaxed);
        }
        // An application that let one call time out serves no other either (its main loop
        // answers them all): going deeper would cost a timeout per level.
        over || self.unanswered.load(Ordering::Relaxed) > 0
    }

    /// The answer, if there was one; a call the application did not answer (hung or gone)
    /// makes the tree partial.
    pub(super) fn answered<T>(&self, result: Result<T, AtspiError>) -> Option<T> {
        if result.as_ref().is_err_and(AtspiError::unanswered) {
            self.unanswered.fetch_add(1, Ordering::Relaxed);
        }
        result.ok()
    }

    /// Whether the walk looks into an element with these states: it shows, or it says nothing
    /// of itself (see [`says_nothing_of_itself`]).
    pub(super) fn looks_shown(&self, role: u32, states: &[u32]) -> bool {
        says_nothing_of_itself(states)
            || translate::states(
                translate::state_set(states),
                translate::role(role),
                self.style.showing_reliable,
            )
            .visible
    }

    /// Role, states, interfaces, name and children: from the cache where it has them. The
    /// children are asked for only once the states are known: an element that manages its
    /// descendants creates them when asked, without end for a spreadsheet.
    pub(super) async fn basics(
        &self,
        object: &ObjectRef,
        is_root: bool,
    ) -> Result<Basics, AtspiError> {
        let a = self.atspi;
        let sheet_cell = self
            .sheet_cells
            .lock()
            .expect("not poisoned")
            .get(object)
            .cloned();
        if let Some(known_name) = sheet_cell {
            // A spreadsheet's cell, named by its address, holds no cells; a tree view's cell of
            // several renderers (an icon and a name) holds one cell for each.
            let named_by_address = known_name.is_some();
            let (state, name, children) = futures::join!(
                a.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
                async {
                    match known_name {
                        Some(name) => Some(name),
                        None => self.answered(a.string_property(object, ACCESSIBLE, "Name").await),
                    }
                },
                async {
                    if named_by_address {
                        return Vec::new();
                    }
                    match self.answered(a.child_count(object).await) {
                        Some(count) if (1..=MAX_NESTED_CELLS).contains(&count) => {
                            self.answered(a.children(object).await).unwrap_or_default()
                        }
                        _ => Vec::new(),
                    }
                },
            );
            return Ok(Basics {
                role: atspi::Role::TableCell as u32,
                states: state?,
                interfaces: vec![COMPONENT.to_string(), TEXT.to_string()],
                name: name.unwrap_or_default(),
                children,
                cells: None,
                sheet_cell: true,
            });
        }
        if let Some(cached) = self.snapshot.items.get(object) {
            let (children, cells) = if manages_descendants(&cached.states) {
                self.managed_children(
                    object,
                    cached.role,
                    &cached.name,
                    Some(cached.child_count),
                    &cached.interfaces,
                )
                .await
            } else {
                let children = match self.snapshot.children_of(object) {
                    Some(children) => children,
                    None => self.answered(a.children(object).await).unwrap_or_default(),
                };
                let children = self.or_embedded(object, &cached.states, children).await;
                let children = self
                    .showing_only(
                        object,
                        cached.role,
                        &cached.name,
                        &cached.interfaces,
                        children,
                    )
                    .await;
                (children, None)
            };
            return Ok(Basics {
                role: cached.role,
                states: cached.states.clone(),
                interfaces: cached.interfaces.clone(),
                name: cached.name.clone(),
                children,
                cells,
                sheet_cell: false,
            });
        }
        let (role, state, name) = futures::join!(
            a.call::<_, u32>(object, ACCESSIBLE, "GetRole", &()),
            a.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
            a.string_property(object, ACCESSIBLE, "Name"),
        );
        let (role, states) = (role?, state?);
        let name = self.answered(name).unwrap_or_default();
        // A hidden element is only counted, never looked into: its interfaces and children
        // are not asked (a web page's off-screen paragraphs are most of its objects).
        if !is_root && !self.looks_shown(role, &states) {
            return Ok(Basics {
                role,
                states,
                interfaces: Vec::new(),
                name,
                children: Vec::new(),
                cells: None,
                sheet_cell: false,
            });
        }
        let (interfaces, children) = if manages_descendants(&states) {
            let interfaces = self
                .answered(a.interfaces(object).await)
                .unwrap_or_default();
            let children = self
                .managed_children(object, role, &name, None, &interfaces)
                .await;
            (interfaces, children)
        } else {
            let (interfaces, children) = futures::join!(a.interfaces(object), a.children(object));
            let interfaces = self.answered(interfaces).unwrap_or_default();
            let children = self.answered(children).unwrap_or_default();
            let children = self.or_embedded(object, &states, children).await;
            let children = self
                .showing_only(object, role, &name, &interfaces, children)
                .await;
            (interfaces, (children, None))
        };
        let (children, cells) = children;
        Ok(Basics {
            role,
            states,
            interfaces,
            name,
            children,
            cells,
            sheet_cell: false,
        })
    }

    /// The children an element gave, or where it gave none and says nothing of itself, the
    /// tree embedded in it: at-spi2-atk leaves a socket's plug (a WebKit page, from its web
    /// process) out of `GetChildren` and gives it only by index.
    pub(super) async fn or_embedded(
        &self,
        object: &ObjectRef,
        states: &[u32],
        children: Vec<ObjectRef>,
    ) -> Vec<ObjectRef> {
        /// A socket holds one plug; a few more are read should a toolkit hold several.
        const MAX_EMBEDDED: i64 = 4;
        if !children.is_empty() || !translate::state_set(states).is_empty() {
            return children;
        }
        let a = self.atspi;
        let count = self.answered(a.child_count(object).await).unwrap_or(0);
        let asked = (0..count.min(MAX_EMBEDDED)).map(|index| async move {
            let index = i32::try_from(index).unwrap_or(0);
            a.call::<_, (String, OwnedObjectPath)>(object, ACCESSIBLE, "GetChildAtIndex", &(index,))
                .await
        });
        join_all(asked)
            .await
            .into_iter()
            .filter_map(|child| element_of(self.answered(child)?, &object.bus))
            .collect()
    }

    /// The element and its subtree, and whether it stands embedded (U+FFFC) in its parent's
    /// text.
    pub(super) fn node(
        &self,
        object: ObjectRef,
        is_root: bool,
    ) -> BoxFuture<'_, Result<(Node, bool), AtspiError>> {
        async move {
            if let Some(kept) = self.reuse.unchanged.and_then(|kept| kept.get(&object)) {
                let below = count_nodes(kept) - 1;
                self.reserve(below);
                let inline = self.reuse.links.is_some_and(|links| links.contains(&object));
                return Ok(((*kept).clone(), inline));
            }
            let a = self.atspi;
            let Basics {
                role,
                states: raw_states,
                interfaces,
                name,
                children,
                cells,
                sheet_cell,
            } = self.basics(&object, is_root).await?;
            let role = translate::role(role);
            let mut states = translate::states(
                translate::state_set(&raw_states),
                role,
                self.style.showing_reliable,
            );
            // A container that says nothing of itself is looked into, and its children judge
            // their own visibility.
            if !children.is_empty() && says_nothing_of_itself(&raw_states) {
                states.visible = true;
            }
            let has = |suffix: &str| interfaces.iter().any(|i| i.ends_with(suffix));
            let name = translate::listed_name(name, !self.style.showing_reliable);
            // Hidden elements are only counted, and an unnamed layout wrapper is never listed
            // unless it carries words of its own, so nothing more is asked of either.
            let shown = states.visible || is_root;
            if !shown && role == Role::Paragraph {
                self.paragraphs_off_screen.fetch_add(1, Ordering::Relaxed);
            }
            let unnamed = name.trim().is_empty();
            let listable = is_root
                || !role.is_layout()
                || !unnamed
                || (has(".Text") && text::bears_text(role, unnamed));
            let detailed = shown && listable;

            let reads = if detailed {
                ValueReads::of(role, states.editable, unnamed, &interfaces)
            } else {
                ValueReads::NONE
            };
            // An icon-only button is named by a pictograph or nothing; its tooltip or
            // description says what it does. A sign such as "×" or "=" is its own name.
            let symbol_only = text::icon_only(&name);
            let (bounds, actions, value, description) = futures::join!(
                async {
                    let menubar = shown && role == Role::Menubar;
                    if (detailed || menubar) && has(".Component") && !sheet_cell {
                        self.answered(a.extents(&object).await)
                    } else {
                        None
                    }
                },
                async {
                    if detailed && has(".Action") && !role.is_control() && name.trim().is_empty() {
                        // WebKit's web process never answers `GetActions`: an embedded tree's
                        // actions are asked one by one.
                        let listed = if object.bus == self.window_bus {
                            a.listed_actions(&object).await
                        } else {
                            a.action_names(&object).await
                        };
                        self.answered(listed).unwrap_or_default()
                    } else {
                        Vec::new()
                    }
                },
                async { self.answered(a.value(&object, reads).await).flatten() },
                async {
                    if detailed && role.is_control() && symbol_only {
                        self.answered(a.string_property(&object, ACCESSIBLE, "Description").await)
                    } else {
                        None
                    }
                },
            );
            let name = match description {
                Some(description) if !description.trim().is_empty() => {
                    translate::clean_name(description)
                }
                _ => name,
            };
            // LibreOffice keeps a second menu bar of no size over the one that works; its
            // items open nothing.
            if role == Role::Menubar && !is_root && matches!(bounds, Some(None)) {
                states.visible = false;
            }
            // GTK 4.8 marks `Showing` on the toplevel only, and what a collapsed revealer or a
            // stack's other pages hold `Visible`: an error bar never raised, a page not shown.
            // What it does not show is not mapped, and has no size.
            if !self.style.showing_reliable && !is_root && matches!(bounds, Some(None)) {
                states.visible = false;
            }
            // GTK3's tree view marks every row showing and puts the rows scrolled out of view
            // at the lowest coordinate there is.
            if !is_root && matches!(bounds, Some(Some(b)) if b.x == i32::MIN || b.y == i32::MIN) {
                states.visible = false;
            }
            let shown = states.visible || is_root;
            let holds_something = value.as_deref().is_some_and(|v| !v.trim().is_empty());
            let bounds = match bounds.flatten() {
                None if sheet_cell
                    && detailed
                    && (holds_something || states.focused || states.selected) =>
                {
                    self.answered(a.extents(&object).await).flatten()
                }
                bounds => bounds,
            };
            let (dx, dy) = self.style.offset;
            let bounds = bounds.map(|b| {
                let b = b.scaled(self.style.scale);
                Rect::new(b.x + dx, b.y + dy, b.width, b.height)
            });

            let named_anew_columns = if shown && !is_root && has(".Table") {
                self.answered(a.columns_if_named_anew(&object, &children).await)
                    .flatten()
            } else {
                None
            };
            // Hidden subtrees are not read: the observation only counts them.
            let mut children: Vec<(usize, Node, bool)> = if shown && !self.over_budget() {
                // A child on another application's bus is the root of a tree embedded here (a
                // WebKit page, from its web process), which marks its root showing or not as it
                // pleases: it shows where its embedder does, and so does a lone wrapper below it
                // (WebKit marks the page's scroll view hidden while the document in it shows).
                let lone = children.len() == 1;
                let in_embedded_root = is_root && object.bus != self.window_bus;
                // Children read at once share what is left of the budget: those past it are
                // not read, so the tree never exceeds it.
                let granted = self.reserve(children.len());
                let reads = children.into_iter().take(granted).enumerate().map(|(index, child)| {
                    let embedded = child.bus != object.bus || (in_embedded_root && lone);
                    async move {
                        let (mut node, inline) = self.node(child, embedded).await?;
                        node.states.visible |= embedded;
                        Ok::<_, AtspiError>((index, node, inline))
                    }
                });
                let mut read: Vec<(usize, Node, bool)> = join_all(reads)
                    .await
                    .into_iter()
                    .filter_map(|child| match child {
                        Ok(child) => Some(child),
                        Err(err) => {
                            self.answered::<()>(Err(err));
                            self.failed.fetch_add(1, Ordering::Relaxed);
                            None
                        }
                    })
                    .collect();
                self.hide_pages_not_shown(&mut read).await;
                read
            } else {
                Vec::new()
            };
            let places = match (named_anew_columns, &cells) {
                (Some(columns), _) => Some(places_in_order(&children, columns)),
                (None, Some(cells)) => cells.places.as_ref().map(|places| {
                    children.iter().map(|(index, ..)| places[*index]).collect()
                }),
                (None, None) => None,
            };
            if let Some(places) = places {
                name_by_place(&object, &mut children, &places);
            }
            let embedded: Vec<Embedded<'_>> = children
                .iter()
                .filter(|(_, _, embedded)| *embedded)
                .map(|(_, child, _)| {
                    let words = if child.name.trim().is_empty() {
                        child.value.as_deref()
                    } else {
                        Some(child.name.as_str())
                    };
                    Embedded::of(child.role, child.states.editable, words)
                })
                .collect();
            let value = value
                .and_then(|raw| finish_value(raw, role, states.editable, &embedded, &name))
                .filter(|value| !value.is_empty());
            let name = match role {
                Role::Listitem => text::without_bullets(&name).to_owned(),
                _ => name,
            };
            let value = match value {
                None if detailed && role == Role::Combobox => chosen_unless_name(
                    self.answered(a.chosen_option(&object).await).flatten(),
                    &name,
                ),
                value => value,
            };
            let mut children: Vec<Node> = children.into_iter().map(|(_, child, _)| child).collect();
            if let Some(cells) = cells {
                let before = children.len();
                // A cell's name is its text (GTK) or its address (a spreadsheet's "B7"): it is
                // empty when it shows nothing beyond its address.
                children.retain(|cell| {
                    cell.role != Role::Cell
                        || !cell.children.is_empty()
                        || cell.value.as_deref().is_some_and(|v| !v.is_empty())
                        || !(cell.name.trim().is_empty() || text::is_cell_address(&cell.name))
                        || cell.states.focused
                        || cell.states.selected
                });
                self.managed
                    .lock()
                    .expect("not poisoned")
                    .push(cells.note(before - children.len()));
            }
            // A web view or document that gives no content at all is an embedded tree that
            // never arrived (a web process off the accessibility bus): say so, not nothing.
            if role == Role::Document
                && shown
                && children.is_empty()
                && value.as_deref().is_none_or(|v| v.trim().is_empty())
            {
                let document = if name.trim().is_empty() {
                    "a document".to_string()
                } else {
                    format!("the document \"{}\"", deskhand_core::render::escape(&name))
                };
                self.managed.lock().expect("not poisoned").push(format!(
                    "{document} gives no content to accessibility; `observe` with `ocr: true` reads what it shows"
                ));
            }
            let mut node = Node {
                handle: object.handle(),
                role,
                name,
                value,
                states,
                bounds,
                actions,
                children,
            };
            merge_nested_cells(&mut node);
            let inline = has(".Hyperlink");
            if inline {
                self.links.lock().expect("not poisoned").insert(object);
            }
            Ok((node, inline))
        }
        .boxed()
    }
}

/// Whether an element says nothing of itself: LibreOffice marks the panel around its formula
/// bar defunct, and nothing else, while the paragraph in it shows and answers; the socket a
/// WebKit view embeds its page in has no states at all.
pub(super) fn says_nothing_of_itself(states: &[u32]) -> bool {
    let set = translate::state_set(states);
    set.is_empty() || set == atspi::State::Defunct.into()
}

/// An element as a note names it: by its name, quoted, or by its role ("the list").
pub(super) fn described(role: u32, name: &str) -> String {
    if name.trim().is_empty() {
        format!("the {}", translate::role(role).as_str())
    } else {
        format!("\"{}\"", deskhand_core::render::escape(name))
    }
}
