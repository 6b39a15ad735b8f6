//! Pixels of GNOME's screen through `org.gnome.Mutter.ScreenCast`: a monitor recorded by Mutter
//! comes out as a PipeWire video stream on the session's PipeWire daemon, whose frames deskhand
//! reads as a screen-sharing client does. It needs nothing but the session bus, so it works
//! while deskhand's shell extension is absent.
//!
//! Mutter renders a frame into a stream only while a client is connected to it, on damage, and
//! the first frame at once on connecting. A recording (the D-Bus side) with no client costs the
//! compositor nothing, and starting one for each capture cost about 200 ms more than keeping it
//! (`benches/gnome_capture.rs`); so a recording is kept for the next capture, and each capture
//! connects a client for its one frame and leaves. A client kept connected would answer without
//! its ~120 ms of connecting, but takes every frame the screen changes (80 in 5 s of a spinner),
//! each a copy in Mutter and a wake-up here, for captures that may never come; the bench could
//! not tell that cost in gnome-shell's CPU from the noise (3.19 s against 3.08 s over 5 s).
//! Without the extension such a client is kept anyway, for the kill switch to see the pointer
//! (`cursor.rs`), and captures read its latest picture; the one-frame client here serves the
//! captures the shell's screenshot failed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use deskhand_core::model::{Rect, RgbImage};
use futures::StreamExt;
use pipewire as pw;
use pw::spa;
use zbus::zvariant::{OwnedObjectPath, Value};

use super::{GnomeError, call};

const CAST: &str = "org.gnome.Mutter.ScreenCast";
const CAST_SESSION: &str = "org.gnome.Mutter.ScreenCast.Session";
const CAST_STREAM: &str = "org.gnome.Mutter.ScreenCast.Stream";

/// What a recording does with the pointer (Mutter's `cursor-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CursorMode {
    /// Left out of the frames, as X11's and the shell's screenshots leave it out.
    Hidden = 0,
    /// Left out of the frames and told beside them, as metadata on each buffer: where it is,
    /// or that it is hidden.
    Metadata = 2,
}
/// How long Mutter may take to hand a started recording's stream to PipeWire.
const NODE_TIMEOUT: Duration = Duration::from_secs(3);

/// The place of a frame's red, green and blue bytes in a 4-byte pixel of a video format.
pub(super) fn channel_offsets(format: spa::param::video::VideoFormat) -> Option<[usize; 3]> {
    use spa::param::video::VideoFormat as F;
    match format {
        F::BGRx | F::BGRA => Some([2, 1, 0]),
        F::RGBx | F::RGBA => Some([0, 1, 2]),
        F::xRGB | F::ARGB => Some([1, 2, 3]),
        F::xBGR | F::ABGR => Some([3, 2, 1]),
        _ => None,
    }
}

/// The formats offered to Mutter: every 4-byte RGB order, of which it sends BGRx.
const FORMATS: [spa::param::video::VideoFormat; 8] = {
    use spa::param::video::VideoFormat as F;
    [
        F::BGRx,
        F::BGRA,
        F::RGBx,
        F::RGBA,
        F::xRGB,
        F::ARGB,
        F::xBGR,
        F::ABGR,
    ]
};

/// One monitor's recording: the PipeWire node its frames come out of, and where the monitor is
/// in the screen's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorNode {
    pub connector: String,
    pub area: Rect,
    pub node: u32,
}

/// A screen-cast session recording every monitor. Mutter ends it when the D-Bus connection that
/// made it closes, or on [`Recording::stop`].
pub struct Recording {
    conn: zbus::Connection,
    session: OwnedObjectPath,
    pub monitors: Vec<MonitorNode>,
    cursor: CursorMode,
    timeout: Duration,
}

impl Recording {
    /// Records each of `monitors` (connector and area) and waits for their PipeWire nodes.
    pub async fn start(
        conn: zbus::Connection,
        monitors: &[(String, Rect)],
        cursor: CursorMode,
        timeout: Duration,
    ) -> Result<Self, GnomeError> {
        let session: OwnedObjectPath = call(
            &conn,
            CAST,
            "/org/gnome/Mutter/ScreenCast",
            CAST,
            "CreateSession",
            &(HashMap::<&str, Value>::new(),),
            timeout,
        )
        .await
        .map_err(|err| match err {
            GnomeError::Call { what, source } => {
                GnomeError::NoScreenCast(format!("{what}: {source}"))
            }
            other => other,
        })?;
        let mut recording = Self {
            conn,
            session,
            monitors: Vec::new(),
            cursor,
            timeout,
        };
        let started = recording.record(monitors).await;
        if started.is_err() {
            recording.stop().await;
        }
        started.map(|()| recording)
    }

