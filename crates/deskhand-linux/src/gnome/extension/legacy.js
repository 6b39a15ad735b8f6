// GNOME Shell 42 to 44 load extensions as scripts with `imports`.
const { Gio, Meta, Shell } = imports.gi;
const Main = imports.ui.main;
