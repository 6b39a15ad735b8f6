//! Key strokes through XTEST, including keysyms that are not on the keyboard map.
//!
//! A keysym on the map is typed with its keycode (plus Shift if it sits in the shifted column).
//! Any other keysym is put on a spare keycode (one with no symbols) for the duration of the call,
//! through XKB rather than the core protocol: see `Remap` for why.
//! Clients translate a key event with the keyboard map they fetch when they get to it, not with
//! the map at the time the event was sent, so a spare keycode must not get a new symbol until the
//! client has caught up with every key already sent on it. Hence: each symbol keeps its spare for
//! the whole call where possible, symbols are assigned in batches by looking ahead in the text,
//! and reusing spares or restoring them at the end first waits for the focused client
//! (see `client.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::time::Instant;

use x11rb::connection::Connection as _;
use x11rb::protocol::Event;
use x11rb::protocol::xkb::{
    self, ConnectionExt as _, KeySymMap, MapPart, SetMapAux, SetMapFlags, VMod,
};
use x11rb::protocol::xproto::{ConnectionExt as _, KEY_PRESS_EVENT, KEY_RELEASE_EVENT, Keycode};

use super::error::{TypeError, X11Error};
use super::keys::{Chord, keysym_for_char};
use super::{During as _, X11};
use xkeysym::key;

const KEYMAP_OPERATION: &str = "reading the keyboard map";
const REMAP_OPERATION: &str = "remapping a spare keycode";
const KEY_OPERATION: &str = "sending a key event";

/// Per-connection input state, behind the mutex that also serializes all synthetic input.
#[derive(Default)]
pub(super) struct InputState {
    keymap: Option<Keymap>,
    /// When a mouse button was last released (see `input.rs`).
    pub(super) last_release: Option<Instant>,
    /// Modifier keys a button press left down for its release (see `input.rs`).
    pub(super) gesture_keys: Vec<Keycode>,
    /// The button a press (`down`) left down for its release.
    pub(super) gesture_button: Option<u8>,
}

impl InputState {
    /// The keyboard map, re-read if anyone (including us) changed it since it was last read.
    fn keymap(&mut self, x11: &X11) -> Result<&Keymap, X11Error> {
        // Outside `client.rs` map changes are the only events this connection receives; draining
        // them here also keeps the otherwise unread event queue from growing.
        while let Some(event) = x11.conn.poll_for_event().during(KEYMAP_OPERATION)? {
            if matches!(event, Event::MappingNotify(_) | Event::XkbMapNotify(_)) {
                self.keymap = None;
            }
        }
        if x11.mapping_notified.swap(false, Ordering::Relaxed) {
            self.keymap = None;
        }
        match &mut self.keymap {
            Some(keymap) => Ok(keymap),
            slot => Ok(slot.insert(Keymap::load(x11)?)),
        }
    }

    /// The keys that hold `modifiers` (keysyms) down, Shift first for a modifier in a shifted
    /// column. Unlike a chord's modifiers these are never put on spare keycodes: a spare's
    /// symbol is restored when the call ends, while these may stay down past it.
    pub(super) fn modifier_keys(
        &mut self,
        x11: &X11,
        modifiers: &[u32],
    ) -> Result<Vec<Keycode>, X11Error> {
        let keymap = self.keymap(x11)?;
        let find = |keysym| {
            keymap
                .strokes
                .get(&keysym)
                .copied()
                .ok_or(X11Error::ModifierNotOnKeyboard { keysym })
        };
        let mut keys = Vec::new();
        for &modifier in modifiers {
            let stroke = find(modifier)?;
            if stroke.shift {
                keys.push(find(key::Shift_L)?.keycode);
            }
            keys.push(stroke.keycode);
        }
        let mut seen = HashSet::new();
        keys.retain(|&key| seen.insert(key));
        Ok(keys)
    }
}

#[derive(Debug, Clone, Copy)]
struct Stroke {
    keycode: Keycode,
    shift: bool,
}

/// The XKB type index of TWO_LEVEL, fixed by the XKB protocol: Shift selects the second level,
/// and no case conversion applies to it (unlike a core mapping, where a lone `É` becomes `é`).
const TWO_LEVEL: u8 = 1;

