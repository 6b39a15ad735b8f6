//! A recording as one HTML page that opens anywhere: no network, no file beside it. Each image
//! is in the page once, as a data URI, and every step that shows it points at it (two captures
//! with the same bytes are one image); the acted element's box is drawn over it in percentages,
//! so it stays on the element at any width. A replay's recording is shown beside the one it
//! replayed: each rerun step next to the step it reran, and how every step of the original went.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine;

use crate::RecordError;
use crate::format::{Recording, Shot, Step};

/// Counts what a reply costs the model, in tokens.
pub type CountTokens<'a> = &'a dyn Fn(&str) -> usize;

/// Each image of the page once: its id by its bytes, and its data URI by id.
#[derive(Default)]
struct Images {
    ids: HashMap<Vec<u8>, String>,
    uris: BTreeMap<String, String>,
}

impl Images {
    /// The page's id of the capture at `path`, added on first sight; `None` when it cannot be
    /// read.
    fn add(&mut self, path: &Path) -> Option<String> {
        let png = std::fs::read(path).ok()?;
        if let Some(id) = self.ids.get(&png) {
            return Some(id.clone());
        }
        let id = format!("i{}", self.ids.len() + 1);
        let data = base64::engine::general_purpose::STANDARD.encode(&png);
        self.uris
            .insert(id.clone(), format!("data:image/png;base64,{data}"));
        self.ids.insert(png, id.clone());
        Some(id)
    }
}

/// The page for `recording`. `count` counts the tokens of the reply's text and structured form.
/// For a replay's recording, the original it names is read too, to set the two side by side.
pub fn html(recording: &Recording, count: CountTokens<'_>) -> String {
    let mut images = Images::default();
    let original = recording
        .manifest
        .replay_of
        .as_ref()
        .map(|dir| Recording::open(dir).map_err(|err| (dir, err)));
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
            action = escape_html(&step.action),
        );
        let _ = write!(
            body,
            "<section class=\"step{mark}\" id=\"step-{i}\" tabindex=\"-1\" aria-labelledby=\"h-{i}\">\
<h2 id=\"h-{i}\">Step {i}: {action} <span class=\"outcome\">{outcome}</span></h2>\
<p class=\"meta\">{ms} ms · {tokens} tokens · {when}</p>",
            i = step.index,
            action = escape_html(&step.action),
            outcome = escape_html(&step.outcome),
            ms = step.ms,
            when = clock(step.at_ms),
        );
        // What the reply said first: what a wait found held, what a click did.
        let _ = write!(
            body,
            "<p class=\"said\">{}</p>",
            escape_html(step.text.lines().next().unwrap_or_default())
        );
        for acted in &step.elements {
            let _ = write!(
                body,
                "<p class=\"acted\">acted on <b>{}</b></p>",
                escape_html(&crate::replay::describe(acted))
            );
        }
        for found in &step.found {
            let _ = write!(
                body,
                "<p class=\"acted\">found <b>{}</b></p>",
                escape_html(&crate::replay::describe(found))
            );
        }
        for redacted in &step.redacted {
            let _ = write!(
                body,
                "<p class=\"redacted\">{}: {} characters, not kept ({})</p>",
                escape_html(&redacted.field),
                redacted.characters,
                escape_html(&redacted.why)
            );
        }
        let reran = match (&original, step.replays) {
            (Some(Ok(original)), Some(at)) => original
                .steps
                .iter()
                .find(|s| s.index == at)
                .map(|first| (original, first)),
            _ => None,
        };
        if let Some((original, first)) = reran {
            let _ = write!(
                body,
                "<div class=\"pair\"><div class=\"side\"><h3>original step {i}: <span class=\"outcome\">{outcome}</span></h3><p class=\"said\">{said}</p>",
                i = first.index,
                outcome = escape_html(&first.outcome),
                said = escape_html(first.text.lines().next().unwrap_or_default()),
            );
            shots(&mut body, &mut images, original, first);
            body.push_str("</div><div class=\"side\"><h3>rerun</h3>");
            shots(&mut body, &mut images, recording, step);
            body.push_str("</div></div>");
        } else {
            shots(&mut body, &mut images, recording, step);
        }
        let _ = write!(
            body,
            "<details><summary>call</summary><pre>{}</pre></details>\
<details{open}><summary>reply</summary><pre>{}</pre></details></section>",
            escape_html(&serde_json::to_string_pretty(&step.args).unwrap_or_default()),
            escape_html(&step.text),
            open = if failed { " open" } else { "" },
        );
    }
    let compared = compared(recording, original.as_ref());
    let mut sources = String::new();
    for (id, uri) in &images.uris {
        let _ = write!(sources, "\"{id}\":\"{uri}\",");
    }
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\
<title>deskhand recording {name}: {steps} steps</title><style>{STYLE}</style></head><body>\
<a class=\"skip\" href=\"#steps\">Skip to the steps</a>\
<header><h1>deskhand recording {name}</h1><p>started {started} · {steps} steps · {failures} failed · {secs:.1} s in calls · {total_tokens} tokens · format {format}, deskhand {version}</p></header>\
{compared}<div class=\"layout\"><nav aria-label=\"Steps\"><ol>{nav}</ol></nav><main id=\"steps\">{body}</main></div>\
<script>const shots={{{sources}}};for(const img of document.querySelectorAll('img[data-shot]')){{img.src=shots[img.dataset.shot];img.onclick=()=>img.closest('figure').classList.toggle('full');}}</script>\
</body></html>",
        steps = recording.steps.len(),
        name = escape_html(&session_name(recording)),
        started = clock(recording.manifest.started_ms),
        secs = total_ms as f64 / 1000.0,
        format = recording.manifest.format,
        version = escape_html(&recording.manifest.deskhand),
    )
}

