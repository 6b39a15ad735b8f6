//! What a live view's browser sends the VNC server, message by message, so that its keys,
//! pointer, clipboard and screen-size requests reach the desktop only while an operator holds
//! it: the server decides, whatever the page's script says. The browser's stream is cut into
//! the RFB 3.7/3.8 client messages (RFC 6143, and the extensions noVNC sends); anything else
//! ends the connection, since a stream that cannot be framed cannot be filtered.

/// Why a viewer's stream was cut off.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RfbError {
    #[error("the viewer speaks RFB {0:?}, and only 3.7 and 3.8 are let through")]
    Version(String),
    #[error(
        "the viewer chose security type {0}, and only None and VNC authentication are let through"
    )]
    Security(u8),
    #[error("the viewer sent message type {0}, which this server does not know how to frame")]
    Unknown(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Version,
    Security,
    Challenge,
    ClientInit,
    Messages,
}

/// The browser-to-server half of one viewer's connection.
#[derive(Debug)]
pub(crate) struct InputGate {
    phase: Phase,
    pending: Vec<u8>,
}

impl Default for InputGate {
    fn default() -> Self {
        Self {
            phase: Phase::Version,
            pending: Vec::new(),
        }
    }
}

/// A client message: its length once enough of it has arrived to tell, and whether it is
/// input to the desktop.
enum Framed {
    Incomplete,
    Whole { len: usize, input: bool },
}

impl InputGate {
    /// Takes what the browser sent and returns the bytes to pass on: every whole message, less
    /// the input ones unless `input_allowed`. A partial message waits for the rest.
    pub(crate) fn feed(&mut self, data: &[u8], input_allowed: bool) -> Result<Vec<u8>, RfbError> {
        self.pending.extend_from_slice(data);
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let rest = &self.pending[at..];
            let (len, pass) = match self.phase {
                Phase::Version => {
                    if rest.len() < 12 {
                        break;
                    }
                    let version = String::from_utf8_lossy(&rest[..12]).into_owned();
                    if !matches!(version.as_str(), "RFB 003.007\n" | "RFB 003.008\n") {
                        return Err(RfbError::Version(version));
                    }
                    self.phase = Phase::Security;
                    (12, true)
                }
                Phase::Security => {
                    let Some(&kind) = rest.first() else { break };
                    self.phase = match kind {
                        1 => Phase::ClientInit,
                        2 => Phase::Challenge,
                        other => return Err(RfbError::Security(other)),
                    };
                    (1, true)
                }
                Phase::Challenge => {
                    if rest.len() < 16 {
                        break;
                    }
                    self.phase = Phase::ClientInit;
                    (16, true)
                }
                Phase::ClientInit => {
                    if rest.is_empty() {
                        break;
                    }
                    self.phase = Phase::Messages;
                    (1, true)
                }
                Phase::Messages => match frame(rest)? {
                    Framed::Incomplete => break,
                    Framed::Whole { len, input } => (len, input_allowed || !input),
                },
            };
            if pass {
                out.extend_from_slice(&self.pending[at..at + len]);
            }
            at += len;
        }
        self.pending.drain(..at);
        Ok(out)
    }
}

fn u16_at(bytes: &[u8], at: usize) -> Option<usize> {
    Some(usize::from(u16::from_be_bytes(
        bytes.get(at..at + 2)?.try_into().ok()?,
    )))
}

