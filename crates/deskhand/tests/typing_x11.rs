//! Long text typed by ref on X11 (or into the focused field an observation listed) goes into
//! the field in one request through accessibility (EditableText), not as one key event per
//! character: it arrives exactly in mousepad (GTK 3, its saved file compared), a GTK 3 entry, a
//! Qt line edit and a Qt plain-text editor (their own text), in place of a selection where there
//! is one, and leaves the person's clipboard and keymap as they were. A Firefox field takes
//! none of that, and long text is pasted into it through the clipboard, which is put back as it
//! was, every target. A password, text with a newline and short text still go as keys.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Desktop, desktop, element_lines, input_events, wait_until, window_where};
use serde_json::json;

/// How long an app may take to show its window and tree.
const START: Duration = Duration::from_secs(30);
/// How long a change may take to show: a saved file, a logged text.
const SETTLE: Duration = Duration::from_secs(10);
/// What the reply says of text that went in one request.
const INSERTED: &str = "through accessibility, in one request";

/// `length` characters of ASCII, accents, Greek, CJK, Hangul, symbols, emoji (outside the
/// Basic Multilingual Plane, two UTF-16 units each) and right-to-left Hebrew and Arabic.
fn mixed_text(length: usize) -> String {
    const POOL: &str = "The quick brown fox jumps over 13 lazy dogs; déjà vu à la façade, \
        naïve señor, Łódź; Ελληνικά αβγ; 日本語の文章、中文字符と한국어; → ✓ € ½ ≠ ∞ ★ 😀🎉👍🏽 \
        שלום עולם مرحبا بالعالم; ";
    POOL.chars().cycle().take(length).collect()
}

/// The ref of the first element line of `w`'s observation with this role (and name, when
/// given), waiting for it to show.
fn field(desk: &Desktop, w: &str, role: &str, name: Option<&str>) -> String {
    wait_until(START, || {
        let text = desk.act("observe", json!({"target": w})).stdout;
        element_lines(&text)
            .find(|l| {
                let mut words = l.trim_start().split(' ');
                words.nth(1) == Some(role)
                    && name.is_none_or(|name| l.contains(&format!("{role} \"{name}\"")))
            })
            .and_then(|l| l.trim_start().split(' ').next())
            .map(str::to_owned)
    })
    .unwrap_or_else(|| panic!("no {role} {name:?} in {w}"))
}

/// The X server's keymap as `xmodmap -pke` prints it: any keycode remapped and left so shows.
fn keymap(desk: &Desktop) -> String {
    String::from_utf8_lossy(&desk.output_of("xmodmap", &["-pke"])).into_owned()
}

