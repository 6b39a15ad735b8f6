//! Text read from pixels with Tesseract, behind the core's [`ReadText`]: up to two engines per
//! process (one per core), loaded on first use, fed only the lines of text found on the capture beforehand (each on its
//! own, gray, dark on light, enlarged when small), and a cache of each line's words and of each
//! whole image's by content, so an unchanged surface costs a hash and no recognition, and a
//! changed one re-reads only the lines that changed. A memory of the glyphs read (`glyphs.rs`)
//! reads most lines of dense text by lookup once their font has been seen, and Tesseract only
//! the words it does not know. The English model reads; the Greek one (where installed) only a
//! lone shape the English one could not, such as a calculator's "π".
#![cfg(target_os = "linux")]
#![deny(unsafe_code)]

pub mod check;
mod engine;
mod glyphs;
mod prepare;
mod regions;
mod words;

use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use deskhand_core::model::RgbImage;
use deskhand_core::ocr::{ReadText, WordGroup};
use deskhand_core::{Error, ErrorKind};
use xxhash_rust::xxh3;

use engine::TessBaseApi;
use prepare::{Crop, Cut, Gray};
use words::Word;

/// What can keep Tesseract from reading.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OcrError {
    #[error(
        "Tesseract could not load its English model{}; install tesseract-ocr-eng (Debian) or set TESSDATA_PREFIX to the folder holding eng.traineddata",
        .0.as_ref().map(|p| format!(" from {}", p.display())).unwrap_or_default()
    )]
    NoModel(Option<PathBuf>),
    #[error(
        "Tesseract's library could not be loaded ({0}); install libtesseract5 and tesseract-ocr-eng (Debian: `apt-get install tesseract-ocr tesseract-ocr-eng`)"
    )]
    NoLibrary(String),
    #[error("Tesseract refused a setting ({0})")]
    Setting(String),
    #[error("Tesseract could not take the image ({0})")]
    Image(String),
    #[error("Tesseract failed to recognize the image")]
    Recognize,
    #[error(
        "the image is {width}x{height} px, more than the {MAX_PIXELS} pixels text is read from at once; `zoom` into a region or observe one window"
    )]
    TooLarge { width: u32, height: u32 },
}

impl From<OcrError> for Error {
    fn from(err: OcrError) -> Error {
        let kind = match err {
            OcrError::TooLarge { .. } => ErrorKind::BadArgument,
            _ => ErrorKind::Platform,
        };
        Error::new(kind, format!("reading text from pixels failed: {err}"))
    }
}

/// Four 4K screens' worth: past that a capture is not a desktop but a mistake, and reading it
/// would take many seconds.
pub const MAX_PIXELS: u64 = 4 * 3840 * 2160;

/// An image smaller than this either way holds no legible text (and Tesseract warns on it).
const MIN_EDGE: usize = 6;

/// How many lines and images the cache keeps; the least recently used goes first. A full
/// screen of text is a few hundred lines.
const CACHED: usize = 4096;

/// A line whose least sure word is below this confidence is read again enlarged
/// `REREAD_LARGER` times more.
const REREAD_BELOW: f32 = 75.0;
const REREAD_LARGER: f32 = 1.5;

/// A lone shape read as a word less sure than this is read again larger and dropped when
/// nothing at all is read there: an enlarged glyph still reads as some text (a calculator's
/// "0", 83–84 % at 1.5x, as "Oo" at 2.25x), a picture taken for one may read as none
/// (Firefox's extensions button, a puzzle piece, "4" at 78 % at 1.5x, nothing at 2.25x).
/// Keypad digits read at 95–97 %.
const LONE_SURE: f32 = 90.0;

/// A lone shape the English model reads no surer than this is read with the Greek model too,
/// whose reading is kept when it is a Greek letter at least `GREEK_SURE`: "π" read as "1" at
/// 27 % by the first, as "π" at 93 % by the second.
const ENGLISH_UNSURE: f32 = 50.0;
const GREEK_SURE: f32 = 90.0;

/// At most this many engines read the lines of an image side by side, each on a thread of its
/// own and single-threaded inside (the binary sets `OMP_THREAD_LIMIT=1`), and never more than
/// the cores.
const MAX_ENGINES: usize = 2;

