//! Do no harm, tell the truth, on real applications the other tests do not use: LibreOffice
//! Calc's sheet (a table that creates its cells on demand), Thunar's menu items that run a modal
//! dialog inside the accessibility request (GTK3), a GTK4 button clicked again and again, a GTK4
//! text view that cannot be focused through accessibility, and a hung app beside healthy ones.
//! Each outcome is read from the app itself: its memory and CPU, a folder on disk, its display,
//! whether it still answers.

mod common;

use common::{Desktop, desktop, line_of, observe_until, proc_status, wait_until, window_where};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long a real app may take to show its window and tree.
const START: Duration = Duration::from_secs(60);
/// LibreOffice's first window, as the matrix waits for it: beside the load test's thousand
/// calls on a busy two-core machine it took over a minute to show (CI).
const LIBREOFFICE_START: Duration = Duration::from_secs(90);
const SETTLE: Duration = Duration::from_secs(10);

/// `deskhand <action> '<json>' --json`: the exit code and the parsed document.
fn act_coded(desk: &Desktop, action: &str, args: Value) -> (i32, Value) {
    let run = desk.run(&[action, &args.to_string(), "--json"]);
    let doc = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {} / {}", run.stdout, run.stderr));
    (run.code, doc)
}

/// CPU time (user + system, in clock ticks) a process has used so far.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the app runs");
    let after_name = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// The process that owns window `w`, as `windows` lists it.
