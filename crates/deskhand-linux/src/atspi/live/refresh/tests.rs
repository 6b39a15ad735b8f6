use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::FutureExt;
use zbus::zvariant::Value;

use super::super::Mark;
use super::super::tests::kept;
use super::*;

const APP: &str = ":1.5";

/// An AT-SPI event as `sender` sends it: `interface` is `Object` or `Cache`.
fn event(sender: &str, interface: &str, member: &str, detail: &str) -> zbus::Message {
    let body = (
        detail.to_owned(),
        1i32,
        0i32,
        Value::from(0i32),
        HashMap::<String, Value>::new(),
    );
    zbus::Message::signal(
        "/org/a11y/atspi/accessible/7",
        format!("org.a11y.atspi.{interface}").as_str(),
        member,
    )
    .and_then(|builder| builder.sender(sender))
    .and_then(|builder| builder.build(&body))
    .expect("a valid signal")
}

#[test]
fn a_window_is_wanted_once_its_app_sent_a_change() {
    let stamps = Stamps::default();
    let window = kept(APP, 10, 0);
    assert!(!wanted_between(&window, &stamps), "nothing was sent yet");
    stamps.note(&event(":1.9", "Event.Object", "StateChanged", "checked"));
    assert!(
        !wanted_between(&window, &stamps),
        "another app's change is not this window's"
    );
    stamps.note(&event(APP, "Event.Object", "StateChanged", "checked"));
    assert!(wanted_between(&window, &stamps));
}

#[test]
fn an_event_that_changes_nothing_shown_wants_only_a_walked_window() {
    let stamps = Stamps::default();
    stamps.note(&event(APP, "Cache", "AddAccessible", ""));
    let patched = kept(APP, 10, 0);
    assert!(!wanted_between(&patched, &stamps));
    let walked = Kept {
        patched: false,
        ..kept(APP, 10, 0)
    };
    assert!(
        wanted_between(&walked, &stamps),
        "a walked window is stale after any event, as at an observe"
    );
}

#[test]
fn a_window_read_enough_or_not_observed_lately_is_not_wanted() {
    let stamps = Stamps::default();
    stamps.note(&event(APP, "Event.Object", "TextChanged", "insert"));
    let read_enough = Kept {
        reads_unobserved: MAX_UNOBSERVED_READS,
        ..kept(APP, 10, 0)
    };
    assert!(!wanted_between(&read_enough, &stamps));
    let Some(long_ago) = Instant::now().checked_sub(WANTED_FOR + Duration::from_secs(1)) else {
        return;
    };
    let forgotten = Kept {
        observed: long_ago,
        ..kept(APP, 10, 0)
    };
    assert!(!wanted_between(&forgotten, &stamps));
}

#[test]
fn a_window_read_after_the_change_is_not_wanted() {
    let stamps = Stamps::default();
    stamps.note(&event(APP, "Event.Object", "StateChanged", "checked"));
    let read_after = Kept {
        mark: Mark(stamps.next.load(Ordering::SeqCst)),
        ..kept(APP, 10, 0)
    };
    assert!(!wanted_between(&read_after, &stamps));
}

#[test]
fn each_event_wakes_the_reading_between_observes() {
    let stamps = Stamps::default();
    assert!(stamps.heard.notified().now_or_never().is_none());
    stamps.note(&event(APP, "Cache", "AddAccessible", ""));
    assert!(stamps.heard.notified().now_or_never().is_some());
}