/// Tesseract, loaded once per process on first use (a second engine once two lines wait to be
/// read at the same time), with the memory of the glyphs it has read.
#[derive(Default)]
pub struct Tesseract {
    /// Where `eng.traineddata` is; `None`: Tesseract's own default (Debian's package, or
    /// `TESSDATA_PREFIX`).
    datapath: Option<PathBuf>,
    engines: Mutex<Engines>,
    returned: Condvar,
    cache: Mutex<Cache>,
    glyphs: Mutex<glyphs::Glyphs>,
    /// Every line is read by Tesseract, none from the glyphs it read before.
    tesseract_only: bool,
    read_by_tesseract: AtomicUsize,
    read_from_glyphs: AtomicUsize,
    read_partly_from_glyphs: AtomicUsize,
}

/// How many lines an engine has read so far, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinesRead {
    pub by_tesseract: usize,
    pub from_glyphs: usize,
    /// Read from glyphs but for some words, which Tesseract read.
    pub partly_from_glyphs: usize,
}

impl LinesRead {
    /// Of the lines read since `before`, the shares read wholly and partly from memory of
    /// glyphs (0 to 1 each).
    pub fn shares_from_glyphs_since(&self, before: &LinesRead) -> (f64, f64) {
        let wholly = self.from_glyphs - before.from_glyphs;
        let partly = self.partly_from_glyphs - before.partly_from_glyphs;
        let all = wholly + partly + self.by_tesseract - before.by_tesseract;
        if all == 0 {
            (0.0, 0.0)
        } else {
            (wholly as f64 / all as f64, partly as f64 / all as f64)
        }
    }
}

#[derive(Default)]
struct Engines {
    idle: Vec<Reader>,
    loaded: usize,
}

/// One engine: the English model, and the Greek one once a lone shape needs it (`None` inside:
/// it would not load, so it is not tried again).
struct Reader {
    english: TessBaseApi,
    greek: Option<Option<TessBaseApi>>,
}

/// An engine taken for one thread's lines, given back when dropped (also when that thread
/// panics).
struct Taken<'t> {
    reader: Option<Reader>,
    owner: &'t Tesseract,
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            let mut engines = self.owner.engines.lock().unwrap_or_else(|p| p.into_inner());
            engines.idle.push(reader);
            self.owner.returned.notify_one();
        }
    }
}

impl std::fmt::Debug for Tesseract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tesseract")
            .field("datapath", &self.datapath)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Cache {
    /// A line's or a whole image's content hash → its word groups (relative to the line's crop
    /// or the image, at 1x), and when last used.
    entries: HashMap<u64, (Vec<WordGroup>, u64)>,
    clock: u64,
}

impl Cache {
    fn get(&mut self, key: u64) -> Option<Vec<WordGroup>> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(&key).map(|(groups, used)| {
            *used = clock;
            groups.clone()
        })
    }

    fn put(&mut self, key: u64, groups: Vec<WordGroup>) {
        if self.entries.len() >= CACHED
            && let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(key, _)| *key)
        {
            self.entries.remove(&oldest);
        }
        self.clock += 1;
        self.entries.insert(key, (groups, self.clock));
    }
}

impl Tesseract {
    /// An engine that loads its model from `datapath` (the folder holding `eng.traineddata`)
    /// instead of Tesseract's default.
    pub fn with_datapath(datapath: PathBuf) -> Self {
        Self {
            datapath: Some(datapath),
            ..Self::default()
        }
    }

    /// An engine that reads every line with Tesseract, never from the glyphs it read before:
    /// what memory's readings are checked against.
    pub fn tesseract_only(self) -> Self {
        Self {
            tesseract_only: true,
            ..self
        }
    }

    /// Forgets every cached line and image, so the next read recognizes again: what a
    /// benchmark of recognition itself needs. The glyphs read stay known.
    pub fn clear_cache(&self) {
        *self.cache.lock().unwrap_or_else(|p| p.into_inner()) = Cache::default();
    }

    /// Forgets every glyph read, so that the next read meets every font for the first time.
    pub fn forget_glyphs(&self) {
        self.glyphs().forget();
    }

    /// The lines read so far (not those answered by the cache).
    pub fn lines_read(&self) -> LinesRead {
        LinesRead {
            by_tesseract: self.read_by_tesseract.load(Ordering::Relaxed),
            from_glyphs: self.read_from_glyphs.load(Ordering::Relaxed),
            partly_from_glyphs: self.read_partly_from_glyphs.load(Ordering::Relaxed),
        }
    }