    async fn record(&mut self, monitors: &[(String, Rect)]) -> Result<(), GnomeError> {
        let mut added = Vec::new();
        for (connector, area) in monitors {
            let options = HashMap::from([("cursor-mode", Value::from(self.cursor as u32))]);
            let stream: OwnedObjectPath = call(
                &self.conn,
                CAST,
                self.session.as_str(),
                CAST_SESSION,
                "RecordMonitor",
                &(connector.as_str(), options),
                self.timeout,
            )
            .await?;
            // Mutter names the node once, after `Start`: listen before starting.
            let proxy = zbus::proxy::Builder::<zbus::Proxy>::new(&self.conn)
                .destination(CAST)
                .and_then(|b| b.path(stream))
                .and_then(|b| b.interface(CAST_STREAM))
                .map(|b| b.cache_properties(zbus::proxy::CacheProperties::No))
                .map_err(|source| GnomeError::Call {
                    what: format!("{CAST_STREAM} of {connector}"),
                    source,
                })?
                .build()
                .await
                .map_err(|source| GnomeError::Call {
                    what: format!("{CAST_STREAM} of {connector}"),
                    source,
                })?;
            let signal = proxy
                .receive_signal("PipeWireStreamAdded")
                .await
                .map_err(|source| GnomeError::Call {
                    what: format!("{CAST_STREAM}.PipeWireStreamAdded of {connector}"),
                    source,
                })?;
            added.push((connector.clone(), *area, signal));
        }
        call::<_, ()>(
            &self.conn,
            CAST,
            self.session.as_str(),
            CAST_SESSION,
            "Start",
            &(),
            self.timeout,
        )
        .await?;
        for (connector, area, mut signal) in added {
            let message = tokio::time::timeout(NODE_TIMEOUT, signal.next())
                .await
                .map_err(|_| GnomeError::Timeout {
                    what: format!("the PipeWire stream of the screen cast of {connector}"),
                    ms: NODE_TIMEOUT.as_millis(),
                })?
                .ok_or_else(|| {
                    GnomeError::BadReply(format!(
                        "the screen cast of {connector} ended before it had a PipeWire stream"
                    ))
                })?;
            let (node,): (u32,) = message.body().deserialize().map_err(|err| {
                GnomeError::BadReply(format!("PipeWireStreamAdded of {connector}: {err}"))
            })?;
            self.monitors.push(MonitorNode {
                connector,
                area,
                node,
            });
        }
        Ok(())
    }

    /// Whether the recording was made with `monitors` (connector and area), as they are now.
    pub fn records(&self, monitors: &[(String, Rect)]) -> bool {
        self.monitors.len() == monitors.len()
            && self
                .monitors
                .iter()
                .zip(monitors)
                .all(|(m, (connector, area))| &m.connector == connector && m.area == *area)
    }

    /// Ends the session; best effort, as Mutter ends it anyway with the connection.
    pub async fn stop(&self) {
        let _ = call::<_, ()>(
            &self.conn,
            CAST,
            self.session.as_str(),
            CAST_SESSION,
            "Stop",
            &(),
            self.timeout,
        )
        .await;
    }

    /// The pixels of `rect` (screen coordinates), clipped to the screen, each monitor's part
    /// read from a frame of its own stream.
    pub async fn capture(&self, rect: Rect, timeout: Duration) -> Result<RgbImage, GnomeError> {
        let (mut image, parts) = layout(&self.monitors, rect)?;
        for part in parts {
            let read = frame_of(part.monitor.node, part.monitor.area, part.within, timeout)
                .await
                .map_err(|why| part.failed(why))?;
            paste(&mut image, &read, part.at);
        }
        Ok(image)
    }
}

/// A monitor's part of a capture.
pub(super) struct Part<'m> {
    pub(super) monitor: &'m MonitorNode,
    /// The monitor's place in the recording's list.
    pub(super) index: usize,
    /// Where in the monitor, in its logical pixels.
    pub(super) within: Rect,
    /// Where in the captured image.
    pub(super) at: (i32, i32),
}

