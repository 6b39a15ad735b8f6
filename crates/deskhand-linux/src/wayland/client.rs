//! The Wayland client side on a wlroots compositor: a virtual pointer and keyboard
//! (`zwlr_virtual_pointer_v1`, `zwp_virtual_keyboard_v1`) and screen capture
//! (`zwlr_screencopy_v1`).
//!
//! Blocking, on one connection; the backend runs every call on the blocking pool under a
//! deadline.

use std::fs::File;
use std::os::fd::{AsFd, FromRawFd};
use std::os::unix::fs::FileExt;
use std::time::Duration;

use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_buffer::WlBuffer;
use wayland_client::protocol::wl_output::WlOutput;
use wayland_client::protocol::wl_pointer::{Axis, ButtonState};
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_seat::WlSeat;
use wayland_client::protocol::wl_shm::{self, WlShm};
use wayland_client::protocol::wl_shm_pool::WlShmPool;
use wayland_client::{
    Connection, Dispatch, EventQueue, QueueHandle, WEnum, delegate_dispatch, delegate_noop,
};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1;
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1;
use wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_frame_v1::{
    self, ZwlrScreencopyFrameV1,
};
use wayland_protocols_wlr::screencopy::v1::client::zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1;
use wayland_protocols_wlr::virtual_pointer::v1::client::zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1;
use wayland_protocols_wlr::virtual_pointer::v1::client::zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1;

use super::WaylandError;
use super::keymap::{self, Keymap};
use super::registry::{Globals, KeepsOutputs, Outputs, bind, connect_with_globals};

/// Linux's evdev button codes.
pub const BTN_LEFT: u32 = 0x110;
pub const BTN_RIGHT: u32 = 0x111;
pub const BTN_MIDDLE: u32 = 0x112;

/// A client reads a new keymap some time after it arrives; a key sent sooner is read with the
/// old one, or lost (measured on sway 1.7 with GTK).
const KEYMAP_SETTLE: Duration = Duration::from_millis(60);
/// sway configures a new input device after announcing it; events sent sooner are lost.
const DEVICE_SETTLE: Duration = Duration::from_millis(60);
/// Key strokes between two round trips: the compositor keeps up, and a failure is found close
/// to where it happened.
const STROKES_PER_ROUNDTRIP: usize = 32;
/// The Shift_L keysym and the real-modifier bit Shift sets.
const SHIFT_L: u32 = 0xffe1;
const SHIFT_MASK: u32 = 1;
/// XKB_KEYMAP_FORMAT_TEXT_V1.
const KEYMAP_FORMAT_XKB_V1: u32 = 1;

#[derive(Default)]
struct Frame {
    /// format, width, height, stride of the shared-memory buffer the compositor wants.
    buffer: Option<(WEnum<wl_shm::Format>, u32, u32, u32)>,
    y_invert: bool,
    ready: bool,
    failed: bool,
}

#[derive(Default)]
struct State {
    outputs: Outputs,
    frame: Frame,
}

impl KeepsOutputs for State {
    fn outputs(&mut self) -> &mut Outputs {
        &mut self.outputs
    }
}

delegate_dispatch!(State: [WlRegistry: GlobalListContents] => Globals);
delegate_dispatch!(State: [WlOutput: ()] => Globals);

/// An image in RGB, 3 bytes a pixel, rows top to bottom.
pub struct Pixels {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

/// One connection to the compositor, with the virtual devices made on first use.
pub struct Client {
    connection: Connection,
    queue: EventQueue<State>,
    state: State,
    seat: WlSeat,
    shm: WlShm,
    pointer_manager: Option<ZwlrVirtualPointerManagerV1>,
    keyboard_manager: Option<ZwpVirtualKeyboardManagerV1>,
    screencopy: Option<ZwlrScreencopyManagerV1>,
    pointer: Option<ZwlrVirtualPointerV1>,
    keyboard: Option<(ZwpVirtualKeyboardV1, Keymap)>,
    /// The modifier keys held down now, by evdev code.
    held: Vec<u32>,
    /// The pointer buttons held down now, by evdev code.
    buttons: Vec<u32>,
}

impl Client {
    /// Connects to the compositor named by `$WAYLAND_DISPLAY`.
    pub fn connect() -> Result<Self, WaylandError> {
        let (connection, globals, mut queue) = connect_with_globals::<State>()?;
        let handle = queue.handle();
        let seat: WlSeat = bind(&globals, &handle, 1..=7, "wl_seat")?;
        let shm: WlShm = bind(&globals, &handle, 1..=1, "wl_shm")?;
        let outputs = Outputs::bind(&globals, &handle);
        let pointer_manager = globals.bind(&handle, 1..=2, ()).ok();
        let keyboard_manager = globals.bind(&handle, 1..=1, ()).ok();
        let screencopy = globals.bind(&handle, 1..=3, ()).ok();
        let mut state = State {
            outputs,
            ..State::default()
        };
        queue
            .roundtrip(&mut state)
            .map_err(|err| WaylandError::Connect(err.to_string()))?;
        Ok(Self {
            connection,
            queue,
            state,
            seat,
            shm,
            pointer_manager,
            keyboard_manager,
            screencopy,
            pointer: None,
            keyboard: None,
            held: Vec::new(),
            buttons: Vec::new(),
        })
    }

