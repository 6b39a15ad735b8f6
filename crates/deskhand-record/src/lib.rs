//! What an agent did, kept as evidence and as a script: a [`Recorder`] writes each call of a
//! session as a step into a folder (the call, its reply, the elements it acted on by role, name
//! and ancestors, screenshots before and after), [`replay`] runs those steps again on the
//! current desktop through the same executor, finding each element again by what it was, and
//! [`report`] turns the folder into one self-contained HTML page.

mod error;
mod export;
pub mod format;
mod identity;
mod recorder;
pub mod replay;
pub mod report;
mod shots;
mod verdicts;

pub use error::RecordError;
pub use format::{FORMAT_VERSION, Recording};
pub use recorder::{DEFAULT_CAP_BYTES, Recorder};