impl Part<'_> {
    pub(super) fn failed(&self, why: String) -> GnomeError {
        GnomeError::NoFrame {
            monitor: self.monitor.connector.clone(),
            why,
        }
    }
}

/// The image of `rect` (screen coordinates) clipped to the screen, black, and each monitor's
/// part of it, to be pasted in.
pub(super) fn layout(
    monitors: &[MonitorNode],
    rect: Rect,
) -> Result<(RgbImage, Vec<Part<'_>>), GnomeError> {
    let screen = super::remote::bounding(monitors.iter().map(|m| m.area));
    let rect = rect.intersect(&screen).ok_or_else(|| {
        GnomeError::OffScreen(format!(
            "{},{} {}x{} (the screen is {}x{})",
            rect.x, rect.y, rect.width, rect.height, screen.width, screen.height
        ))
    })?;
    let image = RgbImage {
        width: rect.width,
        height: rect.height,
        data: vec![0; rect.width as usize * rect.height as usize * 3],
    };
    let parts = monitors
        .iter()
        .enumerate()
        .filter_map(|(index, monitor)| {
            let part = rect.intersect(&monitor.area)?;
            Some(Part {
                monitor,
                index,
                within: Rect::new(
                    part.x - monitor.area.x,
                    part.y - monitor.area.y,
                    part.width,
                    part.height,
                ),
                at: (part.x - rect.x, part.y - rect.y),
            })
        })
        .collect();
    Ok((image, parts))
}

/// Copies `part` into `image` with its top-left corner at `at`.
pub(super) fn paste(image: &mut RgbImage, part: &RgbImage, at: (i32, i32)) {
    let (left, top) = (at.0.max(0) as usize, at.1.max(0) as usize);
    let width = (part.width as usize).min((image.width as usize).saturating_sub(left));
    for row in 0..part.height as usize {
        let y = top + row;
        if y >= image.height as usize {
            break;
        }
        let from = row * part.width as usize * 3;
        let to = (y * image.width as usize + left) * 3;
        image.data[to..to + width * 3].copy_from_slice(&part.data[from..from + width * 3]);
    }
}

/// A frame's pixels as the stream delivered them.
pub(super) struct Frame<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) stride: usize,
    pub(super) channels: [usize; 3],
}

/// The pixels of `within` (logical coordinates in a monitor of `area`'s size) from a frame that
/// may be larger than the monitor's logical size (a scaled monitor): each logical pixel takes
/// the frame pixel at its place.
pub(super) fn crop_to_rgb(frame: &Frame, area: Rect, within: Rect) -> RgbImage {
    let (width, height) = (within.width as usize, within.height as usize);
    let mut data = Vec::with_capacity(width * height * 3);
    let [r, g, b] = frame.channels;
    let scale = |at: u32, logical: u32, physical: u32| -> usize {
        (u64::from(at) * u64::from(physical) / u64::from(logical.max(1))) as usize
    };
    let same_size = frame.width == area.width && frame.height == area.height;
    let (left, top) = (within.x.max(0) as u32, within.y.max(0) as u32);
    for row in 0..within.height {
        let y = top + row;
        let line = if same_size {
            y as usize
        } else {
            scale(y, area.height, frame.height)
        } * frame.stride;
        if same_size {
            let start = line + left as usize * 4;
            for pixel in frame.bytes[start..start + width * 4].chunks_exact(4) {
                data.extend_from_slice(&[pixel[r], pixel[g], pixel[b]]);
            }
        } else {
            for column in 0..within.width {
                let at = line + scale(left + column, area.width, frame.width) * 4;
                let pixel = &frame.bytes[at..at + 4];
                data.extend_from_slice(&[pixel[r], pixel[g], pixel[b]]);
            }
        }
    }
    RgbImage {
        width: within.width,
        height: within.height,
        data,
    }
}

/// Reads one frame of PipeWire node `node` on a thread of its own, which runs the PipeWire loop
/// until the frame came or `timeout` passed.
async fn frame_of(
    node: u32,
    area: Rect,
    within: Rect,
    timeout: Duration,
) -> Result<RgbImage, String> {
    let (send, receive) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("deskhand-pipewire".into())
        .spawn(move || {
            let _ = send.send(read_frame(node, area, within, timeout));
        })
        .map_err(|err| format!("no thread could be started for PipeWire: {err}"))?;
    // The thread ends at its own deadline; this one is a second guard, a little later.
    match tokio::time::timeout(timeout + Duration::from_secs(1), receive).await {
        Ok(Ok(read)) => read,
        Ok(Err(_)) => Err("the PipeWire thread stopped without an answer".into()),
        Err(_) => Err(format!(
            "PipeWire gave no frame within {} ms",
            timeout.as_millis()
        )),
    }
}

