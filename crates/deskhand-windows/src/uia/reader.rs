//! How the walk reads UI Automation's elements into the translation's [`Element`]. On Windows
//! a level of children comes in one cache request, every property with it. Wine 10's client
//! caches nothing but the element itself (`TreeScope_Children` answers `E_NOTIMPL`, as do
//! `ElementFromHandleBuildCache`, `GetCachedPropertyValue` and `GetRuntimeId`), and its walker navigates only under the true condition: there the reader
//! walks the raw view child by child, each child with its properties in one request. Which one
//! a client is, is told by its first cache request. Both read every property through
//! `GetCachedPropertyValueEx`, which Windows and Wine 10 both answer.

use windows::Win32::Foundation::{E_NOTIMPL, HWND};
use windows::Win32::System::Com::SAFEARRAY;
use windows::Win32::System::Variant::{
    VAR_CHANGE_FLAGS, VARENUM, VARIANT, VT_ARRAY, VT_BOOL, VT_BSTR, VT_EMPTY, VT_I4, VT_R8,
    VariantChangeType, VariantClear,
};
use windows::Win32::UI::Accessibility::*;

use super::walk::UiaReader;
use super::{Element, Expand, Patterns, RangeState, Toggle, ValueState};

/// The most children one level gives the walk: its budget is checked between them.
const MOST_CHILDREN: usize = 5000;

/// Every property and pattern state an observation shows, cached in the walk's one request.
const CACHED: &[UIA_PROPERTY_ID] = &[
    UIA_RuntimeIdPropertyId,
    UIA_NamePropertyId,
    UIA_ControlTypePropertyId,
    UIA_LocalizedControlTypePropertyId,
    UIA_BoundingRectanglePropertyId,
    UIA_IsEnabledPropertyId,
    UIA_HasKeyboardFocusPropertyId,
    UIA_IsKeyboardFocusablePropertyId,
    UIA_IsOffscreenPropertyId,
    UIA_IsPasswordPropertyId,
    UIA_AutomationIdPropertyId,
    UIA_IsInvokePatternAvailablePropertyId,
    UIA_IsValuePatternAvailablePropertyId,
    UIA_ValueValuePropertyId,
    UIA_ValueIsReadOnlyPropertyId,
    UIA_IsTogglePatternAvailablePropertyId,
    UIA_ToggleToggleStatePropertyId,
    UIA_IsExpandCollapsePatternAvailablePropertyId,
    UIA_ExpandCollapseExpandCollapseStatePropertyId,
    UIA_IsSelectionItemPatternAvailablePropertyId,
    UIA_SelectionItemIsSelectedPropertyId,
    UIA_IsRangeValuePatternAvailablePropertyId,
    UIA_RangeValueValuePropertyId,
    UIA_RangeValueMinimumPropertyId,
    UIA_RangeValueMaximumPropertyId,
    UIA_RangeValueIsReadOnlyPropertyId,
    UIA_IsLegacyIAccessiblePatternAvailablePropertyId,
    UIA_LegacyIAccessibleDefaultActionPropertyId,
    UIA_WindowIsModalPropertyId,
];

/// A cached property, released after `read` has taken what it needs. Asked through the `Ex`
/// call, which is the plain one with defaults on Windows and the one Wine 10 implements.
fn cached<T>(
    element: &IUIAutomationElement,
    id: UIA_PROPERTY_ID,
    read: impl Fn(&VARIANT) -> T,
) -> Option<T> {
    // SAFETY: the variant is owned here and cleared after reading.
    unsafe {
        let mut value = element.GetCachedPropertyValueEx(id, false).ok()?;
        let read = read(&value);
        let _ = VariantClear(&mut value);
        Some(read)
    }
}

/// The variant converted by OLE to the type `to`, read by `read`: propsys' `VariantTo…`
/// helpers are unimplemented in Wine and abort the calling thread there.
fn converted<T>(variant: &VARIANT, to: VARENUM, read: impl Fn(&VARIANT) -> T) -> Option<T> {
    let mut converted = VARIANT::default();
    // SAFETY: OLE writes a variant of its own, cleared here after reading.
    unsafe {
        VariantChangeType(&mut converted, variant, VAR_CHANGE_FLAGS(0), to).ok()?;
        let read = read(&converted);
        let _ = VariantClear(&mut converted);
        Some(read)
    }
}

