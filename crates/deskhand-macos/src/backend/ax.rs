//! The Accessibility API, one element at a time: attribute reads and writes, actions, and the
//! [`AxReader`] the tree walk runs on.

use std::ptr::{self, NonNull};

use objc2_application_services::{
    AXCopyMultipleAttributeOptions, AXError as RawError, AXIsProcessTrustedWithOptions,
    AXUIElement, AXValue, AXValueType, kAXTrustedCheckOptionPrompt,
};
use objc2_core_foundation::{
    CFArray, CFBoolean, CFDictionary, CFIndex, CFNumber, CFRetained, CFString, CFType, CGPoint,
    CGSize,
};

use crate::attributes::{Attributes, AxValue, BATCH, COUNTED};
use crate::errors::AxError;
use crate::handle::Step;
use crate::tree::{AxReader, Children};

/// How long one request to an application may take before the API gives up on it
/// (`kAXErrorCannotComplete`): the bound on what a hung app costs each call.
pub const MESSAGING_TIMEOUT_S: f32 = 1.5;

pub type Element = CFRetained<AXUIElement>;

/// Whether this process may use the Accessibility API; with `prompt`, macOS asks the user
/// once (asynchronously) to grant it.
pub fn trusted(prompt: bool) -> bool {
    // SAFETY: the key is a constant of the framework; the dictionary lives for the call.
    unsafe {
        let options =
            CFDictionary::from_slices(&[kAXTrustedCheckOptionPrompt], &[CFBoolean::new(prompt)]);
        AXIsProcessTrustedWithOptions(Some(options.as_opaque()))
    }
}

fn check(err: RawError) -> Result<(), AxError> {
    if err == RawError::Success {
        Ok(())
    } else {
        Err(AxError(err.0))
    }
}

/// The application element of `pid`, with the messaging timeout set: a timeout is per
/// element, and elements copied from this one take the global one.
pub fn application(pid: u32) -> Element {
    // SAFETY: any pid makes an element; one of a process that is gone fails its requests.
    let app = unsafe { AXUIElement::new_application(pid as libc::pid_t) };
    set_timeout(&app);
    app
}

/// The element for the whole system, whose timeout is the global one.
pub fn system_wide() -> Element {
    // SAFETY: no arguments; the element is always valid.
    let system = unsafe { AXUIElement::new_system_wide() };
    set_timeout(&system);
    system
}

pub fn set_timeout(element: &AXUIElement) {
    // SAFETY: a plain setter on a valid element. Its error (an invalid element) shows in the
    // element's next request.
    let _ = unsafe { element.set_messaging_timeout(MESSAGING_TIMEOUT_S) };
}

/// The attribute's value; `None` where the element has no value for it.
pub fn copy(element: &AXUIElement, name: &str) -> Result<Option<CFRetained<CFType>>, AxError> {
    let attribute = CFString::from_str(name);
    let mut out: *const CFType = ptr::null();
    // SAFETY: `out` is valid for the call to fill; what it fills follows the Copy rule, so the
    // reference is ours to release.
    let err = unsafe { element.copy_attribute_value(&attribute, NonNull::from(&mut out)) };
    match check(err) {
        Ok(()) => Ok(NonNull::new(out.cast_mut()).map(|p| unsafe { CFRetained::from_raw(p) })),
        Err(err) if err.is_absent() => Ok(None),
        Err(err) => Err(err),
    }
}

/// The attribute's value as a plain value.
pub fn value_of(element: &AXUIElement, name: &str) -> Result<Option<AxValue>, AxError> {
    Ok(copy(element, name)?.and_then(|v| plain(&v)))
}

/// A CFType as a plain value; `None` for the error placeholder a batch puts where an
/// attribute is missing.
pub fn plain(value: &CFType) -> Option<AxValue> {
    if let Some(text) = value.downcast_ref::<CFString>() {
        return Some(AxValue::Text(text.to_string()));
    }
    if let Some(flag) = value.downcast_ref::<CFBoolean>() {
        return Some(AxValue::Bool(flag.as_bool()));
    }
    if let Some(number) = value.downcast_ref::<CFNumber>() {
        return Some(number.as_f64().map_or(AxValue::Other, AxValue::Number));
    }
    if let Some(array) = value.downcast_ref::<CFArray>() {
        return Some(AxValue::Count(array.len()));
    }
    if let Some(ax) = value.downcast_ref::<AXValue>() {
        // SAFETY: each read names the type it fills and a buffer of that type.
        unsafe {
            let kind = ax.r#type();
            if kind == AXValueType::CGPoint {
                let mut point = CGPoint::new(0.0, 0.0);
                if ax.value(kind, NonNull::from(&mut point).cast()) {
                    return Some(AxValue::Point {
                        x: point.x,
                        y: point.y,
                    });
                }
            } else if kind == AXValueType::CGSize {
                let mut size = CGSize::new(0.0, 0.0);
                if ax.value(kind, NonNull::from(&mut size).cast()) {
                    return Some(AxValue::Size {
                        width: size.width,
                        height: size.height,
                    });
                }
            } else if kind == AXValueType::AXError {
                return None;
            }
        }
    }
    Some(AxValue::Other)
}

