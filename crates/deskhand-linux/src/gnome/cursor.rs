//! Where the pointer is on GNOME without deskhand's shell extension, for the kill switch: GNOME
//! tells the pointer's position to no other D-Bus client, but a screen cast recorded with
//! `cursor-mode` metadata carries it beside the pixels, on every buffer Mutter sends. Mutter
//! sends one when the screen changes and one without pixels whenever the pointer moves, so a
//! client kept connected always holds the pointer's latest position, on a thread of its own
//! that runs the PipeWire loop.
//!
//! What Mutter sends (mutter 43, headless, measured): the first buffer, drawn as the client
//! connects, carries the cursor; a pointer that moves alone sends buffers of metadata and no
//! pixels; positions are in the stream's pixels from the monitor's top-left (logical pixels
//! times the monitor's scale); a hidden pointer has cursor id 0, and a headless GNOME hides
//! it until a pointing device first moves it.
//!
//! A position read there is current, not merely the last one seen, when these hold: the
//! stream is still streaming (a recording the user stopped, or a PipeWire that went away, ends
//! it, and the reader with it); Mutter answered a D-Bus call made after the look began, so its
//! main loop runs; the look waited three of the stream's frames after it, as a motion reaches
//! the stream at the second frame after it; and the reader then took every buffer waiting on
//! its socket before answering. A still pointer sends nothing, so the age of the last buffer
//! says nothing and is not what is bounded: the look is, by its timeout, and a reader that
//! does not answer within it is replaced.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use deskhand_core::model::{Point, Rect, RgbImage};
use pipewire as pw;
use pw::spa;

use super::GnomeError;
use super::cast::{
    CursorMode, Frame, MonitorNode, Recording, crop_to_rgb, enum_format, frame_in, layout, paste,
    serialize,
};

/// How long a reader's loop sleeps when nothing comes: it wakes sooner for a buffer or a look.
const IDLE_WAKE: Duration = Duration::from_millis(250);

/// What a monitor's stream last said of the pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sighting {
    /// On this monitor, at this screen point (logical pixels, as the pointer moves).
    At(Point),
    /// Not on this monitor: on another one, or hidden (Mutter hides it while no pointing
    /// device is in use, as on a touch screen).
    Away,
}

/// `spa_meta_cursor` as Mutter fills it: `id` 0 when the pointer is hidden or off the
/// monitor, else the pointer's position in the stream's pixels, from the monitor's top-left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CursorMeta {
    id: u32,
    x: i32,
    y: i32,
}

/// The screen point a cursor metadata names, on a monitor at `area` (logical pixels) whose
/// stream's frames are `frame` pixels wide and high: more than its logical size on a scaled
/// monitor.
fn sighting(meta: CursorMeta, frame: (u32, u32), area: Rect) -> Sighting {
    if meta.id == 0 {
        return Sighting::Away;
    }
    let logical = |at: i32, logical: u32, physical: u32| -> i32 {
        if physical == 0 || physical == logical {
            return at;
        }
        (i64::from(at) * i64::from(logical) / i64::from(physical)) as i32
    };
    Sighting::At(Point {
        x: area.x + logical(meta.x, area.width, frame.0),
        y: area.y + logical(meta.y, area.height, frame.1),
    })
}

/// The time between two frames of a stream agreed at `num`/`denom` frames a second at most;
/// a stream of no stated rate counts as 30 a second, slower than any monitor GNOME drives.
fn frame_period(num: u32, denom: u32) -> Duration {
    if num == 0 || denom == 0 {
        return Duration::from_millis(33);
    }
    Duration::from_micros(1_000_000 * u64::from(denom) / u64::from(num))
        .clamp(Duration::from_millis(4), Duration::from_millis(100))
}

/// The latest picture a stream sent, shared with the looks that took it.
#[derive(Clone)]
struct Pixels {
    bytes: Arc<Vec<u8>>,
    width: u32,
    height: u32,
    stride: usize,
    channels: [usize; 3],
}

impl Pixels {
    /// Keeps a copy of `frame` in `slot`, in the allocation of the one before when no look
    /// holds that any more.
    fn keep(slot: &mut Option<Result<Pixels, String>>, frame: &Frame) {
        let mut bytes = match slot.take() {
            Some(Ok(pixels)) => pixels.bytes,
            _ => Arc::new(Vec::new()),
        };
        match Arc::get_mut(&mut bytes) {
            Some(kept) => {
                kept.clear();
                kept.extend_from_slice(frame.bytes);
            }
            None => bytes = Arc::new(frame.bytes.to_vec()),
        }
        *slot = Some(Ok(Pixels {
            bytes,
            width: frame.width,
            height: frame.height,
            stride: frame.stride,
            channels: frame.channels,
        }));
    }