/// The clipboard's text as `xclip` reads it, from outside deskhand.
fn clipboard(desk: &Desktop) -> String {
    let output = desk
        .command("xclip")
        .args(["-o", "-selection", "clipboard"])
        .output()
        .expect("running xclip");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Puts `text` on the clipboard through `xclip`, as another app of the person's would.
fn own_clipboard(desk: &Desktop, text: &str) {
    own_clipboard_as(desk, text, "UTF8_STRING");
}

/// Puts `text` on the clipboard as `target` through `xclip`, which offers that target alone.
fn own_clipboard_as(desk: &Desktop, text: &str, target: &str) {
    xclip_in(desk, &["-selection", "clipboard", "-t", target], text);
    let held = wait_until(SETTLE, || {
        let output = desk
            .command("xclip")
            .args(["-o", "-selection", "clipboard", "-t", target])
            .output()
            .ok()?;
        (output.stdout == text.as_bytes()).then_some(())
    });
    assert!(held.is_some(), "xclip never held the person's text");
}

/// Puts `text` in the PRIMARY selection through `xclip`, as a person's selecting text would.
fn own_primary(desk: &Desktop, text: &str) {
    xclip_in(desk, &["-selection", "primary"], text);
}

/// Runs `xclip` with `args`, handing it `text` to hold.
fn xclip_in(desk: &Desktop, args: &[&str], text: &str) {
    use std::io::Write;
    let mut xclip = desk
        .command("xclip")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("running xclip");
    xclip
        .stdin
        .take()
        .expect("xclip's stdin")
        .write_all(text.as_bytes())
        .expect("writing to xclip");
    xclip.wait().expect("xclip hands the text to its holder");
}

/// Mousepad on a file of its own in the scratch folder: its window and the editor's ref.
fn mousepad(desk: &Desktop, name: &str) -> (common::App, std::path::PathBuf, String, String) {
    let file = desk.scratch(name);
    let _ = std::fs::remove_file(&file);
    let app = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    let (w, title) = window_where(desk, START, "mousepad", |t| t.contains(name));
    let editor = field(desk, &w, "text", None);
    desk.activate(&title);
    (app, file, w, editor)
}

/// Saves mousepad's file (ctrl+s) and waits until it holds `wanted`; what it holds.
fn saved(desk: &Desktop, file: &Path, wanted: &str) -> String {
    desk.act("press", json!({"keys": "ctrl+s"})).ok();
    wait_until(SETTLE, || {
        let now = std::fs::read_to_string(file).ok()?;
        (now == wanted).then_some(now)
    })
    .unwrap_or_else(|| std::fs::read_to_string(file).unwrap_or_default())
}

#[test]
fn long_mixed_text_goes_into_mousepad_in_one_request_and_leaves_clipboard_and_keymap() {
    let (_turn, desk) = desktop();
    let (_app, file, _w, editor) = mousepad(desk, "typing-long.txt");
    own_clipboard(desk, "the person's own words ✓");
    let keymap_before = keymap(desk);

    let text = mixed_text(1_000);
    let reply = desk.act("type", json!({"ref": editor, "text": text})).ok();
    assert!(reply.starts_with("done: "), "{reply}");
    assert!(
        reply.contains(&format!("{INSERTED} (read back)")),
        "not inserted in one request: {reply}"
    );
    assert!(
        !reply.contains("déjà"),
        "the reply echoes the text: {reply}"
    );
    let on_disk = saved(desk, &file, &text);
    assert_eq!(on_disk, text, "mousepad saved other text");
    assert_eq!(clipboard(desk), "the person's own words ✓");
    assert_eq!(keymap(desk), keymap_before, "the keymap was left changed");
}

/// Without a ref, text goes into the focused field the latest observation listed, the same way.
#[test]
fn long_text_without_a_ref_goes_into_the_observed_focused_field_in_one_request() {
    let (_turn, desk) = desktop();
    let (_app, file, w, _editor) = mousepad(desk, "typing-focus.txt");
    let text = mixed_text(500);
    let reply = desk.act("type", json!({"target": w, "text": text})).ok();
    assert!(
        reply.contains(&format!("into the focused element of {w}")),
        "{reply}"
    );
    assert!(
        reply.contains(&format!("{INSERTED} (read back)")),
        "{reply}"
    );
    assert_eq!(saved(desk, &file, &text), text);
}

#[test]
fn typing_over_a_selection_replaces_only_the_selection() {
    let (_turn, desk) = desktop();
    let (_app, file, w, editor) = mousepad(desk, "typing-selection.txt");
    desk.act("type", json!({"target": w, "text": "alpha beta gamma"}))
        .ok();
    desk.act("press", json!({"keys": "ctrl+Home ctrl+shift+Right"}))
        .ok();
    let text = mixed_text(200);
    let reply = desk.act("type", json!({"ref": editor, "text": text})).ok();
    assert!(
        reply.contains(&format!(
            "{INSERTED}, in place of the 5 characters it had selected (read back)"
        )),
        "{reply}"
    );
    let wanted = format!("{text} beta gamma");
    assert_eq!(saved(desk, &file, &wanted), wanted);

    // Then text typed at the caret goes after what was inserted, as it would after keys.
    let more = mixed_text(80).chars().rev().collect::<String>();
    let reply = desk.act("type", json!({"ref": editor, "text": more})).ok();
    assert!(reply.contains(INSERTED), "{reply}");
    let wanted = format!("{text}{more} beta gamma");
    assert_eq!(saved(desk, &file, &wanted), wanted);
}

#[test]
fn text_with_a_newline_and_short_text_go_as_keys() {
    let (_turn, desk) = desktop();
    let (_app, file, _w, editor) = mousepad(desk, "typing-keys.txt");
    let lines = format!(
        "{}\n{}",
        mixed_text(40),
        "second line of plain words, long enough"
    );
    let reply = desk.act("type", json!({"ref": editor, "text": lines})).ok();
    assert!(reply.starts_with("done: "), "{reply}");
    assert!(
        !reply.contains(INSERTED),
        "a newline must go as keys: {reply}"
    );
    let short = " and a few more";
    let reply = desk.act("type", json!({"ref": editor, "text": short})).ok();
    assert!(
        !reply.contains(INSERTED),
        "short text goes as keys: {reply}"
    );
    let wanted = format!("{lines}{short}");
    assert_eq!(saved(desk, &file, &wanted), wanted);
}

#[test]
fn a_password_goes_as_keys_and_a_gtk_field_takes_long_text_without_a_key() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Typing Fixture", 1);
    let w = desk.window_id("Typing Fixture");
    let name = field(desk, &w, "text", Some("Name"));
    let password = field(desk, &w, "password", Some("Password"));

    let secret: String = "s3cr3t-".chars().cycle().take(70).collect();
    let before = fixture.events().len();
    let reply = desk
        .act("type", json!({"ref": password, "text": secret}))
        .ok();
    assert!(
        !reply.contains(INSERTED),
        "a password must go as keys: {reply}"
    );
    fixture.wait_for("the whole password", |e| {
        e["widget"] == "password" && e["length"] == 70
    });
    let keys = fixture
        .settled_events(before)
        .iter()
        .filter(|e| e["event"] == "key")
        .count();
    assert!(keys >= 70, "{keys} key events for 70 password characters");

    let text = mixed_text(300);
    let before = fixture.events().len();
    let reply = desk.act("type", json!({"ref": name, "text": text})).ok();
    assert!(reply.contains(INSERTED), "{reply}");
    fixture.wait_for("the whole text", |e| {
        e["widget"] == "name" && e["text"] == text.as_str()
    });
    let events = fixture.settled_events(before);
    let keys: Vec<_> = input_events(&events)
        .into_iter()
        .filter(|e| e["event"] == "key")
        .collect();
    assert!(keys.is_empty(), "keys reached the field: {keys:?}");
}