/// For a replay's recording: which recording it replayed, and how each of that one's steps
/// went in the rerun, each linked to the step that reran it.
fn compared(
    recording: &Recording,
    original: Option<&Result<Recording, (&PathBuf, RecordError)>>,
) -> String {
    let original = match original {
        None => return String::new(),
        Some(Err((dir, err))) => {
            return format!(
                "<section class=\"compared\"><h2>A replay of {}</h2><p>That recording cannot be read ({}), so the rerun is shown alone.</p></section>",
                escape_html(&dir.display().to_string()),
                escape_html(&err.to_string())
            );
        }
        Some(Ok(original)) => original,
    };
    let mut rows = String::new();
    for step in &original.steps {
        let verdict = recording.verdicts.iter().find(|v| v.step == step.index);
        let rerun = recording
            .steps
            .iter()
            .find(|s| s.replays == Some(step.index));
        let (class, said) = match verdict {
            Some(v) => (v.verdict.as_str().replace(' ', "-"), v.said()),
            None if rerun.is_some() => ("same".into(), "rerun".into()),
            None => ("not-run".into(), "not rerun".into()),
        };
        let link = match rerun {
            Some(rerun) => format!("<a href=\"#step-{0}\">step {0}</a>", rerun.index),
            None => "–".into(),
        };
        let _ = write!(
            rows,
            "<tr class=\"{class}\"><td>{i}. {action}</td><td>{said}</td><td>{link}</td></tr>",
            i = step.index,
            action = escape_html(&step.action),
            said = escape_html(&said),
        );
    }
    format!(
        "<section class=\"compared\"><h2>A replay of {name}, recorded {started}</h2>\
<table><thead><tr><th>original step</th><th>in the rerun</th><th>rerun as</th></tr></thead><tbody>{rows}</tbody></table></section>",
        name = escape_html(&session_name(original)),
        started = clock(original.manifest.started_ms),
    )
}

