//! The X server's monitors as RandR 1.5 lists them (outputs, or monitors a user set up with
//! `xrandr --setmonitor`), in root-window pixels.

use deskhand_core::model::{Monitor, Rect};
use x11rb::connection::RequestConnection as _;
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::ConnectionExt as _;

use super::{During as _, X11, X11Error};

impl X11 {
    /// Every active monitor; the whole screen as one where RandR is missing or lists none.
    pub fn monitors(&self) -> Result<Vec<Monitor>, X11Error> {
        self.listed_monitors(true)
    }

    /// The top-left pixel of the primary monitor, the kill switch's corner: asked before every
    /// action, so without the round trip per monitor that naming them costs.
    pub fn primary_corner(&self) -> Result<deskhand_core::model::Point, X11Error> {
        let monitors = deskhand_core::monitors::ordered(self.listed_monitors(false)?);
        Ok(deskhand_core::monitors::corner(&monitors))
    }

    /// The monitors, each with its name where `named` (else an empty one).
    fn listed_monitors(&self, named: bool) -> Result<Vec<Monitor>, X11Error> {
        let whole = || {
            let (width, height) = self.screen_size();
            vec![Monitor {
                name: "screen".to_owned(),
                bounds: Rect::new(0, 0, width, height),
                scale: 1.0,
                primary: true,
            }]
        };
        let has_randr = self
            .conn
            .extension_information(randr::X11_EXTENSION_NAME)
            .during("asking for RandR")?
            .is_some();
        if !has_randr {
            return Ok(whole());
        }
        let listed = self
            .conn
            .randr_get_monitors(self.root, true)
            .during("listing the monitors")?
            .reply()
            .during("listing the monitors")?;
        let mut monitors = Vec::with_capacity(listed.monitors.len());
        for monitor in listed.monitors {
            let name = if named {
                self.conn
                    .get_atom_name(monitor.name)
                    .during("naming a monitor")?
                    .reply()
                    .during("naming a monitor")?
                    .name
            } else {
                Vec::new()
            };
            monitors.push(Monitor {
                name: String::from_utf8_lossy(&name).into_owned(),
                bounds: Rect::new(
                    i32::from(monitor.x),
                    i32::from(monitor.y),
                    u32::from(monitor.width),
                    u32::from(monitor.height),
                ),
                // X11 scales per app (GDK_SCALE, QT_SCALE_FACTOR), not per monitor.
                scale: 1.0,
                primary: monitor.primary,
            });
        }
        Ok(if monitors.is_empty() {
            whole()
        } else {
            monitors
        })
    }
}
