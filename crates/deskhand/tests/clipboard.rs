//! The X11 clipboard through the real CLI and MCP server: text written by one call outlives it
//! in a holder process, reads back exactly (in INCR chunks when large), reaches a real app
//! (mousepad) by ctrl+v and comes back from it by ctrl+c; a newer owner ends the holder, a hung
//! owner costs a bounded timeout and an oversized one a bounded refusal.

mod common;

use std::time::{Duration, Instant};

use common::{Desktop, desktop, element_lines, wait_until};
use serde_json::{Value, json};

/// How long a GTK app may take to show its window and tree.
const GTK_START: Duration = Duration::from_secs(20);
/// How long a change may take to show: a paste in the editor, a holder's exit.
const SETTLE: Duration = Duration::from_secs(10);

/// `clipboard {}` as JSON: `data.text` and `data.types` on success.
fn read(desk: &Desktop) -> Value {
    desk.act_json("clipboard", json!({}))
}

/// Writes through the CLI and checks the reply confirms it without repeating the text.
fn write(desk: &Desktop, text: &str) {
    let reply = desk.act("clipboard", json!({"text": text})).ok();
    assert!(reply.starts_with("done: the clipboard holds"), "{reply}");
    assert!(!reply.contains(text), "the reply repeats the text: {reply}");
}

/// Whether process `pid` runs (a zombie has ended; only its parent has not reaped it yet).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(") ")?.1.chars().next())
        .is_some_and(|state| !matches!(state, 'Z' | 'X'))
}

/// The running clipboard holders of this desktop: deskhand processes started with the holder
/// argument whose DISPLAY is this desktop's (other test binaries run other desktops).
fn holders(desk: &Desktop) -> Vec<u32> {
    let display = format!("DISPLAY={}", desk.display);
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            let read =
                |what: &str| std::fs::read(format!("/proc/{pid}/{what}")).unwrap_or_default();
            let is_holder = read("cmdline")
                .split(|&b| b == 0)
                .nth(1)
                .is_some_and(|arg| arg == b"__clipboard-holder");
            is_holder
                && read("environ")
                    .split(|&b| b == 0)
                    .any(|var| var == display.as_bytes())
                && alive(pid)
        })
        .collect()
}

/// The one holder now running, waiting for an older one to finish leaving.
fn sole_holder(desk: &Desktop) -> u32 {
    let mut seen = Vec::new();
    wait_until(SETTLE, || {
        seen = holders(desk);
        (seen.len() == 1).then(|| seen[0])
    })
    .unwrap_or_else(|| panic!("expected one clipboard holder, found {seen:?}"))
}

#[test]
fn written_text_outlives_the_cli_and_reads_back_exactly() {
    let (_turn, desk) = desktop();
    let text = "first line ✓\n\ttabbed \"quoted\" 日本語 — end";
    write(desk, text);
    // The writing CLI has exited; the holder serves the next process's read.
    let holder = sole_holder(desk);
    let doc = read(desk);
    assert_eq!(doc["data"]["text"], text, "{doc}");
    let types: Vec<&str> = doc["data"]["types"]
        .as_array()
        .expect("types")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for wanted in ["UTF8_STRING", "text/plain;charset=utf-8", "STRING"] {
        assert!(types.contains(&wanted), "{types:?}");
    }
    // The selection protocol's own targets are not formats.
    assert!(!types.contains(&"TARGETS"), "{types:?}");
    assert!(alive(holder), "the holder left after serving a read");

    let reply = desk.act("clipboard", json!({})).ok();
    let head = format!(
        "clipboard · {} characters · types: UTF8_STRING",
        text.chars().count()
    );
    assert!(reply.starts_with(&head), "{reply}");
}

#[test]
fn a_second_write_ends_the_first_holder() {
    let (_turn, desk) = desktop();
    write(desk, "the first");
    let first = sole_holder(desk);
    write(desk, "the second");
    let gone = wait_until(SETTLE, || (!alive(first)).then_some(()));
    assert!(gone.is_some(), "the first holder {first} still runs");
    let second = sole_holder(desk);
    assert_ne!(first, second);
    assert_eq!(read(desk)["data"]["text"], "the second");
}

#[test]
fn large_text_goes_both_ways_in_chunks() {
    let (_turn, desk) = desktop();
    // Longer than a command line argument may be: written through the MCP server, which also
    // shows that a long-lived server's replaced holders do not linger.
    let mcp = desk.mcp();
    let line = "0123456789 abcdefghij ✓ 日本語 ÄÖÜ\n";
    // Near the action's limit of a million characters, and well over one INCR chunk in bytes.
    let big: String = line.repeat(900_000 / line.chars().count());
    for _ in 0..2 {
        let written = mcp.call(json!({"action": "clipboard", "text": big}));
        assert!(!written.is_error, "{}", written.text);
    }
    let back = mcp.call(json!({"action": "clipboard"}));
    assert!(!back.is_error, "{}", back.text);
    assert!(
        back.data["text"] == big.as_str(),
        "the {} byte text came back changed",
        big.len()
    );
    // One holder, the last: the server reaped the one it replaced.
    sole_holder(desk);
}

