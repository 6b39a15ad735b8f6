//! The kill switch's eye on a wlroots compositor. A Wayland client cannot ask where the pointer
//! is, but it is told when the pointer enters one of its own surfaces. So a transparent surface
//! of the layer shell's overlay layer covers exactly the pixels of the top-left corner that stop
//! deskhand, and the pointer entering it, whoever moved it, is the user's signal.
//!
//! The surface takes the pointer's clicks on those few pixels, which the pointer only reaches
//! to stop deskhand. It lives on a connection and thread of its own for as long as its
//! [`CornerWatch`] does.

use std::os::fd::AsFd as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_buffer::WlBuffer;
use wayland_client::protocol::wl_compositor::WlCompositor;
use wayland_client::protocol::wl_output::{self, WlOutput};
use wayland_client::protocol::wl_pointer::{self, WlPointer};
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_seat::{self, WlSeat};
use wayland_client::protocol::wl_shm::{self, WlShm};
use wayland_client::protocol::wl_shm_pool::WlShmPool;
use wayland_client::protocol::wl_surface::WlSurface;
use wayland_client::{Connection, Dispatch, Proxy, QueueHandle, WEnum, delegate_noop};
use wayland_protocols_wlr::layer_shell::v1::client::zwlr_layer_shell_v1::{
    Layer, ZwlrLayerShellV1,
};
use wayland_protocols_wlr::layer_shell::v1::client::zwlr_layer_surface_v1::{
    self, Anchor, KeyboardInteractivity, ZwlrLayerSurfaceV1,
};

use super::WaylandError;
use super::client::{bind, connect_with_globals};

/// How long the compositor may take to place and show the surface.
const START_DEADLINE: Duration = Duration::from_secs(3);

/// Whether the pointer is in the corner, as long as the watching thread runs.
pub struct CornerWatch {
    in_corner: Arc<AtomicBool>,
    left: Arc<AtomicU64>,
    watching: Arc<AtomicBool>,
}

impl CornerWatch {
    /// Puts a `side`×`side` pixel surface in the top-left corner of the output named `output`
    /// (the one at the layout's top-left), and returns once the compositor shows it: from then
    /// on, where the pointer is (in the corner or not) is known.
    pub fn start(output: &str, side: u32) -> Result<CornerWatch, WaylandError> {
        let in_corner = Arc::new(AtomicBool::new(false));
        let left = Arc::new(AtomicU64::new(0));
        let watching = Arc::new(AtomicBool::new(true));
        let (ready, started) = mpsc::channel();
        let output = output.to_owned();
        let watch = CornerWatch {
            in_corner: Arc::clone(&in_corner),
            left: Arc::clone(&left),
            watching: Arc::clone(&watching),
        };
        std::thread::Builder::new()
            .name("corner-watch".into())
            .spawn(move || {
                let result = Watcher::show(&output, side, in_corner, left);
                match result {
                    Ok(watcher) => {
                        let _ = ready.send(Ok(()));
                        watcher.watch();
                    }
                    Err(err) => {
                        let _ = ready.send(Err(err));
                    }
                }
                watching.store(false, Ordering::SeqCst);
            })
            .map_err(|err| WaylandError::Connect(format!("no thread for the corner: {err}")))?;
        match started.recv_timeout(START_DEADLINE) {
            Ok(Ok(())) => Ok(watch),
            Ok(Err(err)) => Err(err),
            Err(_) => Err(WaylandError::Lost {
                operation: "showing the kill switch's corner",
                cause: format!("no answer within {} s", START_DEADLINE.as_secs()),
            }),
        }
    }

    /// Whether the pointer is in the corner; `None` once the watch has ended (the connection
    /// to the compositor broke), when nothing is known any more.
    pub fn in_corner(&self) -> Option<bool> {
        self.watching
            .load(Ordering::SeqCst)
            .then(|| self.in_corner.load(Ordering::SeqCst))
    }

    /// How many times the pointer has left the corner so far: a count that grew since deskhand
    /// put the pointer there says someone has moved it out again.
    pub fn times_left(&self) -> u64 {
        self.left.load(Ordering::SeqCst)
    }
}

struct State {
    surface: Option<WlSurface>,
    configured: Option<(u32, u32, u32)>,
    pointer: Option<WlPointer>,
    in_corner: Arc<AtomicBool>,
    left: Arc<AtomicU64>,
    outputs: Vec<(WlOutput, Option<String>)>,
    closed: bool,
}

struct Watcher {
    queue: wayland_client::EventQueue<State>,
    state: State,
}