    /// Keeps a virtual keyboard and pointer on the seat for as long as the thread lives: a
    /// headless compositor has no input devices of its own, and without a keyboard on the seat
    /// no window holds the keyboard focus between two deskhand calls.
    pub fn hold_devices(mut self) -> Result<std::convert::Infallible, WaylandError> {
        self.keyboard_holding(&[])?;
        self.pointer()?;
        loop {
            self.queue
                .blocking_dispatch(&mut self.state)
                .map_err(|err| WaylandError::Lost {
                    operation: "holding the input devices",
                    cause: err.to_string(),
                })?;
        }
    }

    /// Input event time in milliseconds of the monotonic clock, as real devices stamp them:
    /// times from a clock of this process alone would run backwards from one call to the next.
    fn now(&self) -> u32 {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec into the valid pointer it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
        (now.tv_sec as u64 * 1000 + now.tv_nsec as u64 / 1_000_000) as u32
    }

    fn roundtrip(&mut self, operation: &'static str) -> Result<(), WaylandError> {
        self.queue
            .roundtrip(&mut self.state)
            .map(|_| ())
            .map_err(|err| WaylandError::Lost {
                operation,
                cause: err.to_string(),
            })
    }

    /// Sends the input requested so far and waits until the compositor has it; noted on both
    /// sides for the watch of a person's input, which hears of input without its sender.
    fn send_input(&mut self, operation: &'static str) -> Result<(), WaylandError> {
        crate::person::sending_now();
        let sent = self.roundtrip(operation);
        crate::person::sending_now();
        sent
    }

    fn pointer(&mut self) -> Result<ZwlrVirtualPointerV1, WaylandError> {
        if let Some(pointer) = &self.pointer {
            return Ok(pointer.clone());
        }
        let manager = self
            .pointer_manager
            .as_ref()
            .ok_or(WaylandError::Missing("zwlr_virtual_pointer_manager_v1"))?;
        let pointer = manager.create_virtual_pointer(Some(&self.seat), &self.queue.handle(), ());
        self.pointer = Some(pointer.clone());
        self.roundtrip("adding a virtual pointer")?;
        std::thread::sleep(DEVICE_SETTLE);
        Ok(pointer)
    }

    /// Moves the pointer to `(x, y)` of the layout whose bounding box is `layout`.
    pub fn move_pointer(
        &mut self,
        (x, y): (i32, i32),
        layout: (i32, i32, u32, u32),
    ) -> Result<(), WaylandError> {
        let (left, top, width, height) = layout;
        let pointer = self.pointer()?;
        let within = |value: i32, origin: i32, extent: u32| {
            (value - origin).clamp(0, extent.saturating_sub(1) as i32) as u32
        };
        pointer.motion_absolute(
            self.now(),
            within(x, left, width),
            within(y, top, height),
            width.max(1),
            height.max(1),
        );
        pointer.frame();
        self.send_input("moving the pointer")
    }

    /// Presses or releases `button`; a button this pointer does not hold (let go of when a
    /// person took over) is not released again.
    pub fn button(&mut self, button: u32, down: bool) -> Result<(), WaylandError> {
        if !down && !self.buttons.contains(&button) {
            return Ok(());
        }
        let pointer = self.pointer()?;
        let state = if down {
            ButtonState::Pressed
        } else {
            ButtonState::Released
        };
        pointer.button(self.now(), button, state);
        pointer.frame();
        self.buttons.retain(|held| *held != button);
        if down {
            self.buttons.push(button);
        }
        self.send_input("pressing a pointer button")
    }

