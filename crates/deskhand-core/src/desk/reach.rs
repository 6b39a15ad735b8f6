//! What one call reaches: its surface, and the elements and pixels its places (a ref, a `find`,
//! a point) name, each resolved once per call. The guard's policy check and the action that
//! follows work on the same resolution, so what the policy allowed is what the action touches,
//! and no window list or tree is read twice for it.

use crate::action::{Place, RefId, TargetId};
use crate::backend::{Accessibility, Capture, Identity, Windows};
use crate::coords::to_pixel;
use crate::error::{Error, ErrorKind, Result};
use crate::find::find_one;
use crate::model::{Point, Rect, Role, WindowInfo};
use crate::ocr::TextReader;
use crate::render::{REF_NAME_CHARS, cut, escape};
use crate::session::{RefEntry, Session, SurfaceKey, element_key};

use super::answer::words::{ElementSaid, PlaceSaid};
use super::surface::{Surface, live_window, resolve};

fn ref_label(id: RefId, entry: &RefEntry) -> String {
    said(id, entry).to_string()
}

fn said(id: RefId, entry: &RefEntry) -> ElementSaid {
    ElementSaid {
        id,
        role: entry.role,
        name: entry.name.clone(),
    }
}

/// The current center of a ref's element, read again so a moved window is followed.
pub(crate) async fn ref_center<B: Windows + Accessibility>(
    backend: &B,
    id: RefId,
    entry: &RefEntry,
    window: &WindowInfo,
) -> Result<Point> {
    // An element off screen (a closed menu's item) can report extents far outside any window.
    let screen = backend.screen().await?;
    // Text read from pixels is where it was in its window: a moved window is followed.
    let bounds = match entry.handle.pixel_bounds() {
        Some(relative) => Some(Rect {
            x: window.bounds.x.saturating_add(relative.x),
            y: window.bounds.y.saturating_add(relative.y),
            ..relative
        })
        .filter(|b| window.bounds.contains(b.center())),
        None => backend.element_bounds(window, &entry.handle).await?,
    };
    match bounds {
        Some(bounds) if !bounds.is_empty() && screen.contains(bounds.center()) => {
            Ok(bounds.center())
        }
        _ => Err(Error::new(
            ErrorKind::ElementGone,
            format!(
                "{} is not on screen (removed, hidden, in a closed menu or zero-sized); call `observe` again",
                ref_label(id, entry)
            ),
        )),
    }
}

/// One call's target and what it was resolved to so far.
pub(crate) struct Reach {
    target: Option<TargetId>,
    surface: Option<Surface>,
    elements: Vec<(Place, Named)>,
    /// What reads the text of a window without a tree, for a `find` there.
    reader: Option<TextReader>,
}

impl Reach {
    pub(crate) fn new(target: Option<TargetId>, reader: Option<TextReader>) -> Reach {
        Reach {
            target,
            surface: None,
            elements: Vec::new(),
            reader,
        }
    }

    /// The target the call named, if it named one.
    pub(crate) fn target(&self) -> Option<TargetId> {
        self.target
    }

    /// What reads text from pixels, where the server has it.
    pub(crate) fn reader(&self) -> Option<&TextReader> {
        self.reader.as_ref()
    }

    /// The call's surface: its target, else the current surface, else the frontmost window.
    pub(crate) async fn surface<B: Windows + Accessibility + Capture>(
        &mut self,
        backend: &B,
        session: &mut Session,
    ) -> Result<Surface> {
        if let Some(surface) = &self.surface {
            return Ok(surface.clone());
        }
        let surface = resolve(backend, session, self.target).await?;
        self.surface = Some(surface.clone());
        Ok(surface)
    }

    /// The element a place names; `None` for a point. A ref is checked against the call's
    /// surface and its window; a `find` is looked up in the surface's tree, once per call.
    pub(crate) async fn named<B: Windows + Accessibility + Capture>(
        &mut self,
        backend: &B,
        session: &mut Session,
        place: &Place,
    ) -> Result<Option<Named>> {
        if let Some((_, named)) = self.elements.iter().find(|(known, _)| known == place) {
            return Ok(Some(named.clone()));
        }
        let named = match place {
            Place::Ref(id) => {
                let (entry, window) = self.ref_entry(backend, session, *id).await?;
                let enabled = confirm_identity(backend, *id, &entry, &window).await?
                    && !observed_in_disabled(session, &entry);
                Named {
                    id: *id,
                    entry,
                    window,
                    enabled,
                }
            }
            Place::Find(find) => {
                let surface = self.surface(backend, session).await?;
                let (id, entry, window) =
                    find_one(backend, session, self.reader.as_ref(), surface, find).await?;
                Named {
                    id,
                    entry,
                    window,
                    enabled: true,
                }
            }
            Place::Point { .. } => return Ok(None),
        };
        self.elements.push((place.clone(), named.clone()));
        Ok(Some(named))
    }