#[test]
fn long_mixed_text_arrives_exactly_in_qt_fields() {
    let (_turn, desk) = desktop();
    let fixture = desk.python_fixture("qt_fields.py", "Qt Typing", &[]);
    let w = desk.window_id("Qt Typing");
    let name = field(desk, &w, "text", Some("Name"));
    let text = mixed_text(1_000);
    let reply = desk.act("type", json!({"ref": name, "text": text})).ok();
    assert!(reply.starts_with("done: "), "{reply}");
    assert!(reply.contains(INSERTED), "{reply}");
    fixture.wait_for("the whole text in the line edit", |e| {
        e["widget"] == "name" && e["text"] == text.as_str()
    });

    // A read-only field takes nothing: the reply says so rather than done.
    let code = field(desk, &w, "text", Some("Code"));
    let reply = desk.act("type", json!({"ref": code, "text": text})).stdout;
    assert!(reply.starts_with("applied but unconfirmed: "), "{reply}");
    assert!(!reply.contains(INSERTED), "{reply}");

    // FeatherPad's editor is a QPlainTextEdit; its saved file is compared.
    let file = desk.scratch("featherpad-typing.txt");
    std::fs::write(&file, "").expect("an empty file");
    let _featherpad = desk.spawn(
        "featherpad",
        &["--standalone", file.to_str().expect("utf-8 path")],
    );
    let (w, title) = window_where(desk, START, "FeatherPad", |t| {
        t.contains("featherpad-typing.txt")
    });
    let editor = field(desk, &w, "text", None);
    desk.activate(&title);
    let reply = desk.act("type", json!({"ref": editor, "text": text})).ok();
    assert!(
        reply.contains(&format!("{INSERTED} (read back)")),
        "{reply}"
    );
    desk.act("press", json!({"keys": "ctrl+s"})).ok();
    // FeatherPad ends a saved file with a newline.
    let on_disk = wait_until(SETTLE, || {
        let now = std::fs::read_to_string(&file).ok()?;
        (now.trim_end_matches('\n') == text).then_some(now)
    });
    assert!(
        on_disk.is_some(),
        "FeatherPad saved {:?}",
        std::fs::read_to_string(&file).unwrap_or_default()
    );
}

/// Every target the clipboard offers with its content, as `xclip` reads them from outside
/// deskhand. TIMESTAMP is left out: it is the time the clipboard was taken, which putting it
/// back takes anew.
fn clipboard_targets(desk: &Desktop) -> Vec<(String, Vec<u8>)> {
    let read = |target: &str| {
        desk.command("xclip")
            .args(["-o", "-selection", "clipboard", "-t", target])
            .output()
            .expect("running xclip")
            .stdout
    };
    let listed = String::from_utf8_lossy(&read("TARGETS")).into_owned();
    listed
        .lines()
        .filter(|target| *target != "TIMESTAMP")
        .map(|target| (target.to_owned(), read(target)))
        .collect()
}

