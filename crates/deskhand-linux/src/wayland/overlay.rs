//! The overlay on sway: over each output a surface of the layer shell's overlay layer, named
//! `deskhand`, with an empty input region, so every click and scroll goes to what is beneath,
//! and no keyboard interactivity, so it never takes the focus. Its pixels are drawn here, in
//! shared memory. screencopy copies layer surfaces like any other, so for deskhand's own
//! captures it commits transparent pixels and waits until the compositor has shown them.

use std::fs::File;
use std::os::fd::AsFd as _;
use std::os::unix::fs::FileExt as _;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use deskhand_core::model::Rect;
use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_buffer::{self, WlBuffer};
use wayland_client::protocol::wl_callback::{self, WlCallback};
use wayland_client::protocol::wl_compositor::WlCompositor;
use wayland_client::protocol::wl_output::WlOutput;
use wayland_client::protocol::wl_region::WlRegion;
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_shm::{self, WlShm};
use wayland_client::protocol::wl_shm_pool::WlShmPool;
use wayland_client::protocol::wl_surface::WlSurface;
use wayland_client::{
    Connection, Dispatch, EventQueue, QueueHandle, delegate_dispatch, delegate_noop,
};
use wayland_protocols_wlr::layer_shell::v1::client::zwlr_layer_shell_v1::{
    Layer, ZwlrLayerShellV1,
};
use wayland_protocols_wlr::layer_shell::v1::client::zwlr_layer_surface_v1::{
    self, Anchor, KeyboardInteractivity, ZwlrLayerSurfaceV1,
};

use super::WaylandError;
use super::glyphs::{self, ADVANCE, ROWS};
use super::ipc::SwayIpc;
use super::registry::{Globals, KeepsOutputs, Outputs, bind, connect_with_globals, read_events};
use crate::overlay::{Draws, INDICATOR_TEXT, MARKER_RGB, Overlay, overlaps, rect};
use crate::own_thread::{self, Unstarted};

/// How long a capture waits for the compositor to show the overlay's transparent pixels: a
/// few frames at any refresh rate. An output that shows nothing (switched off) never says so.
const SHOWN_WITHIN: Duration = Duration::from_millis(250);

const INDICATOR_HEIGHT: u32 = 17;

/// Pixels as ARGB8888 keeps them in memory (little-endian words): blue, green, red, alpha.
const fn bgra([r, g, b]: [u8; 3]) -> [u8; 4] {
    [b, g, r, 0xff]
}
const MARKER: [u8; 4] = bgra(MARKER_RGB);
const DARK: [u8; 4] = bgra([0x20, 0x20, 0x28]);
const LIGHT: [u8; 4] = bgra([0xf0, 0xf0, 0xf0]);

/// Why the overlay cannot be drawn on this compositor.
#[derive(Debug, thiserror::Error)]
pub enum OverlayError {
    #[error("the overlay cannot be drawn: {0}")]
    Wayland(#[from] WaylandError),
    #[error(
        "the compositor did not answer the overlay's setup within {} s, so the overlay is not shown; check that it is alive, then restart deskhand",
        .0.as_secs()
    )]
    NoAnswer(Duration),
    #[error("the overlay's thread could not start ({0})")]
    Thread(std::io::Error),
}

/// Creates the overlay's surfaces and starts its thread. `indicator` shows the line that an
/// agent is acting for as long as the process runs, at the top of the primary output as sway's
/// IPC at `socket` lists the outputs. Outputs plugged in later get no surface.
pub fn start(socket: PathBuf, indicator: bool) -> Result<Overlay, OverlayError> {
    let (to_thread, messages) = mpsc::channel();
    own_thread::start(
        "deskhand-overlay",
        own_thread::SETUP_DEADLINE,
        move || Drawing::set_up(&socket, indicator),
        move |mut drawing| crate::overlay::serve(&mut drawing, &messages),
    )
    .map_err(|unstarted| match unstarted {
        Unstarted::Failed(err) => OverlayError::Wayland(err),
        Unstarted::NoAnswer(waited) => OverlayError::NoAnswer(waited),
        Unstarted::NoThread(err) => OverlayError::Thread(err),
    })?;
    Ok(Overlay { to_thread })
}

/// The overlay's surface on one output.
struct Sheet {
    /// The output's place in the layout, which markers are given in.
    output: Rect,
    surface: WlSurface,
    layer: ZwlrLayerSurfaceV1,
    /// The size the compositor gave the surface (the output's), once it has.
    size: Option<(u32, u32)>,
    closed: bool,
    buffers: Vec<Slot>,
    /// What its pixels show now, in layout coordinates; none: they are transparent.
    drawn: Vec<Rect>,
    /// How many times its pixels were committed.
    commits: u64,
    /// The last commit's pixels are not shown yet.
    unshown: bool,
}

