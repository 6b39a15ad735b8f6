//! Synthetic input with `SendInput`: chords as virtual keys with their scan codes, text as
//! UTF-16 units (`KEYEVENTF_UNICODE`), pointer buttons and the wheel; the pointer itself is
//! placed with `SetCursorPos`, which lands on the exact pixel where SendInput's absolute moves
//! round through a 0–65535 scale.

use std::time::{Duration, Instant};

use deskhand_core::backend::{InputOutcome, Partial};
use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::keys::Keys;
use deskhand_core::model::{Modifier, MouseButton, Point, ScrollDirection};
use windows::Win32::Foundation::{HWND, POINT};
use windows::Win32::UI::Input::KeyboardAndMouse::{
    GetAsyncKeyState, GetKeyboardLayout, HKL, INPUT, INPUT_0, INPUT_KEYBOARD, INPUT_MOUSE,
    KEYBD_EVENT_FLAGS, KEYBDINPUT, KEYEVENTF_EXTENDEDKEY, KEYEVENTF_KEYUP, KEYEVENTF_UNICODE,
    MAPVK_VK_TO_VSC, MOUSE_EVENT_FLAGS, MOUSEEVENTF_HWHEEL, MOUSEEVENTF_LEFTDOWN,
    MOUSEEVENTF_LEFTUP, MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP, MOUSEEVENTF_RIGHTDOWN,
    MOUSEEVENTF_RIGHTUP, MOUSEEVENTF_WHEEL, MOUSEINPUT, MapVirtualKeyExW, SendInput, VIRTUAL_KEY,
    VkKeyScanExW,
};
use windows::Win32::UI::WindowsAndMessaging::{
    GA_ROOT, GetAncestor, GetCursorPos, GetForegroundWindow, GetWindowThreadProcessId,
    SetCursorPos, WindowFromPoint,
};

use super::integrity;
use crate::keymap::{self, LayoutKey, Stroke};
use crate::uipi::{self, Verdict};

/// One notch of the wheel, as Windows counts it.
const WHEEL_DELTA: i32 = 120;