/// The attributes of [`BATCH`] in one request.
pub fn attributes(element: &AXUIElement) -> Result<Attributes, AxError> {
    let names: Vec<CFRetained<CFString>> = BATCH.iter().map(|n| CFString::from_str(n)).collect();
    let refs: Vec<&CFString> = names.iter().map(|n| &**n).collect();
    let list = CFArray::from_objects(&refs);
    let mut out: *const CFArray = ptr::null();
    // SAFETY: the names are CFStrings, `out` is valid to fill and follows the Copy rule. Without
    // `StopOnError` a missing attribute comes back as an AXError value in its place.
    let err = unsafe {
        element.copy_multiple_attribute_values(
            list.as_opaque(),
            AXCopyMultipleAttributeOptions::empty(),
            NonNull::from(&mut out),
        )
    };
    check(err)?;
    let Some(out) = NonNull::new(out.cast_mut()) else {
        return Ok(Attributes::default());
    };
    // SAFETY: a +1 array of CFTypes.
    let values: CFRetained<CFArray> = unsafe { CFRetained::from_raw(out) };
    // SAFETY: every CFArray holds CFTypes.
    let values = unsafe { values.cast_unchecked::<CFType>() };
    let plain_values: Vec<Option<AxValue>> = (0..values.len())
        .map(|i| values.get(i).and_then(|v| plain(&v)))
        .collect();
    Ok(Attributes::from_batch(&plain_values, child_count(element)))
}

/// The elements of an array attribute, `max` at most from `index`.
fn elements(
    element: &AXUIElement,
    name: &str,
    index: usize,
    max: usize,
) -> Result<Vec<Element>, AxError> {
    let attribute = CFString::from_str(name);
    let mut out: *const CFArray = ptr::null();
    // SAFETY: `out` is valid to fill and follows the Copy rule.
    let err = unsafe {
        element.copy_attribute_values(
            &attribute,
            index as CFIndex,
            max as CFIndex,
            NonNull::from(&mut out),
        )
    };
    match check(err) {
        Ok(()) => {}
        Err(err) if err.is_absent() => return Ok(Vec::new()),
        Err(err) => return Err(err),
    }
    let Some(out) = NonNull::new(out.cast_mut()) else {
        return Ok(Vec::new());
    };
    // SAFETY: a +1 array of CFTypes.
    let array: CFRetained<CFArray> = unsafe { CFRetained::from_raw(out) };
    // SAFETY: every CFArray holds CFTypes.
    let array = unsafe { array.cast_unchecked::<CFType>() };
    Ok((0..array.len())
        .filter_map(|i| array.get(i)?.downcast::<AXUIElement>().ok())
        .collect())
}

/// How many children the element has, counted without copying them; `None` for a leaf
/// without the attribute, or one that does not answer (its children are then not asked for).
fn child_count(element: &AXUIElement) -> Option<usize> {
    let attribute = CFString::from_str(COUNTED);
    let mut count: CFIndex = 0;
    // SAFETY: `count` is valid to fill.
    let err = unsafe { element.attribute_value_count(&attribute, NonNull::from(&mut count)) };
    check(err).ok().map(|()| count.max(0) as usize)
}

/// How many values an array attribute holds, counted without reading them.
fn count(element: &AXUIElement, name: &str) -> Result<usize, AxError> {
    let attribute = CFString::from_str(name);
    let mut count: CFIndex = 0;
    // SAFETY: `count` is valid to fill.
    let err = unsafe { element.attribute_value_count(&attribute, NonNull::from(&mut count)) };
    match check(err) {
        Ok(()) => Ok(count.max(0) as usize),
        Err(err) if err.is_absent() => Ok(0),
        Err(err) => Err(err),
    }
}

/// The element one step down, or `None` when there is none there now.
pub fn step(element: &AXUIElement, step: Step) -> Result<Option<Element>, AxError> {
    let (name, index) = match step {
        Step::Child(n) => ("AXChildren", n),
        Step::Row(n) => ("AXRows", n),
        Step::MenuBar => return menu_bar(pid(element)?),
    };
    Ok(elements(element, name, index, 1)?.into_iter().next())
}

