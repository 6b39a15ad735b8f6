//! A recording as one HTML page that opens anywhere: no network, no file beside it. Each image
//! is in the page once, as a data URI, and every step that shows it points at it; the acted
//! element's box is drawn over it in percentages, so it stays on the element at any width.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use base64::Engine;

use crate::format::{Recording, Shot, Step};

/// Counts what a reply costs the model, in tokens.
pub type CountTokens<'a> = &'a dyn Fn(&str) -> usize;

/// The page for `recording`. `count` counts the tokens of the reply's text and structured form.
pub fn html(recording: &Recording, count: CountTokens<'_>) -> String {
    let mut images: BTreeMap<String, String> = BTreeMap::new();
    let mut body = String::new();
    let mut nav = String::new();
    let mut total_ms = 0;
    let mut total_tokens = 0;
    let mut failures = 0;
    for step in &recording.steps {
        let tokens = count(&step.text)
            + if step.data.is_null() {
                0
            } else {
                count(&step.data.to_string())
            };
        total_ms += step.ms;
        total_tokens += tokens;
        let failed = step.failed();
        failures += usize::from(failed);
        // Applied but unconfirmed is neither done nor failed: the app may not have taken it.
        let (mark, flag) = match step.outcome.as_str() {
            _ if failed => (" failed", " ✗"),
            "unconfirmed" => (" unconfirmed", " ?"),
            _ => ("", ""),
        };
        let _ = write!(
            nav,
            "<li class=\"{mark}\"><a href=\"#step-{i}\">{i}. {action}{flag}</a></li>",
            i = step.index,
            action = esc(&step.action),
        );
        let _ = write!(
            body,
            "<section class=\"step{mark}\" id=\"step-{i}\" tabindex=\"-1\" aria-labelledby=\"h-{i}\">\
<h2 id=\"h-{i}\">Step {i}: {action} <span class=\"outcome\">{outcome}</span></h2>\
<p class=\"meta\">{ms} ms · {tokens} tokens · {when}</p>",
            i = step.index,
            action = esc(&step.action),
            outcome = esc(&step.outcome),
            ms = step.ms,
            when = clock(step.at_ms),
        );
        // What the reply said first: what a wait found held, what a click did.
        let _ = write!(
            body,
            "<p class=\"said\">{}</p>",
            esc(step.text.lines().next().unwrap_or_default())
        );
        for acted in &step.elements {
            let _ = write!(
                body,
                "<p class=\"acted\">acted on <b>{}</b></p>",
                esc(&crate::replay::describe(acted))
            );
        }
        for redacted in &step.redacted {
            let _ = write!(
                body,
                "<p class=\"redacted\">{}: {} characters, not kept ({})</p>",
                esc(&redacted.field),
                redacted.characters,
                esc(&redacted.why)
            );
        }
        let shots: Vec<(&str, &Shot)> = [("before", &step.before), ("after", &step.after)]
            .into_iter()
            .filter_map(|(label, shot)| shot.as_ref().map(|s| (label, s)))
            .collect();
        if !shots.is_empty() {
            body.push_str("<div class=\"shots\">");
            for (label, shot) in shots {
                figure(&mut body, &mut images, recording, step, label, shot);
            }
            body.push_str("</div>");
        }
        let _ = write!(
            body,
            "<details><summary>call</summary><pre>{}</pre></details>\
<details{open}><summary>reply</summary><pre>{}</pre></details></section>",
            esc(&serde_json::to_string_pretty(&step.args).unwrap_or_default()),
            esc(&step.text),
            open = if failed { " open" } else { "" },
        );
    }
    let mut sources = String::new();
    for (id, uri) in &images {
        let _ = write!(sources, "\"{id}\":\"{uri}\",");
    }
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
<title>deskhand recording {name}: {steps} steps</title><style>{STYLE}</style></head><body>\
<a class=\"skip\" href=\"#steps\">Skip to the steps</a>\
<header><h1>deskhand recording {name}</h1><p>started {started} · {steps} steps · {failures} failed · {secs:.1} s in calls · {total_tokens} tokens · format {format}, deskhand {version}</p></header>\
<div class=\"layout\"><nav aria-label=\"Steps\"><ol>{nav}</ol></nav><main id=\"steps\">{body}</main></div>\
<script>const shots={{{sources}}};for(const img of document.querySelectorAll('img[data-shot]')){{img.src=shots[img.dataset.shot];img.onclick=()=>img.closest('figure').classList.toggle('full');}}</script>\
</body></html>",
        steps = recording.steps.len(),
        name = esc(&session_name(recording)),
        started = clock(recording.manifest.started_ms),
        secs = total_ms as f64 / 1000.0,
        format = recording.manifest.format,
        version = esc(&recording.manifest.deskhand),
    )
}