    fn frame(&self) -> Frame<'_> {
        Frame {
            bytes: &self.bytes,
            width: self.width,
            height: self.height,
            stride: self.stride,
            channels: self.channels,
        }
    }
}

/// What a look at one monitor's reader found.
#[derive(Clone)]
struct Seen {
    sighting: Sighting,
    /// When the buffer that said so came.
    at: Instant,
    /// How often the stream may send, from the rate it was agreed at: Mutter sends a moved
    /// pointer at its next frame, up to this long after the motion.
    frame: Duration,
    /// The latest picture, or why it could not be read; `None` before the first.
    pixels: Option<Result<Pixels, String>>,
}

enum Request {
    Look(tokio::sync::oneshot::Sender<Result<Seen, String>>),
    Stop,
}

/// One monitor's stream, read on its own thread.
struct Reader {
    connector: String,
    requests: pw::channel::Sender<Request>,
    /// Why the reader's thread ended, once it has: a look then has no one to answer it.
    ended: Arc<Mutex<Option<String>>>,
}

impl Drop for Reader {
    fn drop(&mut self) {
        let _ = self.requests.send(Request::Stop);
    }
}

/// A screen cast of every monitor with the pointer as metadata, each stream kept connected.
pub struct CursorWatch {
    recording: Recording,
    readers: Vec<Reader>,
    /// How long a pointer motion may take to reach the streams, known from the first look.
    settle: Option<Duration>,
    /// Where this watch last saw the pointer.
    last_seen: Option<Point>,
}

/// The pointer as the streams tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointer {
    At(Point),
    /// No monitor shows it; `last` is where this watch last saw it, if it did.
    Hidden {
        last: Option<Point>,
    },
}

impl CursorWatch {
    /// Records `monitors` (connector and area) with the pointer as metadata and connects a
    /// reader to each stream; the first look waits for each stream's first buffer.
    pub async fn start(
        conn: zbus::Connection,
        monitors: &[(String, Rect)],
        timeout: Duration,
    ) -> Result<Self, GnomeError> {
        let recording = Recording::start(conn, monitors, CursorMode::Metadata, timeout).await?;
        let mut readers = Vec::new();
        for monitor in &recording.monitors {
            match Reader::start(monitor.clone()) {
                Ok(reader) => readers.push(reader),
                Err(why) => {
                    recording.stop().await;
                    return Err(GnomeError::NoCursor {
                        monitor: monitor.connector.clone(),
                        why,
                    });
                }
            }
        }
        Ok(Self {
            recording,
            readers,
            settle: None,
            last_seen: None,
        })
    }

    /// Whether the watch records `monitors` as they are now.
    pub fn records(&self, monitors: &[(String, Rect)]) -> bool {
        self.recording.records(monitors)
    }

    /// What each stream sent up to three frames after this call began, in the recording's
    /// order of monitors. Call it after a round trip to Mutter (see the module's note). A new
    /// watch's first buffers are drawn as it connects, and need no wait.
    async fn look_all(&mut self, timeout: Duration) -> Result<Vec<Seen>, GnomeError> {
        if let Some(settle) = self.settle {
            tokio::time::sleep(settle).await;
        }
        let mut all = Vec::new();
        for reader in &self.readers {
            let seen = reader
                .look(timeout)
                .await
                .map_err(|why| GnomeError::NoCursor {
                    monitor: reader.connector.clone(),
                    why,
                })?;
            // A motion reaches the cursor at the stage's next frame, which asks for one more,
            // where the cursor is recorded: two frames, and one more for a busy compositor (at
            // 60 Hz a motion came 28 ms late in most looks and once missed a 42 ms wait on a
            // loaded 2-core machine).
            let settle = seen.frame * 3;
            self.settle = Some(self.settle.map_or(settle, |s| s.max(settle)));
            all.push(seen);
        }
        Ok(all)
    }

