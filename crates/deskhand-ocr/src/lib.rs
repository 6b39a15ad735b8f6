//! Text read from pixels with Tesseract, behind the core's [`ReadText`]: one engine per process,
//! loaded on first use, fed gray and enlarged tiles of the capture, and a cache of each tile's
//! words by its content, so an unchanged surface costs a hash and no recognition.
#![cfg(target_os = "linux")]
#![forbid(unsafe_code)]

mod prepare;
mod words;

use std::collections::HashMap;
use std::ffi::CString;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::Mutex;

use deskhand_core::model::RgbImage;
use deskhand_core::ocr::{ReadText, WordGroup};
use deskhand_core::{Error, ErrorKind};
use tesseract_plumbing::TessBaseApi;

use prepare::{Gray, tiles};

/// What can keep Tesseract from reading.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OcrError {
    #[error(
        "Tesseract could not load its English model{}; install tesseract-ocr-eng (Debian) or set TESSDATA_PREFIX to the folder holding eng.traineddata",
        .0.as_ref().map(|p| format!(" from {}", p.display())).unwrap_or_default()
    )]
    NoModel(Option<PathBuf>),
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

/// How many tiles the cache keeps; the least recently used goes first.
const CACHED_TILES: usize = 512;

/// Tesseract, loaded once per process on first use.
#[derive(Default)]
pub struct Tesseract {
    /// Where `eng.traineddata` is; `None`: Tesseract's own default (Debian's package, or
    /// `TESSDATA_PREFIX`).
    datapath: Option<PathBuf>,
    engine: Mutex<Option<TessBaseApi>>,
    cache: Mutex<TileCache>,
}

impl std::fmt::Debug for Tesseract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tesseract")
            .field("datapath", &self.datapath)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct TileCache {
    /// A tile's content hash → its word groups (tile-relative, at 1x), and when last used.
    tiles: HashMap<u64, (Vec<WordGroup>, u64)>,
    clock: u64,
}

impl TileCache {
    fn get(&mut self, key: u64) -> Option<Vec<WordGroup>> {
        self.clock += 1;
        let clock = self.clock;
        self.tiles.get_mut(&key).map(|(groups, used)| {
            *used = clock;
            groups.clone()
        })
    }

    fn put(&mut self, key: u64, groups: Vec<WordGroup>) {
        if self.tiles.len() >= CACHED_TILES
            && let Some(oldest) = self
                .tiles
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(key, _)| *key)
        {
            self.tiles.remove(&oldest);
        }
        self.clock += 1;
        self.tiles.insert(key, (groups, self.clock));
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

    /// Forgets every cached tile, so the next read recognizes again: what a benchmark of
    /// recognition itself needs.
    pub fn clear_cache(&self) {
        *self.cache.lock().unwrap_or_else(|p| p.into_inner()) = TileCache::default();
    }

    fn load(&self) -> Result<TessBaseApi, OcrError> {
        let no_model = || OcrError::NoModel(self.datapath.clone());
        let datapath = match &self.datapath {
            Some(path) => {
                Some(CString::new(path.to_string_lossy().as_bytes()).map_err(|_| no_model())?)
            }
            None => None,
        };
        let mut api = TessBaseApi::create();
        api.init_2(datapath.as_deref(), Some(c"eng"))
            .map_err(|_| no_model())?;
        // One uniform block per tile: sparse-text segmentation (psm 11) drops the isolated
        // digits of a calculator's keypad, a block keeps them.
        api.set_page_seg_mode(tesseract_sys::TessPageSegMode_PSM_SINGLE_BLOCK);
        for (name, value) in [
            // Its progress and warnings would go to our stderr.
            (c"debug_file", c"/dev/null"),
            // Screens have no dictionary words in many places (paths, numbers, names).
            (c"load_system_dawg", c"0"),
        ] {
            api.set_variable(name, value)
                .map_err(|_| OcrError::Setting(name.to_string_lossy().into_owned()))?;
        }
        Ok(api)
    }

    fn recognize(api: &mut TessBaseApi, tile: &Gray) -> Result<Vec<words::Word>, OcrError> {
        let (width, height) = (tile.width as i32, tile.height as i32);
        api.set_image(&tile.data, width, height, 1, width)
            .map_err(|err| OcrError::Image(err.to_string()))?;
        // Screens are about 96 dpi; doubled, twice that. Without it Tesseract guesses, and warns.
        api.set_source_resolution(192);
        api.recognize().map_err(|_| OcrError::Recognize)?;
        let tsv = api.get_tsv_text(0).map_err(|_| OcrError::Recognize)?;
        Ok(words::parse_tsv(&tsv.as_ref().to_string_lossy()))
    }

    fn read_gray(&self, image: &Gray) -> Result<Vec<WordGroup>, OcrError> {
        let mut groups = Vec::new();
        for (top, bottom) in tiles(image) {
            if bottom - top < MIN_EDGE {
                continue;
            }
            let tile = image.rows(top, bottom);
            let key = {
                let mut hasher = DefaultHasher::new();
                tile.width.hash(&mut hasher);
                tile.data.hash(&mut hasher);
                hasher.finish()
            };
            let cached = self
                .cache
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(key);
            let found = match cached {
                Some(found) => found,
                None => {
                    let mut engine = self.engine.lock().unwrap_or_else(|p| p.into_inner());
                    if engine.is_none() {
                        *engine = Some(self.load()?);
                    }
                    let api = engine.as_mut().expect("loaded above");
                    let found = words::group(&Self::recognize(api, &tile.doubled())?, 2, 0);
                    drop(engine);
                    self.cache
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .put(key, found.clone());
                    found
                }
            };
            groups.extend(found.into_iter().map(|mut group| {
                group.bounds.y += top as i32;
                group
            }));
        }
        Ok(groups)
    }
}

impl ReadText for Tesseract {
    fn read(&self, image: &RgbImage) -> deskhand_core::Result<Vec<WordGroup>> {
        if image.width as u64 * image.height as u64 > MAX_PIXELS {
            return Err(OcrError::TooLarge {
                width: image.width,
                height: image.height,
            }
            .into());
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
        Ok(self.read_gray(&gray)?)
    }
}