/// A buffer of a sheet's pixels; busy from its commit until the compositor releases it.
struct Slot {
    id: u64,
    buffer: WlBuffer,
    file: File,
    size: (u32, u32),
    busy: bool,
}

#[derive(Default)]
struct State {
    outputs: Outputs,
    sheets: Vec<Sheet>,
}

impl KeepsOutputs for State {
    fn outputs(&mut self) -> &mut Outputs {
        &mut self.outputs
    }
}

delegate_dispatch!(State: [WlRegistry: GlobalListContents] => Globals);
delegate_dispatch!(State: [WlOutput: ()] => Globals);

struct Drawing {
    queue: EventQueue<State>,
    state: State,
    shm: WlShm,
    /// Where the indicator is, when it is shown.
    indicator: Option<Rect>,
    markers: Vec<(Vec<Rect>, Instant)>,
    /// Captures under way that asked the overlay out of their way.
    captures: usize,
    next_slot: u64,
    ticked_at: Instant,
}

impl Draws for Drawing {
    type Error = WaylandError;

    fn markers(&mut self) -> &mut Vec<(Vec<Rect>, Instant)> {
        &mut self.markers
    }

    fn captures(&mut self) -> &mut usize {
        &mut self.captures
    }

    fn redraw(&mut self) -> Result<(), WaylandError> {
        Drawing::redraw(self)
    }

    fn step_aside(&mut self, region: &Rect) -> (Result<(), WaylandError>, Duration) {
        let covered = self
            .state
            .sheets
            .iter()
            .any(|sheet| sheet.drawn.iter().any(|r| overlaps(r, region)));
        let hid = if covered {
            Drawing::redraw(self).and_then(|()| self.wait_until_shown())
        } else {
            Ok(())
        };
        // The compositor composes every frame afresh: nothing beneath repaints.
        (hid, Duration::ZERO)
    }

    fn ticked_at(&self) -> Instant {
        self.ticked_at
    }

    fn tick(&mut self) -> Result<(), WaylandError> {
        Drawing::tick(self)
    }
}

impl Drawing {
    fn set_up(socket: &std::path::Path, indicator: bool) -> Result<Drawing, WaylandError> {
        let monitors = deskhand_core::monitors::ordered(SwayIpc::connect(socket)?.monitors()?);
        let (_connection, globals, mut queue) = connect_with_globals::<State>()?;
        let handle = queue.handle();
        let compositor: WlCompositor = bind(&globals, &handle, 4..=5, "wl_compositor")?;
        let shm: WlShm = bind(&globals, &handle, 1..=1, "wl_shm")?;
        let layer_shell: ZwlrLayerShellV1 = bind(
            &globals,
            &handle,
            1..=4,
            "zwlr_layer_shell_v1 (the layer shell the overlay is drawn on)",
        )?;
        let mut state = State {
            outputs: Outputs::bind(&globals, &handle),
            sheets: Vec::new(),
        };
        // The outputs' names (wl_output 4) come on this round trip.
        queue
            .roundtrip(&mut state)
            .map_err(lost("reading the outputs"))?;
        for monitor in &monitors {
            let Some(output) = state
                .outputs
                .named(&monitor.name)
                .or_else(|| state.outputs.only().filter(|_| monitors.len() == 1))
                .cloned()
            else {
                continue;
            };
            let index = state.sheets.len();
            let surface = compositor.create_surface(&handle, ());
            let nothing = compositor.create_region(&handle, ());
            surface.set_input_region(Some(&nothing));
            nothing.destroy();
            let layer = layer_shell.get_layer_surface(
                &surface,
                Some(&output),
                Layer::Overlay,
                "deskhand".into(),
                &handle,
                index,
            );
            layer.set_anchor(Anchor::Top | Anchor::Bottom | Anchor::Left | Anchor::Right);
            layer.set_size(0, 0);
            // Not pushed aside by panels, and pushing nothing aside.
            layer.set_exclusive_zone(-1);
            layer.set_keyboard_interactivity(KeyboardInteractivity::None);
            surface.commit();
            state.sheets.push(Sheet {
                output: monitor.bounds,
                surface,
                layer,
                size: None,
                closed: false,
                buffers: Vec::new(),
                drawn: Vec::new(),
                commits: 0,
                unshown: false,
            });
        }
        if state.sheets.is_empty() {
            let names: Vec<&str> = monitors.iter().map(|m| m.name.as_str()).collect();
            return Err(WaylandError::NoOutput(names.join(", ")));
        }
        // Each surface's size comes with its configure, answered as it arrives.
        queue
            .roundtrip(&mut state)
            .map_err(lost("placing the overlay"))?;
        let indicator = monitors.first().filter(|_| indicator).map(|primary| {
            let width = (ADVANCE * INDICATOR_TEXT.len() as u32 + 12).min(primary.bounds.width);
            rect(
                primary.bounds.x + (primary.bounds.width.saturating_sub(width) / 2) as i32,
                primary.bounds.y,
                width,
                INDICATOR_HEIGHT,
            )
        });
        Ok(Drawing {
            queue,
            state,
            shm,
            indicator,
            markers: Vec::new(),
            captures: 0,
            next_slot: 0,
            ticked_at: Instant::now(),
        })
    }