fn pid_of(desk: &Desktop, w: &str) -> u32 {
    let apps = desk.act_json("windows", json!({}));
    let app_id = apps["data"]["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|window| window["id"] == w)
        .and_then(|window| window["app_id"].as_str())
        .unwrap_or_else(|| panic!("{w} is not listed: {apps}"))
        .to_owned();
    let listed = desk.act_json("apps", json!({}));
    listed["data"]["apps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|app| app["id"] == app_id.as_str())
        .and_then(|app| app["pid"].as_u64())
        .expect("the app is listed") as u32
}

#[test]
fn observing_calc_reads_only_the_visible_cells_and_leaves_the_app_idle() {
    let (_turn, desk) = desktop();
    let profile = desk.scratch("lo-profile-calc");
    let _calc = desk.spawn(
        "libreoffice",
        &[
            "--calc",
            "--norestore",
            "--nologo",
            &format!("-env:UserInstallation=file://{}", profile.display()),
        ],
    );
    let (w, _) = window_where(desk, LIBREOFFICE_START, "LibreOffice Calc", |t| {
        t.ends_with("LibreOffice Calc")
    });
    let first = observe_until(desk, &w, START, "the sheet's cells", |t| {
        t.contains("cell \"A1\"")
    });
    let soffice = pid_of(desk, &w);
    // One app, one name: every window of the process (the main window carries the window class
    // "libreoffice-calc", its dialogs "Soffice") and the apps list say the same.
    let listed = desk.act_json("windows", json!({}));
    let names: Vec<&str> = listed["data"]["windows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|window| {
            window["title"]
                .as_str()
                .is_some_and(|t| t.contains("LibreOffice") || t.contains("Tip of the Day"))
        })
        .filter_map(|window| window["app"].as_str())
        .collect();
    assert!(
        !names.is_empty() && names.iter().all(|name| *name == "soffice"),
        "{listed}"
    );
    let apps = desk.act_json("apps", json!({}));
    assert!(
        apps["data"]["apps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|app| app["pid"] == soffice && app["name"] == "soffice"),
        "{apps}"
    );
    let rss_before = proc_status(soffice, "VmRSS").expect("soffice runs");
    assert!(
        first
            .lines()
            .next()
            .unwrap()
            .contains("creates its cells on demand, so only the"),
        "the header does not say what was left unread: {}",
        first.lines().next().unwrap()
    );
    for round in 0..5 {
        let (code, doc) = act_coded(desk, "observe", json!({"target": w}));
        assert_eq!(code, 0, "observe {round}: {doc}");
        let cells = doc["data"]["elements"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["role"] == "cell")
            .count();
        assert!(
            (1..=300).contains(&cells),
            "observe {round} listed {cells} cells"
        );
    }
    let rss_after = proc_status(soffice, "VmRSS").expect("soffice still runs");
    let grew_kb = rss_after.saturating_sub(rss_before);
    assert!(
        grew_kb <= 20 * 1024,
        "LibreOffice grew by {grew_kb} kB over 5 observes"
    );
    // Idle within a second: no endless creation of cells goes on after the last observe.
    std::thread::sleep(Duration::from_secs(1));
    let ticks = cpu_ticks(soffice);
    std::thread::sleep(Duration::from_secs(1));
    let busy = cpu_ticks(soffice) - ticks;
    assert!(
        busy <= 20,
        "LibreOffice used {busy} ticks of CPU in the second after the observes"
    );
    let rss_later = proc_status(soffice, "VmRSS").expect("soffice still runs");
    assert!(
        rss_later <= rss_after + 5 * 1024,
        "LibreOffice kept growing: {rss_after} kB then {rss_later} kB"
    );
}

/// Thunar's File > Create Folder… runs its dialog inside the request that invokes the item;
/// `select` opens the menu and clicks the item, so the app keeps answering and the dialog can
/// be read and answered.
#[test]
fn thunar_creates_a_folder_through_select_and_keeps_answering() {
    let (_turn, desk) = desktop();
    let dir = desk.scratch("thunar-select");
    std::fs::create_dir_all(&dir).unwrap();
    let _thunar = desk.spawn("thunar", &[dir.to_str().unwrap()]);
    let (w, _) = window_where(desk, START, "Thunar", |t| t.starts_with("thunar-select - "));
    observe_until(desk, &w, START, "its File menu", |t| {
        t.contains("menu \"File\"")
    });
    let (code, doc) = act_coded(
        desk,
        "select",
        json!({"target": w, "path": ["File", "Create Folder…"]}),
    );
    assert_eq!(code, 0, "{doc}");
    let (dialog, _) = window_where(desk, SETTLE, "the Create New Folder dialog", |t| {
        t == "Create New Folder"
    });
    // The dialog is readable at once, and answering it works.
    let started = Instant::now();
    let text = desk.act("observe", json!({"target": dialog})).ok();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "the dialog took {:?} to read",
        started.elapsed()
    );
    let name = common::first_of_role(&text, "text");
    let typed = desk
        .act(
            "set_value",
            json!({"ref": name, "value": "Made by deskhand"}),
        )
        .ok();
    assert!(typed.starts_with("done: "), "{typed}");
    desk.act("press", json!({"keys": "Return"})).ok();
    let made = dir.join("Made by deskhand");
    assert!(
        wait_until(SETTLE, || made.is_dir().then_some(())).is_some(),
        "no folder was created; {:?}",
        std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>()
    );
    let started = Instant::now();
    let after = desk.act("observe", json!({"target": w}));
    assert_eq!(after.code, 0, "{}{}", after.stdout, after.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "Thunar took {:?} to answer",
        started.elapsed()
    );
}

/// Clicking that menu item by ref runs its action in the request: deskhand sees the app stop
/// answering, closes the dialog that blocks it, and never reports the click as failed.
#[test]
fn a_menu_item_that_blocks_thunar_is_undone_and_never_reported_failed() {
    let (_turn, desk) = desktop();
    let dir = desk.scratch("thunar-ref");
    std::fs::create_dir_all(&dir).unwrap();
    let _thunar = desk.spawn("thunar", &[dir.to_str().unwrap()]);
    let (w, _) = window_where(desk, START, "Thunar", |t| t.starts_with("thunar-ref - "));
    // Thunar fills its File menu when it first opens.
    let text = observe_until(desk, &w, START, "its File menu", |t| {
        t.contains("menu \"File\"")
    });
    let file = common::ref_where(&text, "the File menu", |l| l.contains("menu \"File\""));
    desk.act("click", json!({"ref": file})).ok();
    let text = common::observe_with_until(
        desk,
        json!({"target": w, "query": "Create Folder"}),
        SETTLE,
        "the Create Folder item",
        |t| t.contains("menuitem \"Create Folder"),
    );
    let item = common::ref_where(&text, "the Create Folder item", |l| {
        l.contains("menuitem \"Create Folder")
    });
    let (code, doc) = act_coded(desk, "click", json!({"ref": item}));
    assert_ne!(
        code, 1,
        "a click that reached the app was reported failed: {doc}"
    );
    let reply = doc["text"].as_str().unwrap_or_default().to_owned();
    assert!(
        reply.contains("dialog"),
        "the reply does not say what happened: {reply}"
    );
    // Whatever happened, the app answers, and a key does not hang it.
    let back = wait_until(SETTLE, || {
        let run = desk.act("observe", json!({"target": w}));
        (run.code == 0).then_some(())
    });
    assert!(back.is_some(), "Thunar no longer answers");
    desk.act("press", json!({"keys": "Escape"})).ok();
    let started = Instant::now();
    let after = desk.act("observe", json!({"target": w}));
    assert_eq!(after.code, 0, "{}{}", after.stdout, after.stderr);
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// GTK ignores a button's activation while its previous one is still shown: three clicks on
/// one calculator button give three digits, by ref, by `find` and in a batch.
#[test]
fn repeated_clicks_on_one_gtk4_button_each_count() {
    let (_turn, desk) = desktop();
    let _calculator = desk.spawn("gnome-calculator", &[]);
    let (w, _) = window_where(desk, START, "gnome-calculator", |t| t == "Calculator");
    let text = observe_until(desk, &w, START, "its keypad", |t| {
        t.contains("button \"7\"")
    });
    let seven = common::ref_where(&text, "the 7 button", |l| l.contains("button \"7\""));
    let display = |desk: &Desktop| -> String {
        let doc = desk.act_json("observe", json!({"target": w, "query": "7"}));
        doc["data"]["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["role"] == "text" && e["value"].is_string())
            .and_then(|e| e["value"].as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let clear = |desk: &Desktop| {
        desk.act("press", json!({"keys": "Escape"})).ok();
        let cleared = wait_until(SETTLE, || display(desk).is_empty().then_some(()));
        assert!(
            cleared.is_some(),
            "the display never cleared: {}",
            display(desk)
        );
    };
    desk.activate("Calculator");
    clear(desk);
    for _ in 0..3 {
        desk.act("click", json!({"ref": seven})).ok();
    }
    let shown = wait_until(SETTLE, || (display(desk) == "777").then_some(()));
    assert!(shown.is_some(), "by ref: {:?}", display(desk));

    clear(desk);
    let find = json!({"target": w, "find": {"name": "7", "role": "button"}});
    for _ in 0..3 {
        desk.act("click", find.clone()).ok();
    }
    let shown = wait_until(SETTLE, || (display(desk) == "777").then_some(()));
    assert!(shown.is_some(), "by find: {:?}", display(desk));

    // A batch sends its steps back to back: the tightest case.
    for step in [
        json!({"action": "click", "ref": seven}),
        json!({"action": "click", "target": w, "find": {"name": "7", "role": "button"}}),
    ] {
        clear(desk);
        desk.act(
            "batch",
            json!({"steps": [step.clone(), step.clone(), step.clone(), step.clone()]}),
        )
        .ok();
        let shown = wait_until(SETTLE, || (display(desk) == "7777").then_some(()));
        assert!(shown.is_some(), "in a batch of {step}: {:?}", display(desk));
    }
}

/// gnome-text-editor's source view refuses GrabFocus: `type` by its ref focuses it with a click
/// and the text arrives. GTK 4.8 names the unnamed view after its class, "EditorSourceView",
/// which is not listed as its name.
#[test]
fn typing_into_a_gtk4_text_view_that_refuses_focus_arrives() {
    let (_turn, desk) = desktop();
    let _editor = desk.spawn("gnome-text-editor", &["--ignore-session", "--standalone"]);
    let (w, _) = window_where(desk, START, "gnome-text-editor", |t| {
        t.contains("Text Editor")
    });
    let args = json!({"target": w, "points": true});
    let text = common::observe_with_until(desk, args, START, "its text view", |t| {
        t.lines().any(|l| l.contains(" text ") && l.contains("@"))
    });
    let view = common::ref_where(&text, "the text view", |l| {
        l.contains(" text ") && !l.contains("\"Search")
    });
    assert!(!text.contains("EditorSourceView"), "{text}");
    let reply = desk
        .act("type", json!({"ref": view, "text": "written by deskhand"}))
        .ok();
    assert!(
        reply.starts_with("done: typed 19 characters into "),
        "{reply}"
    );
    let arrived = wait_until(SETTLE, || {
        let now = desk.act("observe", json!({"target": w})).ok();
        line_of(&now, &view)
            .contains("written by deskhand")
            .then_some(())
    });
    assert!(
        arrived.is_some(),
        "{}",
        desk.act("observe", json!({"target": w})).ok()
    );
}

/// A hung app costs the calls that involve it one timeout at most; calls that do not involve
/// it never wait on it.
#[test]
fn a_hung_app_slows_only_the_calls_that_involve_it() {
    let (_turn, desk) = desktop();
    let hung = desk.fixture("Frozen Fixture", 1);
    let _healthy = desk.fixture("Lively Fixture", 1);
    let frozen = desk.window_id("Frozen Fixture");
    let lively = desk.window_id("Lively Fixture");
    let text = desk.act("observe", json!({"target": frozen})).ok();
    let press = common::ref_of(&text, &["button \"Press me\""]);
    let pid = hung.app.pid();
    // SAFETY-free: signals through the kill command.
    let stop = std::process::Command::new("kill")
        .args(["-STOP", &pid.to_string()])
        .status()
        .unwrap();
    assert!(stop.success());
    let timed = |action: &str, args: Value| {
        let started = Instant::now();
        let run = desk.act(action, args);
        (started.elapsed(), run)
    };
    // A call that waited on the hung app would take at least the backend's 1.5 s call timeout;
    // a CLI call that does not takes well under a second, some of it the process's start.
    let unhindered = Duration::from_millis(1200);
    let (took, run) = timed("windows", json!({}));
    assert!(took < unhindered, "windows took {took:?}: {}", run.stdout);
    let (took, run) = timed("screenshot", json!({"target": frozen}));
    assert!(
        took < unhindered,
        "screenshot took {took:?}: {}",
        run.stdout
    );
    let (took, run) = timed("observe", json!({"target": lively}));
    assert!(took < unhindered, "observe took {took:?}: {}", run.stdout);
    let (took, run) = timed("click", json!({"ref": press, "target": frozen}));
    assert!(
        took < Duration::from_millis(2500),
        "a click on the hung app took {took:?}: {}",
        run.stdout
    );
    assert!(
        run.code == 1 || run.code == 3,
        "{}{}",
        run.stdout,
        run.stderr
    );
    let resume = std::process::Command::new("kill")
        .args(["-CONT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(resume.success());
}

/// The fixture's File > Rename… and its "Ask…" button run a modal dialog with
/// `gtk_dialog_run`, inside the accessibility request when an action opens them. Through
/// `select`, and through a click by ref, the dialog ends up open, readable and answerable, and
/// the app keeps answering.
#[test]
fn modal_dialogs_opened_by_a_menu_or_a_button_never_block_the_app() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture_with("Dialog Fixture", 1, &["--kit"]);
    let w = desk.window_id("Dialog Fixture");
    desk.activate("Dialog Fixture");

    let answer = |source: &str, typed: &str| {
        let (dialog, _) = window_where(desk, SETTLE, "the Rename dialog", |t| t == "Rename");
        let started = Instant::now();
        let text = desk.act("observe", json!({"target": dialog})).ok();
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "the dialog took {:?} to read",
            started.elapsed()
        );
        let name = common::ref_of(&text, &["text \"New name\""]);
        let reply = desk.act("type", json!({"ref": name, "text": typed})).ok();
        assert!(reply.starts_with("done: typed"), "{reply}");
        desk.act("press", json!({"keys": "Return"})).ok();
        fixture.wait_for("the dialog's answer", |e| {
            e["event"] == "dialog" && e["source"] == source && e["text"] == typed
        });
        let started = Instant::now();
        let after = desk.act("observe", json!({"target": w}));
        assert_eq!(after.code, 0, "{}{}", after.stdout, after.stderr);
        assert!(started.elapsed() < Duration::from_secs(2));
    };

    let selected = desk
        .act("select", json!({"target": w, "path": ["File", "Rename…"]}))
        .ok();
    assert!(selected.starts_with("done: selected"), "{selected}");
    answer("menu", "from the menu");

    let text = desk.act("observe", json!({"target": w})).ok();
    let ask = common::ref_of(&text, &["button \"Ask…\""]);
    let (code, doc) = act_coded(desk, "click", json!({"ref": ask}));
    assert_eq!(code, 0, "{doc}");
    let reply = doc["text"].as_str().unwrap_or_default();
    assert!(reply.contains("with the pointer"), "{reply}");
    answer("button", "from the button");
    // The cancelled first run of the dialog is the one deskhand closed; the answered one is the
    // pointer's: one dialog per click was answered.
    let answered = fixture
        .events()
        .iter()
        .filter(|e| e["event"] == "dialog" && e["response"] == "ok")
        .count();
    assert_eq!(answered, 2, "{:?}", fixture.events());
}

/// mousepad's File > Open… runs its file chooser with `gtk_dialog_run` too.
#[test]
fn mousepad_open_dialog_through_select_stays_readable() {
    let (_turn, desk) = desktop();
    let _mousepad = desk.spawn("mousepad", &["--disable-server"]);
    let (w, _) = window_where(desk, START, "mousepad", |t| t.ends_with("Mousepad"));
    observe_until(desk, &w, START, "its File menu", |t| {
        t.contains("menu \"File\"")
    });
    let reply = desk
        .act("select", json!({"target": w, "path": ["File", "Open…"]}))
        .ok();
    assert!(reply.starts_with("done: selected"), "{reply}");
    let (dialog, _) = window_where(desk, SETTLE, "the Open dialog", |t| t.contains("Open"));
    let started = Instant::now();
    let text = desk.act("observe", json!({"target": dialog})).ok();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the dialog took {:?} to read: {text}",
        started.elapsed()
    );
    assert!(text.contains("button \"Cancel\""), "{text}");
    desk.act("press", json!({"keys": "Escape"})).ok();
    let gone = wait_until(SETTLE, || {
        let listed = desk.act("windows", json!({})).ok();
        (!listed.contains(&format!("{dialog} "))).then_some(())
    });
    assert!(gone.is_some(), "the dialog did not close on Escape");
    let after = desk.act("observe", json!({"target": w}));
    assert_eq!(after.code, 0, "{}{}", after.stdout, after.stderr);
}

/// A GTK3 tree view over 100,000 rows creates a cell object for every row it is asked for:
/// observing it lists only the visible rows, and the app neither grows nor stays busy.
#[test]
fn observing_a_huge_gtk3_tree_view_reads_only_its_visible_rows() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture_with("Big List Fixture", 1, &["--rows", "100000"]);
    let w = desk.window_id("Big List Fixture");
    let pid = fixture.app.pid();
    let first = observe_until(desk, &w, START, "the list's rows", |t| {
        t.contains("\"row 0\"")
    });
    assert!(
        first
            .lines()
            .next()
            .unwrap()
            .contains("\"Big list\" creates its cells on demand"),
        "{}",
        first.lines().next().unwrap()
    );
    assert!(!first.contains("\"row 99999\""), "{first}");
    // Its columns' headers, and the item's cell named by the text beside its icon.
    assert!(
        first.contains("header \"Item\"") && first.contains("header \"Value\""),
        "{first}"
    );
    assert!(first.contains("cell \"row 0\""), "{first}");
    // GTK measures the rows in the background for a while after the list shows: start from
    // an idle app.
    let idle = wait_until(Duration::from_secs(60), || {
        let ticks = cpu_ticks(pid);
        std::thread::sleep(Duration::from_millis(500));
        (cpu_ticks(pid) - ticks <= 5).then_some(())
    });
    assert!(idle.is_some(), "the fixture never became idle");
    let rss_before = proc_status(pid, "VmRSS").expect("the fixture runs");
    for _ in 0..5 {
        desk.act("observe", json!({"target": w})).ok();
    }
    let grew_kb = proc_status(pid, "VmRSS")
        .expect("the fixture runs")
        .saturating_sub(rss_before);
    assert!(grew_kb <= 20 * 1024, "the app grew by {grew_kb} kB");
    std::thread::sleep(Duration::from_secs(1));
    let ticks = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(1));
    let busy = cpu_ticks(pid) - ticks;
    assert!(busy <= 20, "the app used {busy} ticks in the second after");
}

/// A GTK3 tree view of a few rows gives them all, and marks every one showing: the rows
/// scrolled out of view are told by their position (the lowest coordinate there is), counted
/// as hidden, not listed.
#[test]
fn a_short_gtk3_tree_view_lists_only_the_rows_in_view() {
    let (_turn, desk) = desktop();
    let _fixture = desk.fixture_with("Short List Fixture", 1, &["--rows", "60"]);
    let w = desk.window_id("Short List Fixture");
    let text = observe_until(desk, &w, START, "the list's rows", |t| {
        t.contains("\"row 0\"")
    });
    assert!(!text.contains("\"row 59\""), "{text}");
    let header = text.lines().next().unwrap();
    assert!(header.contains("hidden not listed"), "{header}");
    let listed_rows = text.lines().filter(|l| l.contains(" cell \"row ")).count();
    assert!(
        (1..30).contains(&listed_rows),
        "{listed_rows} rows listed of 60 in a 120-pixel list:\n{text}"
    );
    // The item's cells hold an icon's cell and a text's, which a hidden cell is not asked for:
    // the value's cell names the row.
    let hidden = desk
        .act(
            "observe",
            json!({"target": w, "query": "value 59", "hidden": true}),
        )
        .ok();
    assert!(hidden.contains("cell \"value 59\" hidden"), "{hidden}");
}

/// Firefox: two `type` steps by ref in one batch. The second step's focus change once overtook
/// the first step's last key ("Bo" and "bbob@x.org"); each step now waits until the window has
/// read its keys, and a field must report the focus before a key is sent.
#[test]
fn firefox_typing_by_ref_in_a_batch_lands_in_each_field_whole() {
    let (_turn, desk) = desktop();
    let _firefox = desk.firefox_on_fixture_page("two_fields.html", "firefox-profile");
    let (w, _) = window_where(desk, START, "Firefox", |t| t.starts_with("Two Fields"));
    let text = observe_until(desk, &w, START, "the two fields", |t| {
        t.contains("text \"Name\"") && t.contains("text \"Mail\"")
    });
    let name = common::ref_of(&text, &["text \"Name\""]);
    let mail = common::ref_of(&text, &["text \"Mail\""]);
    let reply = desk
        .act(
            "batch",
            json!({"steps": [
                {"action": "type", "ref": name, "text": "Bob"},
                {"action": "type", "ref": mail, "text": "bob@x.org"},
            ]}),
        )
        .ok();
    assert!(reply.contains("2 of 2 steps completed"), "{reply}");
    let values = |desk: &Desktop| -> (String, String) {
        let doc = desk.act_json("observe", json!({"target": w, "query": "text"}));
        let value = |reference: &str| {
            doc["data"]["elements"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["ref"] == reference)
                .and_then(|e| e["value"].as_str())
                .unwrap_or_default()
                .to_owned()
        };
        (value(&name), value(&mail))
    };
    let wanted = ("Bob".to_string(), "bob@x.org".to_string());
    let landed = wait_until(SETTLE, || (values(desk) == wanted).then_some(()));
    assert!(landed.is_some(), "the fields read {:?}", values(desk));
}

/// The header's hidden count equals what `hidden: true` adds, on a real app with many hidden
/// pages (gtk3-widget-factory), with and without a query; and a `since` after a screen zoom
/// says how old the observation it compares with is, and every line it prints has a ref.
#[test]
fn header_counts_match_what_the_options_list_and_since_says_what_it_compares() {
    let (_turn, desk) = desktop();
    let _factory = desk.spawn("gtk3-widget-factory", &[]);
    let (w, _) = window_where(desk, START, "gtk3-widget-factory", |t| {
        t == "gtk3-widget-factory"
    });
    observe_until(desk, &w, START, "its check boxes", |t| {
        t.contains("check \"checkbutton\"")
    });
    for extra in [
        json!({}),
        json!({"query": "button"}),
        json!({"max_depth": 3}),
    ] {
        let mut args = json!({"target": w, "limit": 5000});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let shown = desk.act_json("observe", args.clone());
        args["hidden"] = json!(true);
        let all = desk.act_json("observe", args);
        let count = |doc: &Value| doc["data"]["elements"].as_array().unwrap().len();
        let added = count(&all) - count(&shown);
        assert!(
            added > 0 || extra != json!({}),
            "nothing hidden to check with"
        );
        assert_eq!(
            shown["data"]["hidden"],
            json!(added),
            "{extra}: the header says {} hidden, hidden: true adds {added}",
            shown["data"]["hidden"]
        );
    }

    desk.act("observe", json!({"target": "screen"})).ok();
    desk.act(
        "zoom",
        json!({"target": "screen", "region": [0, 0, 500, 500]}),
    )
    .ok();
    let since = desk.act("observe", json!({"since": true})).ok();
    let header = since.lines().next().unwrap();
    assert!(
        header.contains("since the last observe of screen (under 10 s ago)"),
        "{header}"
    );
    for line in common::element_lines(&since) {
        let reference = line.trim_start().split(' ').nth(1).unwrap_or_default();
        assert!(
            reference.starts_with('e') && reference[1..].parse::<u32>().is_ok(),
            "a line without a ref: {line}"
        );
    }
}

/// FeatherPad (Qt) answers a menu item's action only once the dialog it opened closes: the
/// click is not `failed`; the reply names the window it opened, which reads at once.
#[test]
fn a_qt_menu_item_that_opens_a_dialog_is_reported_with_the_dialog() {
    let (_turn, desk) = desktop();
    let _featherpad = desk.spawn("featherpad", &["--standalone"]);
    let (w, _) = window_where(desk, START, "FeatherPad", |t| t == "Untitled");
    let text = common::observe_with_until(
        desk,
        json!({"target": w, "hidden": true, "query": "File"}),
        START,
        "its File menu",
        |t| t.contains("menuitem \"File\""),
    );
    let file = common::ref_where(&text, "the File menu", |l| l.contains("menuitem \"File\""));
    desk.act("click", json!({"ref": file})).ok();
    let text = common::observe_with_until(
        desk,
        json!({"target": w, "query": "Save As"}),
        SETTLE,
        "the Save As item",
        |t| t.contains("menuitem \"Save As\""),
    );
    let save_as = common::ref_where(&text, "Save As", |l| l.contains("menuitem \"Save As\""));
    let (code, doc) = act_coded(desk, "click", json!({"ref": save_as}));
    assert_ne!(
        code, 1,
        "the click opened the dialog but was reported failed: {doc}"
    );
    let reply = doc["text"].as_str().unwrap_or_default();
    assert!(reply.contains("it opened w"), "{reply}");
    let (dialog, _) = window_where(desk, SETTLE, "the Save as dialog", |t| {
        t.starts_with("Save as")
    });
    let started = Instant::now();
    let text = desk.act("observe", json!({"target": dialog})).ok();
    assert!(started.elapsed() < Duration::from_secs(2), "{text}");
    desk.act("press", json!({"keys": "Escape"})).ok();
    let after = desk.act("observe", json!({"target": w}));
    assert_eq!(after.code, 0, "{}{}", after.stdout, after.stderr);
}

/// A click by ref on a GTK3 tree view's cell is the pointer's, which selects its row and puts
/// the cursor there. The cell's own accessibility action "activate" activates the row instead,
/// as a double-click or Enter does (a file manager opens the file), and leaves the selection
/// where it was: a click must not run it.
#[test]
fn clicking_a_gtk3_tree_views_cell_selects_its_row_and_does_not_activate_it() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture_with("Cell Click Fixture", 1, &["--rows", "20"]);
    let w = desk.window_id("Cell Click Fixture");
    let text = observe_until(desk, &w, START, "the list's rows", |t| {
        t.contains("cell \"row 3\"")
    });
    let cell = common::ref_of(&text, &["cell \"row 3\""]);
    let (code, reply) = act_coded(desk, "click", json!({"target": w, "ref": cell}));
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["outcome"], "done", "{reply}");
    let said = reply["text"].as_str().unwrap_or_default();
    assert!(said.contains("with the pointer"), "{said}");
    fixture.wait_for("row 3 selected", |e| {
        e["event"] == "row_selected" && e["rows"] == json!([3])
    });
    let after = desk.act("observe", json!({"target": w}));
    let line = line_of(
        &after.stdout,
        &common::ref_of(&after.stdout, &["cell \"row 3\""]),
    );
    assert!(
        line.contains("focused") && line.contains("selected"),
        "{line}"
    );
    let events = fixture.settled_events(0);
    assert!(
        events.iter().all(|e| e["event"] != "row_activated"),
        "the row was activated: {events:?}"
    );
}

