//! The contract against real apps nobody here wrote: GTK4 (gnome-calculator), GTK3 (mousepad,
//! gtk3-widget-factory) and Chromium, each on the shared private headless desktop, through the
//! real CLI. Every app started here is killed when its guard drops.

mod common;

use common::{
    App, Desktop, chromium, desktop, element_lines, first_of_role, has_state, line_of,
    observe_until, point_of, ref_of, wait_until, window_where,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a GTK app may take to show its window and tree.
const GTK_START: Duration = Duration::from_secs(20);
/// Chromium needs longer: its renderer builds the page's tree only after it loads.
const CHROMIUM_START: Duration = Duration::from_secs(40);
/// How long a change an action caused may take to show in the tree.
const SETTLE: Duration = Duration::from_secs(10);

/// The header line of an observation.
fn header(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The number of elements the header counts.
fn element_count(text: &str) -> usize {
    header(text)
        .split(" · ")
        .find_map(|part| part.strip_suffix(" elements"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no element count in {:?}", header(text)))
}

/// The JSON element `reference` of a fresh observation of `target`.
/// A failed observation (a busy app under load) is returned as the failure, so a waiting caller
/// asks again instead of giving up on one slow answer.
fn element(desk: &Desktop, target: &str, reference: &str) -> Value {
    let doc = desk.act_json("observe", json!({"target": target}));
    let Some(elements) = doc["data"]["elements"].as_array() else {
        return doc;
    };
    elements
        .iter()
        .find(|e| e["ref"] == reference)
        .unwrap_or_else(|| panic!("{reference} is not in {doc}"))
        .clone()
}

/// Waits until the value of `reference` on `target` is `wanted` (`None`: no value, or empty).
/// A failure names the windows then open and how `app` fared, so a vanished window is explained.
fn wait_for_value(
    desk: &Desktop,
    app: &mut App,
    target: &str,
    reference: &str,
    wanted: Option<&str>,
) {
    let mut last = Value::Null;
    let found = wait_until(SETTLE, || {
        last = element(desk, target, reference);
        let value = last["value"].as_str().filter(|v| !v.is_empty());
        (last["ok"] != false && value == wanted).then_some(())
    });
    if found.is_none() {
        let windows = desk.act("windows", json!({})).stdout;
        panic!(
            "{reference} on {target} never had the value {wanted:?}; last: {last}\nwindows:\n{windows}app: {}",
            app.report()
        );
    }
}

/// The ref of the widget factory's first sensitive check box (it also has disabled ones).
fn enabled_check(text: &str) -> String {
    element_lines(text)
        .find(|l| l.contains("check \"checkbutton\"") && !has_state(l, "disabled"))
        .and_then(|l| l.trim_start().split(' ').next())
        .unwrap_or_else(|| panic!("no enabled check box in:\n{text}"))
        .to_owned()
}

/// `wmctrl -l`: the X window ids and titles, for failure messages.
fn x_windows(desk: &Desktop) -> String {
    desk.command("wmctrl")
        .arg("-l")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The listing of window `id` from `windows --json`.
fn listed_window(desk: &Desktop, id: &str) -> Value {
    let listed = desk.act_json("windows", json!({}));
    listed["data"]["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .find(|w| w["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not listed: {listed}"))
        .clone()
}

fn fixture_url(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
        .canonicalize()
        .expect("the fixture exists");
    file_url(&path)
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.to_str().expect("utf-8 path"))
}

/// A fresh, empty Chromium profile directory in the scratch dir.
fn fresh_profile(desk: &Desktop, name: &str) -> PathBuf {
    let dir = desk.scratch(&format!("chromium-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("profile dir");
    dir
}

/// Starts Chromium on the sign-up form and waits until its page tree shows; returns the window.
fn chromium_form(desk: &Desktop, profile: &Path) -> (App, String, String) {
    let app = chromium(desk, profile, &[], &fixture_url("form.html"));
    let title = "Deskhand Form - Chromium";
    let (w, _) = window_where(desk, CHROMIUM_START, "the Chromium form", |t| t == title);
    observe_until(
        desk,
        &w,
        CHROMIUM_START,
        "the form's heading and Send button",
        |t| t.contains("heading \"Sign up\"") && t.contains("button \"Send\""),
    );
    (app, w, title.to_owned())
}

#[test]
fn gnome_calculator_gtk4_by_accessibility_action_and_by_point() {
    let (_turn, desk) = desktop();
    let mut calculator = desk.spawn("gnome-calculator", &[]);
    let (w, _) = window_where(desk, GTK_START, "gnome-calculator", |t| t == "Calculator");
    let text = observe_until(desk, &w, GTK_START, "the keypad", |t| {
        t.contains("button \"7\"") && t.contains("button \"=\"")
    });
    assert!(
        header(&text).starts_with(&format!("observe {w} \"Calculator\" · app a")),
        "{text}"
    );
    assert!(header(&text).contains("gnome-calculator"), "{text}");
    let seven = ref_of(&text, &["button \"7\""]);
    let times = ref_of(&text, &["button \"×\""]);
    let two = ref_of(&text, &["button \"2\""]);
    // The display is the first text element: the editable expression line.
    let display = first_of_role(&text, "text");
    let placed = desk
        .act("observe", json!({"target": w, "points": true}))
        .ok();
    for r in [&seven, &times, &two, &display] {
        let line = line_of(&placed, r);
        assert!(line.contains(" @"), "{r} has no point: {line}");
    }

    desk.activate("Calculator");
    desk.act("press", json!({"keys": "Escape"})).ok();
    wait_for_value(desk, &mut calculator, &w, &display, None);

    for (r, label) in [(&seven, "7"), (&times, "×"), (&two, "2")] {
        let reply = desk.act("click", json!({"ref": r})).ok();
        assert!(
            reply.starts_with(&format!(
                "done: clicked {r} button \"{label}\" through its accessibility action"
            )),
            "{reply}"
        );
        assert!(reply.contains("pointer not moved"), "{reply}");
    }
    wait_for_value(desk, &mut calculator, &w, &display, Some("7×2"));
    desk.act("press", json!({"keys": "Return"})).ok();
    wait_for_value(desk, &mut calculator, &w, &display, Some("14"));
    let text = desk.act("observe", json!({"target": w})).ok();
    assert!(line_of(&text, &display).contains("text value=14"), "{text}");

    // A pointer click at the reported point of "7": GTK4 reports extents relative to its
    // window, so this only lands on "7" if they were mapped to the screen correctly.
    desk.act("press", json!({"keys": "Escape"})).ok();
    wait_for_value(desk, &mut calculator, &w, &display, None);
    let text = desk
        .act("observe", json!({"target": w, "points": true}))
        .ok();
    let (x, y) = point_of(line_of(&text, &seven));
    let reply = desk.act("click", json!({"target": w, "x": x, "y": y})).ok();
    assert!(reply.starts_with("done: clicked at"), "{reply}");
    assert!(reply.contains("with the pointer"), "{reply}");
    wait_for_value(desk, &mut calculator, &w, &display, Some("7"));
    // And the operator at its point, to rule out a lucky landing.
    let (x, y) = point_of(line_of(&text, &times));
    desk.act("click", json!({"target": w, "x": x, "y": y})).ok();
    wait_for_value(desk, &mut calculator, &w, &display, Some("7×"));
}

#[test]
fn mousepad_gtk3_takes_unicode_text_exactly_and_clears() {
    let (_turn, desk) = desktop();
    let file = desk.scratch("mousepad-unicode.txt");
    let _ = std::fs::remove_file(&file);
    let mut mousepad = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    // The title is "<path> - Mousepad", with a leading "*" while the new file is unsaved.
    let (w, _) = window_where(desk, GTK_START, "mousepad's editor", |t| {
        t.contains("mousepad-unicode.txt") && t.ends_with("Mousepad")
    });
    let text = observe_until(desk, &w, GTK_START, "the editor", |t| {
        element_lines(t).any(|l| l.trim_start().split(' ').nth(1) == Some("text"))
    });
    let head = header(&text);
    assert!(head.starts_with(&format!("observe {w} \"")), "{text}");
    assert!(
        head.contains("mousepad-unicode.txt - Mousepad\" · app a"),
        "{text}"
    );
    assert!(text.contains("menu \"File\""), "{text}");
    let editor = first_of_role(&text, "text");
    let title = listed_window(desk, &w)["title"]
        .as_str()
        .expect("title")
        .to_owned();
    desk.activate(&title);
    wait_for_value(desk, &mut mousepad, &w, &editor, None);

    let wanted = "héllo wörld → 世界 ✓";
    let reply = desk.act("type", json!({"text": wanted})).ok();
    assert!(
        reply.starts_with(&format!(
            "done: typed 18 characters into the focused element of {w} \""
        )) && reply.ends_with("Mousepad\"\n"),
        "{reply}"
    );
    wait_for_value(desk, &mut mousepad, &w, &editor, Some(wanted));
    let text = desk.act("observe", json!({"target": w})).ok();
    assert!(
        line_of(&text, &editor).contains(&format!("text value=\"{wanted}\"")),
        "{text}"
    );

    let reply = desk.act("press", json!({"keys": "ctrl+a"})).ok();
    assert!(
        reply.starts_with(&format!("done: pressed ctrl+a in {w} \""))
            && reply.ends_with("Mousepad\", the focused window\n"),
        "{reply}"
    );
    desk.act("press", json!({"keys": "BackSpace"})).ok();
    wait_for_value(desk, &mut mousepad, &w, &editor, None);
}

#[test]
fn gtk3_widget_factory_lists_its_controls_and_a_check_box_flips_by_ref() {
    let (_turn, desk) = desktop();
    let _factory = desk.spawn("gtk3-widget-factory", &[]);
    let (w, _) = window_where(desk, GTK_START, "gtk3-widget-factory", |t| {
        t == "gtk3-widget-factory"
    });
    let text = observe_until(desk, &w, GTK_START, "its check boxes", |t| {
        t.contains("check \"checkbutton\"")
    });
    assert!(
        header(&text).starts_with(&format!("observe {w} \"gtk3-widget-factory\"")),
        "{text}"
    );
    assert!(element_count(&text) >= 20, "{}", header(&text));
    for known in [
        "radio \"Page 1\" checked",
        "toggle \"togglebutton\"",
        "radio \"radiobutton\"",
        "button \"Close\"",
        "spin value=50",
        "slider value=50",
        "progress value=0.5",
        "tab \"page 1\" selected",
        "cell \"Andrea\"",
    ] {
        assert!(text.contains(known), "{known:?} is not listed:\n{text}");
    }
    let check = enabled_check(&text);
    let was_checked = has_state(line_of(&text, &check), "checked");
    // A check box's role says it can be checked: its line shows only "checked".
    assert!(
        !has_state(line_of(&text, &check), "unchecked"),
        "{}",
        line_of(&text, &check)
    );
    for flip in 1..=2 {
        let reply = desk.act("click", json!({"ref": check})).ok();
        assert!(
            reply.starts_with(&format!(
                "done: clicked {check} check \"checkbutton\" through its accessibility action"
            )),
            "{reply}"
        );
        let now_checked = was_checked ^ (flip % 2 == 1);
        let state = if now_checked {
            "checked"
        } else {
            "not checked"
        };
        observe_until(desk, &w, SETTLE, &format!("{check} {state}"), |t| {
            has_state(line_of(t, &check), "checked") == now_checked
        });
    }

    // GTK3 answers a disabled check box's action with success and leaves it as it was: the
    // click is refused, not reported done.
    let disabled = element_lines(&text)
        .find(|l| l.contains("check \"checkbutton\"") && has_state(l, "disabled"))
        .and_then(|l| l.trim_start().split(' ').next())
        .unwrap_or_else(|| panic!("no disabled check box in:\n{text}"))
        .to_owned();
    let before = line_of(&text, &disabled).to_owned();
    let refused = desk.act("click", json!({"ref": disabled}));
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(
        refused.stdout.starts_with(&format!(
            "failed (disabled): {disabled} check \"checkbutton\""
        )) && refused.stdout.contains("nothing was done"),
        "{}",
        refused.stdout
    );
    let after = desk.act("observe", json!({"target": w})).ok();
    assert_eq!(
        line_of(&after, &disabled),
        before,
        "the disabled check box changed"
    );
}

#[test]
fn chromium_form_hides_the_password_and_takes_a_ref_click_typing_and_submit() {
    let (_turn, desk) = desktop();
    let profile = fresh_profile(desk, "form");
    let (mut chromium, w, title) = chromium_form(desk, &profile);
    fill_and_submit_the_form(desk, &mut chromium, &w, &title);
}

fn fill_and_submit_the_form(desk: &Desktop, chromium: &mut App, w: &str, title: &str) {
    let w = w.to_owned();
    let title = title.to_owned();
    let text = desk.act("observe", json!({"target": w})).ok();
    assert!(
        header(&text).starts_with(&format!("observe {w} \"{title}\" · app a")),
        "{text}"
    );
    assert!(text.contains("document \"Deskhand Form\""), "{text}");
    assert!(
        text.contains("password \"Secret\" value=<hidden>"),
        "{text}"
    );
    assert!(!text.contains("s3cr3t"), "{text}");
    let doc = desk.act_json("observe", json!({"target": w}));
    assert!(!doc.to_string().contains("s3cr3t"), "{doc}");
    assert!(
        doc["data"]["elements"]
            .as_array()
            .expect("elements")
            .iter()
            .any(|e| e["role"] == "password" && e["name"] == "Secret"),
        "{doc}"
    );

    // Text fields take focus with the pointer: the window has to be raised and focused.
    desk.activate(&title);
    let text = desk.act("observe", json!({"target": w})).ok();
    let email = ref_of(&text, &["text \"Email\""]);
    let reply = desk.act("click", json!({"ref": email})).ok();
    assert!(
        reply.starts_with(&format!(
            "done: clicked {email} text \"Email\" with the pointer"
        )),
        "{reply}"
    );
    wait_until(SETTLE, || {
        has_state(
            line_of(&desk.act("observe", json!({"target": w})).ok(), &email),
            "focused",
        )
        .then_some(())
    })
    .expect("the Email field never took focus");
    let address = "ana.lopez+test@example.org";
    let reply = desk.act("type", json!({"text": address})).ok();
    assert!(
        reply.starts_with(&format!(
            "done: typed {} characters into the focused element of {w} \"",
            address.chars().count()
        )),
        "{reply}"
    );
    wait_for_value(desk, chromium, &w, &email, Some(address));

    let text = desk.act("observe", json!({"target": w})).ok();
    assert!(text.contains("\"Waiting\""), "{text}");
    let send = ref_of(&text, &["button \"Send\""]);
    let reply = desk.act("click", json!({"ref": send})).ok();
    assert!(
        reply.starts_with(&format!("done: clicked {send} button \"Send\"")),
        "{reply}"
    );
    let status = format!("\"Submitted {address}\"");
    let text = observe_until(desk, &w, SETTLE, &status, |t| t.contains(&status));
    assert!(!text.contains("\"Waiting\""), "{text}");
    assert!(!text.contains("s3cr3t"), "{text}");
}

#[test]
fn chromium_buttons_click_through_their_accessibility_action_even_when_covered() {
    let (_turn, desk) = desktop();
    let profile = fresh_profile(desk, "covered");
    let (_chromium, w, _) = chromium_form(desk, &profile);
    let text = desk.act("observe", json!({"target": w})).ok();
    let send = ref_of(&text, &["button \"Send\""]);
    // A big window over the whole form: a pointer click at Send would land on it.
    let _cover = desk.spawn("gtk3-widget-factory", &[]);
    window_where(desk, GTK_START, "the covering window", |t| {
        t == "gtk3-widget-factory"
    });
    let status = desk
        .command("wmctrl")
        .args(["-F", "-r", "gtk3-widget-factory", "-e", "0,0,0,-1,-1"])
        .status()
        .expect("wmctrl");
    assert!(status.success());
    desk.activate("gtk3-widget-factory");
    let reply = desk.act("click", json!({"ref": send})).ok();
    assert!(
        reply.contains("through its accessibility action"),
        "Chromium's button has the AT-SPI action \"press\" (Action.GetName(0)), yet the click \
         used the pointer and landed on the covering window: {reply}"
    );
    observe_until(desk, &w, SETTLE, "the submitted status", |t| {
        t.contains("\"Submitted")
    });
}

#[test]
fn each_window_of_one_chromium_process_is_its_own_surface() {
    let (_turn, desk) = desktop();
    let profile = fresh_profile(desk, "two-windows");
    let (_chromium, form_w, form_title) = chromium_form(desk, &profile);
    let second = desk.scratch("second.html");
    std::fs::write(
        &second,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Second Window</title></head>\
         <body><h1>Other page</h1><button>Elsewhere</button></body></html>",
    )
    .expect("writing the second page");
    // The same profile hands the URL to the running browser, which opens a second window.
    let _handoff = chromium(desk, &profile, &["--new-window"], &file_url(&second));
    let second_title = "Second Window - Chromium";
    let (second_w, _) = window_where(desk, CHROMIUM_START, "the second window", |t| {
        t == second_title
    });
    assert_ne!(form_w, second_w);
    assert_eq!(
        listed_window(desk, &form_w)["app_id"],
        listed_window(desk, &second_w)["app_id"],
        "both windows belong to one Chromium process"
    );
    observe_until(desk, &second_w, CHROMIUM_START, "the second page", |t| {
        t.contains("heading \"Other page\"")
    });

    let refs = |text: &str| -> Vec<String> {
        element_lines(text)
            .filter_map(|l| l.trim_start().split(' ').next().map(str::to_owned))
            .collect()
    };
    // Whichever window has the focus, each id observes exactly its own window.
    for focused in [second_title, form_title.as_str()] {
        desk.activate(focused);
        let form = desk.act("observe", json!({"target": form_w})).ok();
        let other = desk.act("observe", json!({"target": second_w})).ok();
        assert!(
            header(&form).starts_with(&format!("observe {form_w} \"{form_title}\" ")),
            "{form}"
        );
        assert!(
            header(&other).starts_with(&format!("observe {second_w} \"{second_title}\" ")),
            "{other}"
        );
        // Each window's own line leaves its title to the header.
        let untitled_window = |l: &str| l.contains(" window") && !l.contains('"');
        assert!(
            element_lines(&form).next().is_some_and(untitled_window),
            "{form}"
        );
        assert!(
            element_lines(&other).next().is_some_and(untitled_window),
            "{other}"
        );
        assert!(form.contains("heading \"Sign up\""), "{form}");
        assert!(!form.contains("Other page"), "{form}");
        assert!(other.contains("heading \"Other page\""), "{other}");
        assert!(other.contains("button \"Elsewhere\""), "{other}");
        assert!(!other.contains("Sign up"), "{other}");
        let (a, b) = (refs(&form), refs(&other));
        assert!(
            a.iter().all(|r| !b.contains(r)),
            "the two windows share elements: {a:?} / {b:?}"
        );
    }
}

#[test]
fn a_screen_observation_lists_each_windows_root_with_its_id() {
    let (_turn, desk) = desktop();
    let _calculator = desk.spawn("gnome-calculator", &[]);
    let file = desk.scratch("mousepad-screen.txt");
    let _mousepad = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    let (calc_w, _) = window_where(desk, GTK_START, "gnome-calculator", |t| t == "Calculator");
    let (pad_w, _) = window_where(desk, GTK_START, "mousepad", |t| {
        t.contains("mousepad-screen.txt")
    });
    observe_until(desk, &calc_w, GTK_START, "the calculator's keypad", |t| {
        t.contains("button \"7\"")
    });
    observe_until(desk, &pad_w, GTK_START, "mousepad's menus", |t| {
        t.contains("menu \"File\"")
    });

    let pad_title = listed_window(desk, &pad_w)["title"]
        .as_str()
        .expect("title")
        .to_owned();
    let text = desk.act("observe", json!({"target": "screen"})).ok();
    assert!(header(&text).starts_with("observe screen · "), "{text}");
    // The tree of each window, from its root line (not indented) to the next root.
    let mut roots: Vec<(&str, String)> = Vec::new();
    for line in element_lines(&text) {
        if line.starts_with(' ') {
            if let Some((_, body)) = roots.last_mut() {
                body.push_str(line);
                body.push('\n');
            }
        } else {
            roots.push((line, String::new()));
        }
    }
    assert!(roots.len() >= 2, "{text}");
    for (root, _) in &roots {
        assert!(
            root.split(' ')
                .any(|word| word.starts_with("[w") && word.ends_with(']')),
            "a root without its window id: {root}\n{text}"
        );
    }
    let tree_of = |w: &str| -> (&str, &str) {
        roots
            .iter()
            .find(|(root, _)| root.contains(&format!(" [{w}]")))
            .map(|(root, body)| (*root, body.as_str()))
            .unwrap_or_else(|| panic!("no root labelled [{w}] in:\n{text}"))
    };
    let (calc_root, calc_tree) = tree_of(&calc_w);
    assert!(
        calc_root.contains(&format!("window \"Calculator\" [{calc_w}]")),
        "{calc_root}"
    );
    assert!(calc_tree.contains("button \"7\""), "{calc_tree}");
    assert!(!calc_tree.contains("menu \"File\""), "{calc_tree}");
    let (pad_root, pad_tree) = tree_of(&pad_w);
    assert!(
        pad_root.contains(&format!("\"{pad_title}\" [{pad_w}]")),
        "{pad_root}"
    );
    assert!(pad_tree.contains("menu \"File\""), "{pad_tree}");
    assert!(!pad_tree.contains("button \"7\""), "{pad_tree}");
    // A screen observation leaves the screen current.
    let plain = desk.act("observe", json!({})).ok();
    assert!(plain.starts_with("observe screen"), "{plain}");
}

#[test]
fn a_window_id_is_never_given_to_a_later_window_that_reuses_the_x_id() {
    let (_turn, desk) = desktop();
    let first_file = desk.scratch("reuse-first.txt");
    let first = desk.spawn("mousepad", &[first_file.to_str().expect("utf-8 path")]);
    let (first_w, _) = window_where(desk, GTK_START, "the first mousepad", |t| {
        t.contains("reuse-first.txt")
    });
    observe_until(desk, &first_w, GTK_START, "the first editor", |t| {
        t.contains("menu \"File\"")
    });
    let before = x_windows(desk);
    drop(first);
    let gone = wait_until(SETTLE, || {
        let run = desk.act("observe", json!({"target": first_w}));
        (run.code == 1).then_some(run.stdout)
    })
    .expect("observing the killed window fails");
    assert!(gone.starts_with("failed (surface-gone)"), "{gone}");

    // The X server hands the next client the freed resource range, so the next window of the
    // same program very likely gets the same X window id.
    let second_file = desk.scratch("reuse-second.txt");
    let _second = desk.spawn("mousepad", &[second_file.to_str().expect("utf-8 path")]);
    let (second_w, second_title) = window_where(desk, GTK_START, "the second mousepad", |t| {
        t.contains("reuse-second.txt")
    });
    assert_ne!(
        first_w,
        second_w,
        "a new window {second_title:?} got the id of a closed one; X windows before:\n{before}after:\n{}",
        x_windows(desk)
    );
    let again = desk.act("observe", json!({"target": first_w}));
    assert!(
        again.stdout.starts_with("failed (surface-gone)"),
        "{first_w} was closed but now observes another window: {}",
        again.stdout
    );
}

#[test]
fn ref_clicks_use_the_accessibility_action_whatever_the_ui_language() {
    let (_turn, desk) = desktop();
    // The same widget factory with a German UI: its actions' localized names are "Klicken", their
    // names (what `Action.GetName` returns) are still "click".
    let _factory = desk.spawn_with_env(
        "gtk3-widget-factory",
        &[],
        &[("LC_ALL", "C.UTF-8"), ("LANGUAGE", "de")],
    );
    let (w, _) = window_where(desk, GTK_START, "gtk3-widget-factory", |t| {
        t == "gtk3-widget-factory"
    });
    let text = observe_until(desk, &w, GTK_START, "its check boxes", |t| {
        t.contains("check \"checkbutton\"")
    });
    let check = enabled_check(&text);
    let reply = desk.act("click", json!({"ref": check})).ok();
    assert!(
        reply.contains("through its accessibility action"),
        "the check box has the AT-SPI action \"click\" (localized \"Klicken\"), yet the click \
         used the pointer: {reply}"
    );
}

/// Chromium (Debian 12's) crashed with SIGSEGV when a key reached it just as an accessibility
/// listener registered, which every CLI call used to do on connecting. The desktop now keeps one
/// listener, and calls register only if nobody listens.
#[test]
fn chromium_survives_keys_from_short_lived_cli_calls() {
    let (_turn, desk) = desktop();
    let profile = fresh_profile(desk, "keys");
    let (mut chromium, w, title) = chromium_form(desk, &profile);
    desk.activate(&title);
    for _ in 0..3 {
        desk.act("press", json!({"keys": "a"})).ok();
        desk.act("type", json!({"text": "b"})).ok();
    }
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        matches!(chromium.child.try_wait(), Ok(None)),
        "Chromium died: {}",
        chromium.report()
    );
    let again = desk.act("observe", json!({"target": w}));
    assert_eq!(again.code, 0, "{}", again.stdout);
}
