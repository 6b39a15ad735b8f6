// deskhand's GNOME Shell extension: what a Wayland client cannot ask the compositor for
// (window frames and buffers, process ids, stacking, focus, geometry, pixels), over D-Bus on the
// session bus as dev.deskhand.Shell. Written by `deskhand gnome-extension install`.

const IFACE = `<node>
  <interface name="dev.deskhand.Shell">
    <property name="Version" type="u" access="read"/>
    <method name="Windows"><arg type="s" direction="out" name="json"/></method>
    <method name="Activate"><arg type="t" direction="in" name="id"/><arg type="b" direction="out" name="found"/></method>
    <method name="Close"><arg type="t" direction="in" name="id"/><arg type="b" direction="out" name="found"/></method>
    <method name="MoveResize">
      <arg type="t" direction="in" name="id"/>
      <arg type="i" direction="in" name="x"/><arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/><arg type="i" direction="in" name="height"/>
      <arg type="b" direction="out" name="found"/>
    </method>
    <method name="SetState"><arg type="t" direction="in" name="id"/><arg type="s" direction="in" name="state"/><arg type="b" direction="out" name="found"/></method>
    <method name="Screenshot">
      <arg type="i" direction="in" name="x"/><arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/><arg type="i" direction="in" name="height"/>
      <arg type="s" direction="in" name="path"/>
    </method>
    <method name="Pointer"><arg type="i" direction="out" name="x"/><arg type="i" direction="out" name="y"/></method>
    <method name="Ready"><arg type="b" direction="out" name="ready"/></method>
    <method name="CommitText"><arg type="s" direction="in" name="text"/><arg type="b" direction="out" name="committed"/></method>
    <method name="ReadClipboard">
      <arg type="b" direction="out" name="has_text"/><arg type="s" direction="out" name="text"/>
      <arg type="as" direction="out" name="types"/>
    </method>
    <method name="WriteClipboard"><arg type="s" direction="in" name="text"/></method>
    <method name="ShowOverlay"><arg type="b" direction="in" name="indicator"/></method>
    <method name="Mark">
      <arg type="s" direction="in" name="kind"/>
      <arg type="i" direction="in" name="x"/><arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/><arg type="i" direction="in" name="height"/>
    </method>
  </interface>
</node>`;

const LISTED = [Meta.WindowType.NORMAL, Meta.WindowType.DIALOG, Meta.WindowType.MODAL_DIALOG,
    Meta.WindowType.UTILITY];

function listedWindows() {
    const windows = global.get_window_actors()
        .map(actor => actor.get_meta_window())
        .filter(w => w && LISTED.includes(w.get_window_type()));
    return global.display.sort_windows_by_stacking(windows);
}

function rect(r) {
    return [r.x, r.y, r.width, r.height];
}

function byId(id) {
    return listedWindows().find(w => w.get_id() === Number(id));
}

// The overlay that shows a person where the agent acts: pink marks for a second each, and a
// line while an agent is connected. Its actors are not reactive, so every click and key goes
// to what is beneath them, and never take the focus. Each deskhand process that asks has one,
// for as long as its D-Bus connection lasts, and the screenshots such a process takes are
// taken without any of them.
const MARK_STYLE = 'border: 3px solid #ff2d95;';
const SHOWN_FOR_MS = 1000;
const RING_RADIUS = 18;
const INDICATOR_TEXT = 'deskhand is acting \u00b7 top-left corner to stop';

function unreactive(actor) {
    actor.reactive = false;
    actor.can_focus = false;
    actor.track_hover = false;
    return actor;
}

function processOf(sender, then) {
    Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
        'GetConnectionUnixProcessID', new GLib.Variant('(s)', [sender]), null,
        Gio.DBusCallFlags.NONE, 1000, null, (bus, result) => {
            try {
                then(bus.call_finish(result).deep_unpack()[0]);
            } catch (e) {
                then(null);
            }
        });
}