struct Keymap {
    /// Where each keysym on the map is: the unshifted column wins, then the lowest keycode.
    strokes: HashMap<u32, Stroke>,
    /// Keycodes without any symbol and not bound to a modifier, in ascending order.
    spares: Vec<Keycode>,
    /// XKB's own description of the symbols of every key from `min_keycode` on, written back
    /// unchanged for the keys that lie between two spares in one request. If the server did
    /// not describe every key, this is empty and there are no spares.
    xkb_syms: Vec<KeySymMap>,
    min_keycode: Keycode,
    /// The key range of the XKB map, which a map change must repeat.
    xkb_range: (Keycode, Keycode),
}

impl Keymap {
    fn load(x11: &X11) -> Result<Keymap, X11Error> {
        let setup = x11.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let count = max - min + 1;
        let core_cookie = x11
            .conn
            .get_keyboard_mapping(min, count)
            .during(KEYMAP_OPERATION)?;
        let modifiers_cookie = x11.conn.get_modifier_mapping().during(KEYMAP_OPERATION)?;
        let xkb_cookie = x11
            .conn
            .xkb_get_map(
                xkb::ID::USE_CORE_KBD.into(),
                MapPart::default(),
                MapPart::KEY_SYMS,
                0,
                0,
                min,
                count,
                0,
                0,
                0,
                0,
                VMod::default(),
                0,
                0,
                0,
                0,
                0,
                0,
            )
            .during(KEYMAP_OPERATION)?;
        let core = core_cookie.reply().during(KEYMAP_OPERATION)?;
        let modifier_keys = modifiers_cookie.reply().during(KEYMAP_OPERATION)?.keycodes;
        let xkb = xkb_cookie.reply().during(KEYMAP_OPERATION)?;
        let xkb_syms = match xkb.map.syms_rtrn {
            Some(syms) if xkb.first_key_sym == min && syms.len() == usize::from(count) => syms,
            _ => Vec::new(),
        };

        let width = usize::from(core.keysyms_per_keycode);
        let rows: Vec<(Keycode, &[u32])> = (min..=max).zip(core.keysyms.chunks(width)).collect();
        let mut strokes = HashMap::new();
        for column in [1, 0] {
            for &(keycode, row) in rows.iter().rev() {
                if let Some(&keysym) = row.get(column).filter(|&&k| k != 0) {
                    let shift = column == 1;
                    strokes.insert(keysym, Stroke { keycode, shift });
                }
            }
        }
        let spares = rows
            .iter()
            .zip(&xkb_syms)
            .filter(|&(&(keycode, row), xkb_row)| {
                row.iter().all(|&k| k == 0)
                    && xkb_row.syms.is_empty()
                    && !modifier_keys.contains(&keycode)
            })
            .map(|(&(keycode, _), _)| keycode)
            .collect();
        Ok(Keymap {
            strokes,
            spares,
            xkb_syms,
            min_keycode: min,
            xkb_range: (xkb.min_key_code, xkb.max_key_code),
        })
    }

    /// The key's symbols as loaded; only called for keys from the first to the last spare.
    fn original(&self, keycode: Keycode) -> KeySymMap {
        self.xkb_syms[usize::from(keycode - self.min_keycode)].clone()
    }
}

/// Spare keycode assignments for the duration of one call.
///
/// Slot `k` is level `k % levels` of spare `k / levels`: level 0 is typed plainly, level 1 with
/// Shift. Every change of the keyboard map costs: each makes every X client (the window manager
/// included) re-read the map, and openbox then re-grabs all its key bindings, about 30 ms of CPU
/// each time, during which clicks wait in its grab. So all changes of one batch go out in a
/// single XKB request, and both levels of a keycode fill up before the next keycode is taken.
struct Remap<'a> {
    x11: &'a X11,
    keymap: &'a Keymap,
    levels: usize,
    /// The keysym in each slot, 0 when free.
    slots: Vec<u32>,
    /// Spares given symbols during this call, to be cleared again in `finish`.
    written: Vec<bool>,
    /// A key was sent on a spare since the spares were last settled.
    unsettled: bool,
}

