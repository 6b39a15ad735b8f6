//! What one agent's session remembers between calls: ids for windows and apps, the ref table of
//! the latest observation, and the current surface. Serializable so the CLI can keep it per display.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::action::{RefId, TargetId};
use crate::error::{Error, ErrorKind, Result};
use crate::memory::{Sighting, Step};
use crate::model::{ElementHandle, Rect, Role, WindowKey};

/// A surface as the platform knows it, independent of how a call named it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SurfaceKey {
    Screen,
    Window(WindowKey),
    /// A monitor by its session id (`m2`).
    Monitor(u32),
}

/// What a ref stands for, kept from the observation that issued it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefEntry {
    pub handle: ElementHandle,
    /// The window the element lives in.
    pub window: WindowKey,
    pub role: Role,
    pub name: String,
    pub bounds: Option<Rect>,
}

/// How many surfaces keep their latest observation for `since`; the least recent is dropped.
pub const REMEMBERED_SURFACES: usize = 8;

/// One element as an observation saw it, kept so the next observe of the surface can say what
/// changed. Short field names: the CLI writes the session to disk after every call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Seen {
    /// The element's identity, the key its ref number is kept under.
    #[serde(rename = "k")]
    pub key: String,
    #[serde(rename = "d")]
    pub depth: usize,
    #[serde(rename = "r")]
    pub role: Role,
    /// As rendered: cut, never a password's value.
    #[serde(rename = "n", default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(rename = "v", default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(rename = "s", default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    #[serde(rename = "l", default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The elements of the latest observe of one surface, hidden ones included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SurfaceSeen {
    surface: SurfaceKey,
    elements: Vec<Seen>,
    /// When that observe was made, unix ms; 0 in sessions written before this was kept.
    #[serde(default)]
    at_ms: u64,
}

/// The refs of the latest observation and the surface it was of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub surface: SurfaceKey,
    /// How the header named it, e.g. `w3` or `screen`.
    pub label: String,
    pub refs: BTreeMap<u32, RefEntry>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// `w{i+1}` names `windows[i]`; ids are never reused.
    windows: Vec<WindowKey>,
    /// Ids whose window the session saw close: a window that comes later under the same key (an
    /// X id the server handed out again, and no process id to tell them apart) gets a new id.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    closed_windows: BTreeSet<u32>,
    /// Refs of the latest observation whose window closed since: refused as gone, never
    /// resolved onto a window that came later under the same key. Cleared by the next observe.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    departed_refs: BTreeSet<u32>,
    /// `a{i+1}` names the app with process id `app_pids[i]`.
    app_pids: Vec<u32>,
    /// `m{i+1}` names the monitor the display server calls `monitors[i]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    monitors: Vec<String>,
    /// An element keeps its number for the whole session; numbers are never reused.
    element_numbers: HashMap<String, u32>,
    last_ref: u32,
    pub current: Option<TargetId>,
    pub latest: Option<Observation>,
    /// Refs a reply issued on another surface than the latest observation's (a `find`, a
    /// wait's evidence): usable, like the latest observation's, until the next observe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) found: Option<Observation>,
    /// The latest observe of each recently observed surface, most recent last.
    #[serde(default)]
    seen: Vec<SurfaceSeen>,
    /// The kill switch refused an action of this session; the first action that succeeds after
    /// the pointer left the corner clears it and its reply says deskhand had been stopped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
    /// A person's takeover refused an action of this session; the first action that succeeds
    /// after it clears it and its reply says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub taken_over: bool,
    /// The windows there before a batch step whose next step waits for a new window, so a
    /// window the step opens at once still counts as new.
    #[serde(skip)]
    pub(crate) windows_before_step: Option<Vec<WindowKey>>,
    /// The windows there before the latest action, and when (unix ms): a `new_window` wait
    /// called after the action counts a window the action opened before the wait began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) windows_before_action: Option<(Vec<WindowKey>, u64)>,
    /// What memory last saw of recently observed windows, most recent last: an action's
    /// "before" when memory learns what it led to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) sightings: Vec<(WindowKey, Sighting)>,
    /// The last step on a named control, until an observation shows what it led to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pending_step: Option<PendingStep>,
    /// The elements whose accessibility action ran lately, and when (unix ms), oldest first:
    /// toolkits ignore a button's activation while its previous one is still in progress, also
    /// when other buttons were activated in between (kcalc's "1 2 × 1 2 =").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) activations: Vec<(ElementHandle, u64)>,
    /// When (unix ms) the latest action ended: what it opened reaches the tree a moment later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) acted_at_ms: Option<u64>,
    /// Text just typed into a named element, which the app may not show yet. Never written to
    /// disk: the text may be a secret in a field that does not say it is one.
    #[serde(skip)]
    pub(crate) typed_into: Option<TypedInto>,
    /// The arguments of the calls since the last [`Session::take_secret_args`] whose text went
    /// into a password field (`text`, `steps[2].value`): a recording must not keep that text.
    #[serde(skip)]
    secret_args: Vec<String>,
    /// The latest element clicked was a password field: where the focused element's role
    /// cannot be read, text typed next is taken for a secret. Kept between CLI calls.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) clicked_password: bool,
    /// A recorder keeps this session's calls: typing asks whether the focus is a password
    /// field (which costs a call or a tree read), so the recorder can leave its text out.
    #[serde(skip)]
    pub watch_secrets: bool,
}