    fn glyphs(&self) -> std::sync::MutexGuard<'_, glyphs::Glyphs> {
        self.glyphs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Tesseract with the model `language`, set up to read one line at a time.
    fn load_model(&self, language: &std::ffi::CStr) -> Result<TessBaseApi, OcrError> {
        let no_model = || OcrError::NoModel(self.datapath.clone());
        let datapath = match &self.datapath {
            Some(path) => {
                Some(CString::new(path.to_string_lossy().as_bytes()).map_err(|_| no_model())?)
            }
            None => None,
        };
        let mut api = TessBaseApi::create()?;
        api.init_2(datapath.as_deref(), language)
            .map_err(|_| no_model())?;
        // Lines are found before Tesseract runs (its own page layout drops the isolated digits
        // of a keypad, and text that touches a border): it reads one line at a time.
        api.set_page_seg_mode(engine::PSM_SINGLE_LINE);
        for (name, value) in [
            // Its progress and warnings would go to our stderr.
            (c"debug_file", c"/dev/null"),
            // Screens have no dictionary words in many places (paths, numbers, names).
            (c"load_system_dawg", c"0"),
            // Each line comes dark on light already; trying a line inverted again when it
            // reads poorly cost a quarter of the time on dense text (CLI, 1.2 s against 0.9).
            (c"tessedit_do_invert", c"0"),
        ] {
            api.set_variable(name, value)
                .map_err(|_| OcrError::Setting(name.to_string_lossy().into_owned()))?;
        }
        Ok(api)
    }

    fn recognize(api: &mut TessBaseApi, crop: &Crop) -> Result<Vec<words::Word>, OcrError> {
        let (width, height) = (crop.image.width as i32, crop.image.height as i32);
        api.set_image(&crop.image.data, width, height, 1, width)
            .map_err(OcrError::Image)?;
        // Screens are about 96 dpi, times the enlargement. Without it Tesseract guesses, and
        // warns.
        api.set_source_resolution((96.0 * crop.scale) as i32);
        api.recognize().map_err(|_| OcrError::Recognize)?;
        let tsv = api.get_tsv_text(0).map_err(|_| OcrError::Recognize)?;
        Ok(words::parse_tsv(&tsv))
    }

    fn cached(&self, key: u64) -> Option<Vec<WordGroup>> {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
    }

    fn keep(&self, key: u64, groups: &[WordGroup]) {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(key, groups.to_vec());
    }

