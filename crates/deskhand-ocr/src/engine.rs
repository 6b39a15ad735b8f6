//! The few calls of Tesseract's C API that reading lines needs, from `libtesseract.so.5` loaded
//! on first use. Linked at build time, Tesseract and the 50-odd libraries it pulls in (curl,
//! gnutls, ICU, Kerberos…) were loaded and relocated at every start of deskhand, also for
//! the many calls that read no pixels: about 27 ms of a CLI call's 30 ms of CPU before `main`.
//! Loaded here, they cost only the reads that need them, and a machine without Tesseract gets
//! a clear error when it reads pixels, not a binary that will not start.
#![allow(unsafe_code)]

use std::ffi::{CStr, c_char, c_int, c_uchar, c_void};
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

use crate::OcrError;

/// The library's names, newest soname first: Debian 12 ships 5.3 as `libtesseract.so.5`;
/// the unversioned name is there only with the -dev package.
const LIBRARY_NAMES: [&str; 2] = ["libtesseract.so.5", "libtesseract.so"];

/// `tesseract::PSM_SINGLE_LINE` in `publictypes.h`: the image is one line of text.
pub const PSM_SINGLE_LINE: c_int = 7;

/// `tesseract::PageIteratorLevel` in `publictypes.h`.
const LEVEL_WORD: c_int = 3;
const LEVEL_SYMBOL: c_int = 4;

type Handle = *mut c_void;
type Iterator = *mut c_void;

/// The entry points, resolved once; the library they live in stays loaded for the process.
struct Api {
    create: unsafe extern "C" fn() -> Handle,
    delete: unsafe extern "C" fn(Handle),
    init3: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_variable: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_page_seg_mode: unsafe extern "C" fn(Handle, c_int),
    set_image: unsafe extern "C" fn(Handle, *const c_uchar, c_int, c_int, c_int, c_int),
    set_source_resolution: unsafe extern "C" fn(Handle, c_int),
    recognize: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    get_tsv_text: unsafe extern "C" fn(Handle, c_int) -> *mut c_char,
    delete_text: unsafe extern "C" fn(*const c_char),
    get_iterator: unsafe extern "C" fn(Handle) -> Iterator,
    iterator_delete: unsafe extern "C" fn(Iterator),
    iterator_next: unsafe extern "C" fn(Iterator, c_int) -> c_int,
    iterator_text: unsafe extern "C" fn(Iterator, c_int) -> *mut c_char,
    iterator_confidence: unsafe extern "C" fn(Iterator, c_int) -> f32,
    page_iterator: unsafe extern "C" fn(Iterator) -> Iterator,
    page_bounding_box: unsafe extern "C" fn(
        Iterator,
        c_int,
        *mut c_int,
        *mut c_int,
        *mut c_int,
        *mut c_int,
    ) -> c_int,
    page_at_beginning_of: unsafe extern "C" fn(Iterator, c_int) -> c_int,
    _library: libloading::Library,
}

fn api() -> Result<&'static Api, OcrError> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(load)
        .as_ref()
        .map_err(|why| OcrError::NoLibrary(why.clone()))
}

fn load() -> Result<Api, String> {
    let mut failures = Vec::new();
    for name in LIBRARY_NAMES {
        // SAFETY: libtesseract's initializers only set up its own globals (and OpenMP's, which
        // reads OMP_THREAD_LIMIT, set by the binary before any thread started).
        match unsafe { libloading::Library::new(name) } {
            Ok(library) => return resolve(library).map_err(|err| format!("{name}: {err}")),
            Err(err) => failures.push(err.to_string()),
        }
    }
    Err(failures.join("; "))
}

