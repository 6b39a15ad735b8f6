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
const DRAG_STEPS: i32 = 10;
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(15);
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

    /// Presses or releases `button` wherever the pointer is.
    pub fn button(&self, button: Button, press: bool) -> Result<(), X11Error> {
        let mut input = self.lock_input();
        if press {
            separate_from_last_click(&input);
        }
        let result = self.button_event(button.number(), press);
        if !press {
            input.last_release = Some(Instant::now());
        }
        result
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

    /// Presses `button` at `from`, moves to `to` in small steps and releases it there, holding
    /// `modifiers` throughout. Button and modifiers are released even if a step fails.
    pub fn drag(
        &self,
        from: (i32, i32),
        to: (i32, i32),
        button: Button,
        modifiers: &[u32],
    ) -> Result<(), X11Error> {
        let mut input = self.lock_input();
        self.motion(from.0, from.1)?;
        sleep(AFTER_MOVE);
        separate_from_last_click(&input);
        let result = self.with_held(&mut input, modifiers, |held| {
            held.press_button(self, button.number())?;
            sleep(DRAG_START_PAUSE);
            for step in 1..=DRAG_STEPS {
                let x = from.0 + (to.0 - from.0) * step / DRAG_STEPS;
                let y = from.1 + (to.1 - from.1) * step / DRAG_STEPS;
                self.motion(x, y)?;
                sleep(DRAG_STEP_PAUSE);
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