/// The Qt fixture of item views that behave as Dolphin's: its log and its window's `w` id.
fn qt_items(desk: &Desktop, title: &str) -> (common::Fixture, String) {
    let items = desk.python_fixture("qt_items.py", title, &[]);
    let (w, _) = window_where(desk, START, title, |t| t == title);
    (items, w)
}

/// A Qt item view that keeps its items' objects by row (as Dolphin's does) makes the object a
/// ref was issued for stand for another file once a file is added: `read` and `click` by that
/// ref are refused, naming both, and nothing is selected; the ref of a new observation works.
#[test]
fn a_ref_whose_qt_item_moved_under_it_reads_and_clicks_nothing() {
    let (_turn, desk) = desktop();
    let (items, w) = qt_items(desk, "Qt Moving Items");
    let text = observe_until(desk, &w, START, "the files", |t| {
        t.contains("listitem \"file4.txt\"")
    });
    let file4 = common::ref_where(&text, "file4.txt", |l| l.contains("\"file4.txt\""));
    let add = common::ref_where(&text, "the Add button", |l| {
        l.contains("button \"Add file2.txt\"")
    });
    desk.act("click", json!({"ref": add})).ok();
    items.wait_for("file2.txt to be added", |e| e["event"] == "added");
    let before = items.events().len();

    for action in ["read", "click"] {
        let (code, doc) = act_coded(desk, action, json!({"ref": file4}));
        let message = doc["message"].as_str().unwrap_or_default();
        assert_eq!(code, 1, "{action}: {doc}");
        assert_eq!(doc["error"], "element-changed", "{action}: {doc}");
        assert!(
            message.starts_with(&format!(
                "{file4} listitem \"file4.txt\" now stands for listitem \"file3.txt\""
            )) && message.contains("nothing was done"),
            "{action}: {message}"
        );
    }
    let after = items.settled_events(before);
    assert!(
        after.iter().all(|e| e["event"] != "selected"),
        "a refused click selected something: {after:?}"
    );

    let text = desk.act("observe", json!({"target": w})).ok();
    let file4 = common::ref_where(&text, "file4.txt", |l| l.contains("\"file4.txt\""));
    desk.act("click", json!({"ref": file4})).ok();
    items.wait_for("file4.txt to be selected", |e| {
        e["event"] == "selected" && e["item"] == "file4.txt"
    });
}

