//! `set_value` and `select`: changes made through the accessibility interface rather than by
//! input events, each read back or checked level by level so they fail closed.

mod menu;
mod named;
mod read;
mod set;

pub(crate) use menu::select;
pub(crate) use read::read_text;
pub(crate) use set::set_value;

#[cfg(test)]
mod tests;