    /// Releases every button and modifier deskhand holds down.
    pub fn let_go(&mut self) -> Result<(), WaylandError> {
        let released = self
            .buttons
            .clone()
            .into_iter()
            .try_for_each(|button| self.button(button, false));
        let unheld = self.hold_modifiers(&[]);
        released.and(unheld)
    }

    /// Scrolls `steps` wheel clicks; negative is up or left.
    pub fn scroll(&mut self, vertical: bool, steps: i32) -> Result<(), WaylandError> {
        let pointer = self.pointer()?;
        let axis = if vertical {
            Axis::VerticalScroll
        } else {
            Axis::HorizontalScroll
        };
        for _ in 0..steps.unsigned_abs() {
            let step = steps.signum();
            pointer.axis_source(wayland_client::protocol::wl_pointer::AxisSource::Wheel);
            pointer.axis_discrete(self.now(), axis, f64::from(15 * step), step);
            pointer.frame();
        }
        self.send_input("scrolling")
    }

    /// The virtual keyboard, with a keymap that holds every one of `keysyms`.
    fn keyboard_holding(
        &mut self,
        keysyms: &[u32],
    ) -> Result<(ZwpVirtualKeyboardV1, Keymap), WaylandError> {
        if let Some((keyboard, keymap)) = &self.keyboard
            && keymap.holds(keysyms)
        {
            return Ok((keyboard.clone(), keymap.clone()));
        }
        let keyboard = match &self.keyboard {
            Some((keyboard, _)) => keyboard.clone(),
            None => self
                .keyboard_manager
                .as_ref()
                .ok_or(WaylandError::Missing("zwp_virtual_keyboard_manager_v1"))?
                .create_virtual_keyboard(&self.seat, &self.queue.handle(), ()),
        };
        let keymap = Keymap::new(keysyms.iter().copied());
        let text = keymap.text();
        let file = memfd("deskhand-keymap", text.len())?;
        file.write_all_at(text.as_bytes(), 0)
            .map_err(|err| WaylandError::Memory(err.to_string()))?;
        keyboard.keymap(KEYMAP_FORMAT_XKB_V1, file.as_fd(), text.len() as u32);
        self.keyboard = Some((keyboard.clone(), keymap.clone()));
        // sway hands the focused client a keyboard's keymap with that keyboard's first key,
        // and the client reads that key with the keymap it had: a Shift tap, which types
        // nothing, carries the new keymap over.
        let shift = Keymap::modifier_code(SHIFT_L).expect("Shift is a modifier");
        keyboard.key(self.now(), shift, 1);
        keyboard.key(self.now(), shift, 0);
        self.send_input("uploading a keymap")?;
        std::thread::sleep(KEYMAP_SETTLE);
        Ok((keyboard, keymap))
    }

    /// Holds the modifiers (keysyms) down until the next call; none releases them. They go
    /// down as key presses, as a keyboard's do, and as the modifier state they make.
    pub fn hold_modifiers(&mut self, modifiers: &[u32]) -> Result<(), WaylandError> {
        if modifiers.is_empty() && self.held.is_empty() {
            return Ok(());
        }
        let (keyboard, _) = self.keyboard_holding(modifiers)?;
        let wanted: Vec<u32> = modifiers
            .iter()
            .filter_map(|m| Keymap::modifier_code(*m))
            .collect();
        for code in self.held.clone().iter().rev() {
            if !wanted.contains(code) {
                keyboard.key(self.now(), *code, 0);
            }
        }
        for code in &wanted {
            if !self.held.contains(code) {
                keyboard.key(self.now(), *code, 1);
            }
        }
        self.held = wanted;
        let mask = modifiers
            .iter()
            .filter_map(|m| Keymap::modifier_mask(*m))
            .fold(0, |mask, bit| mask | bit);
        keyboard.modifiers(mask, 0, 0, 0);
        self.send_input("holding modifiers")
    }

