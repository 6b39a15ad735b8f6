//! What `deskhand doctor` asks of Tesseract: does its library load, and which of the models
//! deskhand reads with are installed. Nothing is read and nothing is kept.

use std::ffi::CString;
use std::path::PathBuf;

use crate::OcrError;
use crate::engine::TessBaseApi;

/// The models deskhand reads with: English for every line, Greek for the lone symbols
/// (a calculator's "π") the English model has no character for.
pub const LANGUAGES: [(&str, &str, bool); 2] = [
    ("eng", "tesseract-ocr-eng", true),
    ("ell", "tesseract-ocr-ell", false),
];

/// Where Debian's tesseract-ocr packages put the models of Tesseract 5.
const DEBIAN_TESSDATA: &str = "/usr/share/tesseract-ocr/5/tessdata";

/// One model: its language, the Debian package that brings it, whether deskhand cannot read
/// pixels without it, and whether it is there (and loads).
#[derive(Debug, Clone)]
pub struct Model {
    pub language: &'static str,
    pub package: &'static str,
    pub required: bool,
    pub found: Result<(), String>,
}

/// Tesseract as deskhand would load it.
#[derive(Debug)]
pub struct TesseractCheck {
    /// The library loaded, or why not; `None` when it was not tried.
    pub library: Option<Result<(), String>>,
    /// The folder the models are read from.
    pub datapath: PathBuf,
    pub models: Vec<Model>,
}

/// The folder Tesseract reads models from: `TESSDATA_PREFIX` (Tesseract 5 takes it as the
/// folder itself), else Debian's.
pub fn datapath() -> PathBuf {
    std::env::var_os("TESSDATA_PREFIX")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from(DEBIAN_TESSDATA), PathBuf::from)
}

/// With `load`, loads the library and, for each model whose file is there, the model itself (a
/// third of a second): a model file that is missing is not handed to Tesseract, which would
/// print its own error on stderr. Without it, only looks for the model files.
pub fn check(load: bool) -> TesseractCheck {
    let datapath = datapath();
    let library = load.then(|| {
        TessBaseApi::create()
            .map(drop)
            .map_err(|err| err.to_string())
    });
    let models = LANGUAGES
        .iter()
        .map(|&(language, package, required)| {
            let file = datapath.join(format!("{language}.traineddata"));
            let found = if !file.is_file() {
                Err(format!("{} is missing", file.display()))
            } else if !matches!(library, Some(Ok(()))) {
                Ok(())
            } else {
                load_model(&datapath, language)
            };
            Model {
                language,
                package,
                required,
                found,
            }
        })
        .collect();
    TesseractCheck {
        library,
        datapath,
        models,
    }
}

fn load_model(datapath: &std::path::Path, language: &str) -> Result<(), String> {
    let path = CString::new(datapath.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
    let language = CString::new(language).map_err(|e| e.to_string())?;
    let mut api = TessBaseApi::create().map_err(|err: OcrError| err.to_string())?;
    api.init_2(Some(&path), &language)
        .map_err(|()| format!("Tesseract could not load {}", language.to_string_lossy()))
}
