//! `--uia`: the window serves UI Automation providers of its own, so a client has a fragment
//! tree to walk where the system's proxies give none (Wine 10 walks no child window of a plain
//! Win32 window). Each element stands over a real control of the window, so what a client does
//! through the pointer or the keyboard lands where the provider says the element is, and what it
//! reads (a button's name, the edit's text, the list's rows) is the control's own state.
//!
//! The tree: the window, a pane "Form", and in it the buttons "Press me" and "Add row", the edit
//! "Name" (Value), the slider "Volume" (RangeValue, with no control beneath: only a client that
//! runs patterns can set it) and the list "Fruits" (SelectionItem rows). A row's runtime id is
//! its index, as the Win32 list proxies make it, so a row added above hands its id to a
//! neighbour.

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicI32, Ordering};

use windows::Win32::Foundation::{E_FAIL, HWND, LPARAM, LRESULT, POINT, RECT, WPARAM};
use windows::Win32::Graphics::Gdi::{ClientToScreen, MapWindowPoints};
use windows::Win32::System::Com::SAFEARRAY;
use windows::Win32::System::Ole::{SafeArrayCreateVector, SafeArrayPutElement};
use windows::Win32::System::Variant::{VARIANT, VT_BOOL, VT_BSTR, VT_I4};
use windows::Win32::UI::Accessibility::*;
use windows::Win32::UI::WindowsAndMessaging::*;
use windows::core::{BOOL, BSTR, HRESULT, IUnknown, IUnknownImpl, PCWSTR, Result, implement};

use crate::app::{BUTTON_ADD_ROW, BUTTON_PRESS, EDIT, LIST, WM_FOCUS_CONTROL, child, log, text_of};

/// Where the slider "Volume" is, in client pixels: nothing is drawn there.
const VOLUME: RECT = RECT {
    left: 160,
    top: 230,
    right: 360,
    bottom: 260,
};

/// The slider's value: it has no control to keep it.
static VOLUME_VALUE: AtomicI32 = AtomicI32::new(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Root,
    Form,
    PressMe,
    AddRow,
    Name,
    Volume,
    List,
    Row(usize),
}

impl Part {
    /// The form's elements in the order the window shows them.
    const FORM: [Part; 5] = [
        Part::PressMe,
        Part::AddRow,
        Part::Name,
        Part::Volume,
        Part::List,
    ];

    fn control(self) -> Option<u16> {
        match self {
            Part::PressMe => Some(BUTTON_PRESS),
            Part::AddRow => Some(BUTTON_ADD_ROW),
            Part::Name => Some(EDIT),
            Part::List | Part::Row(_) => Some(LIST),
            Part::Root | Part::Form | Part::Volume => None,
        }
    }

    fn control_type(self) -> UIA_CONTROLTYPE_ID {
        match self {
            Part::Root => UIA_WindowControlTypeId,
            Part::Form => UIA_PaneControlTypeId,
            Part::PressMe | Part::AddRow => UIA_ButtonControlTypeId,
            Part::Name => UIA_EditControlTypeId,
            Part::Volume => UIA_SliderControlTypeId,
            Part::List => UIA_ListControlTypeId,
            Part::Row(_) => UIA_ListItemControlTypeId,
        }
    }

    /// The part of the runtime id after `UiaAppendRuntimeId`: a row's ends in its index.
    fn runtime_id(self) -> Vec<i32> {
        match self {
            Part::Root => Vec::new(),
            Part::Form => vec![1],
            Part::PressMe => vec![2],
            Part::AddRow => vec![3],
            Part::List => vec![4],
            Part::Name => vec![5],
            Part::Volume => vec![6],
            Part::Row(index) => vec![4, index as i32],
        }
    }
}

/// One element of the window's tree; every part answers as a fragment of the same root.
#[implement(
    IRawElementProviderSimple,
    IRawElementProviderFragment,
    IRawElementProviderFragmentRoot,
    IInvokeProvider,
    IValueProvider,
    IRangeValueProvider,
    ISelectionItemProvider
)]
struct Provider {
    window: HWND,
    part: Part,
}

