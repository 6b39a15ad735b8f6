//! The real-desktop harness of these tests lives in `deskhand-testkit`, compiled once for all
//! of them; this module keeps their `common::` paths.

pub use deskhand_testkit::*;

/// The `deskhand` binary under test, as cargo names it to this test.
#[allow(dead_code)] // Only the tests that start it by hand use it.
pub const BIN: &str = env!("CARGO_BIN_EXE_deskhand");