    /// Where a place is on the screen now: an element's current center, or a point of the
    /// surface.
    pub(crate) async fn locate<B: Windows + Accessibility + Capture>(
        &mut self,
        backend: &B,
        session: &mut Session,
        place: &Place,
    ) -> Result<PlaceSaid> {
        if let Some(element) = self.named(backend, session, place).await? {
            let pixel = ref_center(backend, element.id, &element.entry, &element.window).await?;
            return Ok(PlaceSaid::Element {
                element: element.said(),
                pixel,
            });
        }
        let Place::Point { x, y } = *place else {
            unreachable!("a place that names no element is a point")
        };
        let surface = self.surface(backend, session).await?;
        Ok(point_on(&surface, x, y))
    }

    /// A ref's entry after checking it belongs to the call's surface and its window still exists.
    async fn ref_entry<B: Windows + Accessibility + Capture>(
        &mut self,
        backend: &B,
        session: &mut Session,
        id: RefId,
    ) -> Result<(RefEntry, WindowInfo)> {
        let (observation, entry) = session.resolve_ref(id)?;
        let (observed_on, observed_label, entry) = (
            observation.surface,
            observation.label.clone(),
            entry.clone(),
        );
        if let Some(named) = self.target {
            let surface = self.surface(backend, session).await?;
            if surface.key != observed_on {
                return Err(Error::new(
                    ErrorKind::RefWrongSurface,
                    format!(
                        "{id} was observed on {observed_label}, not on {}; observe {named} and use its refs, or leave out `target`",
                        if surface.label == named.to_string() {
                            surface.label.clone()
                        } else {
                            format!("{named} ({})", surface.label)
                        }
                    ),
                ));
            }
        }
        match live_window(backend, entry.window).await? {
            Some(window) => Ok((entry, window)),
            None => {
                session.window_closed(entry.window);
                Err(Error::new(
                    ErrorKind::SurfaceGone,
                    format!(
                        "{id} was in a window that is gone now; call `windows`, then observe the window you want"
                    ),
                ))
            }
        }
    }
}

/// Fails unless the ref's element is still the one observed: a toolkit that hands out objects by
/// position (Qt's item views) makes the same object stand for another item once rows move, and
/// acting on it would touch what the agent never saw. One round trip to the app; skipped where
/// the platform's handles cannot change meaning, and for text read from pixels. Whether the
/// element takes input now: true where that is not known.
async fn confirm_identity<B: Accessibility>(
    backend: &B,
    id: RefId,
    entry: &RefEntry,
    window: &WindowInfo,
) -> Result<bool> {
    if entry.handle.is_read_from_pixels() {
        return Ok(true);
    }
    let now = match backend.element_identity(window, &entry.handle).await {
        Ok(Some(now)) => now,
        Ok(None) => {
            return Err(Error::new(
                ErrorKind::ElementGone,
                format!(
                    "{} is gone from its window; nothing was done: call `observe` again and use its refs",
                    ref_label(id, entry)
                ),
            ));
        }
        Err(err) if err.kind == ErrorKind::Unsupported => return Ok(true),
        Err(err) => return Err(err),
    };
    if still_names(entry, &now) {
        return Ok(now.enabled);
    }
    let there = if now.name.is_empty() {
        now.role.as_str().to_owned()
    } else {
        format!(
            "{} \"{}\"",
            now.role.as_str(),
            escape(&cut(&now.name, REF_NAME_CHARS).0)
        )
    };
    let what_changed = if now.role != entry.role {
        "its object is another kind of element now"
    } else if matches!(
        entry.role,
        Role::Listitem | Role::Treeitem | Role::Row | Role::Cell | Role::Header
    ) {
        "what the window shows changed since it was observed (a list's rows moved)"
    } else {
        "its name changed since it was observed, so it may be another control"
    };
    Err(Error::new(
        ErrorKind::ElementChanged,
        format!(
            "{} now stands for {there}: {what_changed}; nothing was done: call `observe` again and use the new ref",
            ref_label(id, entry)
        ),
    ))
}

/// Whether what the element is now is what the ref was issued for. The role must be the same.
/// The name must be too, except where it is not what tells the element apart: a combo box
/// names itself by its choice in some toolkits, text that labels or reads out something is
/// named by what it shows now (a calculator's display, a nested window that shows a result, a
/// window's title), and a name the toolkit does not give (read from pixels for the
/// observation) cannot be compared. Toolkits recycle objects by position only for the items of
/// their views, whose names stay checked.
pub(crate) fn still_names(entry: &RefEntry, now: &Identity) -> bool {
    if now.role != entry.role {
        return false;
    }
    let named_by_content = matches!(
        entry.role,
        Role::Combobox
            | Role::Window
            | Role::Dialog
            | Role::Canvas
            | Role::Label
            | Role::Paragraph
            | Role::Heading
            | Role::Document
            | Role::Terminal
            | Role::Statusbar
            | Role::Progress
            | Role::Alert
            | Role::Tooltip
    );
    named_by_content || now.name.trim().is_empty() || cut(&now.name, REF_NAME_CHARS).0 == entry.name
}

