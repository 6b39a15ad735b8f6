//! Linux backend: X11 for windows, input and pixels; AT-SPI2 for accessibility.
pub mod desktop;
pub mod x11;
