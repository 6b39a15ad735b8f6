//! Elements named by what they show (`find`) instead of a ref number, looked up in the surface's
//! tree at call time: what lets a batch act on a dialog its own earlier step opened.

use crate::action::{Find, RefId};
use crate::backend::{Accessibility, Capture, Windows};
use crate::desk::surface::Surface;
use crate::error::{Error, ErrorKind, Result};
use crate::model::{Node, Role, Tree, WindowInfo};
use crate::ocr::{TextReader, name_unnamed, window_from_pixels};
use crate::render::{Rendered, WindowTree, escape, one_line, pick};
use crate::session::{RefEntry, Session};
use crate::text::normalize;

/// The trees of a surface read now: its window's, or every shown window's for the screen.
pub(crate) struct SurfaceTrees {
    pub(crate) surface: Surface,
    pub(crate) trees: Vec<(WindowInfo, Tree)>,
    /// Windows of a screen surface whose tree could not be read, with why.
    pub(crate) unreadable: Vec<String>,
    /// Whether the surface's window had no accessibility tree and its tree was made of the text
    /// read from its pixels.
    pub(crate) from_pixels: bool,
    /// Why that window has no tree when its app could have one, with the fix.
    pub(crate) missing_bridge: Option<String>,
}

impl SurfaceTrees {
    /// The trees of `surface`. A window without an accessibility tree is read from its pixels
    /// when there is a `reader`; on a screen surface such a window is unreadable (its pixels
    /// may be covered by others): observing it alone reads it.
    pub(crate) async fn of<B: Windows + Accessibility + Capture>(
        backend: &B,
        session: &mut Session,
        reader: Option<&TextReader>,
        surface: Surface,
    ) -> Result<Self> {
        let windows: Vec<WindowInfo> = match &surface.window {
            Some(window) => vec![window.clone()],
            None => backend
                .windows()
                .await?
                .into_iter()
                .rev()
                .filter(|w| !w.minimized)
                .collect(),
        };
        let mut trees = Vec::with_capacity(windows.len());
        let mut unreadable = Vec::new();
        let mut from_pixels = false;
        let mut missing_bridge = None;
        for window in windows {
            match backend.tree(&window).await {
                Ok(tree) => trees.push((window, tree)),
                Err(err) if err.is_window_without_tree() && surface.window.is_some() => {
                    let Some(reader) = reader else {
                        return Err(err);
                    };
                    let tree = window_from_pixels(backend, reader, &window).await?;
                    from_pixels = true;
                    missing_bridge = err.missing_bridge().map(str::to_owned);
                    trees.push((window, tree));
                }
                // A screen still shows the other windows when one app has no tree. Its reason
                // may quote the app (a D-Bus error it sent): kept on one line.
                Err(err) if surface.window.is_none() => unreadable.push(format!(
                    "w{}: {}",
                    session.window_id(window.key()),
                    one_line(&err.message)
                )),
                Err(err) => return Err(err),
            }
        }
        Ok(Self {
            surface,
            trees,
            unreadable,
            from_pixels,
            missing_bridge,
        })
    }

    /// Names the unnamed controls of a window surface's tree by the text on their pixels (see
    /// [`name_unnamed`]); a screen surface's windows may cover each other, and are left as read.
    pub(crate) async fn name_from_pixels<B: Windows + Capture>(
        &mut self,
        backend: &B,
        reader: &TextReader,
    ) {
        if self.surface.window.is_none() || self.from_pixels {
            return;
        }
        for (window, tree) in &mut self.trees {
            name_unnamed(backend, reader, window, tree).await;
        }
    }

    /// The trees as an observation renders them.
    pub(crate) fn labelled(&self, session: &mut Session) -> Vec<WindowTree<'_>> {
        self.trees
            .iter()
            .map(|(window, tree)| WindowTree {
                tree,
                window: window.key(),
                label: self
                    .surface
                    .window
                    .is_none()
                    .then(|| format!("w{}", session.window_id(window.key()))),
                title: self.surface.window.as_ref().map(|w| w.title.clone()),
            })
            .collect()
    }

    /// The listed elements `find` names that `also` accepts. Names are exact (any case) when
    /// any element has the exact name, else partial: a partial match never stands in for an
    /// exact one that fails `also`.
    pub(crate) fn matching(
        &self,
        session: &mut Session,
        find: &Find,
        also: &dyn Fn(&Node) -> bool,
    ) -> Rendered {
        let role = |node: &Node| find.role.is_none_or(|role| node.role == role);
        let exact = |node: &Node| {
            role(node)
                && find
                    .name
                    .as_deref()
                    .is_none_or(|name| normalize(shown_words(node)) == normalize(name))
        };
        let labelled = self.labelled(session);
        let any_exact =
            find.name.is_none() || self.trees.iter().any(|(_, tree)| tree.root.any(&exact));
        if any_exact {
            return pick(
                &labelled,
                &self.surface.rect,
                &|node: &Node| exact(node) && also(node),
                session,
            );
        }
        let partial = |node: &Node| {
            role(node)
                && find
                    .name
                    .as_deref()
                    .is_some_and(|name| normalize(shown_words(node)).contains(&normalize(name)))
                && also(node)
        };
        pick(&labelled, &self.surface.rect, &partial, session)
    }
}

