//! The overlay on X11: one override-redirect window of depth 32 over the whole screen, shaped
//! to the markers it shows, with an empty input shape so every click and key goes to the
//! windows beneath, named and classed `deskhand`.

use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use deskhand_core::model::Rect;
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::errors::{ConnectError, ReplyOrIdError};
use x11rb::protocol::Event;
use x11rb::protocol::randr::{self, ConnectionExt as _, NotifyMask};
use x11rb::protocol::shape::{ConnectionExt as _, SK, SO};
use x11rb::protocol::xproto::{
    AtomEnum, ChangeGCAux, ClipOrdering, ColormapAlloc, ConfigureWindowAux, ConnectionExt as _,
    CreateGCAux, CreateWindowAux, EventMask, PropMode, Rectangle, StackMode, VisualClass,
    WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use crate::own_thread::{self, Unstarted};
use crate::x11::X11;

use super::{Draws, INDICATOR_TEXT, MARKER_RGB, Overlay, REPAINT, overlaps, rect};

/// The X core font's cell, for the indicator's size.
const CHAR_WIDTH: u32 = 6;
const INDICATOR_HEIGHT: u32 = 17;

/// Why the overlay cannot be drawn on this display.
#[derive(Debug, thiserror::Error)]
pub enum OverlayError {
    #[error("the X display {display} cannot be reached for the overlay ({cause})")]
    Connect {
        display: String,
        cause: ConnectError,
    },
    #[error(
        "the X server offers no 32-bit TrueColor visual (its Composite extension gives one), so the overlay cannot be drawn"
    )]
    NoArgbVisual,
    #[error("the X server refused the overlay's window ({0})")]
    Refused(#[from] ReplyOrIdError),
    #[error(
        "the X server on {display} did not answer the overlay's setup within {} s, so the overlay is not shown; check that the display is alive, then restart deskhand",
        waited.as_secs()
    )]
    NoAnswer { display: String, waited: Duration },
    #[error("the overlay's thread could not start ({0})")]
    Thread(std::io::Error),
}

impl From<x11rb::errors::ConnectionError> for OverlayError {
    fn from(err: x11rb::errors::ConnectionError) -> Self {
        Self::Refused(err.into())
    }
}

impl From<x11rb::errors::ReplyError> for OverlayError {
    fn from(err: x11rb::errors::ReplyError) -> Self {
        Self::Refused(err.into())
    }
}

/// The drawing side: the window, and what it shows.
struct Drawing {
    conn: RustConnection,
    window: u32,
    gc: u32,
    /// The main connection, whose monitor list says where the primary monitor is.
    x11: Arc<X11>,
    /// The root window's size, which the window covers.
    screen: Rect,
    marker_pixel: u32,
    dark_pixel: u32,
    light_pixel: u32,
    markers: Vec<(Vec<Rect>, Instant)>,
    with_indicator: bool,
    /// Where the indicator is, when it is shown.
    indicator: Option<Rect>,
    /// Captures under way that asked the overlay out of their way.
    captures: usize,
    mapped: bool,
    /// When the overlay last left pixels it had covered, which the windows beneath repaint.
    uncovered_at: Option<Instant>,
    ticked_at: Instant,
}

/// Creates the overlay's window on `display` and starts its thread. `indicator` shows the
/// line that an agent is acting for as long as the process runs, at the top of the primary
/// monitor as `x11` lists the monitors. Connecting and creating the window wait on the server:
/// a server that does not answer costs the setup deadline.
pub fn start(display: &str, indicator: bool, x11: Arc<X11>) -> Result<Overlay, OverlayError> {
    let (to_thread, messages) = mpsc::channel();
    let name = display.to_owned();
    own_thread::start(
        "deskhand-overlay",
        own_thread::SETUP_DEADLINE,
        move || Drawing::set_up(&name, indicator, x11),
        move |mut drawing| crate::overlay::serve(&mut drawing, &messages),
    )
    .map_err(|unstarted| match unstarted {
        Unstarted::Failed(err) => err,
        Unstarted::NoAnswer(waited) => OverlayError::NoAnswer {
            display: display.to_owned(),
            waited,
        },
        Unstarted::NoThread(err) => OverlayError::Thread(err),
    })?;
    Ok(Overlay { to_thread })
}

impl Draws for Drawing {
    type Error = OverlayError;

    fn markers(&mut self) -> &mut Vec<(Vec<Rect>, Instant)> {
        &mut self.markers
    }

    fn captures(&mut self) -> &mut usize {
        &mut self.captures
    }

    fn redraw(&mut self) -> Result<(), OverlayError> {
        Drawing::redraw(self)
    }

