//! Recall latency on a store of 1,000 synthetic windows (20 apps × 50 windows × 30 controls,
//! each window leading to the next and to a few others), the figure issue 6 asks for
//! (goal: ≤ 5 ms for each kind of recall). `cargo bench -p deskhand-memory`.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use deskhand_core::memory::{
    Control, Effect, Memory, Recall, Sighting, Step, Transition, fingerprint,
};
use deskhand_core::model::Role;
use deskhand_memory::SqliteMemory;

const APPS: usize = 20;
const WINDOWS_PER_APP: usize = 50;
const CONTROLS_PER_WINDOW: usize = 30;
const RUNS: usize = 200;

const ROLES: [Role; 6] = [
    Role::Button,
    Role::Check,
    Role::Text,
    Role::Tab,
    Role::Combobox,
    Role::Menuitem,
];

fn at(seconds: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_796_011_200 + seconds)
}

fn window(app: usize, index: usize) -> Sighting {
    let app_name = format!("app-{app:02}");
    let mut controls: Vec<Control> = (0..CONTROLS_PER_WINDOW)
        .map(|i| Control {
            role: ROLES[i % ROLES.len()],
            name: match i {
                0 => "OK".to_owned(),
                1 => "Cancel".to_owned(),
                2 => format!("Next {}", (index + 1) % WINDOWS_PER_APP),
                3 => format!("Jump {}", (index * 7 + 3) % WINDOWS_PER_APP),
                _ => format!("Option {i} of window {index}"),
            },
        })
        .collect();
    controls.sort();
    Sighting {
        fingerprint: fingerprint(&app_name, Role::Window, &controls),
        app: app_name,
        title: format!("Window {index} — App {app}"),
        controls,
    }
}

fn fill(memory: &SqliteMemory) -> (Duration, usize) {
    let started = Instant::now();
    let mut writes = 0;
    let mut clock = 0;
    for app in 0..APPS {
        for index in 0..WINDOWS_PER_APP {
            let here = window(app, index);
            memory.saw(&here, at(clock)).unwrap();
            let steps = [
                (
                    Step::Click(Control {
                        role: Role::Text,
                        name: format!("Next {}", (index + 1) % WINDOWS_PER_APP),
                    }),
                    Effect::Window(window(app, (index + 1) % WINDOWS_PER_APP)),
                ),
                (
                    Step::Click(Control {
                        role: Role::Tab,
                        name: format!("Jump {}", (index * 7 + 3) % WINDOWS_PER_APP),
                    }),
                    Effect::Window(window(app, (index * 7 + 3) % WINDOWS_PER_APP)),
                ),
                (
                    Step::Select(vec!["View".into(), format!("Pane {index}")]),
                    Effect::Controls(vec![Control {
                        role: Role::Button,
                        name: format!("Pane button {index}"),
                    }]),
                ),
            ];
            for (step, effect) in steps {
                clock += 1;
                memory
                    .learned(
                        &Transition {
                            from: here.clone(),
                            step,
                            effect,
                        },
                        at(clock),
                    )
                    .unwrap();
                writes += 1;
            }
            writes += 1;
        }
        // Each app was last seen in its first window, so routes start there.
        clock += 1;
        memory.saw(&window(app, 0), at(clock)).unwrap();
    }
    (started.elapsed(), writes)
}

/// The median time, the answer's length in characters and its hit count (for a query).
fn median(memory: &SqliteMemory, request: &Recall) -> (Duration, usize, Option<u64>) {
    let now = at(100_000);
    let mut times = Vec::with_capacity(RUNS);
    let mut answer = None;
    for _ in 0..RUNS {
        let started = Instant::now();
        answer = Some(memory.recall(request, now).unwrap());
        times.push(started.elapsed());
    }
    times.sort();
    let answer = answer.unwrap();
    (
        times[RUNS / 2],
        answer.text.chars().count(),
        answer.data["hits_total"].as_u64(),
    )
}

fn main() {
    let dir = std::env::temp_dir().join(format!("deskhand-memory-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let memory = SqliteMemory::open(dir.join("memory.sqlite")).unwrap();
    let (filled, writes) = fill(&memory);
    println!(
        "store: {} windows, {} controls each, {writes} writes in {:.0} ms ({:.3} ms a write)",
        APPS * WINDOWS_PER_APP,
        CONTROLS_PER_WINDOW,
        filled.as_secs_f64() * 1e3,
        filled.as_secs_f64() * 1e3 / writes as f64
    );
    let ask = |app: Option<&str>, window: Option<&str>, query: Option<&str>| Recall {
        app: app.map(str::to_owned),
        window: window.map(str::to_owned),
        query: query.map(str::to_owned),
    };
    let cases = [
        ("no arguments", ask(None, None, None)),
        ("app", ask(Some("app-07"), None, None)),
        (
            "app + window",
            ask(Some("app-07"), Some("Window 31 "), None),
        ),
        (
            "query, all apps",
            ask(None, None, Some("option 17 of window 31")),
        ),
        (
            "query in one app",
            ask(Some("app-07"), None, Some("pane button 4")),
        ),
        ("query, common name", ask(None, None, Some("ok"))),
    ];
    println!("recall median of {RUNS} runs:");
    for (name, request) in &cases {
        let (time, chars, hits) = median(&memory, request);
        let hits = hits.map_or_else(String::new, |hits| format!(", {hits} hits"));
        println!(
            "  {name:<20} {:>7.3} ms  ({chars} chars of text{hits})",
            time.as_secs_f64() * 1e3
        );
    }
    drop(memory);
    let _ = std::fs::remove_dir_all(&dir);
}