impl<'a> Remap<'a> {
    /// `levels` is 2 when nothing but our own Shift can be held, 1 when the caller holds
    /// modifiers (a held Shift would otherwise select a neighbouring symbol).
    fn new(x11: &'a X11, keymap: &'a Keymap, levels: usize) -> Self {
        let levels = levels.clamp(1, 2);
        let n = keymap.spares.len();
        Remap {
            x11,
            keymap,
            levels,
            slots: vec![0; n * levels],
            written: vec![false; n],
            unsettled: false,
        }
    }

    /// How to press `keysym`; `ahead` is what will be pressed next, starting with `keysym`, so
    /// that spares can be assigned for many symbols with one mapping change.
    fn stroke(&mut self, keysym: u32, ahead: &[u32]) -> Result<Stroke, X11Error> {
        if let Some(&stroke) = self.keymap.strokes.get(&keysym) {
            return Ok(stroke);
        }
        let slot = match self.slots.iter().position(|&s| s == keysym) {
            Some(slot) => slot,
            None => self.assign(keysym, ahead)?,
        };
        self.unsettled = true;
        Ok(Stroke {
            keycode: self.keymap.spares[slot / self.levels],
            shift: slot % self.levels == 1,
        })
    }

    fn assign(&mut self, keysym: u32, ahead: &[u32]) -> Result<usize, X11Error> {
        let capacity = self.slots.len();
        if capacity == 0 {
            return Err(X11Error::NoSpareKeycode { keysym });
        }
        let mut seen = HashSet::new();
        let wanted: Vec<u32> = std::iter::once(keysym)
            .chain(ahead.iter().copied())
            .filter(|k| !self.keymap.strokes.contains_key(k) && seen.insert(*k))
            .take(capacity)
            .collect();
        let mut changed = HashSet::new();
        if !self.slots.contains(&0) {
            // Every slot holds a symbol sent earlier in this call: let the client translate
            // those keys before their keycodes change meaning, then keep only what is needed
            // next.
            self.settle()?;
            for (k, slot) in self.slots.iter_mut().enumerate() {
                if !wanted.contains(slot) {
                    *slot = 0;
                    changed.insert(k / self.levels);
                }
            }
        }
        let new: Vec<u32> = wanted
            .into_iter()
            .filter(|k| !self.slots.contains(k))
            .collect();
        let free: Vec<usize> = (0..capacity).filter(|&k| self.slots[k] == 0).collect();
        for (&k, keysym) in free.iter().zip(new) {
            self.slots[k] = keysym;
            changed.insert(k / self.levels);
        }
        self.write(&changed)?;
        // `keysym` came first in `wanted`, so it got a slot.
        Ok(self.slots.iter().position(|&s| s == keysym).unwrap_or(0))
    }

    fn settle(&mut self) -> Result<(), X11Error> {
        if self.unsettled {
            self.x11.wait_for_focused_client()?;
            self.unsettled = false;
        }
        Ok(())
    }

    /// XKB symbols for spare `i`: its original (empty) entry when no slot of it is in use.
    fn symbols(&self, i: usize) -> KeySymMap {
        let levels = &self.slots[i * self.levels..(i + 1) * self.levels];
        let level0 = levels[0];
        let level1 = levels.get(1).copied().unwrap_or(0);
        let pair = match (level0, level1) {
            (0, 0) => return self.keymap.original(self.keymap.spares[i]),
            (a, 0) | (0, a) => [a, a],
            (a, b) => [a, b],
        };
        KeySymMap {
            kt_index: [TWO_LEVEL, 0, 0, 0],
            group_info: 1,
            width: 2,
            syms: pair.to_vec(),
        }
    }

    /// Sends the symbols of the `changed` spares in one request that rewrites every key between
    /// them as it is (other spares as currently assigned, all else as loaded), and waits until
    /// the server has applied it.
    fn write(&mut self, changed: &HashSet<usize>) -> Result<(), X11Error> {
        let spares = &self.keymap.spares;
        let (Some(first), Some(last)) = (
            changed.iter().map(|&i| spares[i]).min(),
            changed.iter().map(|&i| spares[i]).max(),
        ) else {
            return Ok(());
        };
        let syms: Vec<KeySymMap> = (first..=last)
            .map(|keycode| match spares.binary_search(&keycode) {
                Ok(i) => self.symbols(i),
                Err(_) => self.keymap.original(keycode),
            })
            .collect();
        let total_syms = syms.iter().map(|m| m.syms.len()).sum::<usize>();
        let cookie = self
            .x11
            .conn
            .xkb_set_map(
                xkb::ID::USE_CORE_KBD.into(),
                SetMapFlags::default(),
                self.keymap.xkb_range.0,
                self.keymap.xkb_range.1,
                0,
                0,
                first,
                last - first + 1,
                u16::try_from(total_syms).unwrap_or(u16::MAX),
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                VMod::default(),
                &SetMapAux {
                    syms: Some(syms),
                    ..SetMapAux::default()
                },
            )
            .during(REMAP_OPERATION)?;
        for &i in changed {
            self.written[i] = true;
        }
        X11::check_all([cookie], REMAP_OPERATION)
    }

