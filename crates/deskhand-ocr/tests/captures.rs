//! Tesseract on real captures of the headless desktop's apps, kept as PNG files.
#![cfg(target_os = "linux")]

use deskhand_core::model::{Rect, RgbImage};
use deskhand_core::ocr::{ReadText, WordGroup};
use deskhand_ocr::Tesseract;

fn capture(name: &str) -> RgbImage {
    let path = format!("{}/tests/images/{name}.png", env!("CARGO_MANIFEST_DIR"));
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&path).expect("the capture is there"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut data = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut data).expect("one frame");
    data.truncate(info.buffer_size());
    let data = match info.color_type {
        png::ColorType::Rgb => data,
        png::ColorType::Rgba => data
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        other => panic!("{path} is {other:?}"),
    };
    RgbImage {
        width: info.width,
        height: info.height,
        data,
    }
}

fn find<'a>(groups: &'a [WordGroup], text: &str) -> &'a WordGroup {
    groups
        .iter()
        .find(|g| g.text == text)
        .unwrap_or_else(|| panic!("{text:?} is not among {groups:#?}"))
}

#[test]
fn the_tk_demo_reads_as_its_labels_and_button_captions_each_where_it_is() {
    let engine = Tesseract::default();
    let groups = engine.read(&capture("tk-demo")).unwrap();
    let click = find(&groups, "Click me!");
    let quit = find(&groups, "QUIT");
    find(&groups, "This is Tcl/Tk version 8.6");
    // The buttons' captions, as the capture shows them (172x100: "Click me!" in 42..128 x
    // 41..66, "QUIT" in 56..115 x 70..96).
    assert!(
        Rect::new(42, 41, 86, 25).contains(click.bounds.center()),
        "{click:?}"
    );
    assert!(
        Rect::new(56, 70, 59, 26).contains(quit.bounds.center()),
        "{quit:?}"
    );
    assert!(click.confidence >= 50);
}

#[test]
fn a_calculator_keypad_keeps_its_single_digits() {
    let engine = Tesseract::default();
    let groups = engine.read(&capture("calculator")).unwrap();
    let words: Vec<&str> = groups.iter().flat_map(|g| g.text.split(' ')).collect();
    // Isolated characters are Tesseract's weak spot: sparse segmentation (psm 11) found none
    // of these; a block finds most (here "3" comes out as "5)" and "0" too unsure to keep).
    let digits = ["7", "8", "9", "4", "5", "6", "1", "2", "3", "0"];
    let read = digits.iter().filter(|d| words.contains(d)).count();
    assert!(read >= 8, "{read} of the keypad's digits in {words:?}");
}

#[test]
fn xcalcs_keys_read_each_as_its_own_where_it_is() {
    let engine = Tesseract::default();
    let groups = engine.read(&capture("xcalc")).unwrap();
    // Neighbouring keys' captions are a word's space apart with two frame sides between them;
    // one group of both ("tan IIDRG") was clicked at its center, on the frames.
    let tan = find(&groups, "tan");
    let drg = find(&groups, "DRG");
    assert!(
        Rect::new(137, 109, 40, 26).contains(tan.bounds.center()),
        "{tan:?}"
    );
    assert!(
        Rect::new(181, 109, 40, 26).contains(drg.bounds.center()),
        "{drg:?}"
    );
    find(&groups, "xor");
    // The row with the focused key's second frame read as nothing while it was one line.
    find(&groups, "x!");
    find(&groups, "base");
}

#[test]
fn a_terminal_prompt_reads_as_one_line() {
    let engine = Tesseract::default();
    let groups = engine.read(&capture("xterm")).unwrap();
    assert!(
        // xterm's 6x13 bitmap font is at the edge of what Tesseract reads: "vm:" comes out as
        // "vms" or "ym:" depending on a few pixels of margin.
        groups
            .iter()
            .any(|g| g.text.starts_with("root@") && g.text.contains("/tmp/ocrs#")),
        "{groups:#?}"
    );
}

#[test]
fn reading_the_same_image_again_comes_from_the_cache() {
    let engine = Tesseract::default();
    let image = capture("tk-demo");
    let first = engine.read(&image).unwrap();
    let started = std::time::Instant::now();
    let again = engine.read(&image).unwrap();
    assert_eq!(first, again);
    // Not a speed target (the benchmark has those): a recognition takes tens of milliseconds
    // at least, so an answer this fast cannot have been one.
    assert!(started.elapsed() < std::time::Duration::from_millis(20));
}

