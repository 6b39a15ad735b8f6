//! The COM shell around the translation: one UI Automation client for the process in the
//! multithreaded apartment, a walk of each window one request per element within a budget
//! (`walk`, over `reader`'s requests), the live elements of each window's last walk kept for
//! the calls that follow, element actions through their patterns. Wine 8 has no
//! `CUIAutomation`: creating the client fails there, and every call answers `no-accessibility`.
//! Wine 10's client reads names, types, places and focus but no pattern, and answers `E_NOTIMPL`
//! to pattern and focus calls, which become `unsupported` failures before anything is sent (what
//! Wine's UI Automation lacks is in the crate's README). Only `CoCreateInstance` is asked: Wine
//! 8's `DllGetClassObject` of the DLL is a stub that aborts the process.

use std::collections::HashMap;
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{ElementHandle, Rect, Tree};
use windows::Win32::System::Com::{CLSCTX_INPROC_SERVER, CoCreateInstance};
use windows::Win32::UI::Accessibility::*;
use windows::core::{BSTR, Interface};

use super::reader::Reader;
use super::walk::{self, Budget, NotFound};
use super::{Act, Element, Pruned, check_range, classify, node, parse_handle};
use crate::outgoing::Outgoing;
use crate::win32::apps::enter_com;
use crate::win32::hwnd;

/// The most elements one observation reads.
const NODE_BUDGET: usize = 5000;

/// Some WPF and Win32 apps nest hundreds of levels; the walk recurses, so it stops here rather
/// than run out of stack (Terminator's walk overflowed on deep WPF trees).
const MAX_DEPTH: usize = 64;

/// UI Automation's own limits on one request to a provider, so a hung app ends the call.
const CONNECTION_TIMEOUT_MS: u32 = 2000;
const TRANSACTION_TIMEOUT_MS: u32 = 4000;
pub(crate) const TRANSACTION_TIMEOUT: Duration =
    Duration::from_millis(TRANSACTION_TIMEOUT_MS as u64);

/// How long an action that may run inside the request (Invoke opening a modal dialog) is
/// waited for before it is reported applied but unconfirmed.
pub(crate) const ACTION_WAIT: Duration = Duration::from_secs(2);

fn failure(what: &str, sent: bool) -> impl Fn(windows::core::Error) -> Error + '_ {
    move |err| classify(err.code().0, what, sent)
}

/// The process's client, made on first use.
static CLIENT: Mutex<Option<Free<IUIAutomation>>> = Mutex::new(None);

fn client() -> Result<IUIAutomation> {
    enter_com();
    let mut shared = CLIENT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(automation) = shared.as_ref() {
        return Ok(automation.0.clone());
    }
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
    *shared = Some(Free(automation.clone()));
    Ok(automation)
}

/// Whether a UI Automation client can be made here: `Err` says why not, as a sentence.
pub fn available() -> std::result::Result<(), String> {
    client().map(drop).map_err(|err| err.message)
}

/// An object of the multithreaded apartment: UI Automation's client and its elements are
/// free-threaded there, so any thread of the apartment (every blocking-pool thread enters it)
/// may use one another made.
#[derive(Clone)]
struct Free<T>(T);

// SAFETY: see `Free`: made and used only by threads of the multithreaded apartment.
unsafe impl<T> Send for Free<T> {}
// SAFETY: as above; UI Automation's client objects serialize their own calls.
unsafe impl<T> Sync for Free<T> {}

/// The live elements of each window's last walk: a later call on one of them asks it (and its
/// ancestors, to check them) directly instead of searching its window again.
struct Snapshot {
    window: u64,
    elements: Vec<walk::Kept<Free<IUIAutomationElement>>>,
    by_runtime_id: HashMap<Vec<i32>, usize>,
}

/// The windows whose last walk is kept, most recent last.
const KEPT_WINDOWS: usize = 8;

static KEPT: Mutex<Vec<Snapshot>> = Mutex::new(Vec::new());