    /// Takes down the markers whose second is up, and handles what the compositor said
    /// (buffers released, frames shown, a surface resized or closed).
    fn tick(&mut self) -> Result<(), WaylandError> {
        let now = Instant::now();
        self.ticked_at = now;
        self.markers.retain(|(_, until)| *until > now);
        read_events(
            &mut self.queue,
            &mut self.state,
            Duration::ZERO,
            "drawing the overlay",
        )?;
        self.redraw()
    }

    /// Until the compositor has shown every sheet's last commit, or `SHOWN_WITHIN` at most.
    fn wait_until_shown(&mut self) -> Result<(), WaylandError> {
        let until = Instant::now() + SHOWN_WITHIN;
        while self.state.sheets.iter().any(|sheet| sheet.unshown) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            read_events(
                &mut self.queue,
                &mut self.state,
                left,
                "hiding the overlay from a capture",
            )?;
        }
        Ok(())
    }

    /// What the overlay shows now, in layout coordinates: nothing while a capture is under way.
    fn shown(&self) -> Vec<Rect> {
        if self.captures > 0 {
            return Vec::new();
        }
        self.markers
            .iter()
            .flat_map(|(rects, _)| rects.iter().copied())
            .chain(self.indicator)
            .collect()
    }

    /// Draws each sheet whose part of what is shown changed.
    fn redraw(&mut self) -> Result<(), WaylandError> {
        let shown = self.shown();
        for index in 0..self.state.sheets.len() {
            let sheet = &self.state.sheets[index];
            if sheet.closed {
                continue;
            }
            let Some(size) = sheet.size else { continue };
            let wanted: Vec<Rect> = shown
                .iter()
                .filter(|r| overlaps(r, &sheet.output))
                .copied()
                .collect();
            let stale = sheet.buffers.first().is_some_and(|slot| slot.size != size);
            if wanted == sheet.drawn && !stale {
                continue;
            }
            let pixels = self.paint(&self.state.sheets[index], size, &wanted);
            self.commit(index, size, &pixels)?;
            self.state.sheets[index].drawn = wanted;
        }
        self.queue.flush().map_err(|err| WaylandError::Lost {
            operation: "drawing the overlay",
            cause: err.to_string(),
        })
    }

    /// A sheet's pixels showing `wanted`: the markers in pink, and the indicator's line over
    /// them where it is on this sheet.
    fn paint(&self, sheet: &Sheet, (width, height): (u32, u32), wanted: &[Rect]) -> Vec<u8> {
        let mut pixels = vec![0u8; width as usize * height as usize * 4];
        let mut fill = |r: &Rect, colour: [u8; 4]| {
            let left = (r.x - sheet.output.x).max(0) as u32;
            let top = (r.y - sheet.output.y).max(0) as u32;
            let right = ((i64::from(r.x) + i64::from(r.width) - i64::from(sheet.output.x))
                .clamp(0, i64::from(width))) as u32;
            let bottom = ((i64::from(r.y) + i64::from(r.height) - i64::from(sheet.output.y))
                .clamp(0, i64::from(height))) as u32;
            for y in top..bottom {
                for x in left..right {
                    let at = (y as usize * width as usize + x as usize) * 4;
                    pixels[at..at + 4].copy_from_slice(&colour);
                }
            }
        };
        let indicator = self.indicator.filter(|line| wanted.contains(line));
        for marker in wanted.iter().filter(|r| Some(**r) != indicator) {
            fill(marker, MARKER);
        }
        if let Some(line) = indicator {
            fill(&line, DARK);
            let top = line.y + ((INDICATOR_HEIGHT - ROWS) / 2) as i32;
            for (column, &byte) in INDICATOR_TEXT.iter().enumerate() {
                let left = line.x + 6 + (column as u32 * ADVANCE) as i32;
                for (row, bits) in glyphs::glyph(byte).iter().enumerate() {
                    for bit in 0..5 {
                        if bits & (0b10000 >> bit) != 0 {
                            fill(&rect(left + bit, top + row as i32, 1, 1), LIGHT);
                        }
                    }
                }
            }
        }
        pixels
    }

    /// Puts `pixels` into a free buffer of the sheet and commits it, asking to hear when the
    /// compositor has shown it.
    fn commit(
        &mut self,
        index: usize,
        size: (u32, u32),
        pixels: &[u8],
    ) -> Result<(), WaylandError> {
        let handle = self.queue.handle();
        let sheet = &mut self.state.sheets[index];
        sheet.buffers.retain(|slot| {
            let fits = slot.size == size;
            if !fits {
                slot.buffer.destroy();
            }
            fits
        });
        let free = match sheet.buffers.iter().position(|slot| !slot.busy) {
            Some(free) => free,
            None => {
                let (width, height) = size;
                let length = pixels.len();
                let file = super::client::memfd("deskhand-overlay", length)?;
                let pool = self
                    .shm
                    .create_pool(file.as_fd(), length as i32, &handle, ());
                let id = self.next_slot;
                self.next_slot += 1;
                let buffer = pool.create_buffer(
                    0,
                    width as i32,
                    height as i32,
                    (width * 4) as i32,
                    wl_shm::Format::Argb8888,
                    &handle,
                    (index, id),
                );
                pool.destroy();
                sheet.buffers.push(Slot {
                    id,
                    buffer,
                    file,
                    size,
                    busy: false,
                });
                sheet.buffers.len() - 1
            }
        };
        let slot = &mut sheet.buffers[free];
        slot.file
            .write_all_at(pixels, 0)
            .map_err(|err| WaylandError::Memory(err.to_string()))?;
        slot.busy = true;
        sheet.surface.attach(Some(&slot.buffer), 0, 0);
        sheet.surface.damage_buffer(0, 0, i32::MAX, i32::MAX);
        sheet.commits += 1;
        sheet.surface.frame(&handle, (index, sheet.commits));
        sheet.surface.commit();
        sheet.unshown = true;
        Ok(())
    }
}