    /// Presses `key` with `modifiers` held (keysyms).
    pub fn press_chord(&mut self, modifiers: &[u32], key: u32) -> Result<(), WaylandError> {
        let mut needed = modifiers.to_vec();
        needed.push(key);
        let (keyboard, keymap) = self.keyboard_holding(&needed)?;
        let (code, shifted) = keymap
            .code_of(key)
            .or_else(|| Keymap::modifier_code(key).map(|code| (code, false)))
            .expect("the keymap was made to hold the key");
        // A key on a US keyboard's second level ("A", "!") takes Shift, as a person's would.
        let mut held = modifiers.to_vec();
        if shifted
            && !held
                .iter()
                .any(|m| Keymap::modifier_mask(*m) == Some(SHIFT_MASK))
        {
            held.push(SHIFT_L);
        }
        self.hold_modifiers(&held)?;
        keyboard.key(self.now(), code, 1);
        keyboard.key(self.now(), code, 0);
        self.hold_modifiers(&[])
    }

    /// Types each keysym as one key stroke; `sent` counts the strokes the compositor took.
    /// Stops before the next run of strokes once `stop` says a person took over.
    pub fn type_keysyms(
        &mut self,
        keysyms: &[u32],
        sent: &mut usize,
        stop: &dyn Fn() -> bool,
    ) -> Result<(), WaylandError> {
        let mut start = 0;
        while start < keysyms.len() {
            // The longest run from `start` whose keysyms beyond the base keys fit one keymap.
            let mut distinct: Vec<u32> = Vec::new();
            let mut end = start;
            while end < keysyms.len() {
                if !keymap::is_base(keysyms[end]) && !distinct.contains(&keysyms[end]) {
                    if distinct.len() == keymap::CAPACITY {
                        break;
                    }
                    distinct.push(keysyms[end]);
                }
                end += 1;
            }
            let (keyboard, keymap) = self.keyboard_holding(&distinct)?;
            let held_mask = self
                .held
                .iter()
                .filter_map(|code| Keymap::mask_of_code(*code))
                .fold(0, |mask, bit| mask | bit);
            let shift = Keymap::modifier_code(SHIFT_L).expect("Shift is a modifier");
            for chunk in keysyms[start..end].chunks(STROKES_PER_ROUNDTRIP) {
                if stop() {
                    return Err(WaylandError::PersonTookOver);
                }
                for keysym in chunk {
                    let (code, shifted) = keymap
                        .code_of(*keysym)
                        .expect("the keymap was made to hold the run's keysyms");
                    // Shift around a key of the second level, unless it is held already.
                    let tap_shift = shifted && held_mask & SHIFT_MASK == 0;
                    if tap_shift {
                        keyboard.key(self.now(), shift, 1);
                        keyboard.modifiers(held_mask | SHIFT_MASK, 0, 0, 0);
                    }
                    keyboard.key(self.now(), code, 1);
                    keyboard.key(self.now(), code, 0);
                    if tap_shift {
                        keyboard.key(self.now(), shift, 0);
                        keyboard.modifiers(held_mask, 0, 0, 0);
                    }
                }
                self.send_input("typing")?;
                *sent += chunk.len();
            }
            start = end;
        }
        Ok(())
    }

    /// The pixels of `(x, y, width, height)` of the output named `output`, in its own
    /// coordinates.
    pub fn capture(
        &mut self,
        output: &str,
        (x, y, width, height): (i32, i32, u32, u32),
    ) -> Result<Pixels, WaylandError> {
        let manager = self
            .screencopy
            .clone()
            .ok_or(WaylandError::Missing("zwlr_screencopy_manager_v1"))?;
        let target = self
            .state
            .outputs
            .named(output)
            .or_else(|| self.state.outputs.only())
            .cloned()
            .ok_or_else(|| WaylandError::NoOutput(output.to_owned()))?;
        self.state.frame = Frame::default();
        let handle = self.queue.handle();
        let frame = manager.capture_output_region(
            0,
            &target,
            x,
            y,
            width as i32,
            height as i32,
            &handle,
            (),
        );
        self.roundtrip("starting a capture")?;
        let Some((format, buffer_width, buffer_height, stride)) = self.state.frame.buffer else {
            frame.destroy();
            return Err(WaylandError::CaptureFailed);
        };
        let size = stride as usize * buffer_height as usize;
        let file = memfd("deskhand-capture", size)?;
        let pool = self.shm.create_pool(file.as_fd(), size as i32, &handle, ());
        let format_value = match format {
            WEnum::Value(format) => format,
            WEnum::Unknown(_) => {
                pool.destroy();
                frame.destroy();
                return Err(WaylandError::CaptureFormat(format!("{format:?}")));
            }
        };
        let buffer = pool.create_buffer(
            0,
            buffer_width as i32,
            buffer_height as i32,
            stride as i32,
            format_value,
            &handle,
            (),
        );
        frame.copy(&buffer);
        let result = loop {
            if self.state.frame.ready {
                break Ok(());
            }
            if self.state.frame.failed {
                break Err(WaylandError::CaptureFailed);
            }
            if let Err(err) = self.queue.blocking_dispatch(&mut self.state) {
                break Err(WaylandError::Lost {
                    operation: "capturing the screen",
                    cause: err.to_string(),
                });
            }
        };
        frame.destroy();
        buffer.destroy();
        pool.destroy();
        result?;
        let mut raw = vec![0u8; size];
        file.read_exact_at(&mut raw, 0)
            .map_err(|err| WaylandError::Memory(err.to_string()))?;
        let data = to_rgb(
            &raw,
            format_value,
            buffer_width,
            buffer_height,
            stride,
            self.state.frame.y_invert,
        )
        .ok_or_else(|| WaylandError::CaptureFormat(format!("{format_value:?}")))?;
        Ok(Pixels {
            width: buffer_width,
            height: buffer_height,
            data,
        })
    }