/// "No such element" (no parent, no pattern, no host), as a failure. UI Automation's contract is
/// success with a null element, but a windows-rs method answering nothing leaves the caller's
/// pointer unwritten, and Wine's core reads that pointer on success: a failure is the answer
/// both take as none.
fn none<T>() -> Result<T> {
    Err(E_FAIL.into())
}

fn provider(window: HWND, part: Part) -> IRawElementProviderFragment {
    Provider { window, part }.into()
}

fn rows(window: HWND) -> usize {
    // SAFETY: a query on the window's own list.
    let count = unsafe { SendMessageW(child(window, LIST), LB_GETCOUNT, None, None) }.0;
    count.max(0) as usize
}

fn row_text(window: HWND, index: usize) -> String {
    // SAFETY: queries on the window's own list; the buffer holds the longest row.
    unsafe {
        let mut buffer = [0u16; 64];
        let length = SendMessageW(
            child(window, LIST),
            LB_GETTEXT,
            Some(WPARAM(index)),
            Some(LPARAM(buffer.as_mut_ptr() as isize)),
        )
        .0;
        String::from_utf16_lossy(&buffer[..length.clamp(0, 64) as usize])
    }
}

fn variant_i32(value: i32) -> VARIANT {
    let mut variant = VARIANT::default();
    // SAFETY: the tag and the member set together.
    unsafe {
        let inner = &mut *variant.Anonymous.Anonymous;
        inner.vt = VT_I4;
        inner.Anonymous.lVal = value;
    }
    variant
}

fn variant_bool(value: bool) -> VARIANT {
    let mut variant = VARIANT::default();
    // SAFETY: as above; VARIANT_TRUE is -1.
    unsafe {
        let inner = &mut *variant.Anonymous.Anonymous;
        inner.vt = VT_BOOL;
        inner.Anonymous.boolVal.0 = if value { -1 } else { 0 };
    }
    variant
}

fn variant_text(value: &str) -> VARIANT {
    let mut variant = VARIANT::default();
    // SAFETY: as above; the caller's VariantClear frees the string.
    unsafe {
        let inner = &mut *variant.Anonymous.Anonymous;
        inner.vt = VT_BSTR;
        inner.Anonymous.bstrVal = ManuallyDrop::new(BSTR::from(value));
    }
    variant
}

impl Provider {
    fn control(&self) -> Option<HWND> {
        self.part.control().map(|id| child(self.window, id))
    }

    fn name(&self) -> String {
        match self.part {
            Part::Root => text_of(self.window),
            Part::Form => "Form".into(),
            Part::PressMe => "Press me".into(),
            Part::AddRow => "Add row".into(),
            Part::Name => "Name".into(),
            Part::Volume => "Volume".into(),
            Part::List => "Fruits".into(),
            Part::Row(index) => row_text(self.window, index),
        }
    }

    /// Screen pixels of the part: its control's, a row's inside the list, the form's client area.
    fn screen_rect(&self) -> RECT {
        let mut rect = RECT::default();
        // SAFETY: queries on this window and its own controls.
        unsafe {
            match (self.part, self.control()) {
                (Part::Row(index), Some(list)) => {
                    SendMessageW(
                        list,
                        LB_GETITEMRECT,
                        Some(WPARAM(index)),
                        Some(LPARAM(&mut rect as *mut RECT as isize)),
                    );
                    let mut corners = [
                        POINT {
                            x: rect.left,
                            y: rect.top,
                        },
                        POINT {
                            x: rect.right,
                            y: rect.bottom,
                        },
                    ];
                    MapWindowPoints(Some(list), None, &mut corners);
                    rect = RECT {
                        left: corners[0].x,
                        top: corners[0].y,
                        right: corners[1].x,
                        bottom: corners[1].y,
                    };
                }
                (_, Some(control)) => {
                    let _ = GetWindowRect(control, &mut rect);
                }
                (Part::Volume, None) => {
                    let mut corner = POINT {
                        x: VOLUME.left,
                        y: VOLUME.top,
                    };
                    let _ = ClientToScreen(self.window, &mut corner);
                    rect = RECT {
                        left: corner.x,
                        top: corner.y,
                        right: corner.x + VOLUME.right - VOLUME.left,
                        bottom: corner.y + VOLUME.bottom - VOLUME.top,
                    };
                }
                _ => {
                    let _ = GetClientRect(self.window, &mut rect);
                    let mut corner = POINT::default();
                    let _ = ClientToScreen(self.window, &mut corner);
                    rect.left += corner.x;
                    rect.right += corner.x;
                    rect.top += corner.y;
                    rect.bottom += corner.y;
                }
            }
        }
        rect
    }

