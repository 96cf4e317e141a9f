#!/bin/sh
# Runs a test program inside a private D-Bus session with a real GNOME Keyring (the Secret
# Service), its login keyring created and unlocked, as a desktop session has one.
#   with_keyring.sh PROGRAM [ARGS...]
set -eu
command -v dbus-run-session >/dev/null || { echo "with_keyring.sh: dbus-run-session is missing (package dbus)" >&2; exit 1; }
command -v gnome-keyring-daemon >/dev/null || { echo "with_keyring.sh: gnome-keyring-daemon is missing (package gnome-keyring)" >&2; exit 1; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export HOME="$home" XDG_DATA_HOME="$home/.local/share" XDG_RUNTIME_DIR="$home/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
exec dbus-run-session -- sh -c '
    printf "hearth-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    HEARTH_TEST_KEYRING=1 exec "$@"' with_keyring "$@"