/// The lines of an observation under the view named `view` (`tree "Tree"`), up to the next
/// element at its depth.
fn lines_under<'t>(text: &'t str, view: &str) -> Vec<&'t str> {
    let mut lines = common::element_lines(text).skip_while(|l| !l.contains(view));
    let Some(head) = lines.next() else {
        panic!("no {view} in:\n{text}");
    };
    let depth = head.len() - head.trim_start().len();
    lines
        .take_while(|l| l.len() - l.trim_start().len() > depth)
        .collect()
}

/// The ref of the first line under `view` that contains `needle`.
fn ref_under(text: &str, view: &str, needle: &str) -> String {
    lines_under(text, view)
        .into_iter()
        .find(|l| l.contains(needle))
        .and_then(|l| l.trim_start().split(' ').next())
        .unwrap_or_else(|| panic!("no {needle} under {view} in:\n{text}"))
        .to_owned()
}

/// `observe` with `since` says the window `w` has not changed since the last look.
fn assert_unchanged_since_last_look(desk: &common::Desktop, w: &str) {
    let unchanged = desk
        .act("observe", json!({"target": w, "since": true}))
        .ok();
    assert!(
        unchanged
            .lines()
            .next()
            .unwrap_or_default()
            .contains("· no changes since"),
        "{unchanged}"
    );
}