/// What the stream's callbacks found.
#[derive(Default)]
struct Progress {
    format: Option<spa::param::video::VideoInfoRaw>,
    frame: Option<Result<RgbImage, String>>,
}

fn read_frame(node: u32, area: Rect, within: Rect, timeout: Duration) -> Result<RgbImage, String> {
    let deadline = Instant::now() + timeout;
    pw::init();
    let failed = |what: &str, err: pw::Error| format!("{what} failed: {err}");
    let main_loop =
        pw::main_loop::MainLoopBox::new(None).map_err(|e| failed("a PipeWire loop", e))?;
    let context = pw::context::ContextBox::new(main_loop.loop_(), None)
        .map_err(|e| failed("a PipeWire context", e))?;
    let core = context
        .connect(None)
        .map_err(|e| failed("connecting to the session's PipeWire daemon", e))?;
    let progress = Rc::new(RefCell::new(Progress::default()));
    let core_errors = progress.clone();
    let _core_listener = core
        .add_listener_local()
        .error(move |_, _, _, message| {
            core_errors
                .borrow_mut()
                .frame
                .get_or_insert_with(|| Err(format!("PipeWire refused the stream: {message}")));
        })
        .register();
    let stream = pw::stream::StreamBox::new(
        &core,
        "deskhand-capture",
        pw::properties::properties! {
            *pw::keys::MEDIA_TYPE => "Video",
            *pw::keys::MEDIA_CATEGORY => "Capture",
            *pw::keys::MEDIA_ROLE => "Screen",
        },
    )
    .map_err(|e| failed("a PipeWire stream", e))?;
    let _listener = stream
        .add_local_listener_with_user_data(progress.clone())
        .state_changed(|_, progress, _, new| {
            if let pw::stream::StreamState::Error(why) = new {
                progress
                    .borrow_mut()
                    .frame
                    .get_or_insert_with(|| Err(format!("the stream failed: {why}")));
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
            progress.borrow_mut().format = Some(format);
            if let Some(buffers) = memory_buffers() {
                let _ =
                    stream
                        .update_params(&mut [spa::pod::Pod::from_bytes(&buffers)
                            .expect("a serialized pod reads back")]);
            }
        })
        .process(move |stream, progress| {
            let Some(mut buffer) = stream.dequeue_buffer() else {
                return;
            };
            let mut progress = progress.borrow_mut();
            if progress.frame.is_some() {
                return;
            }
            let Some(format) = progress.format else {
                return;
            };
            let Some(data) = buffer.datas_mut().first_mut() else {
                return;
            };
            let (offset, size, stride) = {
                let chunk = data.chunk();
                if chunk.flags().contains(spa::buffer::ChunkFlags::CORRUPTED) {
                    return;
                }
                (
                    chunk.offset() as usize,
                    chunk.size() as usize,
                    chunk.stride(),
                )
            };
            // An empty chunk carries no picture (a cursor or damage update alone).
            if size == 0 {
                return;
            }
            progress.frame = Some(frame_pixels(
                data, format, offset, size, stride, area, within,
            ));
        })
        .register()
        .map_err(|e| failed("listening to the PipeWire stream", e))?;
    let format = enum_format().ok_or("the video format offer could not be written")?;
    stream
        .connect(
            spa::utils::Direction::Input,
            Some(node),
            pw::stream::StreamFlags::AUTOCONNECT | pw::stream::StreamFlags::MAP_BUFFERS,
            &mut [spa::pod::Pod::from_bytes(&format).expect("a serialized pod reads back")],
        )
        .map_err(|e| failed(&format!("connecting to PipeWire node {node}"), e))?;
    loop {
        if let Some(frame) = progress.borrow_mut().frame.take() {
            let _ = stream.disconnect();
            return frame;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let _ = stream.disconnect();
            let state = format!("{:?}", stream.state());
            return Err(format!(
                "no frame came within {} ms (the stream is {state})",
                timeout.as_millis()
            ));
        }
        main_loop.loop_().iterate(pw::loop_::Timeout::Finite(
            left.min(Duration::from_millis(50)),
        ));
    }
}

/// The pixels of a mapped buffer, checked against the negotiated format.
fn frame_pixels(
    data: &mut spa::buffer::Data,
    format: spa::param::video::VideoInfoRaw,
    offset: usize,
    size: usize,
    stride: i32,
    area: Rect,
    within: Rect,
) -> Result<RgbImage, String> {
    frame_in(data, format, offset, size, stride).map(|frame| crop_to_rgb(&frame, area, within))
}

/// The picture in a mapped buffer, checked against the negotiated format.
pub(super) fn frame_in<'a>(
    data: &'a mut spa::buffer::Data,
    format: spa::param::video::VideoInfoRaw,
    offset: usize,
    size: usize,
    stride: i32,
) -> Result<Frame<'a>, String> {
    let kind = data.type_();
    if kind != spa::buffer::DataType::MemFd && kind != spa::buffer::DataType::MemPtr {
        return Err(format!("the stream sent {kind:?} buffers, not memory"));
    }
    let channels = channel_offsets(format.format())
        .ok_or_else(|| format!("the stream sent {:?} pixels", format.format()))?;
    let size_of = format.size();
    let stride = if stride > 0 {
        stride as usize
    } else {
        size_of.width as usize * 4
    };
    let bytes = data.data().ok_or("the stream's buffer is not mapped")?;
    let needed = stride * size_of.height.saturating_sub(1) as usize + size_of.width as usize * 4;
    let bytes = bytes
        .get(offset..offset + size.min(bytes.len() - offset.min(bytes.len())))
        .filter(|frame| frame.len() >= needed)
        .ok_or_else(|| {
            format!(
                "the stream's frame holds {size} bytes, fewer than a {}x{} picture needs",
                size_of.width, size_of.height
            )
        })?;
    Ok(Frame {
        bytes,
        width: size_of.width,
        height: size_of.height,
        stride,
        channels,
    })
}