/// The menu bar of the application `pid`.
pub fn menu_bar(pid: u32) -> Result<Option<Element>, AxError> {
    let app = application(pid);
    Ok(copy(&app, "AXMenuBar")?.and_then(|bar| bar.downcast::<AXUIElement>().ok()))
}

/// Every element of an array attribute (a window list: a handful).
pub fn all(element: &AXUIElement, name: &str) -> Result<Vec<Element>, AxError> {
    let total = count(element, name)?;
    elements(element, name, 0, total)
}

pub fn action_names(element: &AXUIElement) -> Result<Vec<String>, AxError> {
    let mut out: *const CFArray = ptr::null();
    // SAFETY: `out` is valid to fill and follows the Copy rule.
    let err = unsafe { element.copy_action_names(NonNull::from(&mut out)) };
    match check(err) {
        Ok(()) => {}
        Err(err) if err.is_absent() => return Ok(Vec::new()),
        Err(err) => return Err(err),
    }
    let Some(out) = NonNull::new(out.cast_mut()) else {
        return Ok(Vec::new());
    };
    // SAFETY: a +1 array of CFStrings.
    let array: CFRetained<CFArray> = unsafe { CFRetained::from_raw(out) };
    // SAFETY: every CFArray holds CFTypes.
    let array = unsafe { array.cast_unchecked::<CFType>() };
    Ok((0..array.len())
        .filter_map(|i| {
            let name = array.get(i)?;
            Some(name.downcast_ref::<CFString>()?.to_string())
        })
        .collect())
}

pub fn perform(element: &AXUIElement, action: &str) -> Result<(), AxError> {
    let action = CFString::from_str(action);
    // SAFETY: a valid element and action name.
    check(unsafe { element.perform_action(&action) })
}

pub fn settable(element: &AXUIElement, name: &str) -> Result<bool, AxError> {
    let attribute = CFString::from_str(name);
    let mut settable: u8 = 0;
    // SAFETY: `settable` is valid to fill.
    let err = unsafe { element.is_attribute_settable(&attribute, NonNull::from(&mut settable)) };
    match check(err) {
        Ok(()) => Ok(settable != 0),
        Err(err) if err.is_absent() => Ok(false),
        Err(err) => Err(err),
    }
}

pub fn set(element: &AXUIElement, name: &str, value: &CFType) -> Result<(), AxError> {
    let attribute = CFString::from_str(name);
    // SAFETY: a valid element, attribute name and value.
    check(unsafe { element.set_attribute_value(&attribute, value) })
}

pub fn set_bool(element: &AXUIElement, name: &str, on: bool) -> Result<(), AxError> {
    set(element, name, CFBoolean::new(on))
}

pub fn set_point(element: &AXUIElement, name: &str, x: f64, y: f64) -> Result<(), AxError> {
    let mut point = CGPoint::new(x, y);
    // SAFETY: the buffer holds the type the value is made of.
    let value = unsafe { AXValue::new(AXValueType::CGPoint, NonNull::from(&mut point).cast()) };
    let value = value.ok_or(AxError::FAILURE)?;
    set(element, name, &value)
}

pub fn set_size(element: &AXUIElement, name: &str, width: f64, height: f64) -> Result<(), AxError> {
    let mut size = CGSize::new(width, height);
    // SAFETY: the buffer holds the type the value is made of.
    let value = unsafe { AXValue::new(AXValueType::CGSize, NonNull::from(&mut size).cast()) };
    let value = value.ok_or(AxError::FAILURE)?;
    set(element, name, &value)
}

/// The process an element belongs to.
pub fn pid(element: &AXUIElement) -> Result<u32, AxError> {
    let mut pid: libc::pid_t = 0;
    // SAFETY: `pid` is valid to fill.
    check(unsafe { element.pid(NonNull::from(&mut pid)) })?;
    Ok(pid as u32)
}

/// The walk's reader: the Accessibility API itself.
pub struct Reader;

impl AxReader for Reader {
    type Element = Element;

    fn attributes(&self, element: &Element) -> Result<Attributes, AxError> {
        attributes(element)
    }

    fn value(&self, element: &Element) -> Result<Option<AxValue>, AxError> {
        value_of(element, "AXValue")
    }

    fn children(&self, element: &Element, which: Children) -> Result<Vec<Element>, AxError> {
        match which {
            Children::All { max } => elements(element, "AXChildren", 0, max),
            Children::VisibleRows => all(element, "AXVisibleRows"),
        }
    }

    fn action_names(&self, element: &Element) -> Result<Vec<String>, AxError> {
        action_names(element)
    }

    fn step(&self, element: &Element, which: Step) -> Result<Option<Element>, AxError> {
        step(element, which)
    }
}