    fn step_aside(&mut self, region: &Rect) -> (Result<(), OverlayError>, Duration) {
        let covered = self.mapped && self.shown().iter().any(|r| overlaps(r, region));
        let hid = if covered { self.unmap() } else { Ok(()) };
        let repaint = self
            .uncovered_at
            .map(|at| REPAINT.saturating_sub(at.elapsed()))
            .unwrap_or_default();
        (hid, repaint)
    }

    fn ticked_at(&self) -> Instant {
        self.ticked_at
    }

    fn tick(&mut self) -> Result<(), OverlayError> {
        Drawing::tick(self)
    }
}

impl Drawing {
    fn set_up(display: &str, indicator: bool, x11: Arc<X11>) -> Result<Drawing, OverlayError> {
        let (conn, screen_index) =
            RustConnection::connect(Some(display)).map_err(|cause| OverlayError::Connect {
                display: display.to_owned(),
                cause,
            })?;
        let screen = conn.setup().roots[screen_index].clone();
        let visual = screen
            .allowed_depths
            .iter()
            .filter(|d| d.depth == 32)
            .flat_map(|d| d.visuals.iter())
            .find(|v| v.class == VisualClass::TRUE_COLOR)
            .copied()
            .ok_or(OverlayError::NoArgbVisual)?;
        let pixel = |[r, g, b]: [u8; 3]| {
            let channel = |value: u8, mask: u32| (u32::from(value) << mask.trailing_zeros()) & mask;
            let alpha = !(visual.red_mask | visual.green_mask | visual.blue_mask);
            alpha
                | channel(r, visual.red_mask)
                | channel(g, visual.green_mask)
                | channel(b, visual.blue_mask)
        };
        let colormap = conn.generate_id()?;
        conn.create_colormap(ColormapAlloc::NONE, colormap, screen.root, visual.visual_id)?;
        let window = conn.generate_id()?;
        conn.create_window(
            32,
            window,
            screen.root,
            0,
            0,
            screen.width_in_pixels,
            screen.height_in_pixels,
            0,
            WindowClass::INPUT_OUTPUT,
            visual.visual_id,
            &CreateWindowAux::new()
                .background_pixel(0)
                .border_pixel(0)
                .colormap(colormap)
                .override_redirect(1)
                .event_mask(EventMask::EXPOSURE),
        )?;
        conn.change_property8(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_NAME,
            AtomEnum::STRING,
            b"deskhand",
        )?;
        conn.change_property8(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_CLASS,
            AtomEnum::STRING,
            b"deskhand\0deskhand\0",
        )?;
        // Nothing the pointer or keyboard does reaches the overlay.
        conn.shape_rectangles(
            SO::SET,
            SK::INPUT,
            ClipOrdering::UNSORTED,
            window,
            0,
            0,
            &[],
        )?;
        // A screen that grows or shrinks, or monitors that come and go, move the indicator and
        // resize the window.
        if conn
            .extension_information(randr::X11_EXTENSION_NAME)?
            .is_some()
        {
            conn.randr_select_input(
                screen.root,
                NotifyMask::SCREEN_CHANGE | NotifyMask::CRTC_CHANGE | NotifyMask::OUTPUT_CHANGE,
            )?;
        }
        let font = conn.generate_id()?;
        let font_opened = conn.open_font(font, b"fixed")?.check().is_ok();
        let gc = conn.generate_id()?;
        let mut gc_aux = CreateGCAux::new().graphics_exposures(0);
        if font_opened {
            gc_aux = gc_aux.font(font);
        }
        conn.create_gc(gc, window, &gc_aux)?;
        conn.sync()?;
        let mut drawing = Drawing {
            conn,
            window,
            gc,
            x11,
            screen: rect(
                0,
                0,
                u32::from(screen.width_in_pixels),
                u32::from(screen.height_in_pixels),
            ),
            marker_pixel: pixel(MARKER_RGB),
            dark_pixel: pixel([0x20, 0x20, 0x28]),
            light_pixel: pixel([0xf0, 0xf0, 0xf0]),
            markers: Vec::new(),
            with_indicator: indicator,
            indicator: None,
            captures: 0,
            mapped: false,
            uncovered_at: None,
            ticked_at: Instant::now(),
        };
        drawing.lay_out()?;
        Ok(drawing)
    }

