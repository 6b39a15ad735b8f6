//! The shell's COM objects (shortcuts, the Apps folder, `ShellExecuteExW`) are apartment
//! threaded, and Microsoft asks callers of `ShellExecuteExW` for an apartment-threaded thread
//! with OLE1 DDE off (`COINIT_APARTMENTTHREADED | COINIT_DISABLE_OLE1DDE`). The blocking pool's
//! threads are in the multithreaded apartment for UI Automation, so every shell call runs on
//! one thread of its own in a single-threaded apartment, which pumps its messages between
//! calls as such an apartment must.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use deskhand_core::error::{Error, Result};
use windows::Win32::System::Com::{
    COINIT_APARTMENTTHREADED, COINIT_DISABLE_OLE1DDE, CoInitializeEx,
};
use windows::Win32::UI::WindowsAndMessaging::{
    DispatchMessageW, MSG, PM_REMOVE, PeekMessageW, TranslateMessage,
};

type Job = Box<dyn FnOnce() + Send>;

/// How long a shell call may take: a launch waits on the program starting.
const SHELL_WAIT: Duration = Duration::from_secs(20);
/// How often the thread pumps its messages while it has no call to run.
const PUMP_EVERY: Duration = Duration::from_millis(50);

static SHELL: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();

fn pump() {
    let mut message = MSG::default();
    // SAFETY: this thread's own queue; each message is dispatched to its own window.
    unsafe {
        while PeekMessageW(&mut message, None, 0, 0, PM_REMOVE).as_bool() {
            let _ = TranslateMessage(&message);
            DispatchMessageW(&message);
        }
    }
}

fn start() -> Option<Mutex<Sender<Job>>> {
    let (jobs, next) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("deskhand-shell".into())
        .spawn(move || {
            // SAFETY: this thread's apartment, entered once for its life.
            let _ =
                unsafe { CoInitializeEx(None, COINIT_APARTMENTTHREADED | COINIT_DISABLE_OLE1DDE) };
            loop {
                match next.recv_timeout(PUMP_EVERY) {
                    Ok(job) => job(),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
                pump();
            }
        })
        .ok()?;
    Some(Mutex::new(jobs))
}

/// Runs `work` on the shell's thread and answers what it gave.
pub fn run<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    let unavailable = || {
        Error::platform(
            "the shell's thread could not be started or has stopped; restart deskhand and try \
             again",
        )
    };
    let jobs = SHELL.get_or_init(start).as_ref().ok_or_else(unavailable)?;
    let (answer, answered) = mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = answer.send(work());
    });
    jobs.lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send(job)
        .map_err(|_| unavailable())?;
    answered.recv_timeout(SHELL_WAIT).map_err(|_| {
        Error::platform(format!(
            "the Windows shell did not answer within {} s; try again, or restart Explorer if \
             it stays stuck",
            SHELL_WAIT.as_secs()
        ))
        .after_sending()
    })
}

#[cfg(test)]
mod tests {
    use windows::Win32::System::Com::{
        APTTYPE, APTTYPE_MAINSTA, APTTYPE_STA, APTTYPEQUALIFIER, CoGetApartmentType,
    };

    use super::*;

    fn apartment() -> APTTYPE {
        let (mut kind, mut qualifier) = (APTTYPE::default(), APTTYPEQUALIFIER::default());
        // SAFETY: writes into the locals.
        unsafe { CoGetApartmentType(&mut kind, &mut qualifier) }.expect("the thread's apartment");
        kind
    }

    #[test]
    fn shell_calls_run_on_one_single_threaded_apartment_thread() {
        let first = run(|| (std::thread::current().id(), apartment())).unwrap();
        let second = run(|| std::thread::current().id()).unwrap();
        // The first single-threaded apartment of a process is its main one.
        assert!(
            [APTTYPE_STA, APTTYPE_MAINSTA].contains(&first.1),
            "the shell's thread is apartment threaded, not {:?}",
            first.1
        );
        assert_eq!(first.0, second, "every shell call runs on the same thread");
        assert_ne!(first.0, std::thread::current().id());
    }
}