/// One screenshot with the acted elements' boxes over it; the image itself is added to
/// `images` once, under its file name.
fn figure(
    body: &mut String,
    images: &mut BTreeMap<String, String>,
    recording: &Recording,
    step: &Step,
    label: &str,
    shot: &Shot,
) {
    let id = shot.file.clone();
    if !images.contains_key(&id) {
        match std::fs::read(recording.shot_path(shot)) {
            Ok(png) => {
                let data = base64::engine::general_purpose::STANDARD.encode(png);
                images.insert(id.clone(), format!("data:image/png;base64,{data}"));
            }
            Err(_) => {
                let _ = write!(
                    body,
                    "<figure><figcaption>{label}: no capture (the screen could not be read)</figcaption></figure>"
                );
                return;
            }
        }
    }
    let _ = write!(
        body,
        "<figure><div class=\"frame\"><img data-shot=\"{id}\" alt=\"the screen {label} step {i}\">",
        id = esc(&id),
        i = step.index
    );
    let screen = shot.screen;
    for acted in &step.elements {
        let Some(b) = acted.bounds else { continue };
        let pct = |v: f64, of: u32| 100.0 * v / f64::from(of.max(1));
        let _ = write!(
            body,
            "<div class=\"box\" title=\"{name}\" style=\"left:{l:.2}%;top:{t:.2}%;width:{w:.2}%;height:{h:.2}%\"></div>",
            name = esc(&format!("{} {:?}", acted.role, acted.name)),
            l = pct(f64::from(b.x - screen.x), screen.width),
            t = pct(f64::from(b.y - screen.y), screen.height),
            w = pct(f64::from(b.width), screen.width),
            h = pct(f64::from(b.height), screen.height),
        );
    }
    // Where a click or drag by point landed, as the reply gave it in screen pixels.
    for key in ["pixel", "from", "to"] {
        let at = &step.data[key];
        let (Some(x), Some(y)) = (at["x"].as_i64(), at["y"].as_i64()) else {
            continue;
        };
        let pct = |v: i64, from: i32, of: u32| {
            100.0 * (v - i64::from(from)) as f64 / f64::from(of.max(1))
        };
        let _ = write!(
            body,
            "<div class=\"point\" title=\"{key} {x},{y}\" style=\"left:{l:.2}%;top:{t:.2}%\"></div>",
            l = pct(x, screen.x, screen.width),
            t = pct(y, screen.y, screen.height),
        );
    }
    let _ = write!(body, "</div><figcaption>{label}</figcaption></figure>");
}

/// The recording's folder name: `session-<id>` for a session an HTTP server recorded.
fn session_name(recording: &Recording) -> String {
    recording
        .dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Hours, minutes and seconds (UTC) of a unix-ms time: enough to follow one session.
fn clock(ms: u64) -> String {
    let secs = ms / 1000;
    format!(
        "{:02}:{:02}:{:02} UTC",
        secs / 3600 % 24,
        secs / 60 % 60,
        secs % 60
    )
}

const STYLE: &str = "\
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}\
header{padding:12px 20px;background:#22303c;color:#fff}header h1{margin:0;font-size:20px}header p{margin:4px 0 0}\
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px;z-index:9}\
.layout{display:grid;grid-template-columns:200px minmax(0,1fr);gap:16px;padding:16px}\
nav ol{list-style:none;margin:0;padding:0;position:sticky;top:8px;max-height:95vh;overflow:auto}\
nav a{display:block;padding:2px 6px;color:#0b4f8a;text-decoration:none;border-radius:3px}\
nav a:focus,nav a:hover{background:#dbe9f6;outline:2px solid #0b4f8a}nav li.failed a{color:#b00020;font-weight:600}\
.step{background:#fff;border:1px solid #d0d7de;border-left:6px solid #2e7d32;border-radius:4px;padding:8px 14px;margin-bottom:16px}\
.step.failed{border-left-color:#b00020;background:#fff5f5}.step.unconfirmed{border-left-color:#c77700;background:#fffaf0}\
.unconfirmed .outcome{color:#8a4b00;font-weight:700}nav li.unconfirmed a{color:#8a4b00}.said{margin:0 0 6px;font-family:monospace}.step:focus{outline:3px solid #0b4f8a}\
.step h2{font-size:17px;margin:4px 0}.outcome{font-weight:400;color:#555}.failed .outcome{color:#b00020;font-weight:700}\
.meta{color:#555;margin:0 0 6px}.redacted{color:#8a4b00}\
.shots{display:grid;grid-template-columns:repeat(auto-fit,minmax(240px,340px));gap:10px}\
figure{margin:0;max-width:340px}figure.full{max-width:none;grid-column:1/-1}.frame img{cursor:zoom-in}\
.point{position:absolute;width:18px;height:18px;margin:-9px 0 0 -9px;border:3px solid #e53935;border-radius:50%;box-sizing:border-box;box-shadow:0 0 0 2px #fff}.frame{position:relative;line-height:0;overflow:hidden}.frame img{width:100%;height:auto;border:1px solid #ccc}\
.box{position:absolute;border:3px solid #e53935;box-shadow:0 0 0 2px #fff;box-sizing:border-box}\
pre{white-space:pre-wrap;word-break:break-word;background:#f3f3f3;padding:8px;margin:4px 0}\
summary{cursor:pointer;color:#0b4f8a}summary:focus{outline:2px solid #0b4f8a}";
