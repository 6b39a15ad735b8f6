//! The COM shell around the translation: one UI Automation client per call in the
//! multithreaded apartment, one cached walk per window (every property of the subtree in one
//! cross-process round trip), element actions through their patterns. Wine 8 has no
//! `CUIAutomation`: creating the client fails there, and every call answers `no-accessibility`
//! (what else Wine's UI Automation lacks is in the crate's README). Only `CoCreateInstance` is
//! asked: Wine 8's `DllGetClassObject` of the DLL is a stub that aborts the process.

use std::sync::mpsc;
use std::time::Duration;

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{ElementHandle, Rect, Tree};
use windows::Win32::Foundation::RECT;
use windows::Win32::System::Com::{CLSCTX_INPROC_SERVER, CoCreateInstance, SAFEARRAY};
use windows::Win32::System::Ole::SafeArrayDestroy;
use windows::Win32::System::Variant::{
    VARIANT, VariantClear, VariantToBooleanWithDefault, VariantToDoubleWithDefault,
    VariantToInt32WithDefault, VariantToString,
};
use windows::Win32::UI::Accessibility::*;
use windows::core::{BSTR, Interface};

use super::{
    Act, Element, Expand, Patterns, Pruned, RangeState, Toggle, ValueState, check_range, classify,
    node, parse_handle, partial_note,
};
use crate::win32::apps::enter_com;
use crate::win32::hwnd;

/// The most elements one observation reads.
const NODE_BUDGET: usize = 5000;

/// Some WPF and Win32 apps nest hundreds of levels; the walk recurses, so it stops here rather
/// than run out of stack.
const MAX_DEPTH: usize = 64;

/// UI Automation's own limits on one request to a provider, so a hung app ends the call.
const CONNECTION_TIMEOUT_MS: u32 = 2000;
const TRANSACTION_TIMEOUT_MS: u32 = 4000;

/// How long an action that may run inside the request (Invoke opening a modal dialog) is
/// waited for before it is reported applied but unconfirmed.
const ACTION_WAIT: Duration = Duration::from_secs(2);

fn failure(what: &str, sent: bool) -> impl Fn(windows::core::Error) -> Error + '_ {
    move |err| classify(err.code().0, what, sent)
}

fn client() -> Result<IUIAutomation> {
    enter_com();
    // SAFETY: creating in-process COM objects in this thread's apartment.
    let automation: IUIAutomation = unsafe {
        CoCreateInstance(&CUIAutomation8, None, CLSCTX_INPROC_SERVER)
            .or_else(|_| CoCreateInstance(&CUIAutomation, None, CLSCTX_INPROC_SERVER))
    }
    .map_err(failure("Starting UI Automation", false))?;
    if let Ok(timeouts) = automation.cast::<IUIAutomation2>() {
        // SAFETY: plain setters on the client.
        unsafe {
            let _ = timeouts.SetConnectionTimeout(CONNECTION_TIMEOUT_MS);
            let _ = timeouts.SetTransactionTimeout(TRANSACTION_TIMEOUT_MS);
        }
    }
    Ok(automation)
}

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
];

/// A cached property, released after `read` has taken what it needs.
fn cached<T>(
    element: &IUIAutomationElement,
    id: UIA_PROPERTY_ID,
    read: impl Fn(&VARIANT) -> T,
) -> Option<T> {
    // SAFETY: the variant is owned here and cleared after reading.
    unsafe {
        let mut value = element.GetCachedPropertyValue(id).ok()?;
        let read = read(&value);
        let _ = VariantClear(&mut value);
        Some(read)
    }
}

