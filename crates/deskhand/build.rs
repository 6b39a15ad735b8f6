//! ScreenCaptureKit is linked weakly on macOS: it exists only from macOS 12.3, deskhand uses it
//! from 14 and `CGWindowListCreateImage` before, and a strong link would keep the binary from
//! starting at all on an older macOS. (The framework crate links it strongly; the linker makes a
//! framework weak when any request for it is.)
//!
//! On Windows the executable carries its manifest: per-monitor DPI awareness (v2) from the
//! process's first instruction, so every window, pointer and capture pixel is a physical one on
//! every monitor, whatever ran before deskhand's own call to set it (the doctor checks it).
use embed_manifest::manifest::DpiAwareness;
use embed_manifest::{embed_manifest, new_manifest};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        println!("cargo:rustc-link-arg=-Wl,-weak_framework,ScreenCaptureKit");
    }
    if std::env::var_os("CARGO_CFG_WINDOWS").is_some() {
        embed_manifest(
            new_manifest("Deskhand.Deskhand").dpi_awareness(DpiAwareness::PerMonitorV2Only),
        )
        .expect("the Windows manifest could not be embedded");
    }
}