    fn focused(&self) -> bool {
        // The focus of the thread that runs the window: UI Automation may ask from another.
        let mut info = GUITHREADINFO {
            cbSize: size_of::<GUITHREADINFO>() as u32,
            ..Default::default()
        };
        // SAFETY: a query on this window's own thread, into a struct of the size it says.
        let focus = unsafe {
            let thread = GetWindowThreadProcessId(self.window, None);
            match GetGUIThreadInfo(thread, &mut info) {
                Ok(()) => info.hwndFocus,
                Err(_) => return false,
            }
        };
        match self.part {
            Part::Row(index) => {
                self.control() == Some(focus)
                    // SAFETY: a query on the window's own list.
                    && unsafe { SendMessageW(focus, LB_GETCARETINDEX, None, None) }.0
                        == index as isize
            }
            _ => self.control().is_some_and(|control| control == focus),
        }
    }

    fn children(&self) -> Vec<Part> {
        match self.part {
            Part::Root => vec![Part::Form],
            Part::Form => Part::FORM.to_vec(),
            Part::List => (0..rows(self.window)).map(Part::Row).collect(),
            _ => Vec::new(),
        }
    }

    fn parent(&self) -> Option<Part> {
        match self.part {
            Part::Root => None,
            Part::Form => Some(Part::Root),
            Part::Row(_) => Some(Part::List),
            _ => Some(Part::Form),
        }
    }

    fn sibling(&self, step: isize) -> Option<Part> {
        let parent = Provider {
            window: self.window,
            part: self.parent()?,
        };
        let siblings = parent.children();
        let at = siblings.iter().position(|&part| part == self.part)? as isize + step;
        usize::try_from(at)
            .ok()
            .and_then(|at| siblings.get(at).copied())
    }

    fn pattern(&self, pattern: UIA_PATTERN_ID) -> bool {
        let offered = match self.part {
            Part::PressMe | Part::AddRow => UIA_InvokePatternId,
            Part::Name => UIA_ValuePatternId,
            Part::Volume => UIA_RangeValuePatternId,
            Part::Row(_) => UIA_SelectionItemPatternId,
            Part::Root | Part::Form | Part::List => return false,
        };
        pattern == offered
    }

    fn row_index(&self) -> usize {
        match self.part {
            Part::Row(index) => index,
            _ => 0,
        }
    }
}

impl IRawElementProviderSimple_Impl for Provider_Impl {
    fn ProviderOptions(&self) -> Result<ProviderOptions> {
        Ok(ProviderOptions_ServerSideProvider)
    }

    fn GetPatternProvider(&self, pattern: UIA_PATTERN_ID) -> Result<IUnknown> {
        if !self.pattern(pattern) {
            return none();
        }
        Ok(self.to_interface::<IUnknown>())
    }

    fn GetPropertyValue(&self, property: UIA_PROPERTY_ID) -> Result<VARIANT> {
        if self.part == Part::Root {
            // The window's own host provider says what a window is.
            return Ok(VARIANT::default());
        }
        let automation_id = match self.part {
            Part::Form => "form",
            Part::PressMe => "press",
            Part::AddRow => "add-row",
            Part::Name => "name",
            Part::Volume => "volume",
            Part::List => "fruits",
            Part::Root | Part::Row(_) => "",
        };
        let always = [
            UIA_IsEnabledPropertyId,
            UIA_IsControlElementPropertyId,
            UIA_IsContentElementPropertyId,
        ];
        Ok(if property == UIA_ControlTypePropertyId {
            variant_i32(self.part.control_type().0)
        } else if property == UIA_NamePropertyId {
            variant_text(&self.name())
        } else if property == UIA_AutomationIdPropertyId {
            variant_text(automation_id)
        } else if always.contains(&property) {
            variant_bool(true)
        } else if property == UIA_IsKeyboardFocusablePropertyId {
            variant_bool(self.part.control().is_some())
        } else if property == UIA_HasKeyboardFocusPropertyId {
            variant_bool(self.focused())
        } else {
            VARIANT::default()
        })
    }