    /// An engine to read with: an idle one, a new one while fewer than `MAX_ENGINES` are
    /// loaded, else the next one given back.
    fn take(&self) -> Result<Taken<'_>, OcrError> {
        let mut engines = self.engines.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(reader) = engines.idle.pop() {
                return Ok(Taken {
                    reader: Some(reader),
                    owner: self,
                });
            }
            if engines.loaded < MAX_ENGINES {
                engines.loaded += 1;
                drop(engines);
                let loaded = self.load_model(c"eng");
                if loaded.is_err() {
                    self.engines
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .loaded -= 1;
                }
                return Ok(Taken {
                    reader: Some(Reader {
                        english: loaded?,
                        greek: None,
                    }),
                    owner: self,
                });
            }
            engines = self
                .returned
                .wait(engines)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The word groups of one line, relative to its crop at 1x.
    fn read_line(
        &self,
        reader: &mut Reader,
        image: &Gray,
        cut: &Cut,
        parts: usize,
        shapes: Option<&[glyphs::Shape]>,
    ) -> Result<Vec<WordGroup>, OcrError> {
        let crop = cut.crop(image);
        let all = Self::recognize(&mut reader.english, &crop)?;
        let spell = |api: &mut TessBaseApi| shapes.map(|_| api.spelled_words());
        let mut spelled = spell(&mut reader.english);
        let (mut read, mut scale) = (words::sure(all.clone()), crop.scale);
        let mut larger_all = None;
        // A line read unsure is looked at again larger, and the surer reading kept: at 1.5x a
        // tab's "page 1" came out as "pagel" (70 %), at 2.25x as "page 1" (95 %).
        // So is a line that lost a word of three characters or more to the confidence cut:
        // xterm's "OPEN_FILE_IN_TAB" read "FILE" and "IN" at 44 %, at 2.25x at 76 %.
        if words::weakest(&read).is_some_and(|c| c < REREAD_BELOW)
            || words::lost_a_word(&all, &read)
        {
            let larger = cut.enlarged(REREAD_LARGER).crop(image);
            let again_all = Self::recognize(&mut reader.english, &larger)?;
            // A reading of fewer words (sure or not) has run two together: a larger image shows
            // the spaces better, not worse ("Problem loadingpage" at 2.25x). The larger reading
            // is kept when it is surer, or whatever its words when it keeps more of the line
            // once unsure words are left out: xterm's "notes.txt" read as "notes." and "txt",
            // both at 0 %, the second dropped, and at 2.25x as one word at 89 %.
            let fewer = again_all.len() < all.len();
            let again = words::sure(again_all.clone());
            let keeps_more = words::characters(&again) > words::characters(&read);
            if keeps_more || (!fewer && words::weakest(&again) > words::weakest(&read)) {
                (read, scale) = (again, larger.scale);
                spelled = spell(&mut reader.english);
            }
            larger_all = Some(again_all);
        }
        if let (Some(shapes), Some(spelled)) = (shapes, spelled) {
            let at = glyphs::Placement {
                scale,
                margin: cut.margin(),
                offset: 0,
            };
            self.glyphs().learn(shapes, &spelled, at, None);
        }
        let mut found = words::group(&read, scale);
        if parts > 1 {
            return Ok(found);
        }
        let wide = cut.width() > cut.height();
        found.retain(|group| !words::icon_like(&group.text, wide));
        if found
            .iter()
            .any(|group| f32::from(group.confidence) < LONE_SURE)
        {
            let larger_all = match larger_all {
                Some(words) => words,
                None => {
                    let larger = cut.enlarged(REREAD_LARGER).crop(image);
                    Self::recognize(&mut reader.english, &larger)?
                }
            };
            if larger_all.is_empty() {
                found.clear();
            }
        }
        if found.is_empty() && words::surest(&all).is_none_or(|c| c < ENGLISH_UNSURE) {
            found = self.read_greek(reader, &crop)?;
        }
        Ok(found)
    }

    /// A line memory read but for some words: those read by Tesseract (in one crop per run of
    /// them, the rest of the line left out), learned, and put among the others. `None` when a
    /// run reads as another number of words than it has (a word read unsure and left out, or
    /// two run together): the whole line is to be read as if memory knew none of it.
    fn read_rest(
        &self,
        reader: &mut Reader,
        image: &Gray,
        cut: &Cut,
        shapes: &[glyphs::Shape],
        recall: glyphs::Recall,
    ) -> Result<Option<Vec<WordGroup>>, OcrError> {
        let mut found = recall.known;
        for run in &recall.unknown {
            let (part, offset) = cut.part(run.left, run.right);
            let crop = part.crop(image);
            let read = words::sure(Self::recognize(&mut reader.english, &crop)?);
            if read.len() != run.words {
                return Ok(None);
            }
            let spelled = reader.english.spelled_words();
            let at = glyphs::Placement {
                scale: crop.scale,
                margin: part.margin(),
                offset,
            };
            self.glyphs()
                .learn(shapes, &spelled, at, Some(recall.family));
            // Into the line's crop at 1x, as memory's words are.
            let shift = offset + cut.margin() as isize - part.margin() as isize;
            found.extend(read.into_iter().map(|word| {
                let x = |v: i32| (v as f32 / crop.scale).round() as i32;
                Word::new(
                    x(word.left) + shift as i32,
                    x(word.top) + cut.margin() as i32 - part.margin() as i32,
                    x(word.width),
                    x(word.height),
                    word.confidence,
                    &word.text,
                )
            }));
        }
        found.sort_by_key(|word| word.left);
        Ok(Some(words::group(&found, 1.0)))
    }

    /// A lone shape the English model could not read, read with the Greek one (Debian's
    /// tesseract-ocr-ell): math and science UIs draw "π", "Σ" or "μ", and none of the English
    /// model's 112 characters is Greek. Kept only when it is one Greek letter read sure;
    /// without the Greek model, nothing.
    fn read_greek(&self, reader: &mut Reader, crop: &Crop) -> Result<Vec<WordGroup>, OcrError> {
        let greek = reader
            .greek
            .get_or_insert_with(|| self.load_model(c"ell").ok());
        let Some(api) = greek else {
            return Ok(Vec::new());
        };
        let read = Self::recognize(api, crop)?;
        let sure = read.len() == 1 && words::greek_letter_sure(&read[0], GREEK_SURE);
        Ok(if sure {
            words::group(&read, crop.scale)
        } else {
            Vec::new()
        })
    }