/// Keys sent to an element: a toolkit that hands keys from the process reading the X events to
/// another that draws the page (Firefox) can still be delivering them when an accessibility
/// focus request, which takes a shorter way, moves the focus to the next field.
#[derive(Clone, PartialEq)]
pub(crate) struct TypedInto {
    pub(crate) element: ElementHandle,
    pub(crate) text: String,
    pub(crate) sent: std::time::Instant,
}

/// The text is left out: a session printed for a failing test or a log must not show it.
impl std::fmt::Debug for TypedInto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedInto")
            .field("element", &self.element)
            .field("characters", &self.text.chars().count())
            .field("sent", &self.sent)
            .finish()
    }
}

/// A step memory has not yet seen the effect of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PendingStep {
    pub(crate) window: WindowKey,
    pub(crate) step: Step,
    /// Unix milliseconds: the CLI keeps the session between processes.
    pub(crate) at_ms: u64,
}

/// How many windows keep their latest sighting.
const REMEMBERED_SIGHTINGS: usize = 6;

/// What an element's ref number is kept under: its handle's identity, which for an element the
/// platform names anew at each read is not its address. The role is part of the key so a
/// platform that recycles an object path for a different kind of element never inherits the
/// old element's number.
pub fn element_key(handle: &ElementHandle, role: Role) -> String {
    format!("{}|{}", handle.identity(), role.as_str())
}

impl Session {
    pub fn window_id(&mut self, window: WindowKey) -> u32 {
        match self.open_window_id(window) {
            Some(id) => id,
            None => {
                self.windows.push(window);
                self.windows.len() as u32
            }
        }
    }

    /// The id of the window under `key` that the session has not seen close.
    fn open_window_id(&self, key: WindowKey) -> Option<u32> {
        (1..=self.windows.len() as u32)
            .find(|id| self.windows[*id as usize - 1] == key && !self.closed_windows.contains(id))
    }

    /// The window under `key` is gone: its id and its refs never name a window that comes later
    /// under the same key.
    pub fn window_closed(&mut self, key: WindowKey) {
        let Some(id) = self.open_window_id(key) else {
            return;
        };
        self.closed_windows.insert(id);
        for observation in [&mut self.latest, &mut self.found].into_iter().flatten() {
            observation.refs.retain(|number, entry| {
                let stays = entry.window != key;
                if !stays {
                    self.departed_refs.insert(*number);
                }
                stays
            });
        }
        self.seen.retain(|s| s.surface != SurfaceKey::Window(key));
    }

    /// Every window open now has been listed: the windows the session knew that are not among
    /// them are closed.
    pub fn windows_listed(&mut self, open: &[WindowKey]) {
        let closed: Vec<WindowKey> = (1..=self.windows.len() as u32)
            .filter(|id| !self.closed_windows.contains(id))
            .map(|id| self.windows[id as usize - 1])
            .filter(|key| !open.contains(key))
            .collect();
        for key in closed {
            self.window_closed(key);
        }
    }

    pub fn app_id(&mut self, pid: u32) -> u32 {
        id_for(&mut self.app_pids, pid)
    }