fn lost(operation: &'static str) -> impl Fn(wayland_client::DispatchError) -> WaylandError {
    move |err| WaylandError::Lost {
        operation,
        cause: err.to_string(),
    }
}

impl Dispatch<ZwlrLayerSurfaceV1, usize> for State {
    fn event(
        state: &mut Self,
        layer: &ZwlrLayerSurfaceV1,
        event: zwlr_layer_surface_v1::Event,
        index: &usize,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some(sheet) = state.sheets.get_mut(*index) else {
            return;
        };
        match event {
            zwlr_layer_surface_v1::Event::Configure {
                serial,
                width,
                height,
            } => {
                layer.ack_configure(serial);
                sheet.size = (width > 0 && height > 0).then_some((width, height));
            }
            zwlr_layer_surface_v1::Event::Closed => {
                sheet.closed = true;
                sheet.unshown = false;
                sheet.layer.destroy();
                sheet.surface.destroy();
            }
            _ => {}
        }
    }
}

impl Dispatch<WlBuffer, (usize, u64)> for State {
    fn event(
        state: &mut Self,
        _: &WlBuffer,
        event: wl_buffer::Event,
        (index, id): &(usize, u64),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_buffer::Event::Release = event
            && let Some(slot) = state
                .sheets
                .get_mut(*index)
                .and_then(|sheet| sheet.buffers.iter_mut().find(|slot| slot.id == *id))
        {
            slot.busy = false;
        }
    }
}

/// A frame shown: the commit it was asked for, and every one before it, is on the screen.
impl Dispatch<WlCallback, (usize, u64)> for State {
    fn event(
        state: &mut Self,
        _: &WlCallback,
        event: wl_callback::Event,
        (index, commit): &(usize, u64),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_callback::Event::Done { .. } = event
            && let Some(sheet) = state.sheets.get_mut(*index)
            && sheet.commits == *commit
        {
            sheet.unshown = false;
        }
    }
}

delegate_noop!(State: ignore WlCompositor);
delegate_noop!(State: ignore WlSurface);
delegate_noop!(State: ignore WlRegion);
delegate_noop!(State: ignore WlShm);
delegate_noop!(State: ignore WlShmPool);
delegate_noop!(State: ignore ZwlrLayerShellV1);