    /// Reads the lines not in the cache, each once, on up to `MAX_ENGINES` threads; what each
    /// reads is independent of the others, so the words are the same as one after another.
    fn read_missing(
        &self,
        missing: &[(u64, Cut, usize, &Gray)],
    ) -> Result<Vec<Vec<WordGroup>>, OcrError> {
        let results: Vec<Mutex<Vec<WordGroup>>> =
            missing.iter().map(|_| Mutex::new(Vec::new())).collect();
        let next = AtomicUsize::new(0);
        let work = || -> Result<(), OcrError> {
            let mut taken = self.take()?;
            let reader = taken.reader.as_mut().expect("taken with an engine");
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(_, ref cut, parts, image)) = missing.get(i) else {
                    return Ok(());
                };
                let shapes = if self.tesseract_only {
                    None
                } else {
                    glyphs::shapes(cut.rows(image), cut.ground(image))
                };
                let remembered = shapes
                    .as_deref()
                    .and_then(|shapes| self.glyphs().read(shapes, cut.margin()));
                let from_memory = match (remembered, shapes.as_deref()) {
                    (Some(recall), Some(shapes)) => {
                        let counter = if recall.unknown.is_empty() {
                            &self.read_from_glyphs
                        } else {
                            &self.read_partly_from_glyphs
                        };
                        self.read_rest(reader, image, cut, shapes, recall)?
                            .map(|found| (found, counter))
                    }
                    _ => None,
                };
                let found = match from_memory {
                    Some((found, counter)) => {
                        counter.fetch_add(1, Ordering::Relaxed);
                        found
                    }
                    None => {
                        self.read_by_tesseract.fetch_add(1, Ordering::Relaxed);
                        self.read_line(reader, image, cut, parts, shapes.as_deref())?
                    }
                };
                *results[i].lock().unwrap_or_else(|p| p.into_inner()) = found;
            }
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = missing.len().min(cores).min(MAX_ENGINES);
        if threads <= 1 {
            work()?;
        } else {
            std::thread::scope(|scope| {
                let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
                workers
                    .into_iter()
                    .try_for_each(|w| w.join().unwrap_or(Err(OcrError::Recognize)))
            })?;
        }
        Ok(results
            .into_iter()
            .map(|r| r.into_inner().unwrap_or_else(|p| p.into_inner()))
            .collect())
    }

    fn read_gray(&self, image: &Gray) -> Result<Vec<WordGroup>, OcrError> {
        let reduced = reduced(image);
        let levels: Vec<(&Gray, usize)> = std::iter::once((image, 1))
            .chain(reduced.iter().map(|(gray, factor)| (gray, *factor)))
            .collect();
        let mut lines = Vec::new();
        let mut found: HashMap<u64, Vec<WordGroup>> = HashMap::new();
        let mut missing: Vec<(u64, Cut, usize, &Gray)> = Vec::new();
        let mut seen = HashSet::new();
        for (line, level) in lines_at_all_sizes(&levels) {
            let (gray, factor) = levels[level];
            let cut = Cut::of(gray, &line.area);
            let key = line_key(&cut, gray, line.parts);
            lines.push((key, cut.origin(), factor));
            if seen.insert(key) {
                match self.cached(key) {
                    Some(groups) => {
                        found.insert(key, groups);
                    }
                    None => missing.push((key, cut, line.parts, gray)),
                }
            }
        }
        let read = self.read_missing(&missing)?;
        for ((key, ..), groups) in missing.iter().zip(read) {
            self.keep(*key, &groups);
            found.insert(*key, groups);
        }
        let mut groups = Vec::new();
        for (key, origin, factor) in lines {
            let line = found.get(&key).map(Vec::as_slice).unwrap_or_default();
            let up = |v: i32| v * factor as i32;
            groups.extend(line.iter().cloned().map(|mut group| {
                group.bounds.x = up(group.bounds.x + origin.0);
                group.bounds.y = up(group.bounds.y + origin.1);
                group.bounds.width *= factor as u32;
                group.bounds.height *= factor as u32;
                group
            }));
        }
        Ok(groups)
    }
}