impl Watcher {
    fn show(
        output: &str,
        side: u32,
        in_corner: Arc<AtomicBool>,
        left: Arc<AtomicU64>,
    ) -> Result<Watcher, WaylandError> {
        let (_connection, globals, mut queue) = connect_with_globals::<State>()?;
        let handle = queue.handle();
        let compositor: WlCompositor = bind(&globals, &handle, 4..=5, "wl_compositor")?;
        let shm: WlShm = bind(&globals, &handle, 1..=1, "wl_shm")?;
        let layer_shell: ZwlrLayerShellV1 = bind(
            &globals,
            &handle,
            1..=4,
            "zwlr_layer_shell_v1 (the kill switch's corner)",
        )?;
        let _seat: WlSeat = bind(&globals, &handle, 1..=7, "wl_seat")?;
        let outputs = globals.contents().with_list(|list| {
            list.iter()
                .filter(|global| global.interface == WlOutput::interface().name)
                .map(|global| {
                    let output: WlOutput =
                        globals
                            .registry()
                            .bind(global.name, global.version.min(4), &handle, ());
                    (output, None)
                })
                .collect()
        });
        let mut state = State {
            surface: None,
            configured: None,
            pointer: None,
            in_corner,
            left,
            outputs,
            closed: false,
        };
        let lost = |operation: &'static str| {
            move |err: wayland_client::DispatchError| WaylandError::Lost {
                operation,
                cause: err.to_string(),
            }
        };
        // The outputs' names (wl_output 4) and the seat's pointer come on this round trip.
        queue
            .roundtrip(&mut state)
            .map_err(lost("reading the outputs"))?;
        let on = state
            .outputs
            .iter()
            .find(|(_, name)| name.as_deref() == Some(output))
            .map(|(output, _)| output.clone());
        let surface = compositor.create_surface(&handle, ());
        let layer = layer_shell.get_layer_surface(
            &surface,
            on.as_ref(),
            Layer::Overlay,
            "deskhand-kill-switch".into(),
            &handle,
            (),
        );
        layer.set_size(side, side);
        layer.set_anchor(Anchor::Top | Anchor::Left);
        // Not pushed aside by panels: the corner is the screen's own.
        layer.set_exclusive_zone(-1);
        layer.set_keyboard_interactivity(KeyboardInteractivity::None);
        surface.commit();
        state.surface = Some(surface.clone());
        while state.configured.is_none() && !state.closed {
            queue
                .blocking_dispatch(&mut state)
                .map_err(lost("placing the kill switch's corner"))?;
        }
        let Some((serial, width, height)) = state.configured else {
            return Err(WaylandError::Lost {
                operation: "placing the kill switch's corner",
                cause: "the compositor closed it".into(),
            });
        };
        layer.ack_configure(serial);
        let buffer = transparent_buffer(&shm, width.max(1), height.max(1), &handle)?;
        surface.attach(Some(&buffer), 0, 0);
        surface.damage_buffer(0, 0, i32::MAX, i32::MAX);
        surface.commit();
        // Shown: if the pointer is already there, the compositor says so on the next trips.
        for _ in 0..2 {
            queue
                .roundtrip(&mut state)
                .map_err(lost("showing the kill switch's corner"))?;
        }
        Ok(Watcher { queue, state })
    }

    fn watch(mut self) {
        while !self.state.closed && self.queue.blocking_dispatch(&mut self.state).is_ok() {}
    }
}

/// A buffer of fully transparent pixels.
fn transparent_buffer(
    shm: &WlShm,
    width: u32,
    height: u32,
    handle: &QueueHandle<State>,
) -> Result<WlBuffer, WaylandError> {
    let stride = width * 4;
    let size = stride * height;
    // A new memfd is all zeroes: fully transparent in ARGB.
    let file = super::client::memfd("deskhand-corner", size as usize)?;
    let pool = shm.create_pool(file.as_fd(), size as i32, handle, ());
    let buffer = pool.create_buffer(
        0,
        width as i32,
        height as i32,
        stride as i32,
        wl_shm::Format::Argb8888,
        handle,
        (),
    );
    pool.destroy();
    Ok(buffer)
}

impl Dispatch<WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut Self,
        _: &WlRegistry,
        _: <WlRegistry as Proxy>::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<WlOutput, ()> for State {
    fn event(
        state: &mut Self,
        output: &WlOutput,
        event: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_output::Event::Name { name } = event
            && let Some(entry) = state.outputs.iter_mut().find(|(o, _)| o == output)
        {
            entry.1 = Some(name);
        }
    }
}

impl Dispatch<WlSeat, ()> for State {
    fn event(
        state: &mut Self,
        seat: &WlSeat,
        event: wl_seat::Event,
        _: &(),
        _: &Connection,
        handle: &QueueHandle<Self>,
    ) {
        // A seat may gain its pointer later (a headless compositor's first virtual pointer);
        // asking for it before is a protocol error.
        if let wl_seat::Event::Capabilities {
            capabilities: WEnum::Value(capabilities),
        } = event
            && capabilities.contains(wl_seat::Capability::Pointer)
            && state.pointer.is_none()
        {
            state.pointer = Some(seat.get_pointer(handle, ()));
        }
    }
}

impl Dispatch<WlPointer, ()> for State {
    fn event(
        state: &mut Self,
        _: &WlPointer,
        event: wl_pointer::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let ours = |surface: &WlSurface| state.surface.as_ref() == Some(surface);
        match event {
            wl_pointer::Event::Enter { surface, .. } if ours(&surface) => {
                state.in_corner.store(true, Ordering::SeqCst);
            }
            wl_pointer::Event::Leave { surface, .. } if ours(&surface) => {
                state.in_corner.store(false, Ordering::SeqCst);
                state.left.fetch_add(1, Ordering::SeqCst);
            }
            _ => {}
        }
    }
}

impl Dispatch<ZwlrLayerSurfaceV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrLayerSurfaceV1,
        event: zwlr_layer_surface_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            zwlr_layer_surface_v1::Event::Configure {
                serial,
                width,
                height,
            } => state.configured = Some((serial, width, height)),
            zwlr_layer_surface_v1::Event::Closed => state.closed = true,
            _ => {}
        }
    }
}

delegate_noop!(State: ignore WlCompositor);
delegate_noop!(State: ignore WlSurface);
delegate_noop!(State: ignore WlShm);
delegate_noop!(State: ignore WlShmPool);
delegate_noop!(State: ignore WlBuffer);
delegate_noop!(State: ignore ZwlrLayerShellV1);
