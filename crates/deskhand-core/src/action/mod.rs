//! The `desktop` tool's arguments, and their validation into one typed [`Action`].
//!
//! Validation is complete before anything runs: a call that fails here changed nothing. The
//! arguments as sent are in `args`, the table of actions in `table`, the typed call in `call`,
//! the checks in `validate` and the limits in `limits`.

mod args;
mod call;
mod limits;
mod table;
mod validate;

pub use args::*;
pub use call::*;
pub use limits::*;
pub use table::*;
pub use validate::*;

#[cfg(test)]
mod tests;
