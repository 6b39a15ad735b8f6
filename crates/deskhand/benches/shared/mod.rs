//! What the benches share: one backend, session and config every timed call goes through, as
//! the MCP server has, the text they type, and their statistics.
#![allow(dead_code)] // Each bench uses a different part.

use std::time::{Duration, Instant};

use deskhand_core::{Config, Reply, Session, execute, parse_call};
use deskhand_linux::LinuxBackend;
use serde_json::Value;

pub const TYPED_CHARS: usize = 1_000;

pub struct Desk {
    pub backend: LinuxBackend,
    pub session: Session,
    pub config: Config,
}

impl Desk {
    pub async fn call(&mut self, args: Value) -> Result<Reply, String> {
        let call = parse_call(args).map_err(|e| e.reply_text())?;
        execute(&self.backend, &mut self.session, &self.config, call)
            .await
            .map_err(|e| e.reply_text().trim_end().to_owned())
    }

    pub async fn timed(&mut self, args: Value) -> Result<(Reply, f64), String> {
        let started = Instant::now();
        let reply = self.call(args).await?;
        Ok((reply, ms(started.elapsed())))
    }
}

/// 1,000 characters of ASCII, accented Latin, Greek, CJK and symbols; `shift` rotates the start
/// so that one run's text (or a stale clipboard) never passes for another's.
pub fn mixed_text(shift: usize) -> String {
    const POOL: &str = "The quick brown fox jumps over 13 lazy dogs; \
        déjà vu à la façade, naïve señor, smörgåsbord Ærø Łódź; \
        Ελληνικά: αβγδε ΩΣΠ; 日本語の文章、中文字符と한국어; \
        → ✓ € © ½ ≠ ∞ ★ ¿¡ «»; ";
    POOL.chars().cycle().skip(shift).take(TYPED_CHARS).collect()
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn median(samples: &[f64]) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}