fn kept() -> std::sync::MutexGuard<'static, Vec<Snapshot>> {
    KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn keep(window: u64, live: Vec<walk::Kept<IUIAutomationElement>>) {
    let mut kept = kept();
    kept.retain(|snapshot| snapshot.window != window);
    if kept.len() >= KEPT_WINDOWS {
        kept.remove(0);
    }
    let by_runtime_id = live
        .iter()
        .enumerate()
        .map(|(index, element)| (element.runtime_id.clone(), index))
        .collect();
    kept.push(Snapshot {
        window,
        elements: live
            .into_iter()
            .map(|element| walk::Kept {
                runtime_id: element.runtime_id,
                live: Free(element.live),
                parent: element.parent,
            })
            .collect(),
        by_runtime_id,
    });
}

/// The kept elements from the window's child down to the one with runtime id `id`.
fn kept_chain(window: u64, id: &[i32]) -> Option<Vec<IUIAutomationElement>> {
    let kept = kept();
    let snapshot = kept.iter().find(|snapshot| snapshot.window == window)?;
    let index = *snapshot.by_runtime_id.get(id)?;
    let chain = walk::kept_chain(&snapshot.elements, index);
    (!chain.is_empty()).then(|| chain.into_iter().map(|element| element.0).collect())
}

/// How long one observation's walk may read: under the blocking pool's deadline, so a slow
/// window answers with what was read.
pub(crate) const WALK_TIME: Duration = Duration::from_secs(5);
/// How long finding an element again may search its window, when its live element is not kept.
pub(crate) const SEARCH_TIME: Duration = Duration::from_secs(3);
/// How often, and how far apart, a web document found empty just after Chromium was asked to
/// build its tree is read again.
const WEB_LOOKS: usize = 4;
const WEB_LOOK_GAP: Duration = Duration::from_millis(250);

fn budget(time: Duration) -> Budget {
    Budget {
        nodes: NODE_BUDGET,
        depth: MAX_DEPTH,
        deadline: Instant::now() + time,
    }
}

/// The window's tree, read element by element within a budget, and its live elements kept for
/// the calls that follow. Chromium and Electron windows are first asked to turn their
/// accessibility on, and read again while their page is still empty.
pub fn tree(window: u64) -> Result<Tree> {
    let (walked, left) = walk_of(window)?;
    let mut pruned = Pruned::default();
    let root = node(window, &walked.root, &mut pruned);
    let left = walk::Left {
        offscreen: left.offscreen + pruned.offscreen,
        ..left
    };
    keep(window, walked.live);
    Ok(Tree {
        root,
        partial: left.note(),
    })
}

/// The window's elements exactly as the walk read them, for `deskhand doctor --dump-tree`
/// (see `uia::dump`), with what the walk left out.
pub fn read_for_dump(window: u64) -> Result<(Element, Option<String>)> {
    let (walked, left) = walk_of(window)?;
    Ok((walked.root, left.note()))
}

fn walk_of(window: u64) -> Result<(walk::Walked<IUIAutomationElement>, walk::Left)> {
    let woken = crate::win32::window::wake_chromium(hwnd(window));
    let automation = client()?;
    let what = "Reading the window's accessibility tree";
    let reader = Reader::new(&automation).map_err(failure(what, false))?;
    let looks = if woken { WEB_LOOKS } else { 1 };
    let root = || {
        reader
            .root(&automation, hwnd(window))
            .map_err(|err| err.code().0)
    };
    let walked = walk::walk_window(&reader, root, budget(WALK_TIME), looks, WEB_LOOK_GAP)
        .map_err(|code| classify(code, what, false))?;
    let left = walked.left.clone();
    Ok((walked, left))
}

/// The live element a handle names, with its properties read now: the one kept from the last
/// walk of its window, else searched for there by runtime id.
fn resolve(
    automation: &IUIAutomation,
    handle: &ElementHandle,
) -> Result<(IUIAutomationElement, Element)> {
    let gone = || {
        Error::new(
            ErrorKind::ElementGone,
            "the element is gone from its window; call observe again",
        )
    };
    let (window, wanted) = parse_handle(handle).ok_or_else(gone)?;
    let what = "Finding the element again";
    let reader = Reader::new(automation).map_err(failure(what, false))?;
    // SAFETY: a COM call; the window handle is only passed on.
    let root =
        unsafe { automation.ElementFromHandle(hwnd(window)) }.map_err(failure(what, false))?;
    let kept = kept_chain(window, &wanted.runtime_id);
    walk::lookup(
        &reader,
        kept.as_deref(),
        &root,
        &wanted,
        budget(SEARCH_TIME),
    )
    .map_err(|not_found| match not_found {
        NotFound::Gone => gone(),
        NotFound::Unsearched => Error::new(
            ErrorKind::Timeout,
            "the element was not found again before the search's budget ran out (the \
                 window is large or slow to answer); call observe again for fresh refs",
        ),
        NotFound::Failed(code) => classify(code, what, false),
    })
}