/// Issue 41: Qt 5's tree view hands out a new object for each of its cells at every read, so
/// `since` on an unchanged window said every header and cell was removed and added again, under
/// new refs. An unchanged tree, table and list are reported unchanged and keep their refs. Once
/// a row is inserted above, a ref taken before acts on its own row (the app's object follows
/// it); after an observe, the moved rows' old refs are refused, never given to the row now in
/// their place, though its "Kind" cell reads "Text" as the old one did.
#[test]
fn qt_item_views_unchanged_keep_their_refs_and_a_moved_row_is_never_taken_for_its_neighbour() {
    let (_turn, desk) = desktop();
    let views = desk.python_fixture("qt_views.py", "Qt Views", &[]);
    let (w, _) = window_where(desk, START, "the views", |t| t == "Qt Views");
    let first = observe_until(desk, &w, START, "the three views", |t| {
        t.matches("\"delta.ods\"").count() == 3
    });
    assert_unchanged_since_last_look(desk, &w);
    let again = desk.act("observe", json!({"target": w})).ok();
    for view in ["tree \"Tree\"", "table \"Table\"", "list \"List\""] {
        assert_eq!(
            lines_under(&again, view),
            lines_under(&first, view),
            "{view} kept its refs"
        );
    }
    let tree_gamma = ref_under(&first, "tree \"Tree\"", "\"gamma.pdf\"");
    let tree_alpha_kind = ref_under(&first, "tree \"Tree\"", "\"Text\"");
    let table_gamma = ref_under(&first, "table \"Table\"", "\"gamma.pdf\"");
    let list_gamma = ref_under(&first, "list \"List\"", "\"gamma.pdf\"");

    desk.act(
        "click",
        json!({"find": {"name": "Insert above", "role": "button"}}),
    )
    .ok();
    views.wait_for("the row inserted above", |e| e["event"] == "inserted");
    for (view, gamma) in [
        ("tree", &tree_gamma),
        ("table", &table_gamma),
        ("list", &list_gamma),
    ] {
        let before = views.events().len();
        let clicked = desk.act("click", json!({"ref": gamma})).ok();
        assert!(clicked.contains("\"gamma.pdf\""), "{view}: {clicked}");
        views.wait_for("gamma.pdf selected", |e| {
            e["event"] == "selected" && e["view"] == view && e["item"] == "gamma.pdf"
        });
        let selected: Vec<Value> = views.settled_events(before);
        assert!(
            selected
                .iter()
                .all(|e| e["event"] != "selected" || e["item"] == "gamma.pdf"),
            "{view}: {selected:?}"
        );
    }

    let moved = desk
        .act("observe", json!({"target": w, "since": true}))
        .ok();
    assert!(moved.contains("+ "), "{moved}");
    let before = views.events().len();
    for stale in [&tree_gamma, &tree_alpha_kind] {
        let (code, doc) = act_coded(desk, "click", json!({"ref": stale}));
        assert_eq!(code, 1, "{doc}");
        assert_eq!(doc["error"], "ref-expired", "{doc}");
    }
    let after = views.settled_events(before);
    assert!(
        after.iter().all(|e| e["event"] != "selected"),
        "a refused click selected a row: {after:?}"
    );
    let now = desk.act("observe", json!({"target": w})).ok();
    let aardvark_kind = ref_under(&now, "tree \"Tree\"", "\"Text\"");
    assert_ne!(aardvark_kind, tree_alpha_kind, "{now}");
}

