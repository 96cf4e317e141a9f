#!/usr/bin/env bash
# The desktop entry, AppStream metainfo and icons as the package installs them (packaging/):
# installs the build's "desktop" component into a temporary prefix, then checks it the way a
# desktop and a software centre read it.
#   desktop_files_test.sh BUILD_DIR
set -euo pipefail
build=$1
app_id=io.github.hearth.Hearth
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cmake --install "$build" --component desktop --prefix "$root/usr" >/dev/null
share=$root/usr/share

fail() {
    echo "FAILED: $*" >&2
    exit 1
}

desktop_file=$share/applications/$app_id.desktop
desktop-file-validate "$desktop_file" || fail "desktop-file-validate rejects $app_id.desktop"
# The tree check also finds the desktop entry the metainfo's <launchable> names.
appstreamcli validate-tree --no-net --explain "$root" || fail "appstreamcli rejects the metainfo"

# The menu shows the icon the entry names: the app id, at every size a desktop asks for.
grep -qx "Icon=$app_id" "$desktop_file" || fail "the desktop entry's Icon= is not $app_id"
grep -q "<icon type=\"stock\">$app_id</icon>" "$share/metainfo/$app_id.metainfo.xml" ||
    fail "the metainfo's icon is not $app_id"
[ -f "$share/icons/hicolor/scalable/apps/$app_id.svg" ] || fail "no scalable icon"
for size in 48 128 256; do
    png=$share/icons/hicolor/${size}x${size}/apps/$app_id.png
    [ -f "$png" ] || fail "no ${size}px icon"
    # A PNG's width and height are the big-endian words at bytes 16 and 20.
    read -r width height < <(od -An -tu1 -j16 -N8 "$png" |
        awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')
    [ "$width" = "$size" ] && [ "$height" = "$size" ] ||
        fail "the ${size}px icon is ${width}x${height}"
done
echo "desktop entry, metainfo and icons are valid"