pub(super) fn serialize(object: spa::pod::Object) -> Option<Vec<u8>> {
    spa::pod::serialize::PodSerializer::serialize(
        std::io::Cursor::new(Vec::new()),
        &spa::pod::Value::Object(object),
    )
    .ok()
    .map(|(bytes, _)| bytes.into_inner())
}

/// Raw video in any 4-byte RGB order, of any size and rate: the stream says which.
pub(super) fn enum_format() -> Option<Vec<u8>> {
    use spa::param::format::{FormatProperties, MediaSubtype, MediaType};
    use spa::pod::{ChoiceValue, Property, PropertyFlags, Value};
    use spa::utils::{Choice, ChoiceEnum, ChoiceFlags, Fraction, Id, Rectangle};
    let property = |key: FormatProperties, value: Value| Property {
        key: key.as_raw(),
        flags: PropertyFlags::empty(),
        value,
    };
    serialize(spa::pod::Object {
        type_: spa::utils::SpaTypes::ObjectParamFormat.as_raw(),
        id: spa::param::ParamType::EnumFormat.as_raw(),
        properties: vec![
            property(
                FormatProperties::MediaType,
                Value::Id(Id(MediaType::Video.as_raw())),
            ),
            property(
                FormatProperties::MediaSubtype,
                Value::Id(Id(MediaSubtype::Raw.as_raw())),
            ),
            property(
                FormatProperties::VideoFormat,
                Value::Choice(ChoiceValue::Id(Choice(
                    ChoiceFlags::empty(),
                    ChoiceEnum::Enum {
                        default: Id(FORMATS[0].as_raw()),
                        alternatives: FORMATS.iter().map(|f| Id(f.as_raw())).collect(),
                    },
                ))),
            ),
            property(
                FormatProperties::VideoSize,
                Value::Choice(ChoiceValue::Rectangle(Choice(
                    ChoiceFlags::empty(),
                    ChoiceEnum::Range {
                        default: Rectangle {
                            width: 1280,
                            height: 800,
                        },
                        min: Rectangle {
                            width: 1,
                            height: 1,
                        },
                        max: Rectangle {
                            width: 16384,
                            height: 16384,
                        },
                    },
                ))),
            ),
            property(
                FormatProperties::VideoFramerate,
                Value::Choice(ChoiceValue::Fraction(Choice(
                    ChoiceFlags::empty(),
                    ChoiceEnum::Range {
                        default: Fraction { num: 0, denom: 1 },
                        min: Fraction { num: 0, denom: 1 },
                        max: Fraction {
                            num: 1000,
                            denom: 1,
                        },
                    },
                ))),
            ),
        ],
    })
}