/// A Qt 5 tree view with more cells than Qt lists by walking (here 453) had none of its cells
/// read, its scroll bar standing over the corner where the last visible cell was looked for:
/// the cells in view are listed, the rest counted; an unchanged view is reported unchanged,
/// and a cell's ref selects its own row.
#[test]
fn a_long_qt_tree_view_lists_the_cells_in_view_and_keeps_their_refs() {
    let (_turn, desk) = desktop();
    let views = desk.python_fixture("qt_views.py", "Qt Long Tree", &["--rows", "146"]);
    let (w, _) = window_where(desk, START, "the views", |t| t == "Qt Long Tree");
    let first = observe_until(desk, &w, START, "the tree's cells", |t| {
        t.contains("cell \"file 1.log\"")
    });
    let header = first.lines().next().unwrap_or_default();
    assert!(header.contains(" visible of 450 were read"), "{first}");
    let tree = lines_under(&first, "tree \"Tree\"");
    assert!(
        tree.iter().any(|l| l.contains("header \"Kind\""))
            && tree.iter().any(|l| l.contains("cell \"gamma.pdf\"")),
        "{first}"
    );
    assert_unchanged_since_last_look(desk, &w);
    let log = ref_under(&first, "tree \"Tree\"", "\"file 1.log\"");
    desk.act("click", json!({"ref": log})).ok();
    views.wait_for("file 1.log selected", |e| {
        e["event"] == "selected" && e["view"] == "tree" && e["item"] == "file 1.log"
    });
}