/// Lines this high or more in an image halved or quartered are read there rather than at full
/// size: their glyphs' strokes and bars are past what the line finder takes for text (a
/// "T" of 60 px has a bar longer than a drawn line's shortest, a glyph of 110 px is higher than
/// any line), and a PDF page zoomed to 200–400 % read as a stray "1". Halved, they are as high
/// as a heading is at full size, which Tesseract reads well.
const LARGE_LINE: usize = 24;

/// The image halved and quartered, with their factors, where they are high enough to hold a
/// large line.
fn reduced(image: &Gray) -> Vec<(Gray, usize)> {
    let mut levels = Vec::new();
    let mut last = image;
    for factor in [2, 4] {
        if last.height / 2 < LARGE_LINE || last.width / 2 < LARGE_LINE {
            break;
        }
        levels.push((last.halved(), factor));
        last = &levels.last().expect("just pushed").0;
    }
    levels
}

/// The lines of text of every level (the image, then it halved, quartered), each read at one of
/// them, top to bottom: a line `LARGE_LINE` high or more at the smallest level that shows it so,
/// every other line at full size. Returned with the index of the level they are read at.
fn lines_at_all_sizes(levels: &[(&Gray, usize)]) -> Vec<(regions::TextLine, usize)> {
    // Large lines, with their bounds in full-size pixels, smallest level first: halved, the
    // glyphs of a line that shows large quartered break apart as they do at full size.
    let mut large: Vec<(regions::TextLine, usize, regions::Area)> = Vec::new();
    for (level, &(gray, factor)) in levels.iter().enumerate().skip(1).rev() {
        for line in regions::text_lines(gray) {
            let full = line.area.scaled(factor);
            if line.area.height < LARGE_LINE
                || large.iter().any(|(_, _, other)| other.overlaps(&full))
            {
                continue;
            }
            large.push((line, level, full));
        }
    }
    let mut lines: Vec<(regions::TextLine, usize, regions::Area)> =
        regions::text_lines(levels[0].0)
            .into_iter()
            .filter(|line| {
                !large
                    .iter()
                    .any(|(_, _, area)| area.holds_center_of(&line.area))
            })
            .map(|line| (line, 0, line.area))
            .collect();
    lines.extend(large);
    lines.sort_by_key(|(_, _, full)| (full.top, full.left));
    lines
        .into_iter()
        .map(|(line, level, _)| (line, level))
        .collect()
}

/// A hash of an image's content and shape. XXH3: SipHash, the standard library's, took 2.2 ms
/// of a 1080p capture (6 MB), this a quarter of that.
fn content_key(width: usize, data: &[u8]) -> u64 {
    xxh3::xxh3_64_with_seed(data, width as u64)
}

/// A hash of what a line's crop is made of: the pixels it is cut from, their shape, its
/// enlargement, and how many shapes the line has (which decides whether icon-like words are
/// kept). Lines are keyed apart from whole images by their seed.
fn line_key(cut: &Cut, image: &Gray, parts: usize) -> u64 {
    let mut hasher = xxh3::Xxh3::with_seed(LINE_SEED);
    let mut width = 0;
    for row in cut.rows(image) {
        width = row.len();
        hasher.update(row);
    }
    hasher.update(&(width as u64).to_le_bytes());
    hasher.update(&(parts as u64).to_le_bytes());
    hasher.update(&cut.scale().to_le_bytes());
    hasher.digest()
}

/// Any seed but a plausible image width.
const LINE_SEED: u64 = 0x6c69_6e65_0000_0000;

impl ReadText for Tesseract {
    fn read(&self, image: &RgbImage) -> deskhand_core::Result<Vec<WordGroup>> {
        if image.width as u64 * image.height as u64 > MAX_PIXELS {
            return Err(OcrError::TooLarge {
                width: image.width,
                height: image.height,
            }
            .into());
        }
        // The same image again (an unchanged surface) is answered before any work on it.
        let key = content_key(image.width as usize, &image.data);
        if let Some(groups) = self.cached(key) {
            return Ok(groups);
        }
        let Some(gray) = Gray::of(image) else {
            return Err(OcrError::Image(format!(
                "{}x{} px but only {} bytes",
                image.width,
                image.height,
                image.data.len()
            ))
            .into());
        };
        if gray.width < MIN_EDGE || gray.height < MIN_EDGE {
            return Ok(Vec::new());
        }
        let groups = self.read_gray(&gray)?;
        self.keep(key, &groups);
        Ok(groups)
    }
}