    /// Gives every spare this call used its original symbols back, after waiting for the client
    /// to translate the keys; they are restored even if the client does not answer.
    fn finish(mut self) -> Result<(), X11Error> {
        if !self.written.contains(&true) {
            return Ok(());
        }
        let settled = self.settle();
        self.slots.fill(0);
        let used = (0..self.written.len())
            .filter(|&i| self.written[i])
            .collect();
        settled.and(self.write(&used))
    }
}

/// Keys and a button held down by the current call, released by `release_all` whatever happens.
#[derive(Default)]
pub(super) struct Held {
    pub(super) keys: Vec<Keycode>,
    pub(super) button: Option<u8>,
}

impl Held {
    pub(super) fn press_key(&mut self, x11: &X11, keycode: Keycode) -> Result<(), X11Error> {
        self.keys.push(keycode);
        x11.key_event(keycode, true)
    }

    fn holds(&self, keycode: Keycode) -> bool {
        self.keys.contains(&keycode)
    }

    /// Releases everything, attempting each release even after one failed, and reports the
    /// first failure.
    pub(super) fn release_all(mut self, x11: &X11) -> Result<(), X11Error> {
        let mut first = match self.button.take() {
            Some(button) => x11.button_event(button, false),
            None => Ok(()),
        };
        for &keycode in self.keys.iter().rev() {
            let released = x11.key_event(keycode, false);
            first = first.and(released);
        }
        first
    }
}

impl X11 {
    /// Presses each chord in turn: its modifiers, then the key, then releases in reverse order.
    /// Modifiers are released even if a later step fails.
    pub fn press_chords(&self, chords: &[Chord]) -> Result<(), X11Error> {
        let mut input = self.lock_input();
        let keymap = input.keymap(self)?;
        let ahead: Vec<u32> = chords
            .iter()
            .flat_map(|c| c.modifiers.iter().chain([&c.key]).copied())
            .collect();
        let mut remap = Remap::new(self, keymap, 1);
        let mut position = 0;
        let mut result = Ok(());
        for chord in chords {
            result = self.person_took_over();
            if result.is_err() {
                break;
            }
            let mut held = Held::default();
            let pressed = self.press_chord(&mut remap, &mut held, chord, &ahead[position..]);
            position += chord.modifiers.len() + 1;
            let released = held.release_all(self);
            result = pressed.and(released);
            if result.is_err() {
                break;
            }
        }
        result.and(remap.finish())
    }

    fn press_chord(
        &self,
        remap: &mut Remap<'_>,
        held: &mut Held,
        chord: &Chord,
        ahead: &[u32],
    ) -> Result<(), X11Error> {
        self.hold_modifiers(remap, held, &chord.modifiers, ahead)?;
        let key_ahead = &ahead[chord.modifiers.len()..];
        let stroke = remap.stroke(chord.key, key_ahead)?;
        let shift = remap.stroke(key::Shift_L, &[key::Shift_L])?.keycode;
        let extra_shift = (stroke.shift && !held.holds(shift)).then_some(shift);
        self.tap(stroke.keycode, extra_shift)
    }