/// Dolphin's icon view takes a click on an item only on its icon or text, and this item's
/// middle is an empty icon: a pointer click by ref (a double-click, which has no accessibility
/// action) goes where the app says the item is, and the item is selected and opened.
#[test]
fn a_pointer_click_on_an_icon_views_item_lands_where_the_item_takes_it() {
    let (_turn, desk) = desktop();
    let (items, w) = qt_items(desk, "Qt Icon Items");
    let text = observe_until(desk, &w, START, "the icons", |t| {
        t.contains("listitem \"gamma.txt\"")
    });
    let gamma = common::ref_where(&text, "gamma.txt", |l| l.contains("\"gamma.txt\""));
    let reply = desk.act("click", json!({"ref": gamma, "count": 2})).ok();
    assert!(
        reply.starts_with(&format!(
            "done: double-clicked {gamma} listitem \"gamma.txt\" with the pointer at "
        )) && reply.contains("its center is not where the app takes a click"),
        "{reply}"
    );
    items.wait_for("gamma.txt to be opened", |e| {
        e["event"] == "opened" && e["item"] == "gamma.txt"
    });
}

/// KDE's file dialog takes seconds to show, and Qt answers the menu item's action only once
/// the dialog closes: `select` waits for the window and answers `done`, naming it.
#[test]
fn a_qt_menu_item_whose_dialog_shows_late_is_done_naming_the_dialog() {
    let (_turn, desk) = desktop();
    let (items, w) = qt_items(desk, "Qt Slow Dialog");
    observe_until(desk, &w, START, "the File menu", |t| {
        t.contains("menuitem \"File\"")
    });
    let (code, doc) = act_coded(
        desk,
        "select",
        json!({"target": w, "path": ["File", "Save As…"]}),
    );
    let reply = doc["text"].as_str().unwrap_or_default();
    assert_eq!(code, 0, "{reply}");
    assert!(
        reply.starts_with("done: selected \"File\" > \"Save As…\"")
            && reply.contains("it opened w")
            && reply.contains("\"Save As\""),
        "{reply}"
    );
    items.wait_for("the dialog", |e| e["event"] == "dialog");
    let (dialog, _) = window_where(desk, SETTLE, "the Save As dialog", |t| t == "Save As");
    desk.act("close", json!({"target": dialog})).ok();
    items.wait_for("the dialog to close", |e| e["event"] == "dialog closed");
    let after = desk.act("observe", json!({"target": w}));
    assert_eq!(after.code, 0, "{}{}", after.stdout, after.stderr);
}

/// A program that exits at once (VLC run as root does) fails the launch at once, with its exit
/// status and the last line it wrote to stderr, instead of waiting 20 s for a window.
#[test]
fn a_launch_whose_program_exits_at_once_fails_at_once_saying_why() {
    let (_turn, desk) = desktop();
    let data = desk
        .env
        .iter()
        .find(|(name, _)| name == "XDG_DATA_HOME")
        .map(|(_, value)| std::path::PathBuf::from(value))
        .expect("the desktop has a data directory");
    let applications = data.join("applications");
    std::fs::create_dir_all(&applications).unwrap();
    std::fs::write(
        applications.join("deskhand-test-refusing-pad.desktop"),
        "[Desktop Entry]\nType=Application\nName=Refusing Pad\nExec=mousepad --no-such-option\n",
    )
    .unwrap();
    let started = Instant::now();
    let (code, doc) = act_coded(desk, "launch", json!({"app": "deskhand-test-refusing-pad"}));
    let took = started.elapsed();
    let reply = doc["message"].as_str().unwrap_or_default();
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"], "platform", "{doc}");
    assert!(
        reply.starts_with("deskhand-test-refusing-pad (process ")
            && reply.contains("ended before showing a window")
            && reply.contains("exited with status 1")
            && reply
                .contains("the last line it wrote to stderr: \"Unknown option --no-such-option\""),
        "{reply}"
    );
    assert!(
        took < Duration::from_secs(10),
        "answered after {took:?}: {reply}"
    );
}

/// Dolphin (KDE Frameworks) hands out its items' objects by position, answers a hit test in its
/// own coordinates, and takes a click on an item only on its icon or text, while the middle of
/// a text file's item is empty: a ref held across a new file acts on nothing, and a click by
/// ref selects the item it names.
#[test]
fn dolphin_refs_never_act_on_another_file_and_a_click_selects_the_file() {
    let (_turn, desk) = desktop();
    let folder = desk.scratch("dolphin-files");
    std::fs::create_dir_all(&folder).unwrap();
    for n in [1, 3, 4, 5] {
        std::fs::write(folder.join(format!("file{n}.txt")), "x").unwrap();
    }
    let _dolphin = desk.spawn(
        "dolphin",
        &["--new-window", folder.to_str().expect("utf-8 path")],
    );
    let (w, _) = window_where(desk, START, "Dolphin", |t| {
        t.starts_with("dolphin-files") && t.ends_with("Dolphin")
    });
    let query = json!({"target": w, "query": "file"});
    let text = common::observe_with_until(desk, query.clone(), START, "the files", |t| {
        t.contains("cell \"file5.txt\"")
    });
    let file4 = common::ref_where(&text, "file4.txt", |l| l.contains("cell \"file4.txt\""));

    std::fs::write(folder.join("file2.txt"), "x").unwrap();
    let refused = wait_until(SETTLE, || {
        let (code, doc) = act_coded(desk, "read", json!({"ref": file4}));
        (code == 1).then_some(doc)
    })
    .expect("Dolphin never listed file2.txt");
    assert_eq!(refused["error"], "element-changed", "{refused}");
    let (code, doc) = act_coded(desk, "click", json!({"ref": file4}));
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["error"], "element-changed", "{doc}");

    let text = desk.act("observe", query.clone()).ok();
    assert!(
        !line_of(&text, &file4).contains("selected"),
        "a refused click selected a file: {text}"
    );
    let file4 = common::ref_where(&text, "file4.txt", |l| l.contains("cell \"file4.txt\""));
    let clicked = desk.act("click", json!({"ref": file4})).ok();
    assert!(
        clicked.contains("its center is not where the app takes a click on it"),
        "{clicked}"
    );
    let text = desk.act("observe", query).ok();
    assert!(
        line_of(&text, &file4).contains("selected"),
        "{clicked}\n{text}"
    );
}