    pub fn window_key(&self, id: u32) -> Result<WindowKey> {
        if self.closed_windows.contains(&id) {
            return Err(Error::new(
                ErrorKind::SurfaceGone,
                format!(
                    "w{id} is gone: its window closed, and a window that opened later has an id of its own; call `windows` and pick another window"
                ),
            ));
        }
        lookup(&self.windows, id).ok_or_else(|| {
            Error::bad_argument(format!(
                "w{id} is not a window id of this session; call `windows` to list windows and their ids"
            ))
        })
    }

    pub fn monitor_id(&mut self, name: &str) -> u32 {
        match self.monitors.iter().position(|known| known == name) {
            Some(index) => index as u32 + 1,
            None => {
                self.monitors.push(name.to_owned());
                self.monitors.len() as u32
            }
        }
    }

    pub fn monitor_name(&self, id: u32) -> Result<&str> {
        id.checked_sub(1)
            .and_then(|index| self.monitors.get(index as usize))
            .map(String::as_str)
            .ok_or_else(|| {
                Error::bad_argument(format!(
                    "m{id} is not a monitor id of this session; call `windows` to list the monitors and their ids"
                ))
            })
    }

    pub fn app_pid(&self, id: u32) -> Result<u32> {
        lookup(&self.app_pids, id).ok_or_else(|| {
            Error::bad_argument(format!(
                "a{id} is not an app id of this session; call `apps` to list applications and their ids"
            ))
        })
    }

    /// The session-wide number of an element, the same on every observation that shows it.
    pub fn ref_number(&mut self, handle: &ElementHandle, role: Role) -> u32 {
        let key = element_key(handle, role);
        if let Some(number) = self.element_numbers.get(&key) {
            return *number;
        }
        self.last_ref += 1;
        self.element_numbers.insert(key, self.last_ref);
        self.last_ref
    }

    /// Takes out what the latest observe of `surface` saw, and when (unix ms; 0 if unknown);
    /// [`Session::remember`] puts it back.
    pub fn take_seen(&mut self, surface: SurfaceKey) -> Option<(Vec<Seen>, u64)> {
        let index = self.seen.iter().position(|s| s.surface == surface)?;
        let seen = self.seen.remove(index);
        Some((seen.elements, seen.at_ms))
    }

    /// Keeps what an observe of `surface` saw at `at_ms` (unix ms), for the next `since`; only
    /// the latest observe of the last [`REMEMBERED_SURFACES`] surfaces is kept.
    pub fn remember(&mut self, surface: SurfaceKey, elements: Vec<Seen>, at_ms: u64) {
        self.seen.retain(|s| s.surface != surface);
        self.seen.push(SurfaceSeen {
            surface,
            elements,
            at_ms,
        });
        let extra = self.seen.len().saturating_sub(REMEMBERED_SURFACES);
        self.seen.drain(..extra);
    }

    /// What the latest observe of `surface` saw, hidden elements included, in tree order: a
    /// recording derives an acted element's ancestors from it, by depth.
    pub fn seen(&self, surface: SurfaceKey) -> Option<&[Seen]> {
        self.seen
            .iter()
            .find(|s| s.surface == surface)
            .map(|s| s.elements.as_slice())
    }

    pub(crate) fn sighting_of(&self, window: WindowKey) -> Option<&Sighting> {
        self.sightings
            .iter()
            .rev()
            .find(|(key, _)| *key == window)
            .map(|(_, s)| s)
    }

    pub(crate) fn remember_sighting(&mut self, window: WindowKey, sighting: Sighting) {
        self.sightings.retain(|(key, _)| *key != window);
        self.sightings.push((window, sighting));
        let extra = self.sightings.len().saturating_sub(REMEMBERED_SIGHTINGS);
        self.sightings.drain(..extra);
    }

    /// Lets a ref issued outside an observe (a `find`, a wait's evidence) be used like the
    /// latest observation's own, when that observation is of the same surface or there is none.
    pub fn adopt(&mut self, surface: SurfaceKey, label: &str, number: u32, entry: &RefEntry) {
        let slot = match &self.latest {
            Some(latest) if latest.surface != surface => &mut self.found,
            _ => &mut self.latest,
        };
        match slot {
            Some(observation) if observation.surface == surface => {
                observation.refs.insert(number, entry.clone());
            }
            _ => {
                *slot = Some(Observation {
                    surface,
                    label: label.to_owned(),
                    refs: BTreeMap::from([(number, entry.clone())]),
                })
            }
        }
    }

