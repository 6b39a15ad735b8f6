//! The stdio transport: one JSON-RPC message a line, as rmcp's own, except that a message too
//! long to read is answered rather than dropped.
//!
//! rmcp's `AsyncRwTransport` skips a line past its limit with nothing but a log line, so the
//! client of a request that long waits for an answer until its own timeout. Here such a line is
//! still read past without being kept, and gets a JSON-RPC error naming the limit, with the id
//! that the message's first or last bytes give. Every line within the limit is parsed by rmcp's
//! own codec, so what rmcp accepts, and what it ignores, is unchanged; JSON that is no message
//! rmcp takes is answered as rmcp answers it, with its id too and a sentence.

use std::io;
use std::sync::Arc;

use deskhand_core::action::{MAX_CLIPBOARD_CHARS, MAX_TEXT_CHARS};
use futures::{SinkExt, StreamExt};
use rmcp::RoleServer;
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{JsonRpcMessageCodec, JsonRpcMessageCodecError};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Mutex;
use tokio_util::bytes::{Buf, BytesMut};
use tokio_util::codec::{Decoder, FramedRead, FramedWrite};

/// The longest message deskhand reads, in bytes.
///
/// The longest call deskhand takes is a `clipboard` write of `MAX_CLIPBOARD_CHARS` characters:
/// up to 4 bytes each in UTF-8, and up to 12 from a client that writes every character outside
/// ASCII as `\u` escapes (two for one beyond the BMP, as Python's `json` does by default), so
/// 12 MB and the envelope at worst; `type` takes far less. 16 MiB holds that, and is the limit
/// rmcp itself reads over stdio and HTTP, so a client meets the same limit either way. Anything
/// longer could only be a call deskhand refuses anyway (or a batch of several clipboard writes,
/// of which only the last would stay on the clipboard). A message is held whole to be parsed,
/// so the limit is also what one message can cost in memory, whatever a client sends.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

// The longest call must fit, with room for the envelope.
const _: () = assert!(MAX_CLIPBOARD_CHARS * 12 + 64 * 1024 <= MAX_MESSAGE_BYTES);

/// How much of each end of a too-long message is kept to find its id: the envelope's members
/// around the long `params` are a few dozen bytes.
const EDGE_BYTES: usize = 4096;

type Writer<W> = FramedWrite<W, JsonRpcMessageCodec<TxJsonRpcMessage<RoleServer>>>;

/// A server transport over a byte stream pair, such as stdin and stdout.
pub struct LineTransport<R, W> {
    read: FramedRead<R, Lines>,
    // Shared with each `send`, whose future must outlive the borrow of the transport.
    write: Arc<Mutex<Option<Writer<W>>>>,
    owed: Option<Owed>,
}

/// An answer `receive` writes itself, to a message it does not pass on.
enum Owed {
    Answer(Box<TxJsonRpcMessage<RoleServer>>),
    /// Written, and still to be flushed.
    Flush,
}