fn resolve(library: libloading::Library) -> Result<Api, libloading::Error> {
    // SAFETY: each symbol is read with the signature `tesseract/capi.h` declares for it, in
    // every release since 4.0.
    unsafe {
        Ok(Api {
            create: *library.get(b"TessBaseAPICreate\0")?,
            delete: *library.get(b"TessBaseAPIDelete\0")?,
            init3: *library.get(b"TessBaseAPIInit3\0")?,
            set_variable: *library.get(b"TessBaseAPISetVariable\0")?,
            set_page_seg_mode: *library.get(b"TessBaseAPISetPageSegMode\0")?,
            set_image: *library.get(b"TessBaseAPISetImage\0")?,
            set_source_resolution: *library.get(b"TessBaseAPISetSourceResolution\0")?,
            recognize: *library.get(b"TessBaseAPIRecognize\0")?,
            get_tsv_text: *library.get(b"TessBaseAPIGetTsvText\0")?,
            delete_text: *library.get(b"TessDeleteText\0")?,
            get_iterator: *library.get(b"TessBaseAPIGetIterator\0")?,
            iterator_delete: *library.get(b"TessResultIteratorDelete\0")?,
            iterator_next: *library.get(b"TessResultIteratorNext\0")?,
            iterator_text: *library.get(b"TessResultIteratorGetUTF8Text\0")?,
            iterator_confidence: *library.get(b"TessResultIteratorConfidence\0")?,
            page_iterator: *library.get(b"TessResultIteratorGetPageIterator\0")?,
            page_bounding_box: *library.get(b"TessPageIteratorBoundingBox\0")?,
            page_at_beginning_of: *library.get(b"TessPageIteratorIsAtBeginningOf\0")?,
            _library: library,
        })
    }
}

/// A word of the last recognition, character by character: what each character was read as
/// and the columns of its box, in the pixels of the image read.
#[derive(Debug, Clone, PartialEq)]
pub struct SpelledWord {
    pub confidence: f32,
    pub characters: Vec<(String, c_int, c_int)>,
}

/// One Tesseract engine (a `TessBaseAPI`), used by one thread at a time.
pub struct TessBaseApi {
    api: &'static Api,
    handle: NonNull<c_void>,
}

// SAFETY: a TessBaseAPI has no tie to the thread that made it; it is only never used by two
// threads at once, which `&mut self` on every call ensures.
unsafe impl Send for TessBaseApi {}

impl Drop for TessBaseApi {
    fn drop(&mut self) {
        // SAFETY: the handle came from TessBaseAPICreate and is deleted once, here.
        unsafe { (self.api.delete)(self.handle.as_ptr()) }
    }
}

impl TessBaseApi {
    pub fn create() -> Result<Self, OcrError> {
        let api = api()?;
        // SAFETY: TessBaseAPICreate takes nothing and returns a new engine or null.
        let handle = NonNull::new(unsafe { (api.create)() })
            .ok_or_else(|| OcrError::NoLibrary("TessBaseAPICreate returned nothing".into()))?;
        Ok(Self { api, handle })
    }

    fn handle(&self) -> Handle {
        self.handle.as_ptr()
    }

    /// Loads `language`'s model from `datapath` (Tesseract's default folder when `None`).
    pub fn init_2(&mut self, datapath: Option<&CStr>, language: &CStr) -> Result<(), ()> {
        let datapath = datapath.map_or(ptr::null(), CStr::as_ptr);
        // SAFETY: both strings are NUL-terminated and outlive the call, which copies them.
        let status = unsafe { (self.api.init3)(self.handle(), datapath, language.as_ptr()) };
        if status == 0 { Ok(()) } else { Err(()) }
    }

    pub fn set_variable(&mut self, name: &CStr, value: &CStr) -> Result<(), ()> {
        // SAFETY: as for `init_2`.
        let set = unsafe { (self.api.set_variable)(self.handle(), name.as_ptr(), value.as_ptr()) };
        if set != 0 { Ok(()) } else { Err(()) }
    }

    pub fn set_page_seg_mode(&mut self, mode: c_int) {
        // SAFETY: a plain value; Tesseract ignores a mode it does not know.
        unsafe { (self.api.set_page_seg_mode)(self.handle(), mode) }
    }

