//! The store on disk: migrations, restarts, crashes, concurrent writers, forgetting.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use deskhand_core::ErrorKind;
use deskhand_core::memory::Memory;
use deskhand_core::model::Role;
use deskhand_memory::SqliteMemory;

fn user_version(path: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap()
}

#[test]
fn a_new_store_is_created_with_its_folders_and_every_migration() {
    let scratch = Scratch::new("fresh");
    let path = scratch.path().join("deep/er/memory.sqlite");
    let memory = SqliteMemory::open(&path).unwrap();
    assert_eq!(memory.path(), Some(path.as_path()));
    assert!(path.exists());
    assert_eq!(user_version(&path), 1);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    use std::os::unix::fs::PermissionsExt;
    let bits = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(bits, 0o600, "the store describes the user's screen");
}

#[test]
fn a_restart_keeps_everything_and_migrates_nothing_twice() {
    let scratch = Scratch::new("restart");
    let path = scratch.path().join("memory.sqlite");
    {
        let memory = SqliteMemory::open(&path).unwrap();
        walk(&memory);
    }
    let memory = SqliteMemory::open(&path).unwrap();
    assert_eq!(user_version(&path), 1);
    let answer = recall(&memory, None, None, Some("auto indent"));
    assert!(
        answer.text.contains(
            r#"route: in "Untitled 1 - Mousepad": select ["Edit","Preferences…"] -> "Mousepad Preferences"; click tab "Editor" -> shows check "Auto indent""#
        ),
        "{}",
        answer.text
    );
    // Learning goes on where it stopped: the same window is not a second node.
    memory.saw(&main_window(), at(30)).unwrap();
    let answer = recall(&memory, Some("mousepad"), Some("untitled"), None);
    assert!(answer.text.contains("seen 4×"), "{}", answer.text);
}

#[test]
fn a_store_from_a_newer_deskhand_is_refused_with_what_to_do() {
    let scratch = Scratch::new("newer");
    let path = scratch.path().join("memory.sqlite");
    drop(SqliteMemory::open(&path).unwrap());
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let err = SqliteMemory::open(&path).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Platform);
    assert!(err.message.contains(&path.display().to_string()), "{err}");
    assert!(err.message.contains("schema 99"), "{err}");
    assert!(err.message.contains("--memory PATH"), "{err}");
}

#[test]
fn a_place_that_cannot_hold_a_store_is_named_in_the_error() {
    let err = SqliteMemory::open("/proc/deskhand-memory/memory.sqlite").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Platform, "{err}");
    assert!(
        err.message.starts_with(
            "The memory store /proc/deskhand-memory/memory.sqlite could not be created:"
        ),
        "{err}"
    );
    assert!(err.message.contains("--memory PATH"), "{err}");
}

/// The writer of `a_killed_writer_loses_nothing_it_committed`, run in a child process.
#[test]
#[ignore = "run by a_killed_writer_loses_nothing_it_committed in a child process"]
fn crash_writer() {
    let Some(path) = std::env::var_os("DESKHAND_MEMORY_CRASH_STORE") else {
        return;
    };
    let memory = SqliteMemory::open(path).unwrap();
    for i in 0..50 {
        let name = format!("Button {i}");
        memory
            .saw(
                &window("crashy", &format!("Window {i}"), &[(Role::Button, &name)]),
                at(i),
            )
            .unwrap();
    }
    println!("committed 50");
    // Keep writing until killed, so the kill lands in the middle of a transaction.
    for i in 50.. {
        let name = format!("Button {i}");
        memory
            .saw(
                &window("crashy", &format!("Window {i}"), &[(Role::Button, &name)]),
                at(i),
            )
            .unwrap();
    }
}

