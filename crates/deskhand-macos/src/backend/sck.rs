//! ScreenCaptureKit (macOS 14 and later): the shareable displays and one screenshot of each
//! piece of a capture. Both calls answer through a completion handler on a queue of the
//! framework's; each is waited for with a deadline, so a capture daemon that does not answer
//! costs a bounded time and the window list takes over.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use block2::RcBlock;
use objc2::AnyThread;
use objc2::rc::Retained;
use objc2_core_foundation::{CFRetained, CGPoint, CGRect, CGSize};
use objc2_core_graphics::CGImage;
use objc2_foundation::{NSArray, NSError};
use objc2_screen_capture_kit::{
    SCContentFilter, SCDisplay, SCScreenshotManager, SCShareableContent, SCStreamConfiguration,
    SCWindow,
};

use deskhand_core::model::RgbImage;

use crate::capture::{Piece, canvas, paste};

/// How long the framework may take to list the displays, and to take one screenshot.
const ANSWER_WAIT: Duration = Duration::from_secs(2);

/// Why ScreenCaptureKit gave no image: the `SCStreamError` code, or `None` when it did not
/// answer in time or answered with nothing.
pub struct Failed(pub Option<isize>);

/// Requests whose handler has not run yet. While one is out the framework is not answering,
/// and another would only queue behind it: the window list takes the capture instead.
static UNANSWERED: AtomicUsize = AtomicUsize::new(0);

/// Counts a request as sent, unless an earlier one is still unanswered.
fn send_request() -> Result<(), Failed> {
    if UNANSWERED.load(Ordering::SeqCst) > 0 {
        return Err(Failed(None));
    }
    UNANSWERED.fetch_add(1, Ordering::SeqCst);
    Ok(())
}

fn answered() {
    UNANSWERED.fetch_sub(1, Ordering::SeqCst);
}

/// A value handed from the framework's queue to the waiting thread.
struct Handed<T>(T);

// SAFETY: the values handed over (a shareable-content snapshot, an image) are immutable, and
// once sent only the receiving thread touches them.
unsafe impl<T> Send for Handed<T> {}

type Answer<T> = Result<Handed<T>, Option<isize>>;

fn code_of(error: *mut NSError) -> Option<isize> {
    // SAFETY: the framework passes a valid error or null, alive during the handler.
    unsafe { error.as_ref() }.map(NSError::code)
}

fn wait<T>(answers: &mpsc::Receiver<Answer<T>>) -> Result<T, Failed> {
    match answers.recv_timeout(ANSWER_WAIT) {
        Ok(Ok(Handed(value))) => Ok(value),
        Ok(Err(code)) => Err(Failed(code)),
        // A late answer goes to a closed channel and is dropped there.
        Err(_) => Err(Failed(None)),
    }
}

fn displays() -> Result<Retained<NSArray<SCDisplay>>, Failed> {
    let (send, answers) = mpsc::channel::<Answer<Retained<SCShareableContent>>>();
    let handler = RcBlock::new(
        move |content: *mut SCShareableContent, error: *mut NSError| {
            // SAFETY: the framework passes a valid object or null; retaining keeps it past
            // the handler.
            let content = unsafe { Retained::retain(content) };
            answered();
            let _ = send.send(content.map(Handed).ok_or_else(|| code_of(error)));
        },
    );
    send_request()?;
    // SAFETY: the handler has the signature the method declares and owns all it uses.
    unsafe {
        SCShareableContent::getShareableContentExcludingDesktopWindows_onScreenWindowsOnly_completionHandler(
            true, true, &handler,
        );
    }
    let content = wait(&answers)?;
    // SAFETY: a plain getter of the snapshot.
    Ok(unsafe { content.displays() })
}

fn screenshot(display: &SCDisplay, piece: &Piece) -> Result<RgbImage, Failed> {
    let no_windows = NSArray::<SCWindow>::new();
    // SAFETY: the display comes from the shareable content; an empty list excludes nothing.
    let filter = unsafe {
        SCContentFilter::initWithDisplay_excludingWindows(
            SCContentFilter::alloc(),
            display,
            &no_windows,
        )
    };
    // SAFETY: plain setters of a fresh configuration; the sizes are those of the plan.
    let configuration = unsafe {
        let configuration = SCStreamConfiguration::new();
        configuration.setWidth(piece.width as usize);
        configuration.setHeight(piece.height as usize);
        configuration.setSourceRect(CGRect::new(
            CGPoint::new(piece.source.x, piece.source.y),
            CGSize::new(piece.source.width, piece.source.height),
        ));
        // The window list leaves the pointer out too.
        configuration.setShowsCursor(false);
        configuration
    };
    let (send, answers) = mpsc::channel::<Answer<CFRetained<CGImage>>>();
    let handler = RcBlock::new(move |image: *mut CGImage, error: *mut NSError| {
        let image = std::ptr::NonNull::new(image).map(|image| {
            // SAFETY: the framework passes a valid image, alive during the handler; retaining
            // keeps it past the handler.
            unsafe { CFRetained::retain(image) }
        });
        answered();
        let _ = send.send(image.map(Handed).ok_or_else(|| code_of(error)));
    });
    send_request()?;
    // SAFETY: the handler has the signature the method declares and owns all it uses.
    unsafe {
        SCScreenshotManager::captureImageWithFilter_configuration_completionHandler(
            &filter,
            &configuration,
            Some(&handler),
        );
    }
    let image = wait(&answers)?;
    super::quartz::image_pixels(&image).ok_or(Failed(None))
}

/// The pieces' screenshots pasted into one image of `width` × `height` pixels.
pub fn capture(width: u32, height: u32, pieces: &[Piece]) -> Result<RgbImage, Failed> {
    let displays = displays()?;
    let mut image = canvas(width, height);
    for piece in pieces {
        let display = displays
            .iter()
            // SAFETY: a plain getter.
            .find(|d| unsafe { d.displayID() } == piece.display)
            .ok_or(Failed(None))?;
        let shot = screenshot(&display, piece)?;
        paste(&mut image, &shot, piece.x, piece.y);
    }
    Ok(image)
}
