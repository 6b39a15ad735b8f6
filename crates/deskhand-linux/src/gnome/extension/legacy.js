// GNOME Shell 42 to 44 load extensions as scripts with `imports`.
const { GLib, Gio, Meta, Shell, St } = imports.gi;
const Main = imports.ui.main;
