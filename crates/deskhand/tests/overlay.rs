//! The overlay that shows a person where the agent acts, on a real headless X desktop and on
//! sway: a screenshot taken outside deskhand (ImageMagick's `import` of the root window, grim
//! through sway's screencopy) shows it, a click by another client through it reaches the
//! fixture app, deskhand's own zoom never shows it, and the field a `type` goes into is
//! outlined.

mod common;
mod marks;

use std::time::Duration;

use common::{Desktop, Fixture, desktop, wait_until};
use marks::{MARKER, Shot, extent, like};
use serde_json::json;

/// The indicator's background, a line at the top of the screen.
const INDICATOR: [u8; 3] = [0x20, 0x20, 0x28];

/// Rows at the top of the screen the indicator may take.
const INDICATOR_ROWS: u32 = 20;

/// The whole screen as the X server shows it, read by a client that is not deskhand; as
/// uncompressed PPM, so reading it takes a moment of the marker's second.
fn root_shot(desk: &Desktop) -> Shot {
    from_ppm(&desk.output_of("import", &["-window", "root", "-depth", "8", "ppm:-"]))
}

/// The whole screen as sway composes it, read through screencopy by grim, not deskhand.
fn grim_shot(desk: &Desktop) -> Shot {
    from_ppm(&desk.output_of("grim", &["-t", "ppm", "-"]))
}

fn from_ppm(ppm: &[u8]) -> Shot {
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while ppm[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !ppm[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(String::from_utf8_lossy(&ppm[start..at]).into_owned());
    }
    assert_eq!(fields[0], "P6", "import wrote a binary PPM");
    let width: u32 = fields[1].parse().expect("a width");
    let height: u32 = fields[2].parse().expect("a height");
    Shot {
        width,
        height,
        rgb: ppm[at + 1..]
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect(),
    }
}

fn clicks(fixture: &Fixture) -> usize {
    fixture
        .events()
        .iter()
        .filter(|e| e["event"] == "clicked" && e["widget"] == "press_me")
        .count()
}

fn clicked(fixture: &Fixture, count: usize, what: &str) {
    wait_until(Duration::from_secs(5), || {
        (clicks(fixture) == count).then_some(())
    })
    .unwrap_or_else(|| {
        panic!(
            "{what}: the fixture saw {} clicks, not {count}",
            clicks(fixture)
        )
    });
}

#[test]
fn the_overlay_shows_where_the_agent_acts_lets_clicks_through_and_stays_out_of_its_own_zooms() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Overlay Fixture", 1);
    desk.activate("Overlay Fixture");
    shows_where_the_agent_acts(
        desk,
        &fixture,
        "Overlay Fixture",
        root_shot,
        |desk, dot, _| xdotool(desk, dot),
    );
}

#[test]
fn on_sway_the_overlay_shows_where_the_agent_acts_lets_clicks_through_and_stays_out_of_its_own_zooms()
 {
    let (_turn, desk) = common::sway();
    let fixture = desk.fixture("Sway Overlay Fixture", 1);
    // Another client's click: a deskhand process of its own, with a virtual pointer of its own.
    let click = |desk: &Desktop, (x, y): (u32, u32), (width, height): (u32, u32)| {
        let done = desk
            .act(
                "click",
                json!({
                    "target": "screen",
                    "x": (f64::from(x) + 0.5) * 1000.0 / f64::from(width),
                    "y": (f64::from(y) + 0.5) * 1000.0 / f64::from(height),
                }),
            )
            .ok();
        assert!(done.starts_with("done: clicked"), "{done}");
    };
    shows_where_the_agent_acts(desk, &fixture, "Sway Overlay Fixture", grim_shot, click);
}