    /// Where the pointer is, as the streams told it up to three frames after the call began.
    pub async fn look(&mut self, timeout: Duration) -> Result<Pointer, GnomeError> {
        let latest = self
            .look_all(timeout)
            .await?
            .into_iter()
            .filter(|seen| matches!(seen.sighting, Sighting::At(_)))
            .max_by_key(|seen| seen.at);
        Ok(match latest.map(|seen| seen.sighting) {
            Some(Sighting::At(point)) => {
                self.last_seen = Some(point);
                Pointer::At(point)
            }
            _ => Pointer::Hidden {
                last: self.last_seen,
            },
        })
    }

    /// The pixels of `rect` (screen coordinates), clipped to the screen, from each monitor's
    /// latest picture, read as the pointer is: Mutter sends one whenever the screen
    /// changes.
    pub async fn capture(&mut self, rect: Rect, timeout: Duration) -> Result<RgbImage, GnomeError> {
        let seen = self.look_all(timeout).await?;
        let (mut image, parts) = layout(&self.recording.monitors, rect)?;
        for part in parts {
            let pixels = match seen.get(part.index).and_then(|seen| seen.pixels.clone()) {
                Some(Ok(pixels)) => pixels,
                Some(Err(why)) => return Err(part.failed(why)),
                None => return Err(part.failed("the stream has sent no picture yet".into())),
            };
            let read = crop_to_rgb(&pixels.frame(), part.monitor.area, part.within);
            paste(&mut image, &read, part.at);
        }
        Ok(image)
    }

    /// Ends the recording and the readers.
    pub async fn stop(self) {
        self.recording.stop().await;
    }
}

impl Reader {
    fn start(monitor: MonitorNode) -> Result<Self, String> {
        let (requests, receiver) = pw::channel::channel();
        let connector = monitor.connector.clone();
        let ended = Arc::new(Mutex::new(None));
        let told = ended.clone();
        std::thread::Builder::new()
            .name("deskhand-cursor".into())
            .spawn(move || read_cursor(monitor, receiver, &told))
            .map_err(|err| format!("no thread could be started for PipeWire: {err}"))?;
        Ok(Self {
            connector,
            requests,
            ended,
        })
    }

    /// What the stream last said, once the reader has taken what was waiting (the first buffer,
    /// for a new one), within `timeout`.
    async fn look(&self, timeout: Duration) -> Result<Seen, String> {
        if let Some(why) = self
            .ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            return Err(why);
        }
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.requests
            .send(Request::Look(answer))
            .map_err(|_| "the PipeWire thread is gone".to_owned())?;
        match tokio::time::timeout(timeout, answered).await {
            Ok(Ok(seen)) => seen,
            Ok(Err(_)) => Err("the PipeWire thread stopped without an answer".into()),
            Err(_) => Err(format!(
                "the stream told nothing of the pointer within {} ms",
                timeout.as_millis()
            )),
        }
    }
}

/// What the stream's callbacks found, on the reader's thread.
#[derive(Default)]
struct Progress {
    format: Option<spa::param::video::VideoInfoRaw>,
    period: Option<Duration>,
    pixels: Option<Result<Pixels, String>>,
    seen: Option<Seen>,
    /// Why the stream can tell no more.
    ended: Option<String>,
    streaming: bool,
    looks: Vec<tokio::sync::oneshot::Sender<Result<Seen, String>>>,
    stop: bool,
}

impl Progress {
    /// Answers the looks waiting, once there is something to answer: a first buffer, or why
    /// none will come.
    fn answer(&mut self) {
        let answer = match (&self.ended, &self.seen) {
            (Some(why), _) => Err(why.clone()),
            (None, Some(seen)) => Ok(Seen {
                pixels: self.pixels.clone(),
                ..seen.clone()
            }),
            (None, None) => return,
        };
        for look in self.looks.drain(..) {
            let _ = look.send(answer.clone());
        }
    }

    fn end(&mut self, why: String) {
        self.ended.get_or_insert(why);
    }
}

fn read_cursor(
    monitor: MonitorNode,
    requests: pw::channel::Receiver<Request>,
    ended: &Mutex<Option<String>>,
) {
    let progress = Rc::new(RefCell::new(Progress::default()));
    let connected = connect_and_read(&monitor, requests, &progress);
    let mut progress = progress.borrow_mut();
    if let Err(why) = connected {
        progress.end(why);
    }
    progress.end("the reader was stopped".into());
    // Said before the last looks are answered, so no look comes in between and waits in vain.
    *ended.lock().unwrap_or_else(PoisonError::into_inner) = progress.ended.clone();
    progress.answer();
}