    /// Waits until the compositor has handled every request sent so far.
    pub fn sync(&mut self) -> Result<(), WaylandError> {
        self.connection.flush().map_err(|err| WaylandError::Lost {
            operation: "sending input",
            cause: err.to_string(),
        })?;
        self.roundtrip("waiting for the compositor")
    }
}

/// 32-bit shared-memory pixels in RGB; `None` for a layout this does not know.
fn to_rgb(
    raw: &[u8],
    format: wl_shm::Format,
    width: u32,
    height: u32,
    stride: u32,
    y_invert: bool,
) -> Option<Vec<u8>> {
    // Little-endian 32-bit words: ARGB8888 is B, G, R, A in memory; ABGR8888 is R, G, B, A.
    let (r, g, b) = match format {
        wl_shm::Format::Argb8888 | wl_shm::Format::Xrgb8888 => (2, 1, 0),
        wl_shm::Format::Abgr8888 | wl_shm::Format::Xbgr8888 => (0, 1, 2),
        _ => return None,
    };
    let mut data = Vec::with_capacity(width as usize * height as usize * 3);
    for row in 0..height {
        let source = if y_invert { height - 1 - row } else { row };
        let start = source as usize * stride as usize;
        let line = raw.get(start..start + width as usize * 4)?;
        for pixel in line.chunks_exact(4) {
            data.extend_from_slice(&[pixel[r], pixel[g], pixel[b]]);
        }
    }
    Some(data)
}

/// An anonymous shared-memory file of `size` bytes.
pub(super) fn memfd(name: &str, size: usize) -> Result<File, WaylandError> {
    let name = std::ffi::CString::new(name).expect("no NUL in the name");
    // SAFETY: memfd_create takes a NUL-terminated name and flags; it returns a new fd or -1.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(WaylandError::Memory(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    // SAFETY: the fd was just created and is owned by nothing else.
    let file = unsafe { File::from_raw_fd(fd) };
    file.set_len(size as u64)
        .map_err(|err| WaylandError::Memory(err.to_string()))?;
    Ok(file)
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrScreencopyFrameV1,
        event: zwlr_screencopy_frame_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        use zwlr_screencopy_frame_v1::Event;
        match event {
            Event::Buffer {
                format,
                width,
                height,
                stride,
            } => state.frame.buffer = Some((format, width, height, stride)),
            Event::Flags { flags } => {
                state.frame.y_invert = matches!(flags, WEnum::Value(f) if f.contains(zwlr_screencopy_frame_v1::Flags::YInvert));
            }
            Event::Ready { .. } => state.frame.ready = true,
            Event::Failed => state.frame.failed = true,
            _ => {}
        }
    }
}

delegate_noop!(State: ignore WlSeat);
delegate_noop!(State: ignore WlShm);
delegate_noop!(State: ignore WlBuffer);
delegate_noop!(State: WlShmPool);
delegate_noop!(State: ZwlrVirtualPointerManagerV1);
delegate_noop!(State: ZwlrVirtualPointerV1);
delegate_noop!(State: ZwpVirtualKeyboardManagerV1);
delegate_noop!(State: ZwpVirtualKeyboardV1);
delegate_noop!(State: ZwlrScreencopyManagerV1);