fn key_input(stroke: Stroke) -> INPUT {
    let (vk, scan, flags) = match stroke {
        Stroke::Key { code, up } => {
            let scan = if code.scan == 0 {
                // SAFETY: a pure lookup in the keyboard layout.
                unsafe {
                    MapVirtualKeyExW(code.vk as u32, MAPVK_VK_TO_VSC, Some(foreground_layout()))
                        as u16
                }
            } else {
                code.scan
            };
            let mut flags = KEYBD_EVENT_FLAGS(0);
            if code.extended {
                flags |= KEYEVENTF_EXTENDEDKEY;
            }
            if up {
                flags |= KEYEVENTF_KEYUP;
            }
            (code.vk, scan, flags)
        }
        Stroke::Unicode { unit, up } => (
            0,
            unit,
            if up {
                KEYEVENTF_UNICODE | KEYEVENTF_KEYUP
            } else {
                KEYEVENTF_UNICODE
            },
        ),
    };
    INPUT {
        r#type: INPUT_KEYBOARD,
        Anonymous: INPUT_0 {
            ki: KEYBDINPUT {
                wVk: VIRTUAL_KEY(vk),
                wScan: scan,
                dwFlags: flags,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

fn mouse_input(flags: MOUSE_EVENT_FLAGS, data: i32) -> INPUT {
    INPUT {
        r#type: INPUT_MOUSE,
        Anonymous: INPUT_0 {
            mi: MOUSEINPUT {
                dx: 0,
                dy: 0,
                mouseData: data as u32,
                dwFlags: flags,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    }
}

/// Sends the inputs and answers how many Windows took: fewer than all when another desktop, a
/// secure screen, or a window of higher integrity has the input.
fn send(inputs: &[INPUT]) -> usize {
    // SAFETY: `inputs` are fully initialized INPUT structures of the size passed.
    unsafe { SendInput(inputs, size_of::<INPUT>() as i32) as usize }
}

/// Windows refused the `what`. `sent_before`: events of the same request went in before the
/// refusal, so the app may have acted on them and it is applied but unconfirmed, not failed.
fn refused(what: &str, sent_before: bool) -> Error {
    let blocked = "input to the window in front is blocked (a window of an elevated app, the \
                   lock screen or a UAC prompt has it); bring another window to the front, or \
                   run deskhand as administrator to drive elevated apps";
    if sent_before {
        Error::new(
            ErrorKind::Platform,
            format!(
                "Windows took only part of the {what}, so some of it may have reached the app: \
                 {blocked}"
            ),
        )
        .after_sending()
    } else {
        Error::new(
            ErrorKind::Platform,
            format!("Windows did not take the {what}: {blocked}"),
        )
    }
}

/// Sends one request's inputs; a refusal after any of them went in is applied but unconfirmed.
fn send_all(inputs: &[INPUT], what: &str, sent_before: bool) -> Result<()> {
    match send(inputs) {
        taken if taken == inputs.len() => Ok(()),
        taken => Err(refused(what, sent_before || taken > 0)),
    }
}

/// Presses and releases [`keymap::NUDGE`], a key nothing binds: see there.
pub fn nudge() {
    let strokes = [false, true].map(|up| {
        key_input(Stroke::Key {
            code: keymap::NUDGE,
            up,
        })
    });
    send(&strokes);
}

/// The keyboard layout of the foreground window's thread, where keys land. Each thread has its
/// own layout, and deskhand's worker thread keeps the one it started with: with several
/// layouts installed, punctuation typed by the worker's would go to the wrong key.
fn foreground_layout() -> HKL {
    // SAFETY: plain queries; a null window gives thread 0, whose layout is the caller's.
    unsafe { GetKeyboardLayout(GetWindowThreadProcessId(GetForegroundWindow(), None)) }
}

/// Where the foreground window's keyboard layout has the character, as `VkKeyScanExW` says.
fn layout_key(character: char) -> Option<LayoutKey> {
    let mut unit = [0u16; 2];
    if character.encode_utf16(&mut unit).len() != 1 {
        return None;
    }
    // SAFETY: a pure lookup in the keyboard layout.
    LayoutKey::from_scan(unsafe { VkKeyScanExW(unit[0], foreground_layout()) })
}

fn verdict_for(window: HWND) -> Verdict {
    let title = super::window::title_of(window);
    uipi::verdict(integrity::own(), integrity::of_window(window), &title)
}

/// The UIPI check for input bound for `window` (see `crate::uipi`): `Err` refuses it before
/// anything is sent, `Ok(Some(reason))` sends it as unconfirmed.
fn guard(window: HWND) -> Result<Option<String>> {
    obey(verdict_for(window))
}

fn obey(verdict: Verdict) -> Result<Option<String>> {
    match verdict {
        Verdict::Send => Ok(None),
        Verdict::Unconfirmed(reason) => Ok(Some(reason)),
        Verdict::Refuse(error) => Err(error),
    }
}

/// Keys go to the foreground window.
fn keys_guard() -> Result<Option<String>> {
    // SAFETY: no arguments.
    guard(unsafe { GetForegroundWindow() })
}

/// The top-level window under the pointer.
fn window_under_pointer() -> Result<HWND> {
    let at = pointer()?;
    // SAFETY: plain queries; a point over no window gives a null handle, which `guard` takes.
    Ok(unsafe { GetAncestor(WindowFromPoint(POINT { x: at.x, y: at.y }), GA_ROOT) })
}

/// A button goes to the top-level window under the pointer.
fn pointer_guard() -> Result<Option<String>> {
    guard(window_under_pointer()?)
}

/// The wheel goes to the window under the pointer, or to the focused one where Windows'
/// "scroll inactive windows" is off: both are checked.
fn wheel_guard() -> Result<Option<String>> {
    let under = window_under_pointer()?;
    // SAFETY: no arguments.
    let focused = unsafe { GetForegroundWindow() };
    let mut verdicts = vec![verdict_for(under)];
    if focused != under {
        verdicts.push(verdict_for(focused));
    }
    obey(uipi::strictest(verdicts))
}

/// Input sent though it may have been dropped: done as far as Windows says, unconfirmed.
fn sent_unconfirmed(total: usize, unit: &'static str, reason: String) -> InputOutcome {
    InputOutcome::Partial(Partial {
        sent: total,
        total,
        unit,
        reason,
    })
}

pub fn press_keys(keys: &Keys) -> Result<InputOutcome> {
    let unconfirmed = keys_guard()?;
    let chords = keys.chords();
    let strokes = chords
        .iter()
        .map(|chord| keymap::chord_strokes(chord, layout_key))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| Error::bad_argument(err.to_string()))?;
    for (sent, chord_strokes) in strokes.iter().enumerate() {
        let inputs: Vec<INPUT> = chord_strokes.iter().copied().map(key_input).collect();
        if send(&inputs) != inputs.len() {
            return Ok(partial(sent, chords.len(), "key chords"));
        }
    }
    Ok(match unconfirmed {
        Some(reason) => sent_unconfirmed(chords.len(), "key chords", reason),
        None => InputOutcome::Done,
    })
}

pub fn type_text(text: &str) -> Result<InputOutcome> {
    let unconfirmed = keys_guard()?;
    let typed = keymap::typing_strokes(text);
    let total = typed.len();
    for (sent, strokes) in typed.into_iter().enumerate() {
        let inputs: Vec<INPUT> = strokes.into_iter().map(key_input).collect();
        if send(&inputs) != inputs.len() {
            return Ok(partial(sent, total, "characters"));
        }
    }
    Ok(match unconfirmed {
        Some(reason) => sent_unconfirmed(total, "characters", reason),
        None => InputOutcome::Done,
    })
}

fn partial(sent: usize, total: usize, unit: &'static str) -> InputOutcome {
    InputOutcome::Partial(Partial {
        sent,
        total,
        unit,
        reason: "Windows stopped taking the input (a window of an elevated app, the lock \
                 screen or a UAC prompt came to the front)"
            .into(),
    })
}

pub fn pointer() -> Result<Point> {
    let mut at = POINT::default();
    // SAFETY: writes into the local.
    unsafe { GetCursorPos(&mut at) }.map_err(|err| {
        super::failed(
            "Reading where the pointer is",
            &err,
            "the desktop may be locked; try again",
        )
    })?;
    Ok(Point { x: at.x, y: at.y })
}

pub fn move_pointer(to: Point) -> Result<()> {
    // SAFETY: no pointers involved.
    unsafe { SetCursorPos(to.x, to.y) }.map_err(|err| {
        super::failed(
            &format!("Moving the pointer to {},{}", to.x, to.y),
            &err,
            "the desktop may be locked; try again",
        )
    })
}

fn modifier_strokes(modifiers: &[Modifier], up: bool) -> Vec<INPUT> {
    let strokes = modifiers.iter().map(|m| Stroke::Key {
        code: keymap::modifier_key((*m).into()),
        up,
    });
    if up {
        strokes.rev().map(key_input).collect()
    } else {
        strokes.map(key_input).collect()
    }
}

pub fn button(button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
    let flags = match (button, down) {
        (MouseButton::Left, true) => MOUSEEVENTF_LEFTDOWN,
        (MouseButton::Left, false) => MOUSEEVENTF_LEFTUP,
        (MouseButton::Middle, true) => MOUSEEVENTF_MIDDLEDOWN,
        (MouseButton::Middle, false) => MOUSEEVENTF_MIDDLEUP,
        (MouseButton::Right, true) => MOUSEEVENTF_RIGHTDOWN,
        (MouseButton::Right, false) => MOUSEEVENTF_RIGHTUP,
    };
    // A press is checked; its release follows it wherever the pointer went.
    if down && let Some(reason) = pointer_guard()? {
        press(flags, modifiers)?;
        return Err(Error::platform(reason).after_sending());
    }
    if down {
        return press(flags, modifiers);
    }
    let mut inputs = vec![mouse_input(flags, 0)];
    inputs.extend(modifier_strokes(modifiers, true));
    send_all(&inputs, "mouse button", false)
}

/// A button press, with `modifiers` held down for it.
fn press(flags: MOUSE_EVENT_FLAGS, modifiers: &[Modifier]) -> Result<()> {
    if modifiers.is_empty() {
        return send_all(&[mouse_input(flags, 0)], "mouse button", false);
    }
    if let Err(err) = hold(modifiers) {
        // Whatever went down is let go again, so no key stays held for the next input.
        send(&modifier_strokes(modifiers, true));
        return Err(err);
    }
    send_all(&[mouse_input(flags, 0)], "mouse button", true).inspect_err(|_| {
        send(&modifier_strokes(modifiers, true));
    })
}

/// How long modifiers must stay down before a button goes with them. Under Wine, a window the
/// pointer was just moved over reads the keyboard again from X when it next wakes (the move's
/// EnterNotify brings a KeymapNotify), and since X knows nothing of keys sent here, it lets them
/// go, so a button sent then reaches the app without them (seen in about one ctrl+click in
/// three). The modifiers' own key messages wake it, and it is done well within this.
const HOLD_SETTLE: Duration = Duration::from_millis(25);

/// Presses `modifiers` until the system keeps them down for `HOLD_SETTLE`, pressing those let
/// go again (a few times at most). Fails, without any button sent, if they never stay down.
fn hold(modifiers: &[Modifier]) -> Result<()> {
    const TRIES: usize = 3;
    let let_go =
        || -> Vec<Modifier> { modifiers.iter().copied().filter(|m| !is_held(*m)).collect() };
    let mut pressing = modifiers.to_vec();
    for _ in 0..TRIES {
        send_all(&modifier_strokes(&pressing, false), "modifier keys", false)?;
        let deadline = Instant::now() + Duration::from_millis(100);
        while !let_go().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(HOLD_SETTLE);
        // A let-go takes every modifier, those that stayed down the round before too.
        pressing = let_go();
        if pressing.is_empty() {
            return Ok(());
        }
    }
    Err(Error::new(
        ErrorKind::Platform,
        format!(
            "the modifier keys did not stay down (let go again after each of {TRIES} presses), \
             so the button was not pressed and nothing was clicked; another program may be \
             resetting the keyboard's state; try again"
        ),
    ))
}

fn is_held(modifier: Modifier) -> bool {
    let vk = keymap::modifier_key(modifier.into()).vk;
    // SAFETY: a read of the system's key state.
    (unsafe { GetAsyncKeyState(vk as i32) } as u16) & 0x8000 != 0
}

pub fn scroll(at: Option<Point>, direction: ScrollDirection, amount: u32) -> Result<()> {
    if let Some(at) = at {
        move_pointer(at)?;
    }
    let notches = i32::try_from(amount).unwrap_or(i32::MAX / WHEEL_DELTA);
    let (flags, notch) = match direction {
        ScrollDirection::Up => (MOUSEEVENTF_WHEEL, WHEEL_DELTA),
        ScrollDirection::Down => (MOUSEEVENTF_WHEEL, -WHEEL_DELTA),
        ScrollDirection::Right => (MOUSEEVENTF_HWHEEL, WHEEL_DELTA),
        ScrollDirection::Left => (MOUSEEVENTF_HWHEEL, -WHEEL_DELTA),
    };
    let unconfirmed = wheel_guard()?;
    // One event per notch: an app that reads only whole deltas of 120 still scrolls each.
    let inputs: Vec<INPUT> = (0..notches).map(|_| mouse_input(flags, notch)).collect();
    send_all(&inputs, "scroll", false)?;
    match unconfirmed {
        Some(reason) => Err(Error::platform(reason).after_sending()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs under Wine in scripts/wine-test, with Wine's US layout.
    #[test]
    fn the_layout_names_the_key_and_shift_of_a_character_and_none_for_one_it_lacks() {
        let capital = layout_key('A').expect("A is on the layout");
        assert_eq!((capital.code.vk, capital.shift), (0x41, true));
        let plus = layout_key('+').expect("+ is on the layout");
        assert!(plus.shift, "{plus:?}");
        assert_eq!(layout_key('世'), None);
        assert_eq!(layout_key('😀'), None, "a surrogate pair is no key");
        // The foreground window's layout, asked for by its thread.
        // SAFETY: plain queries.
        let foreground =
            unsafe { GetKeyboardLayout(GetWindowThreadProcessId(GetForegroundWindow(), None)) };
        assert_eq!(foreground_layout(), foreground);
        assert!(!foreground.is_invalid());
    }

    #[test]
    fn a_refusal_before_anything_went_in_failed_and_one_after_is_unconfirmed() {
        let nothing = refused("scroll", false);
        assert_eq!(nothing.kind, ErrorKind::Platform);
        assert!(
            !nothing.sent
                && nothing
                    .message
                    .starts_with("Windows did not take the scroll")
        );
        let part = refused("mouse button", true);
        assert!(
            part.sent,
            "the modifiers sent before it may have reached the app"
        );
        assert!(part.message.contains("some of it may have reached the app"));
        // An empty request is all taken: nothing to refuse.
        assert!(send_all(&[], "scroll", false).is_ok());
    }
}
