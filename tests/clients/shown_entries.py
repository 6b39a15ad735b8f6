"""A desktop entry that shows gtk3-widget-factory in menus, for the clients that launch it."""

import os
import pathlib


def shown_entries(folder):
    """A data folder whose desktop entry shows gtk3-widget-factory, for deskhand's `launch`,
    which starts what a menu shows: the package's own entry is hidden from menus. Returns the
    environment that puts it first."""
    applications = pathlib.Path(folder, "applications")
    applications.mkdir()
    (applications / "gtk3-widget-factory.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Widget Factory\nExec=gtk3-widget-factory\n")
    data_dirs = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    return {"XDG_DATA_DIRS": f"{folder}:{data_dirs}"}
