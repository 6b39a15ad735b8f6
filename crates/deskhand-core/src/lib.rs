//! The platform-free core of deskhand: the tool contract, refs, rendering and the executor.
#![forbid(unsafe_code)]

pub mod action;
pub mod audit;
pub mod backend;
pub mod coords;
pub mod desk;
pub mod error;
pub mod fake;
pub mod image;
pub mod model;
pub mod policy;
pub mod render;
pub mod safety;
pub mod session;

pub use action::{Call, DesktopArgs, parse_call};
pub use backend::Backend;
pub use desk::{Config, Outcome, Reply, execute};
pub use error::{Error, ErrorKind, Result};
pub use session::Session;
