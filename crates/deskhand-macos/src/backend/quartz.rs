//! Quartz: the on-screen window list, the displays, synthetic events posted to the HID event
//! tap, and screen captures.

use objc2_core_foundation::{
    CFDictionary, CFNumber, CFRetained, CFString, CFType, CGPoint, CGRect, CGSize,
};
use objc2_core_graphics::{
    CGDataProvider, CGDirectDisplayID, CGDisplayBounds, CGDisplayCopyDisplayMode, CGDisplayMode,
    CGError, CGEvent, CGEventField, CGEventFlags, CGEventSource, CGEventSourceStateID,
    CGEventTapLocation, CGEventType, CGGetActiveDisplayList, CGImage, CGMouseButton,
    CGRectMakeWithDictionaryRepresentation, CGScrollEventUnit, CGWindowImageOption,
    CGWindowListCopyWindowInfo, CGWindowListOption, kCGWindowAlpha, kCGWindowBounds,
    kCGWindowIsOnscreen, kCGWindowLayer, kCGWindowName, kCGWindowNumber, kCGWindowOwnerName,
    kCGWindowOwnerPID,
};

use deskhand_core::model::{MouseButton, Point, Rect, RgbImage};

use crate::attributes::FrameF;
use crate::display::{Channels, Display, scale_of, to_rgb};
use crate::keys::KeyEvent;
use crate::windows::CgWindow;

fn frame(rect: CGRect) -> FrameF {
    FrameF {
        x: rect.origin.x,
        y: rect.origin.y,
        width: rect.size.width,
        height: rect.size.height,
    }
}

/// Every window, without the desktop's own: the on-screen ones front to back, then those put
/// away (minimized, hidden, on another Space), each saying whether it is on screen. The
/// on-screen list alone would lose a window the moment it is minimized.
pub fn window_list() -> Vec<CgWindow> {
    let options = CGWindowListOption::OptionAll | CGWindowListOption::ExcludeDesktopElements;
    let Some(list) = CGWindowListCopyWindowInfo(options, 0) else {
        return Vec::new();
    };
    // SAFETY: the list holds one CFDictionary of CFString keys per window.
    let list = unsafe { list.cast_unchecked::<CFDictionary>() };
    (0..list.len())
        .filter_map(|i| list.get(i))
        .filter_map(|info| window_of(&info))
        .collect()
}

fn window_of(info: &CFDictionary) -> Option<CgWindow> {
    // SAFETY: window descriptions map CFString keys to CFTypes.
    let info = unsafe { info.cast_unchecked::<CFString, CFType>() };
    // SAFETY: the keys are constants of the framework.
    let (number, pid, owner, name, bounds, layer, alpha, on_screen) = unsafe {
        (
            kCGWindowNumber,
            kCGWindowOwnerPID,
            kCGWindowOwnerName,
            kCGWindowName,
            kCGWindowBounds,
            kCGWindowLayer,
            kCGWindowAlpha,
            kCGWindowIsOnscreen,
        )
    };
    let number_at =
        |key: &CFString| -> Option<f64> { info.get(key)?.downcast_ref::<CFNumber>()?.as_f64() };
    let text_at = |key: &CFString| -> String {
        info.get(key)
            .and_then(|v| v.downcast_ref::<CFString>().map(ToString::to_string))
            .unwrap_or_default()
    };
    let bounds_value = info.get(bounds)?;
    let bounds_dict = bounds_value.downcast_ref::<CFDictionary>()?;
    let mut rect = CGRect::new(CGPoint::new(0.0, 0.0), CGSize::new(0.0, 0.0));
    // SAFETY: `rect` is valid to fill; the dictionary is a window's bounds.
    if !unsafe { CGRectMakeWithDictionaryRepresentation(Some(bounds_dict), &mut rect) } {
        return None;
    }
    Some(CgWindow {
        id: number_at(number)? as u64,
        pid: number_at(pid)? as u32,
        owner: text_at(owner),
        title: text_at(name),
        bounds: frame(rect),
        layer: number_at(layer).unwrap_or(0.0) as i64,
        alpha: number_at(alpha).unwrap_or(1.0),
        // A boolean CFNumber/CFBoolean; absent means off screen.
        on_screen: info.get(on_screen).is_some_and(|value| {
            value
                .downcast_ref::<objc2_core_foundation::CFBoolean>()
                .map(|b| b.as_bool())
                .or_else(|| value.downcast_ref::<CFNumber>()?.as_i64().map(|n| n != 0))
                .unwrap_or(false)
        }),
    })
}

/// The active displays with their scale.
pub fn displays() -> Vec<Display> {
    let mut ids: [CGDirectDisplayID; 32] = [0; 32];
    let mut count: u32 = 0;
    // SAFETY: both buffers are valid for the sizes given.
    let err = unsafe { CGGetActiveDisplayList(ids.len() as u32, ids.as_mut_ptr(), &mut count) };
    if err != CGError::Success {
        return Vec::new();
    }
    ids[..(count as usize).min(ids.len())]
        .iter()
        .map(|&id| {
            let mode = CGDisplayCopyDisplayMode(id);
            let scale = scale_of(
                CGDisplayMode::pixel_width(mode.as_deref()),
                CGDisplayMode::width(mode.as_deref()),
            );
            Display {
                id,
                bounds: frame(CGDisplayBounds(id)),
                scale,
            }
        })
        .collect()
}

/// Where the pointer is, in global display points.
pub fn pointer() -> Option<Point> {
    let event = CGEvent::new(None)?;
    let at = CGEvent::location(Some(&event));
    Some(Point {
        x: at.x.round() as i32,
        y: at.y.round() as i32,
    })
}