    /// Gives the engine an image of `width`×`height` pixels, `bytes_per_pixel` each and
    /// `bytes_per_line` to a row, which Tesseract copies.
    pub fn set_image(
        &mut self,
        data: &[u8],
        width: c_int,
        height: c_int,
        bytes_per_pixel: c_int,
        bytes_per_line: c_int,
    ) -> Result<(), String> {
        let row_fits = i64::from(width) * i64::from(bytes_per_pixel) <= i64::from(bytes_per_line);
        let needed = i64::from(height) * i64::from(bytes_per_line);
        if width <= 0 || height <= 0 || bytes_per_pixel <= 0 || !row_fits {
            return Err(format!(
                "{width}x{height} px at {bytes_per_pixel} bytes each do not fit rows of {bytes_per_line} bytes"
            ));
        }
        if usize::try_from(needed).map_or(true, |needed| needed > data.len()) {
            return Err(format!(
                "{width}x{height} px need {needed} bytes, the image has {}",
                data.len()
            ));
        }
        // SAFETY: the checks above keep Tesseract's reads inside `data`, which it copies
        // before the call returns.
        unsafe {
            (self.api.set_image)(
                self.handle(),
                data.as_ptr(),
                width,
                height,
                bytes_per_pixel,
                bytes_per_line,
            );
        }
        Ok(())
    }

    pub fn set_source_resolution(&mut self, ppi: c_int) {
        // SAFETY: a plain value, after `set_image`.
        unsafe { (self.api.set_source_resolution)(self.handle(), ppi) }
    }

    pub fn recognize(&mut self) -> Result<(), ()> {
        // SAFETY: no progress monitor (null) is allowed.
        let status = unsafe { (self.api.recognize)(self.handle(), ptr::null_mut()) };
        if status == 0 { Ok(()) } else { Err(()) }
    }

    /// The last recognition's words, each with its characters and where they are.
    pub fn spelled_words(&mut self) -> Vec<SpelledWord> {
        let mut words: Vec<SpelledWord> = Vec::new();
        // SAFETY: the iterator is Tesseract's over its last recognition, used only while the
        // engine is borrowed here and deleted once; its page iterator is the same object seen
        // as its base class, not one to delete; each text is copied and given back.
        unsafe {
            let results = (self.api.get_iterator)(self.handle());
            if results.is_null() {
                return words;
            }
            let page = (self.api.page_iterator)(results);
            loop {
                let (mut left, mut top, mut right, mut bottom) = (0, 0, 0, 0);
                let boxed = (self.api.page_bounding_box)(
                    page,
                    LEVEL_SYMBOL,
                    &mut left,
                    &mut top,
                    &mut right,
                    &mut bottom,
                ) != 0;
                let text = (self.api.iterator_text)(results, LEVEL_SYMBOL);
                if boxed && !text.is_null() {
                    let character = CStr::from_ptr(text).to_string_lossy().into_owned();
                    if (self.api.page_at_beginning_of)(page, LEVEL_WORD) != 0 || words.is_empty() {
                        words.push(SpelledWord {
                            confidence: (self.api.iterator_confidence)(results, LEVEL_WORD),
                            characters: Vec::new(),
                        });
                    }
                    if let Some(word) = words.last_mut() {
                        word.characters.push((character, left, right));
                    }
                }
                if !text.is_null() {
                    (self.api.delete_text)(text);
                }
                if (self.api.iterator_next)(results, LEVEL_SYMBOL) == 0 {
                    break;
                }
            }
            (self.api.iterator_delete)(results);
        }
        words
    }

    /// The last recognition's words as Tesseract's TSV, `page` numbering its rows.
    pub fn get_tsv_text(&mut self, page: c_int) -> Result<String, ()> {
        // SAFETY: the text is Tesseract's, NUL-terminated, and given back with TessDeleteText
        // once copied.
        unsafe {
            let text = (self.api.get_tsv_text)(self.handle(), page);
            if text.is_null() {
                return Err(());
            }
            let copied = CStr::from_ptr(text).to_string_lossy().into_owned();
            (self.api.delete_text)(text);
            Ok(copied)
        }
    }
}