/// Whether the observation that issued the ref listed the element inside a disabled one: Qt
/// marks a disabled drop-down, not the items of its list, and an item chosen there would change
/// the box.
fn observed_in_disabled(session: &Session, entry: &RefEntry) -> bool {
    let Some(seen) = session.seen(SurfaceKey::Window(entry.window)) else {
        return false;
    };
    let key = element_key(&entry.handle, entry.role);
    let Some(at) = seen.iter().position(|s| s.key == key) else {
        return false;
    };
    let mut depth = seen[at].depth;
    for ancestor in seen[..at].iter().rev() {
        if ancestor.depth < depth {
            if ancestor.states.iter().any(|s| s == "disabled") {
                return true;
            }
            depth = ancestor.depth;
        }
    }
    false
}

/// An element a call names, by ref or by `find`.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub(crate) id: RefId,
    pub(crate) entry: RefEntry,
    pub(crate) window: WindowInfo,
    /// It, and what the observation listed it in, took input when last asked.
    pub(crate) enabled: bool,
}

impl Named {
    /// Refuses an action on a disabled element: the app would ignore it, or a toolkit that
    /// does not check (Qt's drop-down lists) would change what its user cannot.
    pub(crate) fn refuse_if_disabled(&self) -> Result<()> {
        if self.enabled {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::Disabled,
            format!(
                "{} is disabled, or in a disabled control; nothing was done: wait until it is enabled (`wait` with `is` \"enabled\"), or observe and pick another control",
                self.label()
            ),
        ))
    }

    pub(crate) fn said(&self) -> ElementSaid {
        said(self.id, &self.entry)
    }

    pub(crate) fn label(&self) -> String {
        self.said().to_string()
    }
}

/// A point 0–1000 of a resolved surface.
pub(crate) fn point_on(surface: &Surface, x: f64, y: f64) -> PlaceSaid {
    PlaceSaid::Point {
        x,
        y,
        surface: surface.label.clone(),
        pixel: to_pixel(&surface.rect, x, y),
    }
}

#[cfg(all(test, feature = "fake"))]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::action::TargetId;
    use crate::fake::FakeDesktop;
    use crate::model::{ElementHandle, Node, Rect, Role, States, Tree};

    fn desktop() -> FakeDesktop {
        let window = WindowInfo {
            handle: 7,
            title: "Editor".into(),
            pid: Some(70),
            app_name: "editor".into(),
            bounds: Rect::new(0, 0, 400, 300),
            focused: true,
            minimized: false,
            maximized: false,
        };
        let save = Node {
            handle: ElementHandle(":1.7/save".into()),
            role: Role::Button,
            name: "Save".into(),
            value: None,
            states: States {
                visible: true,
                enabled: true,
                ..States::default()
            },
            bounds: Some(Rect::new(10, 10, 80, 30)),
            actions: vec!["click".into()],
            children: Vec::new(),
        };
        let root = Node {
            handle: ElementHandle(":1.7/root".into()),
            role: Role::Window,
            name: "Editor".into(),
            value: None,
            states: States {
                visible: true,
                enabled: true,
                ..States::default()
            },
            bounds: Some(Rect::new(0, 0, 400, 300)),
            actions: Vec::new(),
            children: vec![save],
        };
        FakeDesktop::new(
            Rect::new(0, 0, 1000, 800),
            vec![(
                window,
                Tree {
                    root,
                    partial: None,
                },
            )],
        )
    }

    #[tokio::test]
    async fn a_call_reads_its_surface_and_each_element_once_however_often_it_asks() {
        let fake = desktop();
        let mut session = Session::default();
        let w = TargetId::Window(session.window_id(fake.windows.lock().unwrap()[0].0.key()));
        let mut reach = Reach::new(Some(w), None);
        let first = reach.surface(&fake, &mut session).await.unwrap();
        let reads = fake.reads.load(Ordering::Relaxed);
        assert!(reads > 0, "the first ask reads the window");
        let again = reach.surface(&fake, &mut session).await.unwrap();
        assert_eq!(again.label, first.label);
        assert_eq!(fake.reads.load(Ordering::Relaxed), reads);

        let call =
            crate::parse_call(serde_json::json!({"action": "click", "find": {"name": "Save"}}));
        let Ok(crate::action::Call {
            action: crate::action::Action::Click { place: find, .. },
            ..
        }) = call
        else {
            panic!("a click by find parses: {call:?}");
        };
        let named = reach.named(&fake, &mut session, &find).await.unwrap();
        let named = named.expect("Save is found");
        assert_eq!(named.entry.name, "Save");
        let reads = fake.reads.load(Ordering::Relaxed);
        let located = reach.locate(&fake, &mut session, &find).await.unwrap();
        assert_eq!(located.pixel(), Point { x: 50, y: 25 });
        assert_eq!(
            fake.reads.load(Ordering::Relaxed),
            reads,
            "the element found once is the one the pointer goes to"
        );
    }
}