pub fn action_names(handle: &ElementHandle) -> Result<Vec<String>> {
    let automation = client()?;
    let (_, read) = resolve(&automation, handle)?;
    Ok(super::action_names(&read.patterns)
        .into_iter()
        .map(str::to_owned)
        .collect())
}

pub fn element_bounds(handle: &ElementHandle) -> Result<Option<Rect>> {
    let automation = client()?;
    let (_, read) = resolve(&automation, handle)?;
    Ok(super::bounds(&read))
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
pub fn do_action(handle: &ElementHandle, index: usize, outgoing: &Outgoing) -> Result<()> {
    let automation = client()?;
    let (element, read) = resolve(&automation, handle)?;
    let acts = super::actions(&read.patterns);
    let Some(&act) = acts.get(index) else {
        return Err(Error::bad_argument(format!(
            "the element has {} actions, so there is none at {index}; call observe again",
            acts.len()
        )));
    };
    let what = format!("Running the element's {} action", act.name());
    outgoing.mark();
    if !act.may_block() {
        return perform(&element, act).map_err(|err| classify(err.code().0, &what, true));
    }
    let (answer, answered) = mpsc::channel();
    let element = Free(element);
    std::thread::spawn(move || {
        enter_com();
        let element = element;
        let result = perform(&element.0, act).map_err(|err| classify(err.code().0, "", true));
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

pub fn set_text(handle: &ElementHandle, text: &str, outgoing: &Outgoing) -> Result<()> {
    let automation = client()?;
    let (element, _) = resolve(&automation, handle)?;
    let what = "Setting the element's text";
    // SAFETY: pattern calls on a live element.
    unsafe {
        let value = element
            .GetCurrentPatternAs::<IUIAutomationValuePattern>(UIA_ValuePatternId)
            .map_err(failure(what, false))?;
        outgoing.mark();
        value
            .SetValue(&BSTR::from(text))
            .map_err(failure(what, true))
    }
}

pub fn set_number(handle: &ElementHandle, number: f64, outgoing: &Outgoing) -> Result<()> {
    let automation = client()?;
    let (element, read) = resolve(&automation, handle)?;
    let what = "Setting the element's number";
    let range = read.patterns.range_value.ok_or_else(|| {
        let why = if read.patterns.unread {
            "this system's UI Automation does not say whether the element has a range value \
             (Wine's reads no pattern), so nothing was set; drag or click the control, or type \
             the number into it"
        } else {
            "the element has no range value to set; type the number into it instead"
        };
        Error::new(ErrorKind::Unsupported, why)
    })?;
    check_range(&range, number)?;
    // SAFETY: pattern calls on a live element.
    unsafe {
        let range = element
            .GetCurrentPatternAs::<IUIAutomationRangeValuePattern>(UIA_RangeValuePatternId)
            .map_err(failure(what, false))?;
        outgoing.mark();
        range.SetValue(number).map_err(failure(what, true))
    }
}

/// The element's value read now; a password field's is never read.
pub fn element_value(handle: &ElementHandle) -> Result<Option<String>> {
    let automation = client()?;
    let (_, read) = resolve(&automation, handle)?;
    Ok(super::value(&read))
}

pub fn focus_element(handle: &ElementHandle, outgoing: &Outgoing) -> Result<()> {
    let automation = client()?;
    let (element, _) = resolve(&automation, handle)?;
    outgoing.mark();
    // SAFETY: a call on a live element.
    unsafe { element.SetFocus() }.map_err(failure("Focusing the element", true))
}

pub fn element_focused(handle: &ElementHandle) -> Result<bool> {
    let automation = client()?;
    let (_, read) = resolve(&automation, handle)?;
    Ok(read.has_keyboard_focus)
}

/// All the text the element shows: its value where it has one, else its name.
pub fn element_text(handle: &ElementHandle) -> Result<String> {
    let automation = client()?;
    let (_, read) = resolve(&automation, handle)?;
    Ok(super::value(&read).unwrap_or(read.name))
}
