//! The kill switch's eye on a wlroots compositor. A Wayland client cannot ask where the pointer
//! is, but it is told when the pointer is over one of its own surfaces, also when the surface
//! appears under a pointer already there. So each time the kill switch looks, a transparent
//! surface of the layer shell's overlay layer covers exactly the pixels of the top-left corner
//! that stop deskhand, for the few round trips it takes the compositor to say whether the
//! pointer is over it, whoever moved it there; then it goes again, and takes no click the user
//! meant for what is under it.

use std::os::fd::AsFd as _;

use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_buffer::WlBuffer;
use wayland_client::protocol::wl_compositor::WlCompositor;
use wayland_client::protocol::wl_output::WlOutput;
use wayland_client::protocol::wl_pointer::{self, WlPointer};
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_seat::{self, WlSeat};
use wayland_client::protocol::wl_shm::{self, WlShm};
use wayland_client::protocol::wl_shm_pool::WlShmPool;
use wayland_client::protocol::wl_surface::WlSurface;
use wayland_client::{
    Connection, Dispatch, EventQueue, QueueHandle, WEnum, delegate_dispatch, delegate_noop,
};
use wayland_protocols_wlr::layer_shell::v1::client::zwlr_layer_shell_v1::{
    Layer, ZwlrLayerShellV1,
};
use wayland_protocols_wlr::layer_shell::v1::client::zwlr_layer_surface_v1::{
    self, Anchor, KeyboardInteractivity, ZwlrLayerSurfaceV1,
};

use super::WaylandError;
use super::registry::{Globals, KeepsOutputs, Outputs, bind, connect_with_globals};

/// A connection ready to look at the corner of one output.
pub struct CornerProbe {
    queue: EventQueue<State>,
    state: State,
    compositor: WlCompositor,
    layer_shell: ZwlrLayerShellV1,
    output: Option<WlOutput>,
    buffer: WlBuffer,
    side: u32,
}

#[derive(Default)]
struct State {
    surface: Option<WlSurface>,
    configured: Option<u32>,
    closed: bool,
    pointer: Option<WlPointer>,
    over: bool,
    outputs: Outputs,
}

impl KeepsOutputs for State {
    fn outputs(&mut self) -> &mut Outputs {
        &mut self.outputs
    }
}

delegate_dispatch!(State: [WlRegistry: GlobalListContents] => Globals);
delegate_dispatch!(State: [WlOutput: ()] => Globals);

impl CornerProbe {
    /// Connects for a `side`×`side` pixel corner of the output named `output` (the one at the
    /// screen's origin).
    pub fn connect(output: &str, side: u32) -> Result<CornerProbe, WaylandError> {
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
        let outputs = Outputs::bind(&globals, &handle);
        let mut state = State {
            outputs,
            ..State::default()
        };
        // The outputs' names (wl_output 4) and the seat's pointer come on this round trip.
        queue
            .roundtrip(&mut state)
            .map_err(lost("reading the outputs"))?;
        let output = state.outputs.named(output).cloned();
        let buffer = transparent_buffer(&shm, side, side, &handle)?;
        Ok(CornerProbe {
            queue,
            state,
            compositor,
            layer_shell,
            output,
            buffer,
            side,
        })
    }

    /// Whether the pointer is in the corner now.
    pub fn pointer_in_corner(&mut self) -> Result<bool, WaylandError> {
        let handle = self.queue.handle();
        let surface = self.compositor.create_surface(&handle, ());
        let layer = self.layer_shell.get_layer_surface(
            &surface,
            self.output.as_ref(),
            Layer::Overlay,
            "deskhand-kill-switch".into(),
            &handle,
            (),
        );
        layer.set_size(self.side, self.side);
        layer.set_anchor(Anchor::Top | Anchor::Left);
        // Not pushed aside by panels: the corner is the screen's own.
        layer.set_exclusive_zone(-1);
        layer.set_keyboard_interactivity(KeyboardInteractivity::None);
        surface.commit();
        self.state.surface = Some(surface.clone());
        self.state.configured = None;
        self.state.closed = false;
        self.state.over = false;
        let looked = self.look(&surface, &layer);
        layer.destroy();
        surface.destroy();
        self.state.surface = None;
        let gone = self.queue.flush().map_err(|err| WaylandError::Lost {
            operation: "taking the kill switch's corner away",
            cause: err.to_string(),
        });
        let over = looked?;
        gone?;
        Ok(over)
    }

    fn look(
        &mut self,
        surface: &WlSurface,
        layer: &ZwlrLayerSurfaceV1,
    ) -> Result<bool, WaylandError> {
        while self.state.configured.is_none() && !self.state.closed {
            self.queue
                .blocking_dispatch(&mut self.state)
                .map_err(lost("placing the kill switch's corner"))?;
        }
        let Some(serial) = self.state.configured else {
            return Err(WaylandError::Lost {
                operation: "placing the kill switch's corner",
                cause: "the compositor closed it".into(),
            });
        };
        layer.ack_configure(serial);
        surface.attach(Some(&self.buffer), 0, 0);
        surface.damage_buffer(0, 0, i32::MAX, i32::MAX);
        surface.commit();
        // Shown: a pointer already there enters it within the next round trips.
        for _ in 0..2 {
            self.queue
                .roundtrip(&mut self.state)
                .map_err(lost("showing the kill switch's corner"))?;
        }
        Ok(self.state.over)
    }
}

fn lost(operation: &'static str) -> impl Fn(wayland_client::DispatchError) -> WaylandError {
    move |err| WaylandError::Lost {
        operation,
        cause: err.to_string(),
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
            wl_pointer::Event::Enter { surface, .. } if ours(&surface) => state.over = true,
            wl_pointer::Event::Leave { surface, .. } if ours(&surface) => state.over = false,
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
            zwlr_layer_surface_v1::Event::Configure { serial, .. } => {
                state.configured = Some(serial);
            }
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
