//! A private desktop of several monitors side by side, each of the start options' size and the
//! first of them primary: the layout of a person with a second screen, for agents to be tried on
//! before they meet one. Each display server gets the same layout its own way: RandR 1.5
//! monitors on Xvfb (which has one output), headless outputs on sway, virtual monitors on GNOME.

use x11rb::connection::RequestConnection as _;
use x11rb::protocol::randr::{self, ConnectionExt as _, MonitorInfo};
use x11rb::protocol::xproto::{ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

use super::{DesktopError, StartOptions};

/// The X screen's width: every monitor's, side by side.
pub(super) fn x_screen_width(opts: &StartOptions) -> u32 {
    opts.width * opts.monitors.max(1)
}

/// Splits Xvfb's one screen into the monitors asked for. The first takes over Xvfb's output, so
/// RandR lists no whole-screen monitor beside them; the server keeps them until it ends, for it
/// runs with `-noreset`.
pub(super) fn split_x_screen(
    conn: &RustConnection,
    root: Window,
    opts: &StartOptions,
) -> Result<(), DesktopError> {
    if opts.monitors <= 1 {
        return Ok(());
    }
    if conn
        .extension_information(randr::X11_EXTENSION_NAME)
        .map_err(|e| failed("asking for RandR", e))?
        .is_none()
    {
        return Err(failed("asking for RandR", "the X server has no RandR"));
    }
    let outputs = conn
        .randr_get_screen_resources_current(root)
        .map_err(|e| failed("listing the outputs", e))?
        .reply()
        .map_err(|e| failed("listing the outputs", e))?
        .outputs;
    let (width, height) = (side(opts.width)?, side(opts.height)?);
    for index in 0..opts.monitors {
        let name = conn
            .intern_atom(false, format!("DESKHAND-{}", index + 1).as_bytes())
            .map_err(|e| failed("naming a monitor", e))?
            .reply()
            .map_err(|e| failed("naming a monitor", e))?
            .atom;
        let x = i16::try_from(index * opts.width).map_err(|_| too_wide(opts))?;
        let monitor = MonitorInfo {
            name,
            primary: index == 0,
            automatic: false,
            x,
            y: 0,
            width,
            height,
            // At the 96 dpi the server is started with.
            width_in_millimeters: opts.width * 254 / 960,
            height_in_millimeters: opts.height * 254 / 960,
            outputs: if index == 0 {
                outputs.clone()
            } else {
                Vec::new()
            },
        };
        conn.randr_set_monitor(root, monitor)
            .map_err(|e| failed("adding a monitor", e))?
            .check()
            .map_err(|e| failed("adding a monitor", e))?;
    }
    Ok(())
}

fn failed(what: &'static str, cause: impl std::fmt::Display) -> DesktopError {
    DesktopError::Monitors {
        what,
        cause: cause.to_string(),
    }
}

fn side(pixels: u32) -> Result<u16, DesktopError> {
    u16::try_from(pixels).map_err(|_| {
        failed(
            "sizing a monitor",
            format!("{pixels} pixels is more than X11 allows"),
        )
    })
}

fn too_wide(opts: &StartOptions) -> DesktopError {
    failed(
        "placing a monitor",
        format!(
            "{} monitors {} pixels wide are wider than X11's screen can be",
            opts.monitors, opts.width
        ),
    )
}

/// sway's configuration lines that place each headless output right of the one before; the
/// headless backend makes as many outputs as `WLR_HEADLESS_OUTPUTS` asks.
pub(super) fn sway_outputs(opts: &StartOptions, first: &str) -> String {
    (0..opts.monitors.max(1))
        .map(|index| {
            let name = if index == 0 {
                first.to_owned()
            } else {
                format!("HEADLESS-{}", index + 1)
            };
            format!(
                "output {name} resolution {}x{} pos {} 0 bg #204060 solid_color\n",
                opts.width,
                opts.height,
                index * opts.width
            )
        })
        .collect()
}

/// GNOME Shell's arguments for the virtual monitors, which mutter lays out left to right with the
/// first primary.
pub(super) fn gnome_virtual_monitors(opts: &StartOptions) -> Vec<String> {
    (0..opts.monitors.max(1))
        .flat_map(|_| {
            [
                "--virtual-monitor".to_owned(),
                format!("{}x{}", opts.width, opts.height),
            ]
        })
        .collect()
}