impl<R: AsyncRead, W: AsyncWrite> LineTransport<R, W> {
    pub fn new(read: R, write: W) -> Self {
        Self {
            read: FramedRead::new(read, Lines::new(MAX_MESSAGE_BYTES)),
            write: Arc::new(Mutex::new(Some(FramedWrite::new(
                write,
                JsonRpcMessageCodec::default(),
            )))),
            owed: None,
        }
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Writes what is owed. The service drops `receive` whenever something else is ready first
    /// and calls it again, so what is owed stays in `self.owed` until it is written and flushed.
    async fn pay(&mut self) -> io::Result<()> {
        let Some(owed) = &self.owed else {
            return Ok(());
        };
        let mut write = self.write.lock().await;
        let write = write.as_mut().ok_or_else(closed)?;
        if let Owed::Answer(answer) = owed {
            write.feed(answer.as_ref().clone()).await?;
            self.owed = Some(Owed::Flush);
        }
        write.flush().await?;
        self.owed = None;
        Ok(())
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut write = write.lock().await;
            let write = write.as_mut().ok_or_else(closed)?;
            write.send(item).await.map_err(io::Error::from)
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.pay().await.ok()?;
            let answer = match self.read.next().await?.ok()? {
                Frame::Line(line) => match parse(line) {
                    Parsed::Message(message) => return Some(message),
                    Parsed::Skipped => continue,
                    Parsed::Invalid(answer) => answer,
                },
                Frame::TooLong { bytes, id } => too_long(bytes, id),
            };
            self.owed = Some(Owed::Answer(Box::new(answer)));
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        // The client reads the end of the server's output as the server being gone.
        drop(self.write.lock().await.take());
        Ok(())
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "the MCP transport is closed")
}

enum Parsed {
    Message(RxJsonRpcMessage<RoleServer>),
    /// Nothing to pass on, nor to answer.
    Skipped,
    Invalid(TxJsonRpcMessage<RoleServer>),
}

fn parse(mut line: BytesMut) -> Parsed {
    // The codec takes the line out of the buffer, so the id an answer may need is found first.
    let id = id_in(&line);
    let mut codec = JsonRpcMessageCodec::<RxJsonRpcMessage<RoleServer>>::default();
    match codec.decode(&mut line) {
        Ok(Some(message)) => Parsed::Message(message),
        // A notification of a method MCP does not have, which rmcp ignores.
        Ok(None) => Parsed::Skipped,
        Err(JsonRpcMessageCodecError::Serde(err))
            if err.classify() == serde_json::error::Category::Data =>
        {
            Parsed::Invalid(TxJsonRpcMessage::<RoleServer>::error(
                ErrorData::invalid_request(
                    format!(
                        "the message is JSON but no JSON-RPC message deskhand takes ({err}), so nothing was done; send a request as {{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {{\"name\": \"desktop\", \"arguments\": {{…}}}}}}"
                    ),
                    None,
                ),
                id,
            ))
        }
        // Bytes that are not JSON go unanswered, as in rmcp and the other MCP SDKs: an answer to
        // garbage could start an endless exchange with a peer that echoes what it cannot read.
        Err(_) => Parsed::Skipped,
    }
}

fn too_long(bytes: usize, id: Option<RequestId>) -> TxJsonRpcMessage<RoleServer> {
    let mib = MAX_MESSAGE_BYTES / (1024 * 1024);
    TxJsonRpcMessage::<RoleServer>::error(
        ErrorData::invalid_request(
            format!(
                "the message is {bytes} bytes, more than the {MAX_MESSAGE_BYTES} bytes ({mib} MiB) deskhand reads as one message, so it was not read and nothing was done; send less than {mib} MiB in a message: text goes in parts, up to {MAX_TEXT_CHARS} characters a `type` call and {MAX_CLIPBOARD_CHARS} a `clipboard` call"
            ),
            Some(json!({"bytes": bytes, "max_bytes": MAX_MESSAGE_BYTES})),
        ),
        id,
    )
}

enum Frame {
    /// A whole line, with its newline.
    Line(BytesMut),
    /// A line longer than the limit, read past.
    TooLong { bytes: usize, id: Option<RequestId> },
}

/// Cuts the input into lines of at most `max` bytes (besides the newline); a longer line is
/// consumed as it comes, so the buffer never holds much more than `max` bytes.
struct Lines {
    max: usize,
    /// How far the buffer has been searched for a newline: each byte is looked at once.
    searched: usize,
    too_long: Option<TooLong>,
}

/// What is kept of a line being read past.
struct TooLong {
    bytes: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Lines {
    fn new(max: usize) -> Self {
        Self {
            max,
            searched: 0,
            too_long: None,
        }
    }
}

impl TooLong {
    fn read_past(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len();
        let more = EDGE_BYTES.saturating_sub(self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..more]);
        let keep = bytes.len().min(EDGE_BYTES);
        self.tail.extend_from_slice(&bytes[bytes.len() - keep..]);
        let extra = self.tail.len().saturating_sub(EDGE_BYTES);
        self.tail.drain(..extra);
    }
}

impl Decoder for Lines {
    type Item = Frame;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        let too_long = match &mut self.too_long {
            Some(too_long) => too_long,
            None => {
                let within = buf.len().min(self.max.saturating_add(1));
                if let Some(at) = newline(&buf[self.searched..within]) {
                    let end = self.searched + at + 1;
                    self.searched = 0;
                    return Ok(Some(Frame::Line(buf.split_to(end))));
                }
                if buf.len() <= self.max {
                    self.searched = buf.len();
                    return Ok(None);
                }
                self.searched = 0;
                self.too_long.insert(TooLong {
                    bytes: 0,
                    head: Vec::new(),
                    tail: Vec::new(),
                })
            }
        };
        let end = newline(buf);
        let content = end.unwrap_or(buf.len());
        too_long.read_past(&buf[..content]);
        buf.advance(end.map_or(content, |at| at + 1));
        if end.is_none() {
            return Ok(None);
        }
        Ok(self.too_long.take().map(|line| Frame::TooLong {
            bytes: line.bytes,
            id: id_at_start(&line.head).or_else(|| id_at_end(&line.tail)),
        }))
    }
}

fn newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

/// The id of a whole line, when it is within reach of either end.
fn id_in(line: &[u8]) -> Option<RequestId> {
    let head = &line[..line.len().min(EDGE_BYTES)];
    let tail = &line[line.len().saturating_sub(EDGE_BYTES)..];
    id_at_start(head).or_else(|| id_at_end(tail))
}