/// A step's before and after screenshots, side by side.
fn shots(body: &mut String, images: &mut Images, recording: &Recording, step: &Step) {
    let shots: Vec<(&str, &Shot)> = [("before", &step.before), ("after", &step.after)]
        .into_iter()
        .filter_map(|(label, shot)| shot.as_ref().map(|s| (label, s)))
        .collect();
    if shots.is_empty() && step.no_after.is_none() {
        return;
    }
    body.push_str("<div class=\"shots\">");
    for (label, shot) in shots {
        figure(body, images, recording, step, label, shot);
    }
    if let Some(why) = &step.no_after {
        let _ = write!(
            body,
            "<figure><figcaption>after: none; {}</figcaption></figure>",
            escape_html(why)
        );
    }
    body.push_str("</div>");
}

/// One screenshot with the acted and found elements' boxes over it, and a ring where a point
/// was clicked.
fn figure(
    body: &mut String,
    images: &mut Images,
    recording: &Recording,
    step: &Step,
    label: &str,
    shot: &Shot,
) {
    let Some(id) = images.add(&recording.shot_path(shot)) else {
        let _ = write!(
            body,
            "<figure><figcaption>{label}: no capture (the screen could not be read)</figcaption></figure>"
        );
        return;
    };
    let _ = write!(
        body,
        "<figure><div class=\"frame\"><img data-shot=\"{id}\" alt=\"the screen {label} step {i}\">",
        i = step.index
    );
    let screen = shot.screen;
    for acted in step.elements.iter().chain(&step.found) {
        let Some(b) = acted.bounds else { continue };
        let pct = |v: f64, of: u32| 100.0 * v / f64::from(of.max(1));
        let _ = write!(
            body,
            "<div class=\"box\" title=\"{name}\" style=\"left:{l:.2}%;top:{t:.2}%;width:{w:.2}%;height:{h:.2}%\"></div>",
            name = escape_html(&format!("{} {:?}", acted.role, acted.name)),
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
    let _ = write!(
        body,
        "</div><figcaption>{label}{}</figcaption></figure>",
        escape_html(&when_taken(step, label, shot))
    );
}

/// When a capture's pixels were grabbed, against its step: a "before" may be an earlier call's
/// "after", and an "after" may be the last look before the next action cut its wait short.
fn when_taken(step: &Step, label: &str, shot: &Shot) -> String {
    let Some(taken) = shot.taken_ms else {
        return String::new();
    };
    if label == "before" {
        let made_for_it = shot.file.ends_with("-before.png");
        return if made_for_it {
            ", taken as the call began".into()
        } else {
            let of = shot.file.trim_end_matches(".png").trim_start_matches('0');
            format!(
                ", {} before the call (the screenshot after step {of})",
                span(step.at_ms.saturating_sub(taken))
            )
        };
    }
    let replied = step.at_ms + step.ms;
    let after = span(taken.saturating_sub(replied));
    if shot.cut_short {
        format!(
            ", {after} after the reply, cut short: the next action began before the window settled, so it may not show all this call did"
        )
    } else {
        format!(", {after} after the reply")
    }
}

/// A time span as a person reads it: ms under 10 s, else seconds.
fn span(ms: u64) -> String {
    if ms < 10_000 {
        format!("{ms} ms")
    } else {
        format!("{:.0} s", ms as f64 / 1000.0)
    }
}

/// The recording's folder name: `session-<id>` for a session an HTTP server recorded.
fn session_name(recording: &Recording) -> String {
    recording
        .dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `text` as HTML text or a quoted attribute's value.
pub fn escape_html(text: &str) -> String {
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
summary{cursor:pointer;color:#0b4f8a}summary:focus{outline:2px solid #0b4f8a}\
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:12px}.side h3{font-size:15px;margin:4px 0}\
.compared{margin:16px;background:#fff;border:1px solid #d0d7de;border-radius:4px;padding:8px 14px}.compared h2{font-size:17px;margin:4px 0}\
.compared table{border-collapse:collapse}.compared td,.compared th{text-align:left;padding:2px 10px 2px 0;vertical-align:top}\
tr.different td{color:#b00020;font-weight:600}tr.not-run td{color:#555}";