#[test]
fn nothing_to_read_is_no_text_and_too_much_is_a_clear_error() {
    let engine = Tesseract::default();
    let blank = |width: u32, height: u32, shade: u8| RgbImage {
        width,
        height,
        data: vec![shade; (width * height * 3) as usize],
    };
    assert_eq!(engine.read(&blank(0, 0, 0)).unwrap(), []);
    assert_eq!(engine.read(&blank(1, 1, 255)).unwrap(), []);
    assert_eq!(engine.read(&blank(640, 480, 0)).unwrap(), [], "all black");
    let huge = RgbImage {
        width: 40_000,
        height: 40_000,
        data: Vec::new(),
    };
    let err = engine.read(&huge).unwrap_err();
    assert_eq!(err.kind, deskhand_core::ErrorKind::BadArgument);
    assert!(err.message.contains("zoom"), "{}", err.message);
    let short = RgbImage {
        width: 10,
        height: 10,
        data: vec![0; 10],
    };
    let err = engine.read(&short).unwrap_err();
    assert!(
        err.message.contains("10x10 px but only 10 bytes"),
        "{}",
        err.message
    );
}

#[test]
fn a_caption_on_a_frames_side_keeps_its_first_letter_and_slider_knobs_are_no_text() {
    // gtk3-widget-factory's sliders, scales and framed boxes (530x520): the "I" of "Inset"
    // touches the frame's side below it, and the vertical scales' knobs sit on their troughs.
    let engine = Tesseract::default();
    let groups = engine.read(&capture("widget-factory-frames")).unwrap();
    let texts: Vec<&str> = groups.iter().map(|g| g.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Inset", "50%", "Outset", "50.0", "Groove", "Ridge"],
        "{groups:#?}"
    );
}

#[test]
fn a_line_read_unsure_is_read_again_larger() {
    // gtk3-widget-factory's lower tabs (328x40): at 1.5x the selected tab's "page 1" reads as
    // "pagel" (70 %), at 2.25x as "page 1".
    let engine = Tesseract::default();
    let groups = engine.read(&capture("widget-factory-tabs")).unwrap();
    let texts: Vec<String> = groups.iter().map(|g| g.text.to_lowercase()).collect();
    assert_eq!(texts, ["page 1", "page 2", "page 3"], "{groups:#?}");
}

#[test]
fn large_text_is_read_where_it_is_whatever_its_size() {
    // Text painted by a Qt canvas at 40, 60, 80 and 110 px (661x668), as a PDF page zoomed to
    // 200–400 % shows it: only the 40 and 80 px lines were read, the others broke apart (a "T"
    // of 60 px has a bar as long as a drawn line, glyphs of 110 px are higher than any line).
    let engine = Tesseract::default();
    let groups = engine.read(&capture("large-text")).unwrap();
    let texts: Vec<&str> = groups.iter().map(|g| g.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Quarterly Report",
            "Total: 1,234",
            "Invoice Title",
            "Page 7"
        ],
        "{groups:#?}"
    );
    // Each where it is drawn: "Page 7" from x 122 to 485, its capitals 80 px high from y 497.
    let page = find(&groups, "Page 7");
    assert!(
        Rect::new(110, 480, 390, 140).contains(page.bounds.center())
            && (80..=130).contains(&page.bounds.height),
        "{page:?}"
    );
}

#[test]
fn file_names_in_a_terminal_keep_their_underscores_and_dots() {
    // `ls` in xterm, DejaVu Sans Mono 11 (480x60). Read before as "IMAGE" and "INFO.TXT" (the
    // underscore, drawn under the baseline, was a line of its own, too low to be text), "root"
    // for "root_", "README .md", and "notes." with "txt" left out at 0 %.
    let engine = Tesseract::default().tesseract_only();
    let groups = engine.read(&capture("xterm-file-names")).unwrap();
    for name in [
        "IMAGE_INFO.TXT",
        "notes.txt",
        "root_",
        "README.md",
        "report.pdf",
    ] {
        find(&groups, name);
    }
    // The words of "OPEN_FILE_IN_TAB" are all there, if not its underscores.
    let words: Vec<&str> = groups
        .iter()
        .flat_map(|g| g.text.split([' ', '_']))
        .collect();
    for word in ["OPEN", "FILE", "IN", "TAB"] {
        assert!(words.contains(&word), "{word}: {groups:#?}");
    }
}

