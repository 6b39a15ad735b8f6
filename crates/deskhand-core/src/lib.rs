//! The platform-free core of deskhand: the tool contract, refs, rendering and the executor.
#![forbid(unsafe_code)]

pub mod action;
mod actions;
pub mod audit;
pub mod backend;
pub mod control;
pub mod coords;
pub mod desk;
pub mod error;
#[cfg(feature = "fake")]
pub mod fake;
mod find;
pub mod image;
pub mod keys;
mod learn;
pub mod memory;
pub mod model;
pub mod monitors;
pub mod ocr;
pub mod person;
pub mod policy;
pub mod render;
pub mod safety;
pub mod session;
mod text;
mod values;

pub use action::{Call, DesktopArgs};
pub use actions::{ACTIONS, parse_call};
pub use backend::{Backend, NullBackend};
pub use control::{CancellationToken, Control, Progress};
pub use desk::{Config, Outcome, Reply, execute, execute_with};
pub use error::{Error, ErrorKind, Result};
pub use session::Session;
