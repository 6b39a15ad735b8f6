//! `--record`, `deskhand replay` and `deskhand report`: the binary's side of deskhand-record.

use std::path::{Path, PathBuf};

use anyhow::Context;

use deskhand_core::Config;
use deskhand_record::replay::{Options, ReplayError};
use deskhand_record::{DEFAULT_CAP_BYTES, Recorder, Recording};

use crate::args::ReplayArgs;

/// The folder `--record DIR` names, else `$DESKHAND_RECORD`.
pub fn folder(dir: Option<PathBuf>) -> Option<PathBuf> {
    dir.or_else(|| {
        std::env::var_os("DESKHAND_RECORD")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
    })
}

/// The bytes one recording may take: `$DESKHAND_RECORD_CAP_MB`, else the default.
pub fn cap() -> anyhow::Result<u64> {
    match std::env::var("DESKHAND_RECORD_CAP_MB") {
        Ok(mb) => mb
            .trim()
            .parse::<u64>()
            .map(|mb| mb * 1024 * 1024)
            .with_context(|| {
                format!("DESKHAND_RECORD_CAP_MB is {mb:?}, not a whole number of megabytes")
            }),
        Err(_) => Ok(DEFAULT_CAP_BYTES),
    }
}

/// The recorder `--record DIR` (else `$DESKHAND_RECORD`) asks for, opened before anything runs,
/// so a folder that cannot be one fails the command at once. `$DESKHAND_RECORD_CAP_MB` caps it.
pub fn recorder(dir: Option<PathBuf>) -> anyhow::Result<Option<Recorder>> {
    let Some(dir) = folder(dir) else {
        return Ok(None);
    };
    Ok(Some(Recorder::open(&dir, cap()?)?))
}

/// Where an HTTP server records its sessions, one folder each under `root`: made and checked
/// writable before the server starts, so a bad folder stops it at once.
pub fn sessions_root(dir: Option<PathBuf>) -> anyhow::Result<Option<deskhand_mcp::http::RecordTo>> {
    let Some(root) = folder(dir) else {
        return Ok(None);
    };
    std::fs::create_dir_all(&root)
        .and_then(|()| {
            let probe = root.join(".deskhand-writable");
            std::fs::write(&probe, b"")?;
            std::fs::remove_file(&probe)
        })
        .with_context(|| {
            format!(
                "{} cannot hold the sessions' recordings: it cannot be created or written; give --record a folder you can write",
                root.display()
            )
        })?;
    Ok(Some(deskhand_mcp::http::RecordTo { root, cap: cap()? }))
}

/// `deskhand replay DIR`: 0 when every step ran as recorded, 1 when it stopped.
pub fn replay(args: ReplayArgs) -> anyhow::Result<u8> {
    let recording = Recording::open(&args.dir)?;
    if args.as_batch {
        let batch = deskhand_record::replay::as_batch(&recording).map_err(anyhow::Error::msg)?;
        for left_out in &batch.left_out {
            eprintln!("# {left_out}");
        }
        println!("{}", batch.call);
        return Ok(0);
    }
    // Opened before anything runs, so a folder that cannot be one fails at once.
    let record = match &args.record {
        Some(dir) => Some(Recorder::open_replay(dir, cap()?, &args.dir)?),
        None => None,
    };
    let options = Options {
        dry_run: args.dry_run,
        wait: std::time::Duration::from_secs(args.wait),
        record: record.clone(),
    };
    let (policy, audit) = crate::safety::load(&args.safety)?;
    let config = Config {
        policy,
        audit,
        memory: crate::safety::open_memory(&args.safety)?,
        ocr: crate::platform::text_reader(),
        ..Config::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime failed")?;
    let mut lines = Vec::new();
    let result = runtime.block_on(async {
        let backend = std::sync::Arc::new(
            crate::platform::connect().map_err(|err| anyhow::anyhow!(err.message))?,
        );
        let mut log = |line: &str| {
            println!("{line}");
            lines.push(line.to_owned());
        };
        let result =
            deskhand_record::replay::replay(&backend, &config, &recording, &options, &mut log)
                .await;
        if let Some(record) = &record {
            record.flush().await;
        }
        Ok::<_, anyhow::Error>(result)
    })?;
    let verdicts = deskhand_record::replay::verdicts(&recording, &lines, &result);
    for verdict in &verdicts {
        println!("{verdict}");
    }
    if let Some(record) = &record
        && !verdicts.is_empty()
    {
        record.write_verdicts(&verdicts)?;
    }
    match result {
        Ok(replayed) => {
            let what = if args.dry_run { "resolved" } else { "replayed" };
            println!("{what} all {} steps", replayed.lines.len());
            Ok(0)
        }
        Err(err @ ReplayError::Stopped { .. }) => {
            println!("{err}");
            Ok(1)
        }
        Err(err) => Err(err.into()),
    }
}

/// `deskhand report DIR [-o FILE]`: writes the page and prints its path.
pub fn report(dir: &Path, output: Option<PathBuf>) -> anyhow::Result<u8> {
    let recording = Recording::open(dir)?;
    let tokenizer =
        tiktoken_rs::o200k_base().context("loading the o200k_base vocabulary failed")?;
    let count = |text: &str| tokenizer.encode_ordinary(text).len();
    let page = deskhand_record::report::html(&recording, &count);
    let path = output.unwrap_or_else(|| dir.join("report.html"));
    std::fs::write(&path, page)
        .with_context(|| format!("writing the report to {} failed", path.display()))?;
    println!("{}", path.display());
    Ok(0)
}