class Overlay {
    constructor(owner, pid, indicator) {
        this.owner = owner;
        this.pid = pid;
        this.group = unreactive(new St.Widget({name: 'deskhand'}));
        Main.layoutManager.uiGroup.add_child(this.group);
        Main.layoutManager.uiGroup.set_child_above_sibling(this.group, null);
        if (indicator) {
            this._indicator = unreactive(new St.Label({
                text: INDICATOR_TEXT,
                style: 'background-color: rgba(20, 20, 20, 0.85); color: #ffffff; ' +
                    'font-size: 9pt; padding: 1px 8px;',
            }));
            this.group.add_child(this._indicator);
            this._place = Main.layoutManager.connect('monitors-changed', () => this._placeIndicator());
            this._placeIndicator();
        }
        this._watch = Gio.bus_watch_name_on_connection(Gio.DBus.session, owner,
            Gio.BusNameWatcherFlags.NONE, null, () => destroyOverlay(owner));
    }

    _placeIndicator() {
        const primary = Main.layoutManager.primaryMonitor;
        if (!primary)
            return;
        const [, width] = this._indicator.get_preferred_width(-1);
        // Below the top bar, which holds the clock in its middle.
        this._indicator.set_position(Math.round(primary.x + (primary.width - width) / 2),
            primary.y + Main.layoutManager.panelBox.height);
    }

    mark(kind, x, y, width, height) {
        const mark = kind === 'point' ? this._ring(x, y) : this._frame(x, y, width, height);
        this.group.add_child(mark);
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, SHOWN_FOR_MS, () => {
            mark.destroy();
            return GLib.SOURCE_REMOVE;
        });
    }

    _ring(x, y) {
        const ring = unreactive(new St.Widget({
            style: `${MARK_STYLE} border-radius: ${RING_RADIUS}px;`,
            x: x - RING_RADIUS, y: y - RING_RADIUS,
            width: 2 * RING_RADIUS + 1, height: 2 * RING_RADIUS + 1,
        }));
        ring.add_child(unreactive(new St.Widget({
            style: 'background-color: #ff2d95;',
            x: RING_RADIUS - 2, y: RING_RADIUS - 2, width: 5, height: 5,
        })));
        return ring;
    }

    _frame(x, y, width, height) {
        return unreactive(new St.Widget({style: MARK_STYLE, x, y, width, height}));
    }

    // Captures under way each keep it hidden until they are done.
    hideFor() {
        this._hiding = (this._hiding || 0) + 1;
        this.group.hide();
        return () => {
            this._hiding -= 1;
            if (this._hiding === 0 && overlays.get(this.owner) === this)
                this.group.show();
        };
    }

    destroy() {
        Gio.bus_unwatch_name(this._watch);
        if (this._place)
            Main.layoutManager.disconnect(this._place);
        this.group.destroy();
    }
}

// By the unique bus name of the process that asked for each.
const overlays = new Map();

function destroyOverlay(owner) {
    const overlay = overlays.get(owner);
    if (overlay)
        overlay.destroy();
    overlays.delete(owner);
}

function destroyOverlays() {
    for (const owner of [...overlays.keys()])
        destroyOverlay(owner);
}

class DeskhandShell {
    get Version() {
        return 3;
    }

    ShowOverlayAsync([indicator], invocation) {
        const owner = invocation.get_sender();
        processOf(owner, pid => {
            destroyOverlay(owner);
            overlays.set(owner, new Overlay(owner, pid, indicator));
            invocation.return_value(null);
        });
    }

    MarkAsync([kind, x, y, width, height], invocation) {
        const overlay = overlays.get(invocation.get_sender());
        if (overlay)
            overlay.mark(kind, x, y, width, height);
        invocation.return_value(null);
    }

    Windows() {
        // Bottom to top, as the stacking order.
        return JSON.stringify(listedWindows().map(w => ({
            id: w.get_id(),
            title: w.get_title() || '',
            pid: w.get_pid(),
            wm_class: w.get_wm_class() || '',
            app_id: w.get_gtk_application_id() || w.get_sandboxed_app_id() || '',
            frame: rect(w.get_frame_rect()),
            buffer: rect(w.get_buffer_rect()),
            focused: w.has_focus(),
            minimized: w.minimized,
            maximized: w.get_maximized() === Meta.MaximizeFlags.BOTH,
            fullscreen: w.is_fullscreen(),
            x11: w.get_client_type() === Meta.WindowClientType.X11,
        })));
    }

    Activate(id) {
        const w = byId(id);
        if (w)
            Main.activateWindow(w);
        return Boolean(w);
    }

    Close(id) {
        const w = byId(id);
        if (w)
            w.delete(global.get_current_time());
        return Boolean(w);
    }