#[test]
fn lines_of_source_code_stay_apart_whatever_lies_under_them() {
    // The OCR bench's window of source code (Tk, 600x400): an underscore joined to a line had
    // lowered it onto the next, and 21 word groups read as 15.
    let engine = Tesseract::default().tesseract_only();
    let groups = engine.read(&capture("tk-source-code")).unwrap();
    assert!(groups.len() >= 21, "{groups:#?}");
    let tops: std::collections::HashSet<i32> = groups.iter().map(|g| g.bounds.y / 17).collect();
    assert!(tops.len() >= 19, "a row of the window each: {groups:#?}");
}

#[test]
fn an_icon_wider_than_high_is_not_read_as_a_digit() {
    // gtk3-widget-factory's file button (148x40): its folder icon read as "6".
    let engine = Tesseract::default();
    let groups = engine.read(&capture("widget-factory-file-button")).unwrap();
    let texts: Vec<&str> = groups.iter().map(|g| g.text.as_str()).collect();
    assert_eq!(texts, ["(None)"], "{groups:#?}");
}

#[test]
fn a_calculator_key_the_english_model_cannot_read_is_read_with_the_greek_one() {
    // gnome-calculator's "π" key (55x40 at 289,245): none of the English model's characters
    // is Greek; it read the key as "1" at 27 %.
    let engine = Tesseract::default();
    let groups = engine.read(&capture("calculator")).unwrap();
    let pi = find(&groups, "π");
    assert!(
        Rect::new(289, 245, 55, 40).contains(pi.bounds.center()),
        "{pi:?}"
    );
}

#[test]
fn an_icon_read_as_a_digit_that_reads_as_nothing_larger_is_left_out() {
    // Firefox's toolbar end (280x40): a star, the account, the extensions button's puzzle
    // piece (read as "4" at 78 % at 1.5x, as nothing at 2.25x) and the menu.
    let engine = Tesseract::default();
    let groups = engine.read(&capture("firefox-toolbar")).unwrap();
    assert!(
        groups
            .iter()
            .all(|g| !g.text.chars().any(|c| c.is_ascii_digit())),
        "{groups:#?}"
    );
}

/// Every word read, in order of reading.
fn words(groups: &[WordGroup]) -> Vec<&str> {
    groups
        .iter()
        .flat_map(|g| g.text.split_whitespace())
        .collect()
}

/// The rows `top..bottom` of an image.
fn rows(image: &RgbImage, top: u32, bottom: u32) -> RgbImage {
    let row = image.width as usize * 3;
    RgbImage {
        width: image.width,
        height: bottom - top,
        data: image.data[top as usize * row..bottom as usize * row].to_vec(),
    }
}

// A Tk window of the GPL's text in DejaVu Sans Mono 10: 22 lines, 169 words.
#[test]
fn dense_text_is_read_partly_from_memory_of_its_glyphs_word_for_word_as_tesseract_reads_it() {
    let image = capture("tk-prose");
    let engine = Tesseract::default();
    let alone = Tesseract::default().tesseract_only();
    let (ours, theirs) = (engine.read(&image).unwrap(), alone.read(&image).unwrap());
    assert_eq!(words(&ours), words(&theirs));
    assert!(words(&ours).len() > 150, "{ours:#?}");
    let lines = engine.lines_read();
    assert!(
        lines.from_glyphs + lines.partly_from_glyphs >= 5,
        "the lines after the first few come from memory: {lines:?}"
    );
    let by_itself = alone.lines_read();
    assert_eq!(by_itself.from_glyphs + by_itself.partly_from_glyphs, 0);
}

#[test]
fn text_in_a_font_seen_before_is_read_from_memory_word_for_word_as_tesseract_reads_it() {
    let image = capture("tk-prose");
    let (seen, new) = (rows(&image, 0, 200), rows(&image, 200, image.height));
    let engine = Tesseract::default();
    engine.read(&seen).unwrap();
    let before = engine.lines_read();
    let ours = engine.read(&new).unwrap();
    let (wholly, partly) = engine.lines_read().shares_from_glyphs_since(&before);
    assert!(
        wholly + partly >= 0.5,
        "most lines come from memory: {wholly} wholly, {partly} partly"
    );
    let theirs = Tesseract::default().tesseract_only().read(&new).unwrap();
    assert_eq!(words(&ours), words(&theirs));
}
