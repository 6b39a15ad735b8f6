//! The limits every call is held to, in one place: an agent that needs more splits its work.

/// Typed text longer than this is refused: an agent that means more should send it in parts.
pub const MAX_TEXT_CHARS: usize = 10_000;
pub const MAX_SCROLL: u32 = 50;
pub const MAX_CLICKS: u32 = 3;
/// `observe` lists at most this many elements unless `limit` says otherwise.
pub const DEFAULT_LIMIT: u32 = 300;
pub const MAX_LIMIT: u32 = 5_000;
pub const MAX_DEPTH: u32 = 100;
pub const MAX_QUERY_CHARS: usize = 200;
pub const MAX_VIA: usize = 50;
pub const MAX_DRAG_MS: u32 = 10_000;
pub const MAX_MENU_DEPTH: usize = 8;
pub const MAX_WINDOW_PIXELS: u32 = 16_384;
pub const MAX_CLIPBOARD_CHARS: usize = 1_000_000;
pub const MAX_CONDITIONS: usize = 10;
pub const DEFAULT_WAIT_MS: u32 = 10_000;
pub const MAX_WAIT_MS: u32 = 30_000;
pub const DEFAULT_INTERVAL_MS: u32 = 200;
pub const MIN_INTERVAL_MS: u32 = 50;
pub const MAX_INTERVAL_MS: u32 = 5_000;
pub const MAX_STEPS: usize = 50;
pub const MAX_STABLE_MS: u32 = 10_000;