fn flag(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> bool {
    cached(element, id, |v| {
        // SAFETY: a VT_BOOL variant, as converted.
        converted(v, VT_BOOL, |b| unsafe {
            b.Anonymous.Anonymous.Anonymous.boolVal.as_bool()
        })
    })
    .flatten()
    .unwrap_or(false)
}

fn int(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> i32 {
    cached(element, id, |v| {
        // SAFETY: a VT_I4 variant, as converted.
        converted(v, VT_I4, |i| unsafe {
            i.Anonymous.Anonymous.Anonymous.lVal
        })
    })
    .flatten()
    .unwrap_or(0)
}

fn number(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> f64 {
    cached(element, id, |v| {
        // SAFETY: a VT_R8 variant, as converted.
        converted(v, VT_R8, |d| unsafe {
            d.Anonymous.Anonymous.Anonymous.dblVal
        })
    })
    .flatten()
    .unwrap_or(0.0)
}

fn text(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> String {
    cached(element, id, variant_text).unwrap_or_default()
}

/// The cached runtime id (`GetRuntimeId`, which asks the app again, is a stub in Wine 10).
fn runtime_id(element: &IUIAutomationElement) -> Vec<i32> {
    cached(element, UIA_RuntimeIdPropertyId, |v| {
        // SAFETY: the tag says which member is live; `cached` clears it after.
        unsafe {
            let inner = &v.Anonymous.Anonymous;
            if inner.vt == VARENUM_ARRAY_I4 {
                array_ints(inner.Anonymous.parray)
            } else {
                Vec::new()
            }
        }
    })
    .unwrap_or_default()
}

/// The tag of a variant holding an array of 32-bit integers (a runtime id).
const VARENUM_ARRAY_I4: VARENUM = VARENUM(VT_ARRAY.0 | VT_I4.0);

/// The integers of a one-dimensional array, or none for a null one.
///
/// # Safety
/// `array` is null or a live array of `i32`.
unsafe fn array_ints(array: *mut SAFEARRAY) -> Vec<i32> {
    if array.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's promise; the count is the array's own.
    unsafe {
        let count = (*array).rgsabound[0].cElements as usize;
        std::slice::from_raw_parts((*array).pvData as *const i32, count).to_vec()
    }
}

/// A variant's text, whole: a fixed buffer would cut a long value or name without saying so,
/// and a read-back would then compare against the cut text.
fn variant_text(variant: &VARIANT) -> String {
    // SAFETY: the tag says which member is live; a BSTR carries its own length.
    unsafe {
        let inner = &variant.Anonymous.Anonymous;
        if inner.vt == VT_BSTR {
            return String::from_utf16_lossy(&inner.Anonymous.bstrVal);
        }
        if inner.vt == VT_EMPTY {
            return String::new();
        }
    }
    // SAFETY: a VT_BSTR variant, as converted.
    converted(variant, VT_BSTR, |text| unsafe {
        String::from_utf16_lossy(&text.Anonymous.Anonymous.Anonymous.bstrVal)
    })
    .unwrap_or_default()
}

/// One cached element as the translation's [`Element`]. A password field's value is cached
/// with the rest but never decoded.
fn read(element: &IUIAutomationElement) -> Element {
    let password = flag(element, UIA_IsPasswordPropertyId);
    // SAFETY: a cached read.
    let bounds = unsafe { element.CachedBoundingRectangle() }
        .ok()
        .filter(|r| r.right > r.left && r.bottom > r.top)
        .map(|r| {
            [
                r.left as f64,
                r.top as f64,
                (r.right - r.left) as f64,
                (r.bottom - r.top) as f64,
            ]
        });
    let patterns = Patterns {
        invoke: flag(element, UIA_IsInvokePatternAvailablePropertyId),
        value: flag(element, UIA_IsValuePatternAvailablePropertyId).then(|| ValueState {
            value: if password {
                String::new()
            } else {
                text(element, UIA_ValueValuePropertyId)
            },
            read_only: flag(element, UIA_ValueIsReadOnlyPropertyId),
        }),
        toggle: flag(element, UIA_IsTogglePatternAvailablePropertyId).then(|| {
            match int(element, UIA_ToggleToggleStatePropertyId) {
                1 => Toggle::On,
                2 => Toggle::Indeterminate,
                _ => Toggle::Off,
            }
        }),
        expand_collapse: flag(element, UIA_IsExpandCollapsePatternAvailablePropertyId).then(|| {
            match int(element, UIA_ExpandCollapseExpandCollapseStatePropertyId) {
                1 => Expand::Expanded,
                2 => Expand::PartiallyExpanded,
                3 => Expand::LeafNode,
                _ => Expand::Collapsed,
            }
        }),
        selection_item: flag(element, UIA_IsSelectionItemPatternAvailablePropertyId)
            .then(|| flag(element, UIA_SelectionItemIsSelectedPropertyId)),
        range_value: flag(element, UIA_IsRangeValuePatternAvailablePropertyId).then(|| {
            RangeState {
                value: number(element, UIA_RangeValueValuePropertyId),
                minimum: number(element, UIA_RangeValueMinimumPropertyId),
                maximum: number(element, UIA_RangeValueMaximumPropertyId),
                read_only: flag(element, UIA_RangeValueIsReadOnlyPropertyId),
            }
        }),
        legacy_default_action: flag(element, UIA_IsLegacyIAccessiblePatternAvailablePropertyId)
            .then(|| text(element, UIA_LegacyIAccessibleDefaultActionPropertyId)),
        // Windows answers a boolean for a pattern the element has or lacks; Wine 10 fails, or
        // answers UI Automation's "not supported" value.
        unread: cached(element, UIA_IsInvokePatternAvailablePropertyId, |v| {
            // SAFETY: the tag of a variant `cached` keeps alive.
            unsafe { v.Anonymous.Anonymous.vt != VT_BOOL }
        })
        .unwrap_or(true),
    };
    Element {
        runtime_id: runtime_id(element),
        name: text(element, UIA_NamePropertyId),
        control_type: int(element, UIA_ControlTypePropertyId),
        localized_control_type: text(element, UIA_LocalizedControlTypePropertyId),
        bounds,
        enabled: flag(element, UIA_IsEnabledPropertyId),
        has_keyboard_focus: flag(element, UIA_HasKeyboardFocusPropertyId),
        keyboard_focusable: flag(element, UIA_IsKeyboardFocusablePropertyId),
        offscreen: flag(element, UIA_IsOffscreenPropertyId),
        password,
        automation_id: text(element, UIA_AutomationIdPropertyId),
        modal: flag(element, UIA_WindowIsModalPropertyId),
        patterns,
        children: Vec::new(),
    }
}

/// The walk's reader: each element with every property of [`CACHED`] in one request.
pub(super) struct Reader {
    /// Every property of [`CACHED`], for the element alone.
    element: IUIAutomationCacheRequest,
    children: Children,
}

/// How a level of children is read.
enum Children {
    /// In one request, each child with its properties, over the control view (Windows).
    Cached(IUIAutomationCacheRequest),
    /// Child by child, each with its properties, over the raw view: Wine 10 caches no scope but
    /// the element's, and its walker navigates under no condition but the true one.
    Walker(IUIAutomationTreeWalker),
}

impl Reader {
    pub(super) fn new(automation: &IUIAutomation) -> windows::core::Result<Reader> {
        // SAFETY: COM calls on objects this function owns.
        unsafe {
            let view = automation.ControlViewCondition()?;
            let request = |scope| -> windows::core::Result<IUIAutomationCacheRequest> {
                let request = automation.CreateCacheRequest()?;
                for &id in CACHED {
                    request.AddProperty(id)?;
                }
                request.SetTreeScope(scope)?;
                request.SetTreeFilter(&view)?;
                Ok(request)
            };
            let children = match request(TreeScope_Children) {
                Ok(children) => Children::Cached(children),
                Err(err) if err.code() == E_NOTIMPL => {
                    Children::Walker(automation.CreateTreeWalker(&automation.RawViewCondition()?)?)
                }
                Err(err) => return Err(err),
            };
            Ok(Reader {
                element: request(TreeScope_Element)?,
                children,
            })
        }
    }

    /// A window's element, read.
    pub(super) fn root(
        &self,
        automation: &IUIAutomation,
        window: HWND,
    ) -> windows::core::Result<(IUIAutomationElement, Element)> {
        // SAFETY: COM calls on objects this reader owns; the window handle is only passed on.
        let root = unsafe {
            match self.children {
                Children::Cached(_) => {
                    automation.ElementFromHandleBuildCache(window, &self.element)?
                }
                // Wine 10 has the plain call, and a cache request of the element alone.
                Children::Walker(_) => automation
                    .ElementFromHandle(window)?
                    .BuildUpdatedCache(&self.element)?,
            }
        };
        let element = read(&root);
        Ok((root, element))
    }

    /// The children one by one: the first, then each one's next sibling. A walker answers no
    /// element (`S_OK` and a null one) where there is none.
    fn walked_children(
        &self,
        walker: &IUIAutomationTreeWalker,
        parent: &IUIAutomationElement,
    ) -> std::result::Result<Vec<(IUIAutomationElement, Element)>, i32> {
        let none = |err: &windows::core::Error| err.code().is_ok();
        // SAFETY: COM calls on live elements with a request this reader owns.
        let mut next = unsafe { walker.GetFirstChildElementBuildCache(parent, &self.element) };
        let mut found = Vec::new();
        while found.len() < MOST_CHILDREN {
            let child = match next {
                Ok(child) => child,
                Err(err) if none(&err) => break,
                Err(err) if found.is_empty() => return Err(err.code().0),
                // The rest of the level is unreadable: the walk goes on with what was read.
                Err(_) => break,
            };
            // SAFETY: as above.
            next = unsafe { walker.GetNextSiblingElementBuildCache(&child, &self.element) };
            let read = read(&child);
            found.push((child, read));
        }
        Ok(found)
    }
}

impl UiaReader for Reader {
    type Live = IUIAutomationElement;

    fn children(
        &self,
        parent: &IUIAutomationElement,
    ) -> std::result::Result<Vec<(IUIAutomationElement, Element)>, i32> {
        let request = match &self.children {
            Children::Cached(request) => request,
            Children::Walker(walker) => return self.walked_children(walker, parent),
        };
        // SAFETY: COM calls on live elements; the array is read within its length.
        unsafe {
            let updated = parent
                .BuildUpdatedCache(request)
                .map_err(|err| err.code().0)?;
            // An element without children answers no array.
            let Ok(children) = updated.GetCachedChildren() else {
                return Ok(Vec::new());
            };
            let count = children.Length().unwrap_or(0);
            Ok((0..count)
                .filter_map(|index| children.GetElement(index).ok())
                .map(|child| {
                    let read = read(&child);
                    (child, read)
                })
                .collect())
        }
    }

    fn refresh(&self, element: &IUIAutomationElement) -> std::result::Result<Element, i32> {
        // SAFETY: a COM call on a live element.
        let fresh =
            unsafe { element.BuildUpdatedCache(&self.element) }.map_err(|err| err.code().0)?;
        Ok(read(&fresh))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use windows::core::BSTR;

    // Runs under Wine in scripts/wine-test.

    #[test]
    fn a_text_longer_than_any_fixed_buffer_comes_back_whole() {
        let long: String = "0123456789abcdef".repeat(1000) + "é end";
        let mut variant = VARIANT::default();
        // SAFETY: the tag and the member set together; VariantClear frees the BSTR.
        unsafe {
            let inner = &mut *variant.Anonymous.Anonymous;
            inner.vt = VT_BSTR;
            inner.Anonymous.bstrVal = std::mem::ManuallyDrop::new(BSTR::from(long.as_str()));
        }
        assert_eq!(variant_text(&variant), long);
        // SAFETY: the variant is owned here.
        let _ = unsafe { VariantClear(&mut variant) };
        assert_eq!(variant_text(&VARIANT::default()), "");
        // A number is converted, as a provider may answer one for a text property.
        // SAFETY: the tag and the member set together.
        unsafe {
            let inner = &mut *variant.Anonymous.Anonymous;
            inner.vt = VT_I4;
            inner.Anonymous.lVal = 4096;
        }
        assert_eq!(variant_text(&variant), "4096");
    }
}