/// In GTK's Emacs key theme (which some apps set) ctrl+a moves to the line's start instead of
/// selecting all: `type` with `replace` selects the field's text through accessibility, so a
/// file dialog's name field holds the new name alone and the app writes that file, and the
/// reply says it read the field back. Typing into the field without `replace`, where the
/// dialog selects the name's stem as the field takes the focus, replaces the stem, and the
/// reply says that too.
#[test]
fn typing_over_a_gtk_field_in_the_emacs_key_theme_replaces_it_and_says_what_it_holds() {
    let (_turn, desk) = desktop();
    let dir = desk.scratch("emacs-keys");
    let settings = dir.join("config/gtk-3.0");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("settings.ini"),
        "[Settings]\ngtk-key-theme-name = Emacs\n",
    )
    .unwrap();
    let answer = dir.join("answer.txt");
    let zenity = desk
        .command("zenity")
        .args(["--file-selection", "--save", "--title", "Save the draft"])
        .arg(format!("--filename={}", dir.join("draft.txt").display()))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&answer).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starting zenity");
    let _zenity = common::App::from_child(zenity, dir.join("zenity.stderr"));
    let (w, _) = window_where(desk, START, "the save dialog", |t| t == "Save the draft");
    let text = observe_until(desk, &w, SETTLE, "the name field", |t| {
        t.contains("text value=\"draft.txt\"")
    });
    let name = common::ref_where(&text, "the name field", |l| {
        l.contains("text value=\"draft.txt\"")
    });

    let wanted = dir.join("out.txt");
    let wanted = wanted.to_str().expect("utf-8 path");
    let replaced = desk
        .act(
            "type",
            json!({"ref": name, "text": wanted, "replace": true}),
        )
        .ok();
    assert!(
        replaced.starts_with("done: replaced the content of")
            && replaced.ends_with("(read back)\n"),
        "{replaced}"
    );

    // The dialog selects the name's stem when the field takes the focus, and what is typed
    // replaces it: the reply says so.
    let (_, doc) = act_coded(desk, "type", json!({"ref": name, "text": "-2"}));
    let reply = doc["text"].as_str().unwrap_or_default();
    let stem = wanted.trim_end_matches(".txt").chars().count();
    assert!(
        reply.starts_with("done: typed 2 characters into")
            && reply.ends_with(&format!(
                "in place of the {stem} characters it had selected (read back)\n"
            )),
        "{doc}"
    );
    let (code, _) = act_coded(
        desk,
        "type",
        json!({"ref": name, "text": wanted, "replace": true}),
    );
    assert_eq!(code, 0);
    desk.act("press", json!({"keys": "Return"})).ok();
    let written = wait_until(SETTLE, || {
        std::fs::read_to_string(&answer)
            .ok()
            .filter(|a| !a.is_empty())
    })
    .expect("zenity answered");
    assert_eq!(written.trim_end(), wanted);
}

/// A dialog's button that ends its app (zenity's "Yes") runs inside GTK 3's accessibility
/// request, and the app never answers again: the click is `done`, saying the window closed,
/// not "unconfirmed, the app may be busy". zenity's exit status is the oracle: 0 for "Yes".
#[test]
fn a_dialog_button_that_ends_its_app_is_done_and_says_its_window_closed() {
    let (_turn, desk) = desktop();
    let mut zenity = desk
        .command("zenity")
        .args([
            "--question",
            "--title",
            "Proceed with the plan",
            "--text",
            "Proceed?",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starting zenity");
    let (w, _) = window_where(desk, START, "the question", |t| {
        t == "Proceed with the plan"
    });
    let text = observe_until(desk, &w, SETTLE, "the Yes button", |t| {
        t.contains("button \"Yes\"")
    });
    let yes = common::ref_where(&text, "the Yes button", |l| l.contains("button \"Yes\""));

    let reply = desk.act("click", json!({"ref": yes})).ok();
    assert!(
        reply.starts_with("done: clicked") && reply.contains("its window closed"),
        "{reply}"
    );
    let status = wait_until(SETTLE, || zenity.try_wait().ok().flatten())
        .expect("zenity ended after its Yes was clicked");
    assert_eq!(status.code(), Some(0), "zenity's answer was not Yes");
}

/// kcalc's display is named by the number it shows: after the keys change it, its ref from the
/// observe before still reads (the new result) and clicks, for its name is its content, not
/// what tells it apart.
#[test]
fn a_display_named_by_its_result_still_reads_and_clicks_by_its_ref() {
    let (_turn, desk) = desktop();
    let _kcalc = desk.spawn("kcalc", &[]);
    let (w, _) = window_where(desk, START, "kcalc", |t| t == "KCalc");
    let keypad = observe_until(desk, &w, START, "the keypad", |t| {
        t.contains("button \"=\"")
    });
    let display = common::ref_where(&keypad, "the display", |l| l.contains("window \"0\""));
    for key in ["8", "1"] {
        let key = common::ref_where(&keypad, key, |l| l.contains(&format!("button \"{key}\"")));
        desk.act("click", json!({"ref": key})).ok();
    }
    let read = wait_until(SETTLE, || {
        let run = desk.act("read", json!({"ref": display}));
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        run.stdout.contains("81").then_some(run.stdout)
    });
    assert!(read.is_some(), "the display never read 81");
    let clicked = desk.act("click", json!({"ref": display}));
    assert!(
        clicked.stdout.starts_with("done"),
        "{}{}",
        clicked.stdout,
        clicked.stderr
    );
}
