//! The overlay that shows a person beside the agent where it acts: a ring at a pointer
//! action's target, a box around the element acted on, the element typed into outlined, and a
//! small indicator while an agent is connected. Input passes through it, it never takes the
//! focus, and it is hidden around deskhand's own captures.
//!
//! It draws on a connection and a thread of its own: an action only sends it a message.

pub mod x11;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use deskhand_core::backend::Intent;
use deskhand_core::model::{Point, Rect};

/// How often the drawing thread wakes to take down markers whose second is up.
const TICK: Duration = Duration::from_millis(100);

/// How long a marker stays on the screen after the action it shows.
pub(crate) const SHOWN_FOR: Duration = Duration::from_secs(1);

/// How long a capture waits for the overlay to say it is hidden; a drawing thread that does
/// not answer has lost its connection, and with it its window.
const HIDE_DEADLINE: Duration = Duration::from_millis(500);

/// Once the overlay leaves pixels (hidden for a capture, or a marker's second up), the windows
/// beneath repaint them; a capture taken sooner could still see the marker there.
const REPAINT: Duration = Duration::from_millis(60);

/// The markers' colour, a pink no toolkit theme draws, so a person (and a test) can tell it.
pub const MARKER_RGB: [u8; 3] = [0xff, 0x2d, 0x95];

/// The indicator's text, in ISO 8859-1 for the X core font (and sway's overlay's own glyphs).
pub(crate) const INDICATOR_TEXT: &[u8] = b"deskhand is acting \xb7 top-left corner to stop";

/// The ring's outer radius and the width of every line drawn.
const RING_RADIUS: i32 = 18;
const LINE: i32 = 3;

pub(crate) enum Message {
    Show(Intent),
    /// Hide whatever covers this region, then answer how long the windows beneath may still
    /// take to repaint what the overlay covered until moments ago.
    Hide(Rect, mpsc::SyncSender<Duration>),
    /// A capture that hid the overlay is done.
    Release,
}

/// The handle actions and captures hold; the drawing happens on the overlay's thread.
pub struct Overlay {
    pub(crate) to_thread: mpsc::Sender<Message>,
}

impl Overlay {
    /// Shows where an action is about to act; never waits.
    pub fn show(&self, intent: Intent) {
        let _ = self.to_thread.send(Message::Show(intent));
    }

    /// Hides the overlay from `rect` until the returned guard is dropped, and waits until the
    /// windows beneath have repainted, so a capture of `rect` has none of its pixels.
    pub fn hidden_from(&self, rect: Rect) -> Hidden {
        let (answer, answered) = mpsc::sync_channel(1);
        if self.to_thread.send(Message::Hide(rect, answer)).is_err() {
            return Hidden { overlay: None };
        }
        if let Ok(repaint) = answered.recv_timeout(HIDE_DEADLINE) {
            std::thread::sleep(repaint);
        }
        Hidden {
            overlay: Some(self.to_thread.clone()),
        }
    }
}

/// While held, the overlay stays hidden from a capture; it holds no borrow, so a capture that
/// awaits in between (sway's, one output at a time) can keep it.
pub struct Hidden {
    overlay: Option<mpsc::Sender<Message>>,
}

impl Drop for Hidden {
    fn drop(&mut self) {
        if let Some(overlay) = &self.overlay {
            let _ = overlay.send(Message::Release);
        }
    }
}

/// One marker as drawn: its outline as rectangles in root coordinates.
pub(crate) fn outline(intent: Intent) -> Vec<Rect> {
    match intent {
        Intent::Point(at) => ring(at),
        Intent::Element(bounds) | Intent::Typing(bounds) => frame(bounds),
    }
}

/// A ring around `at`, row by row, with a dot at its center.
fn ring(at: Point) -> Vec<Rect> {
    let outer = f64::from(RING_RADIUS);
    let inner = f64::from(RING_RADIUS - LINE);
    let mut rows = Vec::new();
    for dy in -RING_RADIUS..=RING_RADIUS {
        let d = f64::from(dy);
        let out = (outer * outer - d * d).sqrt() as i32;
        let y = at.y + dy;
        if d.abs() < inner {
            let within = (inner * inner - d * d).sqrt() as i32;
            let width = (out - within).max(1) as u32;
            rows.push(rect(at.x - out, y, width, 1));
            rows.push(rect(at.x + within + 1, y, width, 1));
        } else {
            rows.push(rect(at.x - out, y, (2 * out + 1) as u32, 1));
        }
    }
    rows.push(rect(at.x - 2, at.y - 2, 5, 5));
    rows
}