    /// The argument, e.g. `text`, whose text just went into a password field.
    pub(crate) fn mark_secret(&mut self, field: &str) {
        self.secret_args.push(field.to_owned());
    }

    /// The marks made since `from` were a batch step's: they name the step's arguments.
    pub(crate) fn secrets_of_step(&mut self, from: usize, step: usize) {
        for field in self.secret_args.iter_mut().skip(from) {
            *field = format!("steps[{step}].{field}");
        }
    }

    pub(crate) fn secret_marks(&self) -> usize {
        self.secret_args.len()
    }

    /// Which arguments of the calls since the last take held text typed or set into a password
    /// field, decided at the moment of typing; clears them.
    pub fn take_secret_args(&mut self) -> Vec<String> {
        std::mem::take(&mut self.secret_args)
    }

    /// A new observation: its refs replace every ref issued before.
    pub fn observed(&mut self, observation: Observation) {
        self.latest = Some(observation);
        self.found = None;
        self.departed_refs.clear();
    }

    /// A new observation that listed only part of what it read (a `query`, a `max_depth`): the
    /// refs the previous observation of the same surface issued stay usable for the elements
    /// read again unchanged (`unchanged` says which), so narrowing a look costs none of them.
    pub fn observed_narrowed(
        &mut self,
        mut observation: Observation,
        unchanged: impl Fn(&RefEntry) -> bool,
    ) {
        let previous = self.latest.take();
        for (number, entry) in previous
            .into_iter()
            .filter(|previous| previous.surface == observation.surface)
            .flat_map(|previous| previous.refs)
        {
            if unchanged(&entry) {
                observation.refs.entry(number).or_insert(entry);
            }
        }
        self.observed(observation);
    }

    /// The entry for a ref, if a reply since the latest observe issued it; otherwise why not.
    pub fn resolve_ref(&self, id: RefId) -> Result<(&Observation, &RefEntry)> {
        for observation in [&self.latest, &self.found].into_iter().flatten() {
            if let Some(entry) = observation.refs.get(&id.0) {
                return Ok((observation, entry));
            }
        }
        if self.departed_refs.contains(&id.0) {
            return Err(Error::new(
                ErrorKind::SurfaceGone,
                format!(
                    "{id} was in a window that closed since it was observed; nothing was done: call `windows`, then observe the window you want"
                ),
            ));
        }
        let latest = self.latest.as_ref();
        if id.0 == 0 || id.0 > self.last_ref {
            return Err(Error::new(
                ErrorKind::RefUnknown,
                format!(
                    "{id} was never issued in this session; call `observe` and use a ref from its output"
                ),
            ));
        }
        let since = latest
            .map(|o| format!(" with the observe of {}", o.label))
            .unwrap_or_default();
        Err(Error::new(
            ErrorKind::RefExpired,
            format!(
                "{id} expired{since}: it is not in the latest observation; call `observe` again and use a ref from it"
            ),
        ))
    }
}

/// Gives elements their session-wide ref numbers.
pub trait Numbers {
    /// The element's number, issued now if it has none yet.
    fn number(&mut self, handle: &ElementHandle, role: Role) -> u32;
    /// The number of the element with this [`element_key`], issued
    /// now if it has none yet (an element that is gone still gets one, so every line of a diff
    /// carries a ref).
    fn number_of_key(&mut self, key: &str) -> u32;
}

impl Numbers for Session {
    fn number(&mut self, handle: &ElementHandle, role: Role) -> u32 {
        self.ref_number(handle, role)
    }

    fn number_of_key(&mut self, key: &str) -> u32 {
        if let Some(number) = self.element_numbers.get(key) {
            return *number;
        }
        self.last_ref += 1;
        self.element_numbers.insert(key.to_owned(), self.last_ref);
        self.last_ref
    }
}

fn id_for<T: PartialEq + Copy>(table: &mut Vec<T>, key: T) -> u32 {
    let index = match table.iter().position(|k| *k == key) {
        Some(index) => index,
        None => {
            table.push(key);
            table.len() - 1
        }
    };
    index as u32 + 1
}