/// One client message at the start of `bytes`.
fn frame(bytes: &[u8]) -> Result<Framed, RfbError> {
    let Some(&kind) = bytes.first() else {
        return Ok(Framed::Incomplete);
    };
    let sized = |len: Option<usize>, input: bool| match len {
        Some(len) if bytes.len() >= len => Framed::Whole { len, input },
        _ => Framed::Incomplete,
    };
    Ok(match kind {
        // SetPixelFormat, FramebufferUpdateRequest, EnableContinuousUpdates.
        0 => sized(Some(20), false),
        3 | 150 => sized(Some(10), false),
        // SetEncodings: a count of 4-byte encodings.
        2 => sized(u16_at(bytes, 2).map(|n| 4 + 4 * n), false),
        // KeyEvent, PointerEvent.
        4 => sized(Some(8), true),
        5 => sized(Some(6), true),
        // ClientCutText: a signed length, negative for the extended clipboard's messages.
        6 => {
            let len = bytes.get(4..8).map(|raw| {
                let signed = i32::from_be_bytes(raw.try_into().unwrap_or_default());
                8 + signed.unsigned_abs() as usize
            });
            sized(len, true)
        }
        // ClientFence: a payload of at most 64 bytes.
        248 => sized(bytes.get(8).map(|&n| 9 + usize::from(n)), false),
        // xvp (shut down, reboot): acting on the machine.
        250 => sized(Some(4), true),
        // SetDesktopSize: 16 bytes a screen; changes the desktop's size.
        251 => sized(bytes.get(6).map(|&n| 8 + 16 * usize::from(n)), true),
        // QEMU's extended key event, the one QEMU message noVNC sends.
        255 => match bytes.get(1) {
            None => Framed::Incomplete,
            Some(0) => sized(Some(12), true),
            Some(_) => return Err(RfbError::Unknown(kind)),
        },
        other => return Err(RfbError::Unknown(other)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handshake(security: u8) -> Vec<u8> {
        let mut bytes = b"RFB 003.008\n".to_vec();
        bytes.push(security);
        if security == 2 {
            bytes.extend([7u8; 16]);
        }
        bytes.push(1);
        bytes
    }

    const POINTER: [u8; 6] = [5, 1, 0, 10, 0, 20];
    const KEY: [u8; 8] = [4, 1, 0, 0, 0, 0, 0, 0x37];
    const UPDATE: [u8; 10] = [3, 1, 0, 0, 0, 0, 4, 0, 3, 0];

    #[test]
    fn input_passes_only_while_allowed_and_the_rest_always() {
        let mut stream = handshake(2);
        let setup = stream.len();
        stream.extend([2, 0, 0, 2, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0x21]);
        stream.extend(UPDATE);
        stream.extend(POINTER);
        stream.extend(KEY);
        stream.extend([6, 0, 0, 0, 0, 0, 0, 2, b'h', b'i']);
        stream.extend([255, 0, 0, 1, 0, 0, 0, 0x37, 0, 0, 0, 8]);
        stream.extend([251, 0, 4, 0, 3, 0, 1, 0]);
        stream.extend([0u8; 16]);
        let watched = InputGate::default().feed(&stream, false).unwrap();
        assert_eq!(watched.len(), setup + 12 + UPDATE.len());
        assert_eq!(&watched[setup + 12..], &UPDATE);
        let held = InputGate::default().feed(&stream, true).unwrap();
        assert_eq!(held, stream);
    }

    #[test]
    fn a_message_split_across_frames_is_judged_whole() {
        let mut gate = InputGate::default();
        let setup = handshake(1);
        assert_eq!(gate.feed(&setup[..5], true).unwrap(), b"");
        assert_eq!(gate.feed(&setup[5..], true).unwrap(), setup);
        assert_eq!(gate.feed(&POINTER[..3], true).unwrap(), b"");
        assert_eq!(gate.feed(&POINTER[3..], true).unwrap(), POINTER);
        // The extended clipboard's negative length, and a fence's payload.
        let mut more = vec![6, 0, 0, 0, 0xff, 0xff, 0xff, 0xfc, 1, 2, 3, 4];
        more.extend([248, 0, 0, 0, 0, 0, 0, 1, 2, 9, 9]);
        assert_eq!(gate.feed(&more, false).unwrap(), &more[12..]);
    }

    #[test]
    fn what_cannot_be_framed_ends_the_stream() {
        assert!(matches!(
            InputGate::default().feed(b"RFB 003.003\n", false),
            Err(RfbError::Version(_))
        ));
        let mut tight = b"RFB 003.008\n".to_vec();
        tight.push(16);
        assert_eq!(
            InputGate::default().feed(&tight, false),
            Err(RfbError::Security(16))
        );
        let mut odd = handshake(1);
        odd.push(42);
        assert_eq!(
            InputGate::default().feed(&odd, true),
            Err(RfbError::Unknown(42))
        );
    }
}