/// The id of a message from its first bytes: the member `"id"` of the outermost object, read
/// forward from its `{` until the bytes end. rmcp and Python's SDK write it before `params`.
fn id_at_start(head: &[u8]) -> Option<RequestId> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut at = skip_space(head, 0);
    if head.get(at) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    while let Some(&byte) = head.get(at) {
        match byte {
            b'"' => {
                let end = string_end(head, at)?;
                if depth == 1
                    && let Some(id) = member_id(head, at + 1, end)
                {
                    return id;
                }
                at = end;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The id of a message from its last bytes, read backward from its closing `}` until the bytes
/// end. The MCP TypeScript SDK writes `id` after `params`.
fn id_at_end(tail: &[u8]) -> Option<RequestId> {
    let mut at = tail.iter().rposition(|b| !b.is_ascii_whitespace())?;
    if tail[at] != b'}' {
        return None;
    }
    let mut depth = 0usize;
    loop {
        match tail[at] {
            b'"' => {
                let start = string_start(tail, at)?;
                if depth == 1
                    && let Some(id) = member_id(tail, start + 1, at)
                {
                    return id;
                }
                at = start;
            }
            b'}' | b']' => depth += 1,
            b'{' | b'[' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            _ => {}
        }
        at = at.checked_sub(1)?;
    }
}

/// For the string between `start` and the quote at `end`: when it is the key `id`, the id its
/// value gives, if any; `None` when it is another key or a value.
fn member_id(bytes: &[u8], start: usize, end: usize) -> Option<Option<RequestId>> {
    let colon = skip_space(bytes, end + 1);
    (&bytes[start..end] == b"id" && bytes.get(colon) == Some(&b':'))
        .then(|| scalar_id(&bytes[colon + 1..]))
}

/// A number or a string at the start of `bytes`, only when it ends before they do: a number cut
/// short would be another id.
fn scalar_id(bytes: &[u8]) -> Option<RequestId> {
    let start = skip_space(bytes, 0);
    let end = match bytes.get(start)? {
        b'"' => string_end(bytes, start)? + 1,
        _ => {
            start
                + bytes[start..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}') || b.is_ascii_whitespace())?
        }
    };
    serde_json::from_slice(&bytes[start..end]).ok()
}

fn skip_space(bytes: &[u8], from: usize) -> usize {
    from + bytes[from.min(bytes.len())..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count()
}

/// The closing quote of the string whose opening quote is at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    loop {
        match bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
}

/// The opening quote of the string whose closing quote is at `close`: the nearest quote before
/// it that an even number of backslashes precedes.
fn string_start(bytes: &[u8], close: usize) -> Option<usize> {
    let mut at = close;
    loop {
        at = bytes[..at].iter().rposition(|b| *b == b'"')?;
        let escapes = bytes[..at]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        if escapes % 2 == 0 {
            return Some(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn id(value: serde_json::Value) -> Option<RequestId> {
        Some(serde_json::from_value(value).expect("an id"))
    }

    /// Feeds `input` to a decoder of lines of at most `max` bytes in pieces of `piece` bytes, as
    /// reads would bring it, and checks that the buffer stays bounded.
    #[derive(Debug, PartialEq)]
    enum Seen {
        Line(Vec<u8>),
        TooLong(usize, Option<RequestId>),
    }

    fn frames(max: usize, input: &[u8], piece: usize) -> Vec<Seen> {
        let mut lines = Lines::new(max);
        let mut buf = BytesMut::new();
        let mut found = Vec::new();
        for chunk in input.chunks(piece) {
            buf.extend_from_slice(chunk);
            while let Some(frame) = lines.decode(&mut buf).expect("decoding never fails") {
                found.push(match frame {
                    Frame::Line(line) => Seen::Line(line.to_vec()),
                    Frame::TooLong { bytes, id } => Seen::TooLong(bytes, id),
                });
            }
            assert!(buf.len() <= max + piece, "{} bytes held", buf.len());
        }
        found
    }

    #[test]
    fn a_line_of_the_limit_passes_and_one_byte_more_is_read_past_with_its_length() {
        let at_limit = r#"{"id":1,"x":"a"}"#;
        assert_eq!(at_limit.len(), 16);
        let input = format!("{at_limit}\n{}\n{{}}\n", r#"{"id":2,"x":"aa"}"#);
        for piece in [1, 5, 64] {
            assert_eq!(
                frames(16, input.as_bytes(), piece),
                vec![
                    Seen::Line(format!("{at_limit}\n").into_bytes()),
                    Seen::TooLong(17, id(json!(2))),
                    Seen::Line(b"{}\n".to_vec()),
                ],
                "in pieces of {piece}"
            );
        }
    }

    #[test]
    fn a_long_line_is_consumed_as_it_comes_and_its_id_found_at_either_end() {
        let long = "a".repeat(100_000);
        let first = format!(r#"{{"jsonrpc":"2.0","id":"x","params":{{"text":"{long}"}}}}"#);
        let last = format!(r#"{{"params":{{"text":"{long}"}},"jsonrpc":"2.0","id":3}}"#);
        let neither = format!(r#"{{"a":"{long}","id":4,"b":"{long}"}}"#);
        let input = format!("{first}\n{last}\r\n{neither}\n");
        assert_eq!(
            frames(1000, input.as_bytes(), 4096),
            vec![
                Seen::TooLong(first.len(), id(json!("x"))),
                Seen::TooLong(last.len() + 1, id(json!(3))),
                Seen::TooLong(neither.len(), None),
            ]
        );
    }

    #[test]
    fn the_id_is_the_outermost_objects_and_whole() {
        let start = |s: &str| id_at_start(s.as_bytes());
        let end = |s: &str| id_at_end(s.as_bytes());
        assert_eq!(
            start(r#" {"jsonrpc": "2.0", "id" : 12, "method""#),
            id(json!(12))
        );
        assert_eq!(
            start(r#"{"method":"x","id":"a\"b}","params":{"#),
            id(json!("a\"b}"))
        );
        // An id inside `params` is an argument's; one cut off by the end may be another.
        assert_eq!(start(r#"{"params":{"id":5,"text":"aaa"#), None);
        assert_eq!(start(r#"{"jsonrpc":"2.0","id":123"#), None);
        assert_eq!(start(r#"{"jsonrpc":"2.0","id":"12"#), None);
        assert_eq!(start(r#"{"text":"\"id\":6,","id":7,"#), id(json!(7)));
        assert_eq!(start(r#"["id",1]"#), None);

        assert_eq!(
            end("aaa\"}},\"jsonrpc\":\"2.0\",\"id\":3}\r\n"),
            id(json!(3))
        );
        assert_eq!(
            end(r#"aa"},"id":"q\"}","jsonrpc":"2.0"}"#),
            id(json!("q\"}"))
        );
        assert_eq!(end(r#"aa\\"},"id":9}"#), id(json!(9)));
        assert_eq!(end(r#"aaa","id":5}}"#), None);
        assert_eq!(end(r#"aaa\",\"id\":5}"#), None);
        assert_eq!(end(r#"aaa","id":null}"#), None);
        assert_eq!(end(r#"aaa","id":1.5}"#), None);
    }

    /// A request as a client may write it: `id` first or last around `params`, a text of any
    /// characters, JSON-escaped, too long for the id to be in reach of the other end.
    fn request() -> impl Strategy<Value = (RequestId, String)> {
        let id = prop_oneof![
            any::<i64>().prop_map(RequestId::Number),
            "\\PC{0,12}".prop_map(|s| RequestId::String(s.into())),
        ];
        (id, "\\PC{0,100}", "\\PC{0,100}", any::<bool>()).prop_map(|(id, start, end, first)| {
            let text = format!("{start}{}{end}", "a".repeat(EDGE_BYTES));
            let id_json = serde_json::to_string(&json!(id)).expect("an id serializes");
            let params =
                json!({"name": "desktop", "arguments": {"action": "clipboard", "text": text}});
            let line = if first {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id_json},"method":"tools/call","params":{params}}}"#
                )
            } else {
                format!(
                    r#"{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":{id_json}}}"#
                )
            };
            (id, line)
        })
    }

    proptest! {
        #[test]
        fn any_lines_in_any_pieces_come_out_whole_or_as_their_length(
            lines in prop::collection::vec(prop::collection::vec(any::<u8>().prop_filter("one line", |b| *b != b'\n'), 0..120), 0..8),
            max in 1usize..64,
            piece in 1usize..100,
        ) {
            let input: Vec<u8> = lines.iter().flat_map(|l| l.iter().copied().chain([b'\n'])).collect();
            let lengths: Vec<_> = frames(max, &input, piece)
                .into_iter()
                .map(|seen| match seen {
                    Seen::Line(line) => Ok(line.len() - 1),
                    Seen::TooLong(bytes, _) => Err(bytes),
                })
                .collect();
            let expected: Vec<_> = lines
                .iter()
                .map(|l| if l.len() <= max { Ok(l.len()) } else { Err(l.len()) })
                .collect();
            prop_assert_eq!(lengths, expected);
        }

        #[test]
        fn an_oversized_request_names_its_id_wherever_the_client_puts_it((id, line) in request()) {
            let input = format!("{line}\n");
            prop_assert_eq!(frames(8, input.as_bytes(), 7), vec![Seen::TooLong(line.len(), Some(id))]);
        }

        #[test]
        fn any_bytes_give_an_id_or_none_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            id_at_start(&bytes);
            id_at_end(&bytes);
        }
    }
}