fn lookup<T: Copy>(table: &[T], id: u32) -> Option<T> {
    id.checked_sub(1)
        .and_then(|i| table.get(i as usize))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_never_reused() {
        let mut session = Session::default();
        let key = |handle, pid| WindowKey {
            handle,
            pid: Some(pid),
        };
        assert_eq!(session.window_id(key(0x400001, 10)), 1);
        assert_eq!(session.window_id(key(0x500001, 10)), 2);
        assert_eq!(session.window_id(key(0x400001, 10)), 1);
        // The same X id in another process is another window.
        assert_eq!(session.window_id(key(0x400001, 11)), 3);
        assert_eq!(session.window_key(2).unwrap(), key(0x500001, 10));
        for unknown in [4, 0] {
            let err = session.window_key(unknown).unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument);
            assert!(
                err.message
                    .starts_with(&format!("w{unknown} is not a window id of this session")),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn a_closed_window_lends_neither_its_id_nor_its_refs_to_the_next_under_its_key() {
        let mut session = Session::default();
        let key = WindowKey {
            handle: 0x400001,
            pid: None,
        };
        assert_eq!(session.window_id(key), 1);
        let handle = ElementHandle("x".into());
        let number = session.ref_number(&handle, Role::Label);
        session.observed(Observation {
            surface: SurfaceKey::Window(key),
            label: "w1".into(),
            refs: BTreeMap::from([(
                number,
                RefEntry {
                    handle,
                    window: key,
                    role: Role::Label,
                    name: "First message".into(),
                    bounds: None,
                },
            )]),
        });
        session.windows_listed(&[]);
        assert_eq!(session.window_id(key), 2, "the same key opened again");
        let err = session.resolve_ref(RefId(number)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::SurfaceGone, "{}", err.message);
        let err = session.window_key(1).unwrap_err();
        assert_eq!(err.kind, ErrorKind::SurfaceGone, "{}", err.message);
        assert_eq!(session.window_key(2).unwrap(), key);
        session.windows_listed(&[key]);
        assert_eq!(session.window_id(key), 2, "an open window keeps its id");
    }

    #[test]
    fn ref_numbers_follow_the_element_not_the_slot() {
        let mut session = Session::default();
        let a = ElementHandle(":1.2/a".into());
        let b = ElementHandle(":1.2/b".into());
        assert_eq!(session.ref_number(&a, Role::Button), 1);
        assert_eq!(session.ref_number(&b, Role::Button), 2);
        assert_eq!(session.ref_number(&a, Role::Button), 1);
        assert_eq!(session.ref_number(&a, Role::Label), 3);
    }

    #[test]
    fn only_the_latest_observe_of_the_last_surfaces_is_remembered() {
        let mut session = Session::default();
        let surface = |handle| {
            SurfaceKey::Window(WindowKey {
                handle,
                pid: Some(1),
            })
        };
        let seen = |name: &str| {
            vec![Seen {
                key: "x|button".into(),
                depth: 0,
                role: Role::Button,
                name: name.into(),
                value: None,
                states: vec![],
                label: None,
            }]
        };
        for handle in 0..=REMEMBERED_SURFACES as u64 {
            session.remember(surface(handle), seen("first"), 1);
        }
        session.remember(surface(1), seen("second"), 2);
        assert_eq!(session.seen.len(), REMEMBERED_SURFACES);
        assert_eq!(session.take_seen(surface(0)), None, "the oldest is dropped");
        assert_eq!(session.take_seen(surface(1)), Some((seen("second"), 2)));
        assert_eq!(session.take_seen(surface(1)), None, "taken out");
        assert!(session.take_seen(surface(2)).is_some());

        // A session file written before `seen` existed still loads.
        let mut old = serde_json::to_value(Session::default()).unwrap();
        old.as_object_mut().unwrap().remove("seen");
        assert_eq!(
            serde_json::from_value::<Session>(old).unwrap(),
            Session::default()
        );
    }

    #[test]
    fn stale_and_unknown_refs_say_so() {
        let mut session = Session::default();
        let handle = ElementHandle("x".into());
        let number = session.ref_number(&handle, Role::Button);
        session.latest = Some(Observation {
            surface: SurfaceKey::Screen,
            label: "w1".into(),
            refs: BTreeMap::new(),
        });
        let err = session.resolve_ref(RefId(number)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::RefExpired);
        assert!(err.message.contains("observe"));
        let err = session.resolve_ref(RefId(99)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::RefUnknown);
    }
}
