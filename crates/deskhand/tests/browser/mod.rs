//! Debian's headless Chromium driven over the DevTools protocol: a page opened, its script's
//! state read, real mouse and key events sent to it, and a screenshot of it as drawn.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One headless Chromium with one page; killed when dropped.
pub struct Browser {
    child: Child,
    page: Socket,
    next_id: u64,
}

/// An RGBA screenshot.
pub struct Shot {
    pub width: usize,
    pub height: usize,
    pub rgba: Vec<u8>,
}

impl Shot {
    /// The mean luminance (0-255) of each cell of a `columns` x `rows` grid over the
    /// rectangle `(x, y, width, height)`.
    pub fn grid(
        &self,
        area: (usize, usize, usize, usize),
        columns: usize,
        rows: usize,
    ) -> Vec<f64> {
        let (x0, y0, width, height) = area;
        let mut cells = vec![(0.0, 0usize); columns * rows];
        for y in y0..(y0 + height).min(self.height) {
            for x in x0..(x0 + width).min(self.width) {
                let at = (y * self.width + x) * 4;
                let pixel = &self.rgba[at..at + 3];
                let luminance = 0.299 * f64::from(pixel[0])
                    + 0.587 * f64::from(pixel[1])
                    + 0.114 * f64::from(pixel[2]);
                let cell = ((y - y0) * rows / height) * columns + (x - x0) * columns / width;
                cells[cell].0 += luminance;
                cells[cell].1 += 1;
            }
        }
        cells
            .into_iter()
            .map(|(sum, count)| sum / count.max(1) as f64)
            .collect()
    }
}

/// Decodes a PNG into RGBA.
pub fn decode_png(bytes: &[u8]) -> Shot {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buffer = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buffer).expect("a frame");
    let channels = info.color_type.samples();
    let rgba = buffer[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|pixel| match channels {
            4 => [pixel[0], pixel[1], pixel[2], pixel[3]],
            3 => [pixel[0], pixel[1], pixel[2], 255],
            _ => [pixel[0], pixel[0], pixel[0], 255],
        })
        .collect();
    Shot {
        width: info.width as usize,
        height: info.height as usize,
        rgba,
    }
}

impl Browser {
    /// Starts Chromium with a profile in `profile` and connects to its first page.
    pub async fn start(mut command: Command, profile: &Path) -> Browser {
        let _ = std::fs::remove_dir_all(profile);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args([
                "--remote-debugging-port=0",
                "--window-size=1280,800",
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("starting chromium");
        let stderr = child.stderr.take().expect("piped");
        let (found, listening) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = found.send(url.to_owned());
                }
            }
        });
        let browser_url = listening
            .recv_timeout(Duration::from_secs(60))
            .expect("Chromium's DevTools never listened");
        let port = browser_url
            .trim_start_matches("ws://127.0.0.1:")
            .split('/')
            .next()
            .expect("a port")
            .to_owned();
        let targets: Value = reqwest::get(format!("http://127.0.0.1:{port}/json/list"))
            .await
            .expect("DevTools' target list")
            .json()
            .await
            .expect("JSON");
        let page_url = targets
            .as_array()
            .into_iter()
            .flatten()
            .find(|target| target["type"] == "page")
            .and_then(|target| target["webSocketDebuggerUrl"].as_str())
            .unwrap_or_else(|| panic!("no page among {targets}"))
            .to_owned();
        let (page, _) = tokio_tungstenite::connect_async(page_url.as_str())
            .await
            .expect("the page's DevTools socket");
        Browser {
            child,
            page,
            next_id: 1,
        }
    }

    /// One DevTools command; its result.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"id": id, "method": method, "params": params});
        self.page
            .send(Message::Text(request.to_string().into()))
            .await
            .expect("a DevTools command sent");
        let answer = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(message) = self.page.next().await {
                let Ok(Message::Text(text)) = message else {
                    continue;
                };
                let reply: Value = serde_json::from_str(text.as_str()).expect("JSON");
                if reply["id"] == id {
                    return reply;
                }
            }
            panic!("the DevTools socket closed")
        })
        .await
        .unwrap_or_else(|_| panic!("DevTools did not answer {method}"));
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    pub async fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url})).await;
    }

    /// What a JavaScript expression evaluates to in the page.
    pub async fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true in the page, at most `limit`.
    pub async fn wait_for(&mut self, expression: &str, limit: Duration) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < limit {
            if self.eval(expression).await == Value::Bool(true) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }

    /// Waits up to `limit` for `expression` to hold on the page; when it never does, fails with
    /// the page as it is then.
    pub async fn wait_to_show(&mut self, expression: &str, limit: Duration) {
        if !self.wait_for(expression, limit).await {
            panic!(
                "the page never showed `{expression}` within {limit:?}: {}",
                self.eval("document.body.outerHTML").await
            );
        }
    }

    /// A left click at the centre of the element `selector` names, as a person's mouse does.
    pub async fn click(&mut self, selector: &str) {
        let center = self
            .eval(&format!(
                "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
            ))
            .await;
        let (x, y) = (
            center[0].as_f64().expect("x"),
            center[1].as_f64().expect("y"),
        );
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )
            .await;
        }
    }

    /// A digit key pressed and released where the page's focus is.
    pub async fn press_digit(&mut self, digit: char) {
        let code = format!("Digit{digit}");
        let key = digit.to_string();
        let virtual_code = u32::from(digit);
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyDown", "key": key, "code": code, "text": key, "windowsVirtualKeyCode": virtual_code}),
        )
        .await;
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": virtual_code}),
        )
        .await;
    }

    /// The page as drawn, also written to `file` for a person to look at.
    pub async fn screenshot(&mut self, file: &Path) -> Shot {
        use base64::Engine as _;
        let shot = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("image data"))
            .expect("base64");
        std::fs::write(file, &bytes).expect("the page's screenshot written");
        decode_png(&bytes)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