fn connect_and_read(
    monitor: &MonitorNode,
    requests: pw::channel::Receiver<Request>,
    progress: &Rc<RefCell<Progress>>,
) -> Result<(), String> {
    pw::init();
    let failed = |what: &str, err: pw::Error| format!("{what} failed: {err}");
    let main_loop =
        pw::main_loop::MainLoopBox::new(None).map_err(|e| failed("a PipeWire loop", e))?;
    let context = pw::context::ContextBox::new(main_loop.loop_(), None)
        .map_err(|e| failed("a PipeWire context", e))?;
    let core = context
        .connect(None)
        .map_err(|e| failed("connecting to the session's PipeWire daemon", e))?;
    let asked = progress.clone();
    let _requests = requests.attach(main_loop.loop_(), move |request| {
        let mut progress = asked.borrow_mut();
        match request {
            Request::Look(answer) => progress.looks.push(answer),
            Request::Stop => progress.stop = true,
        }
    });
    let core_errors = progress.clone();
    let _core_listener = core
        .add_listener_local()
        .error(move |_, _, _, message| {
            core_errors
                .borrow_mut()
                .end(format!("PipeWire refused the stream: {message}"));
        })
        .register();
    let stream = pw::stream::StreamBox::new(
        &core,
        "deskhand-pointer",
        pw::properties::properties! {
            *pw::keys::MEDIA_TYPE => "Video",
            *pw::keys::MEDIA_CATEGORY => "Capture",
            *pw::keys::MEDIA_ROLE => "Screen",
        },
    )
    .map_err(|e| failed("a PipeWire stream", e))?;
    let area = monitor.area;
    let _listener = stream
        .add_local_listener_with_user_data(progress.clone())
        .state_changed(|_, progress, _, new| {
            let mut progress = progress.borrow_mut();
            match new {
                pw::stream::StreamState::Streaming => progress.streaming = true,
                pw::stream::StreamState::Error(why) => {
                    progress.end(format!("the stream failed: {why}"))
                }
                pw::stream::StreamState::Unconnected => {
                    progress.end("the stream was disconnected".into())
                }
                pw::stream::StreamState::Paused if progress.streaming => {
                    progress.end("the stream was paused: the screen cast has ended".into())
                }
                _ => {}
            }
        })
        .param_changed(|stream, progress, id, param| {
            let Some(param) = param else { return };
            if id != spa::param::ParamType::Format.as_raw() {
                return;
            }
            let mut format = spa::param::video::VideoInfoRaw::new();
            if format.parse(param).is_err() {
                return;
            }
            let rate = format.max_framerate();
            let mut progress = progress.borrow_mut();
            progress.format = Some(format);
            progress.period = Some(frame_period(rate.num, rate.denom));
            drop(progress);
            if let (Some(buffers), Some(cursor)) = (super::cast::memory_buffers(), cursor_meta()) {
                let _ = stream.update_params(&mut [
                    spa::pod::Pod::from_bytes(&buffers).expect("a serialized pod reads back"),
                    spa::pod::Pod::from_bytes(&cursor).expect("a serialized pod reads back"),
                ]);
            }
        })
        .process(move |stream, progress| {
            let Some(mut buffer) = stream.dequeue_buffer() else {
                return;
            };
            let mut progress = progress.borrow_mut();
            let (Some(format), Some(period)) = (progress.format, progress.period) else {
                return;
            };
            let size = format.size();
            let Some(meta) = buffer.find_meta::<spa::buffer::meta::MetaCursor>() else {
                progress.end(
                    "Mutter sent a buffer without the pointer's metadata (this GNOME may not support `cursor-mode` metadata)"
                        .into(),
                );
                return;
            };
            let position = meta.position();
            let meta = CursorMeta {
                id: meta.id(),
                x: position.x,
                y: position.y,
            };
            progress.seen = Some(Seen {
                sighting: sighting(meta, (size.width, size.height), area),
                at: Instant::now(),
                frame: period,
                pixels: None,
            });
            let Some(data) = buffer.datas_mut().first_mut() else {
                return;
            };
            let chunk = data.chunk();
            // A buffer of the pointer alone carries no picture.
            if chunk.size() == 0 || chunk.flags().contains(spa::buffer::ChunkFlags::CORRUPTED) {
                return;
            }
            let (offset, size, stride) = (
                chunk.offset() as usize,
                chunk.size() as usize,
                chunk.stride(),
            );
            match frame_in(data, format, offset, size, stride) {
                Ok(frame) => Pixels::keep(&mut progress.pixels, &frame),
                Err(why) => progress.pixels = Some(Err(why)),
            }
        })
        .register()
        .map_err(|e| failed("listening to the PipeWire stream", e))?;
    let format = enum_format().ok_or("the video format offer could not be written")?;
    stream
        .connect(
            spa::utils::Direction::Input,
            Some(monitor.node),
            pw::stream::StreamFlags::AUTOCONNECT | pw::stream::StreamFlags::MAP_BUFFERS,
            &mut [spa::pod::Pod::from_bytes(&format).expect("a serialized pod reads back")],
        )
        .map_err(|e| failed(&format!("connecting to PipeWire node {}", monitor.node), e))?;
    loop {
        main_loop
            .loop_()
            .iterate(pw::loop_::Timeout::Finite(IDLE_WAKE));
        if progress.borrow().stop {
            let _ = stream.disconnect();
            return Ok(());
        }
        if !progress.borrow().looks.is_empty() {
            // A look came: whatever the stream sent before it is on the socket by now.
            main_loop.loop_().iterate(pw::loop_::Timeout::None);
            progress.borrow_mut().answer();
        }
        if progress.borrow().ended.is_some() {
            let _ = stream.disconnect();
            return Ok(());
        }
    }
}

