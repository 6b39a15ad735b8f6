//! The current keyboard layout (Text Input Sources) and what its keys type (`UCKeyTranslate`),
//! for the key table chords are pressed with.
//!
//! Text Input Sources must be asked on the main thread: macOS stops a process that asks from
//! another with a `dispatch_assert_queue` trap (enigo, deskflow and XQuartz users hit it). So
//! the layout is read where the call runs on the main thread (connect does), or through the
//! main queue once something is seen serving it, and never from anywhere else; then the layout
//! last read stands. `UCKeyTranslate` works on a copy of the layout's bytes, on any thread.

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use dispatch2::DispatchQueue;
use objc2::MainThreadMarker;
use objc2_core_foundation::{CFData, CFRetained, CFRunLoop, CFString, CFType};
use objc2_core_graphics::CGEvent;

use crate::keys::{Held, KeyTable, Layouts};

#[link(name = "Carbon", kind = "framework")]
unsafe extern "C" {
    fn TISCopyCurrentKeyboardLayoutInputSource() -> *mut CFType;
    fn TISGetInputSourceProperty(source: *const CFType, key: *const CFString) -> *const c_void;
    static kTISPropertyInputSourceID: *const CFString;
    static kTISPropertyUnicodeKeyLayoutData: *const CFString;
    fn LMGetKbdType() -> u8;
    fn UCKeyTranslate(
        layout: *const c_void,
        virtual_key_code: u16,
        key_action: u16,
        modifier_key_state: u32,
        keyboard_type: u32,
        options: u32,
        dead_key_state: *mut u32,
        max_length: usize,
        length: *mut usize,
        unicode: *mut u16,
    ) -> i32;
}

/// `kUCKeyActionDown`: what the key types when pressed, dead keys included.
const KEY_DOWN: u16 = 0;

/// How long a request sent to the main queue may wait there.
const MAIN_WAIT: Duration = Duration::from_millis(100);

/// Whether the main queue ran the probe sent at connect: only then is a request sent there
/// answered.
static MAIN_SERVED: AtomicBool = AtomicBool::new(false);

/// Whether the process's first keyboard event was made on the main thread: until then, making
/// one elsewhere would set up the layout off the main thread, and keys are refused instead.
static KEY_EVENTS_READY: AtomicBool = AtomicBool::new(false);

pub fn key_events_ready() -> bool {
    KEY_EVENTS_READY.load(Ordering::SeqCst)
}

/// The current layout, copied out of Text Input Sources.
struct Layout {
    id: String,
    /// The `uchr` data, in words so `UCKeyTranslate` reads its fields aligned.
    data: Vec<u64>,
    keyboard_type: u32,
}

/// Reads the current layout. Only on the main thread.
fn read_layout(_on_main: MainThreadMarker) -> Option<Layout> {
    // SAFETY: on the main thread, as the marker proves. The source is a copy (+1), released
    // when dropped; the properties follow the get rule and live as long as the source.
    unsafe {
        let source = CFRetained::from_raw(NonNull::new(TISCopyCurrentKeyboardLayoutInputSource())?);
        let property = |key: *const CFString| TISGetInputSourceProperty(&*source, key);
        let id = property(kTISPropertyInputSourceID)
            .cast::<CFString>()
            .as_ref()?
            .to_string();
        let bytes = property(kTISPropertyUnicodeKeyLayoutData)
            .cast::<CFData>()
            .as_ref()?
            .to_vec();
        let mut data = vec![0u64; bytes.len().div_ceil(8)];
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), data.as_mut_ptr().cast::<u8>(), bytes.len());
        Some(Layout {
            id,
            data,
            keyboard_type: u32::from(LMGetKbdType()),
        })
    }
}

