#!/bin/sh
# Saves pictures of the app (chat mid-stream and finished, light and dark, the model picker, the
# settings dialog, and the Server page and dashboard with the in-process API server at work) to a
# folder, running the real window on the bundled model under Xvfb
# (or Qt's offscreen platform where Xvfb is not installed).
#   packaging/screenshots.sh [DIR]      (default: build/screenshots)
set -eu
cd "$(dirname "$0")/.."
out="${1:-build/screenshots}"
app=build/app/hearth
[ -x "$app" ] || { echo "build the app first: packaging/setup.sh run (or cmake --build build)" >&2; exit 1; }
# A throwaway home, so the tour neither reads nor changes the user's settings.
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
if command -v xvfb-run >/dev/null 2>&1; then
    HOME="$home" xvfb-run -a -s "-screen 0 1280x800x24" "$app" --screenshots "$out"
else
    HOME="$home" QT_QPA_PLATFORM=offscreen "$app" --screenshots "$out"
fi
ls -1 "$out"