/// The cursor metadata asked of Mutter on each buffer, with room for a cursor image of up to
/// 1024×1024: Mutter offers room for 384×384 (it sends the image when it changes; deskhand
/// reads only the position), and a range that leaves its size out agrees on no metadata.
fn cursor_meta() -> Option<Vec<u8>> {
    use spa::pod::{ChoiceValue, Property, PropertyFlags, Value};
    use spa::utils::{Choice, ChoiceEnum, ChoiceFlags, Id};
    let size = |side: usize| {
        (std::mem::size_of::<spa::sys::spa_meta_cursor>()
            + std::mem::size_of::<spa::sys::spa_meta_bitmap>()
            + side * side * 4) as i32
    };
    serialize(spa::pod::Object {
        type_: spa::utils::SpaTypes::ObjectParamMeta.as_raw(),
        id: spa::param::ParamType::Meta.as_raw(),
        properties: vec![
            Property {
                key: spa::sys::SPA_PARAM_META_type,
                flags: PropertyFlags::empty(),
                value: Value::Id(Id(spa::sys::SPA_META_Cursor)),
            },
            Property {
                key: spa::sys::SPA_PARAM_META_size,
                flags: PropertyFlags::empty(),
                value: Value::Choice(ChoiceValue::Int(Choice(
                    ChoiceFlags::empty(),
                    ChoiceEnum::Range {
                        default: size(64),
                        min: size(1),
                        max: size(1024),
                    },
                ))),
            },
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_on_a_monitor_is_placed_in_the_screen() {
        let area = Rect::new(1280, 0, 1920, 1080);
        let meta = CursorMeta {
            id: 1,
            x: 10,
            y: 20,
        };
        assert_eq!(
            sighting(meta, (1920, 1080), area),
            Sighting::At(Point { x: 1290, y: 20 })
        );
    }

    #[test]
    fn a_scaled_monitor_counts_its_cursor_in_logical_pixels() {
        let area = Rect::new(0, 0, 1280, 800);
        let meta = CursorMeta {
            id: 7,
            x: 1000,
            y: 3,
        };
        assert_eq!(
            sighting(meta, (2560, 1600), area),
            Sighting::At(Point { x: 500, y: 1 })
        );
    }

    #[test]
    fn a_cursor_without_an_id_is_hidden_or_elsewhere() {
        let meta = CursorMeta { id: 0, x: 0, y: 0 };
        assert_eq!(
            sighting(meta, (1280, 800), Rect::new(0, 0, 1280, 800)),
            Sighting::Away
        );
    }

    #[test]
    fn a_stream_waits_for_a_frame_of_its_agreed_rate() {
        assert_eq!(frame_period(60, 1), Duration::from_micros(16_666));
        assert_eq!(frame_period(0, 1), Duration::from_millis(33));
        assert_eq!(frame_period(1, 1), Duration::from_millis(100));
    }

    #[test]
    fn the_cursor_metadata_asked_for_serializes() {
        assert!(cursor_meta().is_some_and(|pod| spa::pod::Pod::from_bytes(&pod).is_some()));
    }
}