#[test]
fn more_than_ten_megabytes_is_refused_in_time() {
    let (_turn, desk) = desktop();
    // deskhand writes at most a million characters; a foreign owner offers more.
    let file = desk.scratch("eleven-megabytes.txt");
    std::fs::write(&file, "x".repeat(11 * 1024 * 1024)).expect("writing the scratch file");
    let _xclip = desk.spawn(
        "xclip",
        &[
            "-quiet",
            "-selection",
            "clipboard",
            "-i",
            file.to_str().expect("utf-8 path"),
        ],
    );
    let mut last = Value::Null;
    let refused = wait_until(SETTLE, || {
        let started = Instant::now();
        last = read(desk);
        (last["ok"] == false).then(|| started.elapsed())
    });
    let took = refused.unwrap_or_else(|| panic!("xclip's 11 MB were never refused: {last}"));
    assert_eq!(last["error"], "platform", "{last} after {took:?}");
    let message = last["message"].as_str().expect("message");
    assert!(message.contains("more than 10 MB"), "{message}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn a_hung_owner_times_out_and_no_owner_reads_as_empty() {
    let (_turn, desk) = desktop();
    write(desk, "held by a process about to stop");
    let holder = sole_holder(desk);
    let signal = |signal| {
        // SAFETY: kill has no memory-safety preconditions; the pid is a holder on our desktop.
        assert_eq!(unsafe { libc::kill(holder as libc::pid_t, signal) }, 0);
    };
    signal(libc::SIGSTOP);
    let started = Instant::now();
    let doc = read(desk);
    let took = started.elapsed();
    signal(libc::SIGCONT);
    assert_eq!(doc["ok"], false, "{doc}");
    assert_eq!(doc["error"], "timeout", "{doc}");
    let message = doc["message"].as_str().expect("message");
    assert!(message.contains("did not answer"), "{message}");
    assert!(took < Duration::from_secs(8), "{took:?}");

    // An owner that dies takes the clipboard with it.
    signal(libc::SIGKILL);
    let gone = wait_until(SETTLE, || (!alive(holder)).then_some(()));
    assert!(gone.is_some(), "the killed holder {holder} still runs");
    let doc = read(desk);
    assert_eq!(doc["data"], json!({"text": null, "types": []}), "{doc}");
}

#[test]
fn mousepad_pastes_the_written_text_and_its_copy_reads_back() {
    let (_turn, desk) = desktop();
    let file = desk.scratch("mousepad-clipboard.txt");
    let _ = std::fs::remove_file(&file);
    let _mousepad = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    let (w, title) = wait_until(GTK_START, || {
        let listed = desk.act_json("windows", json!({}));
        listed["data"]["windows"].as_array()?.iter().find_map(|w| {
            let title = w["title"].as_str()?;
            title
                .contains("mousepad-clipboard.txt")
                .then(|| (w["id"].as_str().expect("id").to_owned(), title.to_owned()))
        })
    })
    .expect("mousepad's window appeared");
    let editor = wait_until(GTK_START, || {
        let text = desk.act("observe", json!({"target": w})).stdout;
        element_lines(&text)
            .find(|l| l.trim_start().split(' ').nth(1) == Some("text"))
            .and_then(|l| l.trim_start().split(' ').next())
            .map(str::to_owned)
    })
    .expect("mousepad's editor is in its tree");
    desk.activate(&title);
    let value = || {
        let doc = desk.act_json("observe", json!({"target": w}));
        doc["data"]["elements"]
            .as_array()?
            .iter()
            .find(|e| e["ref"] == editor.as_str())?["value"]
            .as_str()
            .map(str::to_owned)
    };

    let pasted = "pasted by deskhand → ✓ ünïcödé";
    write(desk, pasted);
    desk.act("press", json!({"keys": "ctrl+v"})).ok();
    let arrived = wait_until(SETTLE, || (value()? == pasted).then_some(()));
    assert!(arrived.is_some(), "the editor shows {:?}", value());

    let holder = sole_holder(desk);
    let copied = "copied in mousepad — ñ";
    desk.act("press", json!({"keys": "ctrl+a"})).ok();
    desk.act("type", json!({"text": copied})).ok();
    desk.act("press", json!({"keys": "ctrl+a ctrl+c"})).ok();
    let doc = wait_until(SETTLE, || {
        let doc = read(desk);
        (doc["data"]["text"] == copied).then_some(doc)
    })
    .unwrap_or_else(|| panic!("the clipboard never held mousepad's copy: {}", read(desk)));
    assert!(
        doc["data"]["types"]
            .as_array()
            .expect("types")
            .iter()
            .any(|t| t == "UTF8_STRING"),
        "{doc}"
    );
    // Mousepad took the clipboard, so the holder had nothing more to hold.
    let gone = wait_until(SETTLE, || (!alive(holder)).then_some(()));
    assert!(
        gone.is_some(),
        "the holder {holder} outlived mousepad's copy"
    );
}