fn flag(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> bool {
    // SAFETY: reading a variant this function's caller keeps alive.
    cached(element, id, |v| {
        unsafe { VariantToBooleanWithDefault(v, false) }.as_bool()
    })
    .unwrap_or(false)
}

fn int(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> i32 {
    // SAFETY: as above.
    cached(element, id, |v| unsafe { VariantToInt32WithDefault(v, 0) }).unwrap_or(0)
}

fn number(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> f64 {
    // SAFETY: as above.
    cached(element, id, |v| unsafe {
        VariantToDoubleWithDefault(v, 0.0)
    })
    .unwrap_or(0.0)
}

fn text(element: &IUIAutomationElement, id: UIA_PROPERTY_ID) -> String {
    cached(element, id, |v| {
        let mut buffer = vec![0u16; 4096];
        // SAFETY: the buffer's length goes with it; a non-string variant leaves it empty.
        let _ = unsafe { VariantToString(v, &mut buffer) };
        let end = buffer.iter().position(|&c| c == 0).unwrap_or(buffer.len());
        String::from_utf16_lossy(&buffer[..end])
    })
    .unwrap_or_default()
}

fn runtime_id(element: &IUIAutomationElement) -> Vec<i32> {
    // SAFETY: the array UIA hands over is read within its bounds and destroyed.
    unsafe {
        let Ok(array) = element.GetRuntimeId() else {
            return Vec::new();
        };
        if array.is_null() {
            return Vec::new();
        }
        let array: *mut SAFEARRAY = array;
        let count = (*array).rgsabound[0].cElements as usize;
        let ids = std::slice::from_raw_parts((*array).pvData as *const i32, count).to_vec();
        let _ = SafeArrayDestroy(array);
        ids
    }
}

/// One cached element as the translation's [`Element`]. A password field's value is cached
/// with the rest but never decoded.
fn read(element: &IUIAutomationElement) -> Element {
    let password = flag(element, UIA_IsPasswordPropertyId);
    let bounds = {
        // SAFETY: a cached read.
        let rect: Option<RECT> = unsafe { element.CachedBoundingRectangle() }.ok();
        rect.filter(|r| r.right > r.left && r.bottom > r.top)
            .map(|r| {
                [
                    r.left as f64,
                    r.top as f64,
                    (r.right - r.left) as f64,
                    (r.bottom - r.top) as f64,
                ]
            })
    };
    let patterns = Patterns {
        invoke: flag(element, UIA_IsInvokePatternAvailablePropertyId),
        value: (flag(element, UIA_IsValuePatternAvailablePropertyId)).then(|| ValueState {
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
        patterns,
        children: Vec::new(),
    }
}

/// The cached subtree as [`Element`]s, at most `budget` of them and [`MAX_DEPTH`] deep;
/// `false` when it was cut.
fn collect(element: &IUIAutomationElement, budget: &mut usize, depth: usize) -> (Element, bool) {
    let mut read_element = read(element);
    *budget = budget.saturating_sub(1);
    let mut whole = true;
    // SAFETY: cached reads of the array the walk's request filled.
    unsafe {
        if let Ok(children) = element.GetCachedChildren() {
            let count = children.Length().unwrap_or(0);
            if depth >= MAX_DEPTH && count > 0 {
                return (read_element, false);
            }
            for index in 0..count {
                if *budget == 0 {
                    whole = false;
                    break;
                }
                if let Ok(child) = children.GetElement(index) {
                    let (child, child_whole) = collect(&child, budget, depth + 1);
                    whole &= child_whole;
                    read_element.children.push(child);
                }
            }
        }
    }
    (read_element, whole)
}

/// The window's tree from one cached walk of its control view. What a provider has not
/// realized (the rows of a virtualized list scrolled out of view) is not in the cache and is
/// not asked for.
pub fn tree(window: u64) -> Result<Tree> {
    let automation = client()?;
    let what = "Reading the window's accessibility tree";
    // SAFETY: COM calls on objects this function owns; the window handle is only passed on.
    let root = unsafe {
        let request = automation
            .CreateCacheRequest()
            .map_err(failure(what, false))?;
        for &id in CACHED {
            request.AddProperty(id).map_err(failure(what, false))?;
        }
        request
            .SetTreeScope(TreeScope_Subtree)
            .map_err(failure(what, false))?;
        let view = automation
            .ControlViewCondition()
            .map_err(failure(what, false))?;
        request.SetTreeFilter(&view).map_err(failure(what, false))?;
        automation
            .ElementFromHandleBuildCache(hwnd(window), &request)
            .map_err(failure(what, false))?
    };
    let mut budget = NODE_BUDGET;
    let (element, whole) = collect(&root, &mut budget, 0);
    let mut pruned = Pruned::default();
    let root = node(window, &element, &mut pruned);
    Ok(Tree {
        root,
        partial: partial_note(pruned, (!whole).then_some((NODE_BUDGET, MAX_DEPTH)), false),
    })
}

/// The live element a handle names: found again in its window by runtime id.
fn resolve(automation: &IUIAutomation, handle: &ElementHandle) -> Result<IUIAutomationElement> {
    let gone = || {
        Error::new(
            ErrorKind::ElementGone,
            "the element is gone from its window; call observe again",
        )
    };
    let (window, wanted) = parse_handle(handle).ok_or_else(gone)?;
    let what = "Finding the element again";
    // SAFETY: COM calls on objects this function owns.
    unsafe {
        let request = automation
            .CreateCacheRequest()
            .map_err(failure(what, false))?;
        request
            .AddProperty(UIA_RuntimeIdPropertyId)
            .map_err(failure(what, false))?;
        let root = automation
            .ElementFromHandle(hwnd(window))
            .map_err(failure(what, false))?;
        if runtime_id(&root) == wanted {
            return Ok(root);
        }
        let everything = automation
            .CreateTrueCondition()
            .map_err(failure(what, false))?;
        let found = root
            .FindAllBuildCache(TreeScope_Descendants, &everything, &request)
            .map_err(failure(what, false))?;
        for index in 0..found.Length().unwrap_or(0) {
            if let Ok(element) = found.GetElement(index)
                && runtime_id(&element) == wanted
            {
                return Ok(element);
            }
        }
    }
    Err(gone())
}

/// The element's patterns read now, for choosing an action.
fn patterns_now(element: &IUIAutomationElement, automation: &IUIAutomation) -> Result<Element> {
    let what = "Reading the element's actions";
    // SAFETY: COM calls on objects this function owns.
    unsafe {
        let request = automation
            .CreateCacheRequest()
            .map_err(failure(what, false))?;
        for &id in CACHED {
            request.AddProperty(id).map_err(failure(what, false))?;
        }
        let fresh = element
            .BuildUpdatedCache(&request)
            .map_err(failure(what, false))?;
        Ok(read(&fresh))
    }
}

pub fn action_names(handle: &ElementHandle) -> Result<Vec<String>> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    let read = patterns_now(&element, &automation)?;
    Ok(super::action_names(&read.patterns)
        .into_iter()
        .map(str::to_owned)
        .collect())
}

pub fn element_bounds(handle: &ElementHandle) -> Result<Option<Rect>> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    // SAFETY: a property read on a live element.
    let rect = unsafe { element.CurrentBoundingRectangle() }
        .map_err(failure("Reading the element's place", false))?;
    Ok((rect.right > rect.left && rect.bottom > rect.top).then(|| {
        Rect::new(
            rect.left,
            rect.top,
            (rect.right - rect.left) as u32,
            (rect.bottom - rect.top) as u32,
        )
    }))
}

/// Runs one pattern call on the element.
fn perform(element: &IUIAutomationElement, act: Act) -> windows::core::Result<()> {
    // SAFETY: pattern calls on a live element; each pattern interface is asked for by its id.
    unsafe {
        match act {
            Act::Invoke => element
                .GetCurrentPatternAs::<IUIAutomationInvokePattern>(UIA_InvokePatternId)?
                .Invoke(),
            Act::Toggle => element
                .GetCurrentPatternAs::<IUIAutomationTogglePattern>(UIA_TogglePatternId)?
                .Toggle(),
            Act::Expand => element
                .GetCurrentPatternAs::<IUIAutomationExpandCollapsePattern>(
                    UIA_ExpandCollapsePatternId,
                )?
                .Expand(),
            Act::Collapse => element
                .GetCurrentPatternAs::<IUIAutomationExpandCollapsePattern>(
                    UIA_ExpandCollapsePatternId,
                )?
                .Collapse(),
            Act::Select => element
                .GetCurrentPatternAs::<IUIAutomationSelectionItemPattern>(
                    UIA_SelectionItemPatternId,
                )?
                .Select(),
            Act::DefaultAction => element
                .GetCurrentPatternAs::<IUIAutomationLegacyIAccessiblePattern>(
                    UIA_LegacyIAccessiblePatternId,
                )?
                .DoDefaultAction(),
        }
    }
}

/// Runs the action at `index` of [`action_names`]. One that may run inside the request (a
/// button whose handler opens a modal dialog answers only when the dialog closes) runs on a
/// thread of its own: deskhand waits two seconds for it and otherwise reports it applied
/// but unconfirmed, while the thread finishes whenever the app answers.
pub fn do_action(handle: &ElementHandle, index: usize) -> Result<()> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    let acts = super::actions(&patterns_now(&element, &automation)?.patterns);
    let Some(&act) = acts.get(index) else {
        return Err(Error::bad_argument(format!(
            "the element has {} actions, so there is none at {index}; call observe again",
            acts.len()
        )));
    };
    let what = format!("Running the element's {} action", act.name());
    if !act.may_block() {
        return perform(&element, act).map_err(|err| classify(err.code().0, &what, true));
    }
    let handle = handle.clone();
    let (answer, answered) = mpsc::channel();
    std::thread::spawn(move || {
        let result = client().and_then(|automation| {
            let element = resolve(&automation, &handle)?;
            perform(&element, act).map_err(|err| classify(err.code().0, "", true))
        });
        let _ = answer.send(result);
    });
    match answered.recv_timeout(ACTION_WAIT) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(mut err)) => {
            err.message = format!("{what}{}", err.message);
            Err(err)
        }
        Err(_) => Err(Error::new(
            ErrorKind::Timeout,
            format!(
                "{what} was sent and the app has not answered in {} s: it may have opened a \
                 dialog; call windows or observe to see",
                ACTION_WAIT.as_secs()
            ),
        )
        .after_sending()),
    }
}