    /// Takes down the markers whose second is up, and follows what the server said: a part
    /// of the window exposed, or the screen or its monitors changed.
    fn tick(&mut self) -> Result<(), OverlayError> {
        let now = Instant::now();
        self.ticked_at = now;
        let before = self.markers.len();
        self.markers.retain(|(_, until)| *until > now);
        if self.markers.len() != before {
            self.uncovered_at = Some(now);
        }
        let mut exposed = false;
        let mut screen_changed = false;
        while let Some(event) = self.conn.poll_for_event()? {
            match event {
                Event::Expose(_) => exposed = true,
                Event::RandrScreenChangeNotify(_) | Event::RandrNotify(_) => screen_changed = true,
                _ => {}
            }
        }
        if screen_changed {
            self.lay_out()?;
        }
        if exposed || screen_changed || self.markers.len() != before {
            self.redraw()?;
        }
        Ok(())
    }

    /// Sizes the window to the screen, and puts the indicator at the top of the primary
    /// monitor, in its middle.
    fn lay_out(&mut self) -> Result<(), OverlayError> {
        let (width, height) = self.x11.screen_size();
        self.screen = rect(0, 0, width, height);
        self.conn.configure_window(
            self.window,
            &ConfigureWindowAux::new()
                .x(0)
                .y(0)
                .width(width)
                .height(height),
        )?;
        let primary = self
            .x11
            .monitors()
            .ok()
            .and_then(|listed| deskhand_core::monitors::ordered(listed).into_iter().next())
            .map_or(self.screen, |monitor| monitor.bounds);
        let line_width = CHAR_WIDTH * INDICATOR_TEXT.len() as u32 + 12;
        self.indicator = self.with_indicator.then(|| {
            rect(
                primary.x + (primary.width.saturating_sub(line_width) / 2) as i32,
                primary.y,
                line_width.min(primary.width),
                INDICATOR_HEIGHT,
            )
        });
        Ok(())
    }

    fn shown(&self) -> Vec<Rect> {
        self.markers
            .iter()
            .flat_map(|(rects, _)| rects.iter().copied())
            .chain(self.indicator)
            .collect()
    }

    fn unmap(&mut self) -> Result<(), OverlayError> {
        if self.mapped {
            self.conn.unmap_window(self.window)?;
            self.mapped = false;
            self.uncovered_at = Some(Instant::now());
        }
        // Known to the server before the capture that waits on this is sent.
        self.conn.sync()?;
        Ok(())
    }

    /// Shapes the window to the markers and draws them, or takes it down when there are none
    /// or a capture is under way.
    fn redraw(&mut self) -> Result<(), OverlayError> {
        let shown = self.shown();
        if shown.is_empty() || self.captures > 0 {
            return self.unmap();
        }
        let rectangles: Vec<Rectangle> = shown.iter().filter_map(|r| self.clip(r)).collect();
        self.conn.shape_rectangles(
            SO::SET,
            SK::BOUNDING,
            ClipOrdering::UNSORTED,
            self.window,
            0,
            0,
            &rectangles,
        )?;
        if !self.mapped {
            self.conn.map_window(self.window)?;
            self.mapped = true;
        }
        self.conn.configure_window(
            self.window,
            &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
        )?;
        let full = Rectangle {
            x: 0,
            y: 0,
            width: self.screen.width as u16,
            height: self.screen.height as u16,
        };
        self.conn
            .change_gc(self.gc, &ChangeGCAux::new().foreground(self.marker_pixel))?;
        self.conn
            .poly_fill_rectangle(self.window, self.gc, &[full])?;
        if let Some(line) = self.indicator.and_then(|r| self.clip(&r)) {
            self.conn
                .change_gc(self.gc, &ChangeGCAux::new().foreground(self.dark_pixel))?;
            self.conn
                .poly_fill_rectangle(self.window, self.gc, &[line])?;
            self.conn.change_gc(
                self.gc,
                &ChangeGCAux::new()
                    .foreground(self.light_pixel)
                    .background(self.dark_pixel),
            )?;
            self.conn.image_text8(
                self.window,
                self.gc,
                line.x + 6,
                line.y + 13,
                INDICATOR_TEXT,
            )?;
        }
        self.conn.flush()?;
        Ok(())
    }

    fn clip(&self, r: &Rect) -> Option<Rectangle> {
        if !overlaps(r, &self.screen) {
            return None;
        }
        let x = r.x.max(0);
        let y = r.y.max(0);
        let right = (i64::from(r.x) + i64::from(r.width)).min(i64::from(self.screen.width));
        let bottom = (i64::from(r.y) + i64::from(r.height)).min(i64::from(self.screen.height));
        Some(Rectangle {
            x: x as i16,
            y: y as i16,
            width: (right - i64::from(x)) as u16,
            height: (bottom - i64::from(y)) as u16,
        })
    }
}
