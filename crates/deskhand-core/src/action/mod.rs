//! The `desktop` tool's arguments, and their validation into one typed [`Action`].
//!
//! Validation is complete before anything runs: a call that fails here changed nothing. The
//! arguments as sent are in `args`, what a row of the table of actions says in `table`, the
//! typed call in `call`, the checks several actions share in `validate` and the limits in
//! `limits`; each action's own check is in its file under `actions/`.

mod args;
mod call;
mod limits;
mod table;
mod validate;

pub use args::*;
pub use call::*;
pub use limits::*;
pub use table::*;
pub(crate) use validate::*;