/// With the overlay on, a click by `find` shows a box around its button and a click at a point
/// a ring there, in a screenshot by `screenshot` (taken outside deskhand); a click by `click_outside`
/// (another client, at a pixel of a screen of the given size) on the ring's dot reaches the
/// button beneath; deskhand's own zoom has none of it; a `type` outlines its field.
fn shows_where_the_agent_acts(
    desk: &Desktop,
    fixture: &Fixture,
    title: &str,
    screenshot: fn(&Desktop) -> Shot,
    click_outside: impl Fn(&Desktop, (u32, u32), (u32, u32)),
) {
    let mcp = desk.mcp_with(&[("DESKHAND_OVERLAY", "on")]);
    let w = mcp.window_id(title, Duration::from_secs(10));
    let press =
        json!({"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}});

    // The indicator is up while the agent is connected.
    let indicator = wait_until(Duration::from_secs(5), || {
        let shot = screenshot(desk);
        let dark = (0..INDICATOR_ROWS)
            .flat_map(|y| (0..shot.width).map(move |x| (x, y)))
            .filter(|&(x, y)| like(shot.at(x, y), INDICATOR))
            .count();
        (dark > 500).then_some(dark)
    });
    assert!(
        indicator.is_some(),
        "no indicator line at the top of the screen"
    );

    // A box around the button clicked by `find`, seen from outside deskhand.
    let mut count = 0;
    let mut boxed = None;
    for _ in 0..4 {
        let done = mcp.call(press.clone());
        assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        count += 1;
        clicked(fixture, count, "deskhand's click by find");
        let marks = screenshot(desk).markers_from(INDICATOR_ROWS);
        if !marks.is_empty() {
            boxed = Some(extent(&marks));
            break;
        }
    }
    let (left, top, right, bottom) = boxed.expect("no box around the clicked button was ever seen");
    assert!(
        right - left > 20 && bottom - top > 10,
        "the marker is a box around the button: {left},{top} to {right},{bottom}"
    );

    // A ring where the pointer clicks; a click by another client on its dot reaches the button
    // beneath, while the ring is still up. Each try has a second to see it in.
    let shot = screenshot(desk);
    let (width, height) = (shot.width, shot.height);
    let at_center = json!({
        "action": "click", "target": "screen",
        "x": f64::from((left + right) / 2) * 1000.0 / f64::from(width),
        "y": f64::from((top + bottom) / 2) * 1000.0 / f64::from(height),
    });
    let mut through = false;
    for _ in 0..6 {
        let done = mcp.call(at_center.clone());
        assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        let dot = pixel_of(&done.text);
        click_outside(desk, dot, (width, height));
        count += 2;
        clicked(fixture, count, "deskhand's click and a click on its marker");
        // The dot's top-left pixel: a cursor drawn into the screenshot (sway's, on a headless
        // output without a cursor plane) starts at the point and covers its middle.
        if like(screenshot(desk).at(dot.0 - 2, dot.1 - 2), MARKER) {
            through = true;
            break;
        }
    }
    assert!(through, "the ring was never seen after a click through it");

    // deskhand's own zoom of the same region, while the marker is up, has none of it.
    let region = [
        (left.saturating_sub(10)) * 1000 / width,
        (top.saturating_sub(10)) * 1000 / height,
        (right + 10).min(width - 1) * 1000 / width + 1,
        (bottom + 10).min(height - 1) * 1000 / height + 1,
    ];
    let mut checked = false;
    for _ in 0..4 {
        let done = mcp.call(press.clone());
        assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        let zoom = mcp.call(json!({"action": "zoom", "target": "screen", "region": region}));
        assert!(!zoom.is_error, "{}", zoom.text);
        let after = screenshot(desk);
        if after.markers_from(INDICATOR_ROWS).is_empty() {
            continue;
        }
        let zoomed = Shot::decode(zoom.image.as_deref().expect("the zoom's image"));
        let marked = zoomed.rgb.iter().filter(|p| like(**p, MARKER)).count();
        assert_eq!(marked, 0, "deskhand's zoom shows its own overlay");
        checked = true;
        break;
    }
    assert!(checked, "the marker was never up right after a zoom");

    // The field a `type` goes into is outlined, away from the button.
    let outside_button = |(x, y): &(u32, u32)| *x < left || *x > right || *y < top || *y > bottom;
    let mut outlined = false;
    for _ in 0..4 {
        let typed = mcp.call(json!({
            "action": "type", "target": w, "find": {"name": "Name", "role": "text"}, "text": "hi",
        }));
        assert!(!typed.is_error, "{}", typed.text);
        let marks = screenshot(desk).markers_from(INDICATOR_ROWS);
        if marks.iter().any(outside_button) {
            let (l, t, r, b) = extent(&marks);
            assert!(
                r - l > 20 && b - t > 10,
                "the frame around the field: {l},{t} to {r},{b}"
            );
            outlined = true;
            break;
        }
    }
    assert!(outlined, "the field typed into was never outlined");
    mcp.close();
}

/// Runs xrandr on the desktop. Xvfb's one output does not fit a smaller screen, which xrandr
/// says (and exits 1) after resizing the screen all the same: the size is checked instead.
fn xrandr(desk: &Desktop, args: &[&str]) {
    let _ = desk
        .command("xrandr")
        .args(args)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("running xrandr");
}

fn screen_size(desk: &Desktop) -> (u32, u32) {
    let shot = root_shot(desk);
    (shot.width, shot.height)
}

/// The columns the indicator's line takes at the top of the screen, once it has more than
/// 500 pixels there.
fn indicator_columns(desk: &Desktop) -> Option<(u32, u32)> {
    let shot = root_shot(desk);
    let dark: Vec<u32> = (0..INDICATOR_ROWS)
        .flat_map(|y| (0..shot.width).map(move |x| (x, y)))
        .filter(|&(x, y)| like(shot.at(x, y), INDICATOR))
        .map(|(x, _)| x)
        .collect();
    (dark.len() > 500).then(|| (*dark.iter().min().unwrap(), *dark.iter().max().unwrap()))
}

#[test]
fn the_overlay_grows_with_the_screen_and_keeps_its_indicator_on_the_primary_monitor() {
    // A desktop of its own: its screen changes size.
    let desk = Desktop::start_own();
    let (width, height) = screen_size(&desk);
    // Xvfb's screen can shrink and grow back to its size at start, not beyond: the overlay
    // starts on a smaller screen, which then grows under it.
    let (small_width, small_height) = (width * 2 / 3, height * 2 / 3);
    xrandr(&desk, &["--fb", &format!("{small_width}x{small_height}")]);
    assert_eq!(screen_size(&desk), (small_width, small_height));
    let mcp = desk.mcp_with(&[("DESKHAND_OVERLAY", "on")]);
    let (left, right) = wait_until(Duration::from_secs(5), || indicator_columns(&desk))
        .expect("no indicator line at the top of the screen");
    assert!(right < small_width, "{left}..{right}");

    // Two monitors side by side, the right one primary (set up beforehand, as monitors are
    // whose outputs come with the screen's new size), then the screen grows.
    let half = width / 2;
    xrandr(
        &desk,
        &[
            "--setmonitor",
            "left",
            &format!("{half}/0x{height}/0+0+0"),
            "none",
        ],
    );
    xrandr(
        &desk,
        &[
            "--setmonitor",
            "*right",
            &format!("{half}/0x{height}/0+{half}+0"),
            "none",
        ],
    );
    xrandr(&desk, &["--fb", &format!("{width}x{height}")]);
    assert_eq!(screen_size(&desk), (width, height));
    let moved = wait_until(Duration::from_secs(5), || {
        indicator_columns(&desk).filter(|(left, _)| *left >= half)
    });
    let (left, right) = moved.unwrap_or_else(|| {
        panic!(
            "the indicator is not on the primary monitor ({half}..{width}): {:?}",
            indicator_columns(&desk)
        )
    });
    let middle = (left + right) / 2;
    assert!(
        middle.abs_diff(half + half / 2) < 20,
        "the indicator is in the middle of the primary monitor: {left}..{right}"
    );

    // A ring where the agent clicks, in the part of the screen that grew.
    let beyond = json!({"action": "click", "target": "screen", "x": 900, "y": 900});
    let mut ringed = false;
    for _ in 0..4 {
        let done = mcp.call(beyond.clone());
        assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        let (x, y) = pixel_of(&done.text);
        assert!(x >= small_width && y >= small_height, "{}", done.text);
        if like(root_shot(&desk).at(x, y), MARKER) {
            ringed = true;
            break;
        }
    }
    assert!(ringed, "no ring was seen where the screen grew");
    mcp.close();
    desk.stop();
}

/// The screen pixel a click's reply names: `… (pixel X,Y) …`.
fn pixel_of(reply: &str) -> (u32, u32) {
    let after = &reply[reply.find("(pixel ").expect("the reply names its pixel") + 7..];
    let (x, rest) = after.split_once(',').expect("pixel X,Y");
    let y: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (
        x.parse().expect("a pixel's x"),
        y.parse().expect("a pixel's y"),
    )
}

fn xdotool(desk: &Desktop, (x, y): (u32, u32)) {
    let status = desk
        .command("xdotool")
        .args(["mousemove", &x.to_string(), &y.to_string(), "click", "1"])
        .status()
        .expect("running xdotool");
    assert!(status.success(), "xdotool failed");
}