    MoveResize(id, x, y, width, height) {
        const w = byId(id);
        if (!w)
            return false;
        if (w.get_maximized())
            w.unmaximize(Meta.MaximizeFlags.BOTH);
        w.move_resize_frame(true, x, y, width, height);
        return true;
    }

    SetState(id, state) {
        const w = byId(id);
        if (!w)
            return false;
        if (state === 'minimized') {
            w.minimize();
            return true;
        }
        w.unminimize();
        if (state === 'maximized')
            w.maximize(Meta.MaximizeFlags.BOTH);
        else if (state === 'fullscreen')
            w.make_fullscreen();
        else {
            w.unmake_fullscreen();
            w.unmaximize(Meta.MaximizeFlags.BOTH);
        }
        return true;
    }

    // A process that shows an overlay never sees one in its screenshots: they are hidden while
    // the stage is painted for it.
    ScreenshotAsync(params, invocation) {
        if (overlays.size === 0) {
            this._screenshot(params, invocation, () => {});
            return;
        }
        processOf(invocation.get_sender(), pid => {
            const shown = [...overlays.values()];
            const own = pid !== null && shown.some(overlay => overlay.pid === pid);
            const unhide = own ? shown.map(overlay => overlay.hideFor()) : [];
            this._screenshot(params, invocation, () => unhide.forEach(show => show()));
        });
    }

    _screenshot([x, y, width, height, path], invocation, done) {
        try {
            const stream = Gio.File.new_for_path(path)
                .replace(null, false, Gio.FileCreateFlags.REPLACE_DESTINATION, null);
            new Shell.Screenshot().screenshot_area(x, y, width, height, stream, (shot, result) => {
                done();
                try {
                    shot.screenshot_area_finish(result);
                    stream.close(null);
                    invocation.return_value(null);
                } catch (e) {
                    invocation.return_dbus_error('dev.deskhand.Shell.Failed', String(e.message));
                }
            });
        } catch (e) {
            done();
            invocation.return_dbus_error('dev.deskhand.Shell.Failed', String(e.message));
        }
    }

    Pointer() {
        const [x, y] = global.get_pointer();
        return [x, y];
    }

    // Whether the shell has finished starting and shows the windows, not the overview.
    Ready() {
        return !Main.layoutManager._startingUp && !Main.overview.visible;
    }

    // Text as GNOME's on-screen keyboard sends it: through the input method to the focused
    // text field (text-input protocol), whatever the keymap holds. False when no field takes
    // input-method text (an XWayland app, a terminal without it, nothing focused).
    CommitText(text) {
        if (!Main.inputMethod.currentFocus)
            return false;
        Main.inputMethod.commit(text);
        return true;
    }

    ReadClipboardAsync(_params, invocation) {
        const clipboard = St.Clipboard.get_default();
        const types = clipboard.get_mimetypes(St.ClipboardType.CLIPBOARD) || [];
        clipboard.get_text(St.ClipboardType.CLIPBOARD, (_clipboard, text) => {
            invocation.return_value(new GLib.Variant('(bsas)', [text !== null, text || '', types]));
        });
    }

    WriteClipboard(text) {
        St.Clipboard.get_default().set_text(St.ClipboardType.CLIPBOARD, text);
    }
}

// GNOME starts in the Activities overview, where windows take no input. deskhand's headless
// desktop asks (through the shell's environment) to leave it once start-up is over; a person's
// session is left as its user has it.
function leaveOverviewAfterStartup() {
    if (GLib.getenv('DESKHAND_LEAVE_OVERVIEW') !== '1')
        return null;
    if (!Main.layoutManager._startingUp) {
        Main.overview.hide();
        return null;
    }
    return Main.layoutManager.connect('startup-complete', () => Main.overview.hide());
}

class DeskhandExtension {
    enable() {
        this._startup = leaveOverviewAfterStartup();
        this._object = Gio.DBusExportedObject.wrapJSObject(IFACE, new DeskhandShell());
        this._object.export(Gio.DBus.session, '/dev/deskhand/Shell');
        this._name = Gio.bus_own_name_on_connection(Gio.DBus.session, 'dev.deskhand.Shell',
            Gio.BusNameOwnerFlags.NONE, null, null);
    }

    disable() {
        destroyOverlays();
        if (this._startup)
            Main.layoutManager.disconnect(this._startup);
        this._startup = null;
        Gio.bus_unown_name(this._name);
        this._object.unexport();
        this._object = null;
    }
}
