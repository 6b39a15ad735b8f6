//! ScreenCaptureKit is linked weakly on macOS: it exists only from macOS 12.3, deskhand uses it
//! from 14 and `CGWindowListCreateImage` before, and a strong link would keep the binary from
//! starting at all on an older macOS. (The framework crate links it strongly; the linker makes a
//! framework weak when any request for it is.)
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("macos") {
        println!("cargo:rustc-link-arg=-Wl,-weak_framework,ScreenCaptureKit");
    }
}