    fn HostRawElementProvider(&self) -> Result<IRawElementProviderSimple> {
        if self.part == Part::Root {
            // SAFETY: the window is alive while it serves its providers.
            return unsafe { UiaHostProviderFromHwnd(self.window) };
        }
        none()
    }
}

impl IRawElementProviderFragment_Impl for Provider_Impl {
    fn Navigate(&self, direction: NavigateDirection) -> Result<IRawElementProviderFragment> {
        let to = if direction == NavigateDirection_Parent {
            self.parent()
        } else if direction == NavigateDirection_NextSibling {
            self.sibling(1)
        } else if direction == NavigateDirection_PreviousSibling {
            self.sibling(-1)
        } else if direction == NavigateDirection_FirstChild {
            self.children().first().copied()
        } else if direction == NavigateDirection_LastChild {
            self.children().last().copied()
        } else {
            None
        };
        to.map(|part| provider(self.window, part))
            .map_or_else(none, Ok)
    }

    fn GetRuntimeId(&self) -> Result<*mut SAFEARRAY> {
        let id = self.part.runtime_id();
        if id.is_empty() {
            // The window's host provider gives the root its id.
            return Ok(std::ptr::null_mut());
        }
        let id: Vec<i32> = [UiaAppendRuntimeId as i32].into_iter().chain(id).collect();
        // SAFETY: an array of the id's length, filled within its bounds; UIA frees it.
        unsafe {
            let array = SafeArrayCreateVector(VT_I4, 0, id.len() as u32);
            for (index, value) in id.iter().enumerate() {
                SafeArrayPutElement(array, &(index as i32), value as *const i32 as *const _)?;
            }
            Ok(array)
        }
    }

    fn BoundingRectangle(&self) -> Result<UiaRect> {
        if self.part == Part::Root {
            // The host provider gives the window's place.
            return Ok(UiaRect::default());
        }
        let rect = self.screen_rect();
        Ok(UiaRect {
            left: rect.left as f64,
            top: rect.top as f64,
            width: (rect.right - rect.left) as f64,
            height: (rect.bottom - rect.top) as f64,
        })
    }

    fn GetEmbeddedFragmentRoots(&self) -> Result<*mut SAFEARRAY> {
        Ok(std::ptr::null_mut())
    }

    fn SetFocus(&self) -> Result<()> {
        if let Some(id) = self.part.control() {
            log(&format!("uia focus {}", self.name()));
            // The window's own thread moves its focus.
            // SAFETY: a message to this window, which knows it.
            unsafe {
                SendMessageW(
                    self.window,
                    WM_FOCUS_CONTROL,
                    Some(WPARAM(id as usize)),
                    None,
                )
            };
        }
        Ok(())
    }

    fn FragmentRoot(&self) -> Result<IRawElementProviderFragmentRoot> {
        Ok(Provider {
            window: self.window,
            part: Part::Root,
        }
        .into())
    }
}

impl IRawElementProviderFragmentRoot_Impl for Provider_Impl {
    fn ElementProviderFromPoint(&self, x: f64, y: f64) -> Result<IRawElementProviderFragment> {
        let point = POINT {
            x: x as i32,
            y: y as i32,
        };
        let mut at = Part::Form;
        let mut candidates = Part::FORM.to_vec();
        candidates.extend((0..rows(self.window)).map(Part::Row));
        for part in candidates {
            let rect = Provider {
                window: self.window,
                part,
            }
            .screen_rect();
            if (rect.left..rect.right).contains(&point.x)
                && (rect.top..rect.bottom).contains(&point.y)
            {
                at = part;
            }
        }
        Ok(provider(self.window, at))
    }

    fn GetFocus(&self) -> Result<IRawElementProviderFragment> {
        let mut candidates = Part::FORM.to_vec();
        candidates.extend((0..rows(self.window)).map(Part::Row));
        candidates
            .into_iter()
            .rev()
            .find(|&part| {
                Provider {
                    window: self.window,
                    part,
                }
                .focused()
            })
            .map(|part| provider(self.window, part))
            .map_or_else(none, Ok)
    }
}