/// What names an element for `find`: its name, else the words an unnamed paragraph, cell or
/// static text shows (a web page's or a document's text); never what a person typed into a
/// field, which is its value, not its name.
fn shown_words(node: &Node) -> &str {
    let typed = matches!(
        node.role,
        Role::Text | Role::Password | Role::Terminal | Role::Combobox | Role::Spin
    );
    match &node.value {
        Some(value) if node.name.trim().is_empty() && !typed => value,
        _ => &node.name,
    }
}

/// How long after an action a `find` that matches nothing looks again before failing.
const SETTLE_AFTER_ACTION_MS: u64 = 1_500;

/// The one element `find` names on the call's surface, with a ref issued for it.
pub(crate) async fn find_one<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    reader: Option<&TextReader>,
    surface: Surface,
    find: &Find,
) -> Result<(RefId, RefEntry, WindowInfo)> {
    let (trees, found) = loop {
        let mut trees = SurfaceTrees::of(backend, session, reader, surface.clone()).await?;
        let mut found = trees.matching(session, find, &|_| true);
        // A name the tree lacks may be drawn on an unnamed control (an icon-only button): its
        // pixels are read only then, so a find the tree answers costs no capture.
        if let (true, Some(reader), Some(_)) = (found.refs.is_empty(), reader, &find.name) {
            trees.name_from_pixels(backend, reader).await;
            found = trees.matching(session, find, &|_| true);
        }
        // What the latest action opened (a popover, a menu) reaches the tree a moment later.
        let since_action = session
            .acted_at_ms
            .map(|at_ms| crate::learn::unix_ms().saturating_sub(at_ms));
        if found.refs.is_empty() && since_action.is_some_and(|ms| ms < SETTLE_AFTER_ACTION_MS) {
            tokio::time::sleep(std::time::Duration::from_millis(150)).await;
            continue;
        }
        break (trees, found);
    };
    let label = trees.surface.label.clone();
    match found.refs.len() {
        0 => Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "no shown element on {label} matches {find}{}; call `observe` to see what is there, or `wait` for it to appear{}",
                unreadable_note(&trees),
                pixels_note(&trees)
            ),
        )),
        1 => {
            let (number, entry) = found.refs.into_iter().next().expect("one ref");
            let window = trees
                .trees
                .iter()
                .find(|(w, _)| w.key() == entry.window)
                .map(|(w, _)| w.clone())
                .expect("the element came from one of the trees");
            session.adopt(trees.surface.key, &label, number, &entry);
            Ok((RefId(number), entry, window))
        }
        n => {
            // The reply offers their refs: they must work in the next call.
            for (number, entry) in &found.refs {
                session.adopt(trees.surface.key, &label, *number, entry);
            }
            Err(Error::new(
                ErrorKind::Ambiguous,
                format!(
                    "{n} shown elements on {label} match {find}: {}; use one of their refs, or a fuller name or a role",
                    candidates(&found)
                ),
            ))
        }
    }
}

/// The lines of a pick, joined for a one-line message, at most ten.
pub(crate) fn candidates(found: &Rendered) -> String {
    let lines: Vec<&str> = found.body.lines().collect();
    let mut text = lines
        .iter()
        .take(10)
        .copied()
        .collect::<Vec<_>>()
        .join("; ");
    if lines.len() > 10 {
        text.push_str(&format!("; and {} more", lines.len() - 10));
    }
    text
}

/// Where a tree shows a canvas, what `find` looks for may be drawn on its pixels, which only
/// `observe` with `ocr` reads.
fn pixels_note(trees: &SurfaceTrees) -> &'static str {
    fn has_canvas(node: &Node) -> bool {
        (node.role == Role::Canvas && node.states.visible) || node.children.iter().any(has_canvas)
    }
    if trees.trees.iter().any(|(_, tree)| has_canvas(&tree.root)) {
        "; the window draws part of what it shows on a canvas, whose text only its pixels hold: `observe` with `ocr: true` lists that text, to click by `x`/`y`"
    } else {
        ""
    }
}

fn unreadable_note(trees: &SurfaceTrees) -> String {
    if trees.unreadable.is_empty() {
        String::new()
    } else {
        format!(
            " (unreadable: {})",
            trees
                .unreadable
                .iter()
                .map(|u| escape(u))
                .collect::<Vec<_>>()
                .join("; ")
        )
    }
}