pub fn set_text(handle: &ElementHandle, text: &str) -> Result<()> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    let what = "Setting the element's text";
    // SAFETY: pattern calls on a live element.
    unsafe {
        let value = element
            .GetCurrentPatternAs::<IUIAutomationValuePattern>(UIA_ValuePatternId)
            .map_err(failure(what, false))?;
        value
            .SetValue(&BSTR::from(text))
            .map_err(failure(what, true))
    }
}

pub fn set_number(handle: &ElementHandle, number: f64) -> Result<()> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    let what = "Setting the element's number";
    let range = patterns_now(&element, &automation)?
        .patterns
        .range_value
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                "the element has no range value to set; type the number into it instead",
            )
        })?;
    check_range(&range, number)?;
    // SAFETY: pattern calls on a live element.
    unsafe {
        element
            .GetCurrentPatternAs::<IUIAutomationRangeValuePattern>(UIA_RangeValuePatternId)
            .map_err(failure(what, false))?
            .SetValue(number)
            .map_err(failure(what, true))
    }
}

/// The element's value read now; a password field's is never read.
pub fn element_value(handle: &ElementHandle) -> Result<Option<String>> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    Ok(super::value(&patterns_now(&element, &automation)?))
}

pub fn focus_element(handle: &ElementHandle) -> Result<()> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    // SAFETY: a call on a live element.
    unsafe { element.SetFocus() }.map_err(failure("Focusing the element", true))
}

pub fn element_focused(handle: &ElementHandle) -> Result<bool> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    // SAFETY: a property read on a live element.
    unsafe { element.CurrentHasKeyboardFocus() }
        .map(|focused| focused.as_bool())
        .map_err(failure("Reading the element's focus", false))
}

/// All the text the element shows: its value where it has one, else its name.
pub fn element_text(handle: &ElementHandle) -> Result<String> {
    let automation = client()?;
    let element = resolve(&automation, handle)?;
    let read = patterns_now(&element, &automation)?;
    Ok(super::value(&read).unwrap_or(read.name))
}
