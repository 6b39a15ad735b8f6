//! What `set_value` and `select` share: finding a named item in a tree, opening menus and combo
//! boxes level by level, and reading a value back, so both fail closed.

pub(crate) mod menu;
pub(crate) mod named;
pub(crate) mod set;

#[cfg(test)]
mod tests;
