//! Times as the store keeps them (UTC unix milliseconds) and as an agent reads them.

use std::time::{SystemTime, UNIX_EPOCH};

use jiff::Timestamp;

pub(crate) fn millis(at: SystemTime) -> i64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// A stored time past what a calendar can show (only a corrupt row holds one) reads as the
/// calendar's first or last instant rather than failing the reply.
fn at(ms: i64) -> Timestamp {
    Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    })
}

/// `2026-11-30 04:12 UTC`.
pub(crate) fn utc(ms: i64) -> String {
    at(ms).strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// `2026-11-30T04:12:31Z`, for the structured form.
pub(crate) fn iso(ms: i64) -> String {
    at(ms).strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `3 min ago`, `2 h ago`, `5 d ago`, floored. A time after `now` (a clock set back) reads as
/// `just now` rather than as a negative age.
pub(crate) fn ago(ms: i64, now: i64) -> String {
    let seconds = now.saturating_sub(ms) / 1000;
    match seconds {
        ..60 => "just now".to_owned(),
        60..3_600 => format!("{} min ago", seconds / 60),
        3_600..86_400 => format!("{} h ago", seconds / 3_600),
        _ => format!("{} d ago", seconds / 86_400),
    }
}

/// `2026-11-30 04:12 UTC (3 min ago)`.
pub(crate) fn when(ms: i64, now: i64) -> String {
    format!("{} ({})", utc(ms), ago(ms, now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_read_as_utc_calendar_days() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        // 2026-11-30 04:12:31 UTC
        let ms = 1_796_011_951_000;
        assert_eq!(utc(ms), "2026-11-30 04:12 UTC");
        assert_eq!(iso(ms), "2026-11-30T04:12:31Z");
        assert_eq!(iso(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(utc(-1), "1969-12-31 23:59 UTC");
        let at = UNIX_EPOCH + Duration::from_millis(ms as u64);
        assert_eq!(millis(at), ms);
        assert_eq!(millis(UNIX_EPOCH - Duration::from_secs(1)), -1000);
    }

    #[test]
    fn ages_are_floored_to_one_unit() {
        let now = 1_796_011_951_000;
        assert_eq!(ago(now, now), "just now");
        assert_eq!(ago(now + 90_000, now), "just now");
        assert_eq!(ago(now - 59_999, now), "just now");
        assert_eq!(ago(now - 3 * 60_000 - 5_000, now), "3 min ago");
        assert_eq!(ago(now - 2 * 3_600_000 - 1, now), "2 h ago");
        assert_eq!(ago(now - 5 * 86_400_000, now), "5 d ago");
        assert_eq!(when(now - 180_000, now), "2026-11-30 04:09 UTC (3 min ago)");
    }
}