/// Buffers in shared memory only: a DMA-BUF would need a GPU to read, and headless Mutter may
/// have none.
pub(super) fn memory_buffers() -> Option<Vec<u8>> {
    use spa::pod::{ChoiceValue, Property, PropertyFlags, Value};
    use spa::utils::{Choice, ChoiceEnum, ChoiceFlags};
    let memory = (1 << spa::sys::SPA_DATA_MemFd) | (1 << spa::sys::SPA_DATA_MemPtr);
    serialize(spa::pod::Object {
        type_: spa::utils::SpaTypes::ObjectParamBuffers.as_raw(),
        id: spa::param::ParamType::Buffers.as_raw(),
        properties: vec![Property {
            key: spa::sys::SPA_PARAM_BUFFERS_dataType,
            flags: PropertyFlags::empty(),
            value: Value::Choice(ChoiceValue::Int(Choice(
                ChoiceFlags::empty(),
                ChoiceEnum::Flags {
                    default: memory,
                    flags: Vec::new(),
                },
            ))),
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_bytes(width: u32, height: u32, stride: usize) -> Vec<u8> {
        let mut bytes = vec![0xEE; stride * height as usize];
        for y in 0..height as usize {
            for x in 0..width as usize {
                // BGRx: blue = x, green = y, red = 200.
                bytes[y * stride + x * 4..y * stride + x * 4 + 4]
                    .copy_from_slice(&[x as u8, y as u8, 200, 0xFF]);
            }
        }
        bytes
    }

    #[test]
    fn a_region_of_a_bgrx_frame_with_padded_rows_becomes_rgb() {
        let bytes = frame_bytes(8, 4, 40);
        let frame = Frame {
            bytes: &bytes,
            width: 8,
            height: 4,
            stride: 40,
            channels: channel_offsets(spa::param::video::VideoFormat::BGRx).unwrap(),
        };
        let image = crop_to_rgb(&frame, Rect::new(0, 0, 8, 4), Rect::new(2, 1, 3, 2));
        assert_eq!((image.width, image.height), (3, 2));
        assert_eq!(&image.data[..3], &[200, 1, 2]);
        assert_eq!(&image.data[15..], &[200, 2, 4]);
    }

    #[test]
    fn a_scaled_monitor_is_read_at_its_logical_size() {
        let bytes = frame_bytes(8, 4, 32);
        let frame = Frame {
            bytes: &bytes,
            width: 8,
            height: 4,
            stride: 32,
            channels: channel_offsets(spa::param::video::VideoFormat::BGRx).unwrap(),
        };
        let image = crop_to_rgb(&frame, Rect::new(100, 0, 4, 2), Rect::new(0, 0, 4, 2));
        assert_eq!((image.width, image.height), (4, 2));
        assert_eq!(&image.data[3..6], &[200, 0, 2]);
        assert_eq!(&image.data[12..15], &[200, 2, 0]);
    }

    #[test]
    fn each_rgb_order_is_read_by_its_own_offsets() {
        use spa::param::video::VideoFormat as F;
        assert_eq!(channel_offsets(F::RGBA), Some([0, 1, 2]));
        assert_eq!(channel_offsets(F::xBGR), Some([3, 2, 1]));
        assert_eq!(channel_offsets(F::NV12), None);
        assert!(FORMATS.iter().all(|f| channel_offsets(*f).is_some()));
    }

    #[test]
    fn parts_of_two_monitors_are_pasted_side_by_side() {
        let mut image = RgbImage {
            width: 4,
            height: 1,
            data: vec![0; 12],
        };
        let left = RgbImage {
            width: 2,
            height: 1,
            data: vec![1; 6],
        };
        let right = RgbImage {
            width: 2,
            height: 1,
            data: vec![2; 6],
        };
        paste(&mut image, &left, (0, 0));
        paste(&mut image, &right, (2, 0));
        assert_eq!(image.data, vec![1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    }

    #[test]
    fn the_offers_to_pipewire_serialize() {
        assert!(enum_format().is_some_and(|pod| spa::pod::Pod::from_bytes(&pod).is_some()));
        assert!(memory_buffers().is_some_and(|pod| spa::pod::Pod::from_bytes(&pod).is_some()));
    }
}