/// A frame just inside `bounds`, so a click on it still lands on the element.
fn frame(bounds: Rect) -> Vec<Rect> {
    let line = (LINE as u32)
        .min(bounds.width / 2)
        .min(bounds.height / 2)
        .max(1);
    let Rect {
        x,
        y,
        width,
        height,
    } = bounds;
    vec![
        rect(x, y, width, line),
        rect(x, y + height as i32 - line as i32, width, line),
        rect(x, y, line, height),
        rect(x + width as i32 - line as i32, y, line, height),
    ]
}

pub(crate) fn rect(x: i32, y: i32, width: u32, height: u32) -> Rect {
    Rect {
        x,
        y,
        width,
        height,
    }
}

pub(crate) fn overlaps(a: &Rect, b: &Rect) -> bool {
    let (ax2, ay2) = (
        i64::from(a.x) + i64::from(a.width),
        i64::from(a.y) + i64::from(a.height),
    );
    let (bx2, by2) = (
        i64::from(b.x) + i64::from(b.width),
        i64::from(b.y) + i64::from(b.height),
    );
    i64::from(a.x) < bx2 && i64::from(b.x) < ax2 && i64::from(a.y) < by2 && i64::from(b.y) < ay2
}

/// What draws the overlay on one display server, for [`serve`], which runs its thread.
pub(crate) trait Draws {
    type Error;
    /// The markers shown, each until its time is up.
    fn markers(&mut self) -> &mut Vec<(Vec<Rect>, Instant)>;
    /// Captures under way that asked the overlay out of their way.
    fn captures(&mut self) -> &mut usize;
    /// Shows what should be shown now.
    fn redraw(&mut self) -> Result<(), Self::Error>;
    /// Gets out of the way of a capture of `region`; with how long the capture should still
    /// wait for what is beneath to be drawn again.
    fn step_aside(&mut self, region: &Rect) -> (Result<(), Self::Error>, Duration);
    /// When [`Draws::tick`] last ran.
    fn ticked_at(&self) -> Instant;
    /// Takes down the markers whose second is up, and follows what the display server said.
    fn tick(&mut self) -> Result<(), Self::Error>;
}

/// Serves `messages` until every handle is gone or drawing fails (the display connection is
/// gone, and the overlay with it).
pub(crate) fn serve(drawing: &mut impl Draws, messages: &mpsc::Receiver<Message>) {
    if drawing.redraw().is_err() {
        return;
    }
    loop {
        let drew = match messages.recv_timeout(TICK) {
            Ok(Message::Show(intent)) => {
                drawing
                    .markers()
                    .push((outline(intent), Instant::now() + SHOWN_FOR));
                drawing.redraw()
            }
            Ok(Message::Hide(region, answer)) => {
                *drawing.captures() += 1;
                let (hid, wait) = drawing.step_aside(&region);
                let _ = answer.send(wait);
                hid
            }
            Ok(Message::Release) => {
                let captures = drawing.captures();
                *captures = captures.saturating_sub(1);
                drawing.redraw()
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(()),
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        // Due even while actions follow each other faster than the tick.
        let ticked = if drawing.ticked_at().elapsed() >= TICK {
            drawing.tick()
        } else {
            Ok(())
        };
        if drew.and(ticked).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_surrounds_the_target_and_leaves_a_gap_between_dot_and_rim() {
        let at = Point { x: 100, y: 200 };
        let drawn = ring(at);
        let covers = |x, y| drawn.iter().any(|r| overlaps(r, &rect(x, y, 1, 1)));
        assert!(covers(100, 200), "the dot at the target");
        assert!(!covers(100 + 8, 200), "the gap inside the rim");
        assert!(covers(100 + RING_RADIUS - 1, 200), "the rim");
        assert!(covers(100, 200 - RING_RADIUS), "the rim's top");
        assert!(
            !covers(100 + RING_RADIUS + 1, 200),
            "nothing outside the rim"
        );
    }

    #[test]
    fn the_frame_lies_inside_the_element() {
        let bounds = rect(10, 20, 80, 30);
        for edge in frame(bounds) {
            assert!(edge.x >= 10 && edge.y >= 20, "{edge:?}");
            assert!(edge.x + edge.width as i32 <= 90, "{edge:?}");
            assert!(edge.y + edge.height as i32 <= 50, "{edge:?}");
        }
        assert!(
            !frame(bounds)
                .iter()
                .any(|e| overlaps(e, &rect(50, 35, 1, 1)))
        );
    }
}