impl IInvokeProvider_Impl for Provider_Impl {
    fn Invoke(&self) -> Result<()> {
        log(&format!("uia invoke {}", self.name()));
        if let Some(button) = self.control() {
            // Posted: Invoke must return before a handler that may open a dialog runs.
            // SAFETY: a message to one of this window's own buttons.
            unsafe { PostMessageW(Some(button), BM_CLICK, WPARAM(0), LPARAM(0)) }?;
        }
        Ok(())
    }
}

impl IValueProvider_Impl for Provider_Impl {
    fn SetValue(&self, value: &PCWSTR) -> Result<()> {
        log("uia set value");
        let control = self.control().map_or_else(none, Ok)?;
        // SAFETY: UIA passes a live string for the call's length.
        unsafe { SetWindowTextW(control, *value) }
    }

    fn Value(&self) -> Result<BSTR> {
        Ok(BSTR::from(
            self.control().map(text_of).unwrap_or_default().as_str(),
        ))
    }

    fn IsReadOnly(&self) -> Result<BOOL> {
        Ok(false.into())
    }
}

impl IRangeValueProvider_Impl for Provider_Impl {
    fn SetValue(&self, value: f64) -> Result<()> {
        VOLUME_VALUE.store(value.round() as i32, Ordering::Relaxed);
        log(&format!("uia volume set {value}"));
        Ok(())
    }

    fn Value(&self) -> Result<f64> {
        Ok(VOLUME_VALUE.load(Ordering::Relaxed) as f64)
    }

    fn IsReadOnly(&self) -> Result<BOOL> {
        Ok(false.into())
    }

    fn Maximum(&self) -> Result<f64> {
        Ok(100.0)
    }

    fn Minimum(&self) -> Result<f64> {
        Ok(0.0)
    }

    fn LargeChange(&self) -> Result<f64> {
        Ok(10.0)
    }

    fn SmallChange(&self) -> Result<f64> {
        Ok(1.0)
    }
}

impl ISelectionItemProvider_Impl for Provider_Impl {
    fn Select(&self) -> Result<()> {
        let index = self.row_index();
        log(&format!("uia select {}", row_text(self.window, index)));
        let list = child(self.window, LIST);
        // SAFETY: messages to the window's own list; the parent hears of the change as it
        // would from a click.
        unsafe {
            SendMessageW(list, LB_SETCURSEL, Some(WPARAM(index)), None);
            let id = LIST as usize | ((LBN_SELCHANGE as usize) << 16);
            PostMessageW(
                Some(self.window),
                WM_COMMAND,
                WPARAM(id),
                LPARAM(list.0 as isize),
            )?;
        }
        Ok(())
    }

    fn AddToSelection(&self) -> Result<()> {
        self.Select()
    }

    fn RemoveFromSelection(&self) -> Result<()> {
        Err(HRESULT(UIA_E_INVALIDOPERATION as i32).into())
    }

    fn IsSelected(&self) -> Result<BOOL> {
        let list = child(self.window, LIST);
        // SAFETY: a query on the window's own list.
        let selected = unsafe { SendMessageW(list, LB_GETCURSEL, None, None) }.0;
        Ok((selected == self.row_index() as isize).into())
    }

    fn SelectionContainer(&self) -> Result<IRawElementProviderSimple> {
        Ok(Provider {
            window: self.window,
            part: Part::List,
        }
        .into())
    }
}

/// The window's answer to `WM_GETOBJECT`: its root provider when UI Automation asks, else the
/// default answer.
pub fn get_object(window: HWND, wparam: WPARAM, lparam: LPARAM) -> Option<LRESULT> {
    if lparam.0 as i32 != UiaRootObjectId {
        return None;
    }
    let root: IRawElementProviderSimple = Provider {
        window,
        part: Part::Root,
    }
    .into();
    // SAFETY: the window's own message, answered with a provider it keeps alive by reference.
    Some(unsafe { UiaReturnRawElementProvider(window, wparam, lparam, &root) })
}