/// Gecko answers an insert into a web page's field with success and changes nothing, and reads
/// about 1,000 key events a second: long text is pasted through the clipboard, read back, and
/// the person's clipboard (every target) and keymap are as they were.
#[test]
fn long_mixed_text_is_pasted_into_a_firefox_field_and_the_clipboard_is_put_back() {
    let (_turn, desk) = desktop();
    let _firefox = desk.firefox_on_fixture_page("typing_fields.html", "firefox-typing-profile");
    let (w, _) = window_where(desk, START, "Firefox", |t| t.starts_with("Typing Fields"));
    let name = field(desk, &w, "text", Some("Name"));
    own_clipboard_as(desk, "<b>the person's</b> own ✓", "text/html");
    let clipboard_before = clipboard_targets(desk);
    assert_eq!(
        clipboard_before
            .iter()
            .map(|(t, _)| t.as_str())
            .collect::<Vec<_>>(),
        ["TARGETS", "text/html"]
    );
    let keymap_before = keymap(desk);
    let primary = |desk: &Desktop| {
        desk.command("xclip")
            .args(["-o", "-selection", "primary"])
            .output()
            .expect("running xclip")
            .stdout
    };
    own_primary(desk, "the person's selection ✓");
    let primary_before = primary(desk);
    assert_eq!(primary_before, "the person's selection ✓".as_bytes());

    let text = mixed_text(1_000);
    let reply = desk.act("type", json!({"ref": name, "text": text})).ok();
    assert!(reply.starts_with("done: "), "{reply}");
    assert!(
        reply.contains(
            "(read back), by pasting through the clipboard; the clipboard was put back as it was"
        ),
        "{reply}"
    );
    assert!(
        !reply.contains("déjà"),
        "the reply echoes the text: {reply}"
    );
    // Gecko's accessible text holds a U+FEFF after each emoji that the field's value has not.
    let value = || {
        let read = desk.act_json("read", json!({"ref": name}));
        read["data"]["text"]
            .as_str()
            .map(|t| t.replace('\u{feff}', ""))
    };
    assert_eq!(value().as_deref(), Some(text.as_str()));
    assert_eq!(clipboard_targets(desk), clipboard_before);
    assert_eq!(keymap(desk), keymap_before, "the keymap was left changed");
    assert_eq!(primary(desk), primary_before, "PRIMARY changed");

    // A clipboard of many targets, each encoded its own way (STRING in Latin-1, text/plain in
    // ASCII), is put back target for target.
    desk.act("clipboard", json!({"text": "the person's ✓ naïve"}))
        .ok();
    let clipboard_before = clipboard_targets(desk);
    assert!(clipboard_before.len() >= 5, "{clipboard_before:?}");
    let again = mixed_text(1_000).chars().rev().collect::<String>();
    let reply = desk
        .act("type", json!({"ref": name, "text": again, "replace": true}))
        .ok();
    assert!(
        reply.contains("by pasting through the clipboard"),
        "{reply}"
    );
    assert_eq!(value().as_deref(), Some(again.as_str()));
    assert_eq!(clipboard_targets(desk), clipboard_before);

    // Short text still goes as keys, where a page's key handlers matter most.
    let reply = desk
        .act("type", json!({"ref": name, "text": " and more"}))
        .ok();
    assert!(!reply.contains("pasting"), "{reply}");
    let arrived = wait_until(SETTLE, || {
        (value()? == format!("{again} and more")).then_some(())
    });
    assert!(arrived.is_some(), "the field holds {:?}", value());
}

/// A password never goes through the clipboard, where clipboard managers keep what passes.
#[test]
fn a_password_in_firefox_goes_as_keys_and_the_clipboard_is_untouched() {
    let (_turn, desk) = desktop();
    let _firefox = desk.firefox_on_fixture_page("typing_fields.html", "firefox-password-profile");
    let (w, _) = window_where(desk, START, "Firefox", |t| t.starts_with("Typing Fields"));
    let secret = field(desk, &w, "password", Some("Secret"));
    own_clipboard(desk, "the person's own words ✓");
    let secret_text: String = "s3cr3t-".chars().cycle().take(70).collect();
    let reply = desk
        .act("type", json!({"ref": secret, "text": secret_text}))
        .ok();
    assert!(reply.starts_with("done: "), "{reply}");
    assert!(
        !reply.contains("pasting"),
        "a password must go as keys: {reply}"
    );
    let typed = wait_until(SETTLE, || {
        let text = desk.act("observe", json!({"target": w})).stdout;
        text.contains("Secret length 70").then_some(())
    });
    assert!(typed.is_some(), "the page never counted 70 characters");
    assert_eq!(clipboard(desk), "the person's own words ✓");
}