    /// Types `text` key by key, as if on a keyboard: newlines press Return, capitals and other
    /// shifted symbols press Shift, and characters not on the keyboard map are typed through a
    /// temporarily remapped spare keycode. `\r\n` counts as one newline.
    ///
    /// Returns once the server has every key event. If spare keycodes were used it also waits
    /// until the focused application has read them (a `_NET_WM_PING` round trip; a fixed 100 ms
    /// for applications without it), since the spares are restored afterwards.
    pub fn type_text(&self, text: &str) -> Result<(), TypeError> {
        let keysyms: Vec<u32> = text
            .replace("\r\n", "\n")
            .chars()
            .map(keysym_for_char)
            .collect();
        let total = keysyms.len();
        let mut input = self.lock_input();
        let keymap = input.keymap(self).map_err(|cause| TypeError {
            sent: 0,
            total,
            cause,
        })?;
        let mut remap = Remap::new(self, keymap, 2);
        let mut sent = 0;
        let typed = self.type_keysyms(&mut remap, &keysyms, &mut sent);
        typed
            .and(remap.finish())
            .map_err(|cause| TypeError { sent, total, cause })
    }

    fn type_keysyms(
        &self,
        remap: &mut Remap<'_>,
        keysyms: &[u32],
        sent: &mut usize,
    ) -> Result<(), X11Error> {
        for (i, &keysym) in keysyms.iter().enumerate() {
            self.person_took_over()?;
            let stroke = remap.stroke(keysym, &keysyms[i..])?;
            let shift = if stroke.shift {
                Some(remap.stroke(key::Shift_L, &[key::Shift_L])?.keycode)
            } else {
                None
            };
            self.tap(stroke.keycode, shift)?;
            *sent += 1;
        }
        Ok(())
    }

    /// Presses and releases `keycode`, inside Shift if given, and waits until the server has
    /// processed the events so that later input cannot overtake them.
    fn tap(&self, keycode: Keycode, shift: Option<Keycode>) -> Result<(), X11Error> {
        let key = |code, press| {
            let kind = if press {
                KEY_PRESS_EVENT
            } else {
                KEY_RELEASE_EVENT
            };
            self.fake(kind, code, (0, 0), KEY_OPERATION)
        };
        let mut cookies = Vec::with_capacity(4);
        if let Some(shift) = shift {
            cookies.push(key(shift, true)?);
        }
        cookies.push(key(keycode, true)?);
        cookies.push(key(keycode, false)?);
        if let Some(shift) = shift {
            cookies.push(key(shift, false)?);
        }
        Self::check_all(cookies, KEY_OPERATION)
    }

    fn key_event(&self, keycode: Keycode, press: bool) -> Result<(), X11Error> {
        let kind = if press {
            KEY_PRESS_EVENT
        } else {
            KEY_RELEASE_EVENT
        };
        let cookie = self.fake(kind, keycode, (0, 0), KEY_OPERATION)?;
        Self::check_all([cookie], KEY_OPERATION)
    }

    /// Runs `f` with the `modifiers` keysyms held down, releasing them (and any button `f`
    /// pressed) afterwards even if `f` fails.
    pub(super) fn with_held<T>(
        &self,
        input: &mut InputState,
        modifiers: &[u32],
        f: impl FnOnce(&mut Held) -> Result<T, X11Error>,
    ) -> Result<T, X11Error> {
        if modifiers.is_empty() {
            let mut held = Held::default();
            let result = f(&mut held);
            let released = held.release_all(self);
            return result.and_then(|value| released.map(|()| value));
        }
        let keymap = input.keymap(self)?;
        let mut remap = Remap::new(self, keymap, 1);
        let mut held = Held::default();
        let result = self
            .hold_modifiers(&mut remap, &mut held, modifiers, modifiers)
            .and_then(|()| f(&mut held));
        let released = held.release_all(self);
        let restored = remap.finish();
        result.and_then(|value| released.and(restored).map(|()| value))
    }

    /// Presses `modifiers` and records them in `held`; `ahead` lists the keysyms still to be
    /// pressed in this call, starting with the first modifier.
    fn hold_modifiers(
        &self,
        remap: &mut Remap<'_>,
        held: &mut Held,
        modifiers: &[u32],
        ahead: &[u32],
    ) -> Result<(), X11Error> {
        let shift = remap.stroke(key::Shift_L, &[key::Shift_L])?.keycode;
        for (i, &modifier) in modifiers.iter().enumerate() {
            let stroke = remap.stroke(modifier, &ahead[i..])?;
            if stroke.shift && !held.holds(shift) {
                held.press_key(self, shift)?;
            }
            held.press_key(self, stroke.keycode)?;
        }
        Ok(())
    }
}
