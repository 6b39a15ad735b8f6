//! Synthetic pointer input through XTEST.

use std::thread::sleep;
use std::time::{Duration, Instant};

use x11rb::protocol::xproto::{
    BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, ConnectionExt as _, MOTION_NOTIFY_EVENT,
    QueryPointerReply,
};

use super::keyboard::{Held, InputState};
use super::{During as _, X11, X11Error};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Button {
    Left,
    Middle,
    Right,
}

impl Button {
    fn number(self) -> u8 {
        match self {
            Button::Left => 1,
            Button::Middle => 2,
            Button::Right => 3,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

impl ScrollDirection {
    /// X reports wheel steps as presses of buttons 4–7.
    fn button(self) -> u8 {
        match self {
            ScrollDirection::Up => 4,
            ScrollDirection::Down => 5,
            ScrollDirection::Left => 6,
            ScrollDirection::Right => 7,
        }
    }
}

/// Lets the client see the pointer arrive (enter/motion) before the press.
const AFTER_MOVE: Duration = Duration::from_millis(15);
/// Between the press and release of one click.
const HOLD: Duration = Duration::from_millis(10);
/// Between clicks of a multi-click: far below the 400 ms GTK double-click time.
const BETWEEN_CLICKS: Duration = Duration::from_millis(40);
const BETWEEN_SCROLL_STEPS: Duration = Duration::from_millis(10);
/// A drag moves at least this many times: toolkits need a few motion events to start a drag
/// and to find the drop target.
const DRAG_STEPS: f64 = 10.0;
/// The longest single move of a drag, in pixels, so that the pointer slides rather than jumps.
const MAX_DRAG_STEP: f64 = 10.0;
/// How long a drag's moves take when the caller does not say.
const DRAG_MOTION: Duration = Duration::from_millis(150);
/// Toolkits start a drag only after the button has been down for a moment.
const DRAG_START_PAUSE: Duration = Duration::from_millis(50);
/// Apps count a press as the next click of a multi-click when it follows the previous release
/// within their double-click time (400 ms in GTK and Qt, 500 ms in Chromium). GTK3 even loses a
/// double-click that follows a click elsewhere within that time. So that separate calls never
/// merge into one multi-click, a new press waits until this long after the last release.
const CLICK_SEPARATION: Duration = Duration::from_millis(550);
/// How long a button event may sit in the server's queue before the pointer counts as frozen.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);

fn separate_from_last_click(input: &InputState) {
    if let Some(since) = input.last_release.map(|t| t.elapsed()) {
        sleep(CLICK_SEPARATION.saturating_sub(since));
    }
}

/// The points a drag moves through after `from`: each point of `path`, with steps between them
/// at most `MAX_DRAG_STEP` pixels apart, and at least `DRAG_STEPS` of them over the whole path.
fn drag_steps(from: (i32, i32), path: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let segments: Vec<((i32, i32), (i32, i32))> = std::iter::once(from)
        .chain(path.iter().copied())
        .zip(path.iter().copied())
        .collect();
    let length = |(a, b): ((i32, i32), (i32, i32))| {
        (f64::from(b.0) - f64::from(a.0)).hypot(f64::from(b.1) - f64::from(a.1))
    };
    let total: f64 = segments.iter().copied().map(length).sum();
    let spacing = (total / DRAG_STEPS).clamp(1.0, MAX_DRAG_STEP);
    let mut steps = Vec::new();
    for segment @ (a, b) in segments {
        let count = (length(segment) / spacing).ceil() as i64;
        for k in 1..=count {
            let along = |from: i32, to: i32| {
                (i64::from(from) + (i64::from(to) - i64::from(from)) * k / count) as i32
            };
            steps.push((along(a.0, b.0), along(a.1, b.1)));
        }
    }
    steps
}

fn to_i16(v: i32) -> i16 {
    // The server confines the pointer to the screen anyway; only the wire type needs clamping.
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

impl X11 {
    /// The pointer position in root coordinates.
    pub fn pointer(&self) -> Result<(i32, i32), X11Error> {
        let reply = self.query_pointer()?;
        Ok((i32::from(reply.root_x), i32::from(reply.root_y)))
    }

    pub fn move_pointer(&self, x: i32, y: i32) -> Result<(), X11Error> {
        let _input = self.lock_input();
        self.motion(x, y)
    }

    /// Presses or releases `button` wherever the pointer is. A press first holds down
    /// `modifiers` (keysyms) and leaves them down; the release lets go of them after the button.
    /// A press that fails releases whatever it pressed.
    pub fn button(&self, button: Button, press: bool, modifiers: &[u32]) -> Result<(), X11Error> {
        let mut input = self.lock_input();
        if !press {
            return self.release_gesture(&mut input, button, modifiers);
        }
        separate_from_last_click(&input);
        let keys = input.modifier_keys(self, modifiers)?;
        let mut held = Held::default();
        let pressed = keys
            .iter()
            .try_for_each(|&key| held.press_key(self, key))
            .and_then(|()| held.press_button(self, button.number()));
        if let Err(err) = pressed {
            // Already failing: the press's error says more than a failed release would.
            let _ = held.release_all(self);
            input.last_release = Some(Instant::now());
            return Err(err);
        }
        for key in held.keys {
            if !input.gesture_keys.contains(&key) {
                input.gesture_keys.push(key);
            }
        }
        input.gesture_button = Some(button.number());
        Ok(())
    }

    /// Releases what a press (`down`) left held, the button and its keys, so that a person
    /// who takes over gets a mouse and keyboard that are their own. Best effort: a release
    /// that fails leaves nothing more to try.
    pub fn let_go(&self) {
        let mut input = self.lock_input();
        let held = Held {
            keys: std::mem::take(&mut input.gesture_keys),
            button: input.gesture_button.take(),
        };
        if held.button.is_some() || !held.keys.is_empty() {
            let _ = held.release_all(self);
            input.last_release = Some(Instant::now());
        }
    }

    /// Releases `button`, then the keys a press in this process left down and those that
    /// `modifiers` name: a press in another process (the CLI runs one per call) holds them too,
    /// and releasing a key that is up does nothing.
    fn release_gesture(
        &self,
        input: &mut InputState,
        button: Button,
        modifiers: &[u32],
    ) -> Result<(), X11Error> {
        input.gesture_button = None;
        let mut held = Held {
            keys: std::mem::take(&mut input.gesture_keys),
            button: Some(button.number()),
        };
        let mut looked_up = Ok(());
        for &modifier in modifiers {
            match input.modifier_keys(self, &[modifier]) {
                Ok(keys) => {
                    for key in keys {
                        if !held.keys.contains(&key) {
                            held.keys.push(key);
                        }
                    }
                }
                // Such a modifier cannot have been pressed by `button` either.
                Err(X11Error::ModifierNotOnKeyboard { .. }) => {}
                Err(err) => looked_up = looked_up.and(Err(err)),
            }
        }
        let released = held.release_all(self);
        input.last_release = Some(Instant::now());
        released.and(looked_up)
    }

    /// Moves to (`x`, `y`) and clicks `count` times (2 = double-click) while holding
    /// `modifiers` (keysyms). The modifiers are released even if clicking fails.
    pub fn click(
        &self,
        x: i32,
        y: i32,
        button: Button,
        count: u32,
        modifiers: &[u32],
    ) -> Result<(), X11Error> {
        let mut input = self.lock_input();
        self.motion(x, y)?;
        sleep(AFTER_MOVE);
        separate_from_last_click(&input);
        let result = self.with_held(&mut input, modifiers, |held| {
            for i in 0..count {
                if i > 0 {
                    sleep(BETWEEN_CLICKS);
                }
                held.press_button(self, button.number())?;
                sleep(HOLD);
                held.release_button(self)?;
            }
            Ok(())
        });
        input.last_release = Some(Instant::now());
        result
    }

    /// `clicks` wheel steps at the current pointer position.
    pub fn scroll(&self, direction: ScrollDirection, clicks: u32) -> Result<(), X11Error> {
        let _input = self.lock_input();
        for i in 0..clicks {
            if i > 0 {
                sleep(BETWEEN_SCROLL_STEPS);
            }
            self.button_event(direction.button(), true)?;
            self.button_event(direction.button(), false)?;
        }
        Ok(())
    }

    /// Presses `button` at `from`, moves through every point of `path` in small steps spread
    /// over `duration` (150 ms when zero) and releases it at the last point (at `from` when
    /// `path` is empty), holding `modifiers` throughout. Button and modifiers are released even
    /// if a step fails.
    pub fn drag(
        &self,
        from: (i32, i32),
        path: &[(i32, i32)],
        button: Button,
        modifiers: &[u32],
        duration: Duration,
    ) -> Result<(), X11Error> {
        let steps = drag_steps(from, path);
        let motion = if duration.is_zero() {
            DRAG_MOTION
        } else {
            duration
        };
        let mut input = self.lock_input();
        self.motion(from.0, from.1)?;
        sleep(AFTER_MOVE);
        separate_from_last_click(&input);
        let result = self.with_held(&mut input, modifiers, |held| {
            held.press_button(self, button.number())?;
            sleep(DRAG_START_PAUSE);
            let start = Instant::now();
            let count = steps.len() as f64;
            for (i, &(x, y)) in steps.iter().enumerate() {
                self.person_took_over()?;
                self.motion(x, y)?;
                // Each move waits for the server; pacing by the clock keeps those waits inside
                // `duration`. The pause after the last move lets the target see the pointer
                // arrive before the release.
                let due = start + motion.mul_f64((i + 1) as f64 / count);
                sleep(due.saturating_duration_since(Instant::now()));
            }
            held.release_button(self)
        });
        input.last_release = Some(Instant::now());
        result
    }

    pub(super) fn motion(&self, x: i32, y: i32) -> Result<(), X11Error> {
        const OPERATION: &str = "moving the pointer";
        let cookie = self.fake(MOTION_NOTIFY_EVENT, 0, (to_i16(x), to_i16(y)), OPERATION)?;
        Self::check_all([cookie], OPERATION)
    }

    /// Sends a button event and waits until the server has processed it, not merely queued it.
    ///
    /// A window manager's passive grab (openbox's click-to-focus) freezes the pointer until the
    /// manager replays the click, while key events pass freely: without this wait, text typed
    /// right after a click can reach the client before the click does. A press changes the
    /// button state before the freeze takes hold, so it is the wait for the release that covers
    /// the window manager's part.
    pub(super) fn button_event(&self, button: u8, press: bool) -> Result<(), X11Error> {
        const OPERATION: &str = "pressing a mouse button";
        let kind = if press {
            BUTTON_PRESS_EVENT
        } else {
            BUTTON_RELEASE_EVENT
        };
        let cookie = self.fake(kind, button, (0, 0), OPERATION)?;
        Self::check_all([cookie], OPERATION)?;
        // The core protocol has state bits for buttons 1-5 only.
        if !(1..=5).contains(&button) {
            return Ok(());
        }
        let bit = 1u16 << (7 + button);
        let deadline = Instant::now() + DELIVERY_TIMEOUT;
        loop {
            let mask = u16::from(self.query_pointer()?.mask);
            if (mask & bit != 0) == press {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(X11Error::PointerFrozen {
                    button,
                    press,
                    waited: DELIVERY_TIMEOUT,
                });
            }
            sleep(Duration::from_millis(1));
        }
    }

    fn query_pointer(&self) -> Result<QueryPointerReply, X11Error> {
        const OPERATION: &str = "reading the pointer state";
        self.conn
            .query_pointer(self.root)
            .during(OPERATION)?
            .reply()
            .during(OPERATION)
    }
}

impl Held {
    fn press_button(&mut self, x11: &X11, button: u8) -> Result<(), X11Error> {
        self.button = Some(button);
        x11.button_event(button, true)
    }

    fn release_button(&mut self, x11: &X11) -> Result<(), X11Error> {
        match self.button.take() {
            Some(button) => x11.button_event(button, false),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(a: (i32, i32), b: (i32, i32)) -> f64 {
        f64::from(b.0 - a.0).hypot(f64::from(b.1 - a.1))
    }

    #[test]
    fn a_long_drag_moves_in_steps_of_at_most_ten_pixels_through_every_point() {
        let path = [(500, 100), (500, 400), (137, 401)];
        let steps = drag_steps((100, 100), &path);
        assert_eq!(steps.last(), Some(&(137, 401)));
        for point in path {
            assert!(steps.contains(&point), "{point:?} missing from {steps:?}");
        }
        let mut previous = (100, 100);
        for &step in &steps {
            // Rounding to whole pixels may add up to one pixel on each axis.
            assert!(
                gap(previous, step) <= MAX_DRAG_STEP + 2.0,
                "{previous:?} -> {step:?}"
            );
            previous = step;
        }
        // 400 + 300 + 363 px in steps of 10 px.
        assert!((106..=110).contains(&steps.len()), "{}", steps.len());
    }

    #[test]
    fn a_short_drag_still_moves_ten_times() {
        let steps = drag_steps((10, 10), &[(40, 10)]);
        assert_eq!(steps.len(), 10);
        assert_eq!(steps[0], (13, 10));
        assert_eq!(steps.last(), Some(&(40, 10)));
        let steps = drag_steps((10, 10), &[(13, 14)]);
        assert_eq!(steps.len(), 5);
        assert_eq!(steps.last(), Some(&(13, 14)));
    }

    #[test]
    fn a_drag_that_goes_nowhere_has_no_moves() {
        assert!(drag_steps((10, 10), &[]).is_empty());
        assert!(drag_steps((10, 10), &[(10, 10), (10, 10)]).is_empty());
        // A point it is already at adds nothing, and the way back is walked in full.
        let steps = drag_steps((0, 0), &[(0, 0), (100, 0), (0, 0)]);
        assert_eq!(steps.len(), 20);
        assert_eq!(steps[9], (100, 0));
        assert_eq!(steps.last(), Some(&(0, 0)));
    }
}