/// What `code` types on `layout` with `held` down; `None` for a dead key, or for anything but
/// one character.
fn translate(layout: &Layout, code: u16, held: Held) -> Option<char> {
    let mut dead_key_state = 0;
    let mut unicode = [0u16; 4];
    let mut length = 0;
    // SAFETY: the layout is a whole `uchr` copy; every out-pointer is valid for its size.
    let status = unsafe {
        UCKeyTranslate(
            layout.data.as_ptr().cast(),
            code,
            KEY_DOWN,
            held.modifier_key_state(),
            layout.keyboard_type,
            0,
            &mut dead_key_state,
            unicode.len(),
            &mut length,
            unicode.as_mut_ptr(),
        )
    };
    if status != 0 || dead_key_state != 0 || length != 1 {
        return None;
    }
    char::from_u32(u32::from(unicode[0]))
}

/// Runs `work` on the main thread: here if this is it, else through the main queue when it
/// is served, waiting at most [`MAIN_WAIT`]; `None` when neither can be.
fn on_main<T: Send + 'static>(
    work: impl FnOnce(MainThreadMarker) -> T + Send + 'static,
) -> Option<T> {
    if let Some(main) = MainThreadMarker::new() {
        return Some(work(main));
    }
    if !MAIN_SERVED.load(Ordering::SeqCst) {
        return None;
    }
    let (send, answer) = mpsc::channel();
    DispatchQueue::main().exec_async(move || {
        if let Some(main) = MainThreadMarker::new() {
            let _ = send.send(work(main));
        }
    });
    answer.recv_timeout(MAIN_WAIT).ok()
}

/// The key table of the current layout, built the first time that layout is seen; the one
/// last read when the layout cannot be asked now.
pub fn key_table(layouts: &Mutex<Layouts>) -> Arc<KeyTable> {
    let current = on_main(read_layout).flatten();
    let mut layouts = layouts
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match current {
        Some(layout) => layouts.table(&layout.id, || {
            let table = KeyTable::build(|code, held| translate(&layout, code, held));
            (table != KeyTable::default()).then_some(table)
        }),
        None => layouts.last(),
    }
}

/// Done once at connect: sends the probe that tells whether the main queue is served, and
/// creates a first keyboard event on the main thread, whose one-time setup in the window server
/// asks Text Input Sources too; then reads the layout. On the main thread itself (a program
/// that never serves the main queue) that is done here; elsewhere, through the main queue when
/// it answers within [`MAIN_WAIT`].
pub fn prepare(layouts: &Mutex<Layouts>) {
    let (served, probe) = mpsc::channel();
    DispatchQueue::main().exec_async(move || {
        MAIN_SERVED.store(true, Ordering::SeqCst);
        drop(CGEvent::new_keyboard_event(None, 0, false));
        KEY_EVENTS_READY.store(true, Ordering::SeqCst);
        let _ = served.send(());
    });
    if MainThreadMarker::new().is_some() {
        key_table(layouts);
        drop(CGEvent::new_keyboard_event(None, 0, false));
        KEY_EVENTS_READY.store(true, Ordering::SeqCst);
    } else if probe.recv_timeout(MAIN_WAIT).is_ok() {
        key_table(layouts);
    }
}

/// Runs `program` on a thread of its own while the main thread runs the main run loop, which
/// serves the main dispatch queue there, on the main thread itself: Text Input Sources are
/// asked through it, so a keyboard layout switched during a long MCP session is read again
/// before the next chord. (`dispatch_main` would serve the queue too, but it ends the main
/// thread and the queue then runs on worker threads, where the layout cannot be asked; the
/// crate's clippy.toml forbids it.) Ends the process with the program's exit code.
pub fn serve_main_queue_while(program: fn() -> u8) -> ! {
    let started = std::thread::Builder::new()
        .name("deskhand".into())
        .spawn(move || {
            let code = program();
            end(code)
        });
    match started {
        Ok(_) => {
            // The main run loop in its default mode is never empty on the main thread (it
            // stands for the main queue), so this returns only if the system stops it; the
            // program's thread then goes on, with the layout last read.
            CFRunLoop::run();
            loop {
                std::thread::park();
            }
        }
        // No second thread: the program runs here, and the layout read at connect stands.
        Err(_) => end(program()),
    }
}

/// Exits with `code` once what was printed is out: exiting skips the buffers' destructors.
fn end(code: u8) -> ! {
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(i32::from(code))
}