#[test]
fn a_killed_writer_loses_nothing_it_committed() {
    let scratch = Scratch::new("crash");
    let path = scratch.path().join("memory.sqlite");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_writer",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("DESKHAND_MEMORY_CRASH_STORE", &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert!(
        lines.any(|line| line.unwrap().contains("committed 50")),
        "the writer never got to commit"
    );
    std::thread::sleep(Duration::from_millis(100));
    child.kill().unwrap();
    child.wait().unwrap();

    let memory = SqliteMemory::open(&path).unwrap();
    let answer = recall(&memory, Some("crashy"), None, None);
    let windows: usize = answer.data["app"]["windows"].as_u64().unwrap() as usize;
    assert!(
        windows > 50,
        "{windows} windows after the crash: was it killed mid-writing?"
    );
    for i in 0..50 {
        let found = recall(&memory, None, None, Some(&format!("Window {i}")));
        assert!(
            found.data["hits_total"].as_u64().unwrap() >= 1,
            "{}",
            found.text
        );
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[test]
fn an_uncommitted_write_elsewhere_neither_shows_nor_costs_what_was_committed() {
    let scratch = Scratch::new("open-tx");
    let path = scratch.path().join("memory.sqlite");
    let memory = SqliteMemory::open(&path).unwrap();
    walk(&memory);

    let mut other = rusqlite::Connection::open(&path).unwrap();
    let tx = other.transaction().unwrap();
    tx.execute(
        "INSERT INTO apps (name, first_seen, last_seen) VALUES ('ghost', 0, 0)",
        [],
    )
    .unwrap();
    // While the other connection holds its write open, readers see the committed state.
    let answer = recall(&memory, None, None, None);
    assert!(
        answer.text.contains("\"mousepad\" · 4 windows"),
        "{}",
        answer.text
    );
    assert!(!answer.text.contains("ghost"), "{}", answer.text);
    drop(tx);
    drop(other);
    drop(memory);

    let memory = SqliteMemory::open(&path).unwrap();
    let answer = recall(&memory, None, None, None);
    assert!(
        answer.text.contains("\"mousepad\" · 4 windows"),
        "{}",
        answer.text
    );
    assert!(!answer.text.contains("ghost"), "{}", answer.text);
}

#[test]
fn two_processes_worth_of_stores_write_the_same_file() {
    let scratch = Scratch::new("two");
    let path = scratch.path().join("memory.sqlite");
    let one = SqliteMemory::open(&path).unwrap();
    let two = SqliteMemory::open(&path).unwrap();
    std::thread::scope(|scope| {
        for (memory, app) in [(&one, "left"), (&two, "right")] {
            scope.spawn(move || {
                for i in 0..40 {
                    let name = format!("Button {i}");
                    memory
                        .saw(
                            &window(app, &format!("W {i}"), &[(Role::Button, &name)]),
                            at(i),
                        )
                        .unwrap();
                }
            });
        }
    });
    let answer = recall(&one, None, None, None);
    assert!(
        answer.text.contains("\"left\" · 40 windows"),
        "{}",
        answer.text
    );
    assert!(
        answer.text.contains("\"right\" · 40 windows"),
        "{}",
        answer.text
    );
}

#[test]
fn forgetting_an_app_takes_its_windows_controls_and_steps_off_the_disk() {
    let scratch = Scratch::new("forget");
    let path = scratch.path().join("memory.sqlite");
    let memory = SqliteMemory::open(&path).unwrap();
    walk(&memory);
    let on_disk = || {
        let mut bytes = std::fs::read(&path).unwrap();
        if let Ok(wal) = std::fs::read(path.with_extension("sqlite-wal")) {
            bytes.extend(wal);
        }
        let needle = b"Mousepad Preferences";
        bytes.windows(needle.len()).any(|w| w == needle)
    };
    assert!(on_disk());

    assert_eq!(memory.forget(Some("never-seen-app")).unwrap(), 0);
    assert_eq!(memory.forget(Some("MOUSEPAD")).unwrap(), 4);
    let answer = recall(&memory, None, None, None);
    assert!(answer.text.contains("1 app, 1 window"), "{}", answer.text);
    assert!(!answer.text.contains("mousepad"), "{}", answer.text);
    let answer = recall(&memory, None, None, Some("preferences"));
    assert!(
        answer.text.contains("never seen \"preferences\""),
        "{}",
        answer.text
    );
    assert_eq!(answer.data["coverage"]["transitions"], 0);

    // Nothing of it is left in the file or its journal for someone reading the disk.
    assert!(!on_disk(), "a forgotten title is still on disk");

    assert_eq!(memory.forget(None).unwrap(), 1);
    let answer = recall(&memory, None, None, None);
    assert!(
        answer.text.contains("never seen any window yet"),
        "{}",
        answer.text
    );
}

#[test]
fn the_kept_counts_match_a_recount_after_learning_and_forgetting() {
    let scratch = Scratch::new("counts");
    let path = scratch.path().join("memory.sqlite");
    let memory = SqliteMemory::open(&path).unwrap();
    walk(&memory);
    // A step from one app into another's window, and the same step again.
    for minute in [9, 10] {
        learn(
            &memory,
            &calculator(),
            click(Role::Button, "Undo"),
            deskhand_core::memory::Effect::Window(about()),
            minute,
        );
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mismatches = || -> i64 {
        conn.query_row(
            "SELECT count(*) FROM windows w WHERE
                 w.controls <> (SELECT count(*) FROM controls c WHERE c.window_id = w.id)
                 OR w.controls_used <> (SELECT count(*) FROM controls c
                                        WHERE c.window_id = w.id AND c.times_used > 0)
                 OR w.steps_out <> (SELECT count(*) FROM transitions t WHERE t.from_window = w.id)
                 OR w.ways_in <> (SELECT count(*) FROM transitions t
                                  WHERE t.to_window = w.id AND t.from_window <> w.id)",
            [],
            |row| row.get(0),
        )
        .unwrap()
    };
    assert_eq!(mismatches(), 0);
    let answer = recall(&memory, Some("gnome-calculator"), None, None);
    assert!(
        answer.text.contains("2 controls, 1 used"),
        "{}",
        answer.text
    );
    assert!(
        answer
            .text
            .contains("click button \"Undo\" -> #2 \"About Mousepad\" · 2×"),
        "{}",
        answer.text
    );

    assert_eq!(memory.forget(Some("mousepad")).unwrap(), 4);
    assert_eq!(mismatches(), 0);
    let answer = recall(&memory, Some("gnome-calculator"), None, None);
    assert!(
        answer
            .text
            .contains("coverage: 1 of 2 known controls ever used · 1 of 1 window never acted in"),
        "{}",
        answer.text
    );
}