/// Why an event could not be made.
pub const NO_EVENT: &str = "the system refused to create an input event";

fn post(event: &CGEvent) {
    CGEvent::post(CGEventTapLocation::HIDEventTap, Some(event));
}

/// The Quartz button and its down, up and dragged event types.
fn button_events(button: MouseButton) -> (CGMouseButton, CGEventType, CGEventType, CGEventType) {
    match button {
        MouseButton::Left => (
            CGMouseButton::Left,
            CGEventType::LeftMouseDown,
            CGEventType::LeftMouseUp,
            CGEventType::LeftMouseDragged,
        ),
        MouseButton::Right => (
            CGMouseButton::Right,
            CGEventType::RightMouseDown,
            CGEventType::RightMouseUp,
            CGEventType::RightMouseDragged,
        ),
        MouseButton::Middle => (
            CGMouseButton::Center,
            CGEventType::OtherMouseDown,
            CGEventType::OtherMouseUp,
            CGEventType::OtherMouseDragged,
        ),
    }
}

fn location(point: Point) -> CGPoint {
    CGPoint::new(f64::from(point.x), f64::from(point.y))
}

/// Moves the pointer; while `held` is down the move is a drag, as the app expects.
pub fn move_pointer(to: Point, held: Option<MouseButton>) -> Result<(), &'static str> {
    let (button, kind) = match held {
        Some(held) => {
            let (button, _, _, dragged) = button_events(held);
            (button, dragged)
        }
        None => (CGMouseButton::Left, CGEventType::MouseMoved),
    };
    let event = CGEvent::new_mouse_event(None, kind, location(to), button).ok_or(NO_EVENT)?;
    post(&event);
    Ok(())
}

/// A button press or release at `at`; `click_state` counts the clicks of a double or triple
/// click, which apps read from the event rather than from the timing.
pub fn button(
    at: Point,
    which: MouseButton,
    down: bool,
    flags: u64,
    click_state: i64,
) -> Result<(), &'static str> {
    let (button, pressed, released, _) = button_events(which);
    let kind = if down { pressed } else { released };
    let event = CGEvent::new_mouse_event(None, kind, location(at), button).ok_or(NO_EVENT)?;
    CGEvent::set_integer_value_field(
        Some(&event),
        CGEventField::MouseEventClickState,
        click_state,
    );
    CGEvent::set_flags(Some(&event), CGEventFlags(flags));
    post(&event);
    Ok(())
}

/// Scrolls by whole lines: positive `vertical` up, positive `horizontal` left, as Quartz counts.
pub fn scroll(vertical: i32, horizontal: i32) -> Result<(), &'static str> {
    let event =
        CGEvent::new_scroll_wheel_event2(None, CGScrollEventUnit::Line, 2, vertical, horizontal, 0)
            .ok_or(NO_EVENT)?;
    post(&event);
    Ok(())
}

/// One key event, from the HID system state source as a keyboard's own events come (events
/// from no source are taken by some apps as another kind, and dropped); with a character it
/// types that character whatever the key code.
pub fn key(event: &KeyEvent) -> Result<(), &'static str> {
    let source = CGEventSource::new(CGEventSourceStateID::HIDSystemState);
    let key =
        CGEvent::new_keyboard_event(source.as_deref(), event.code, event.down).ok_or(NO_EVENT)?;
    // Flags are set on every event, so a modifier the user happens to hold does not join in.
    CGEvent::set_flags(Some(&key), CGEventFlags(event.flags));
    if let Some(c) = event.unicode {
        let units: Vec<u16> = c.encode_utf16(&mut [0; 2]).to_vec();
        // SAFETY: the pointer and length describe `units`, alive for the call.
        unsafe {
            CGEvent::keyboard_set_unicode_string(Some(&key), units.len() as _, units.as_ptr())
        };
    }
    post(&key);
    Ok(())
}

/// The pixels of `rect` (global display points) through the window list, at the finest
/// resolution of the displays it touches, or `None` when Quartz gives no image.
pub fn capture(rect: Rect) -> Option<RgbImage> {
    let bounds = CGRect::new(
        CGPoint::new(f64::from(rect.x), f64::from(rect.y)),
        CGSize::new(f64::from(rect.width), f64::from(rect.height)),
    );
    // Deprecated for ScreenCaptureKit, which takes the capture from macOS 14 on; this one is
    // kept for the systems before, and for when ScreenCaptureKit fails.
    #[allow(deprecated)]
    let image = objc2_core_graphics::CGWindowListCreateImage(
        bounds,
        CGWindowListOption::OptionOnScreenOnly,
        0,
        CGWindowImageOption::BestResolution,
    )?;
    image_pixels(&image)
}

/// The pixels of a 32-bit image; `None` for any other layout.
pub fn image_pixels(image: &CGImage) -> Option<RgbImage> {
    let image = Some(image);
    if CGImage::bits_per_pixel(image) != 32 || CGImage::bits_per_component(image) != 8 {
        return None;
    }
    let width = CGImage::width(image);
    let height = CGImage::height(image);
    let bytes_per_row = CGImage::bytes_per_row(image);
    let provider: CFRetained<CGDataProvider> = CGImage::data_provider(image)?;
    let data = CGDataProvider::data(Some(&provider))?;
    let channels = Channels::of(CGImage::bitmap_info(image).0);
    let rgb = to_rgb(&data.to_vec(), width, height, bytes_per_row, channels)?;
    Some(RgbImage {
        width: width as u32,
        height: height as u32,
        data: rgb,
    })
}
