#!/usr/bin/env bash
# Installs Hearth's .deb in a clean Debian 12 root, as a user would, and checks that it runs and
# uninstalls cleanly (run as root; it needs debootstrap and lintian, and deb.debian.org):
#   packaging/test-install.sh [PACKAGE.deb]    default: build-package/hearth_*.deb
# 1. lintian reports no errors on the package (its warnings are printed);
# 2. `apt-get install ./hearth_*.deb` in a fresh root pulls in every dependency;
# 3. inside it, hearth-cli writes the bundled model's known continuation, both programs print
#    their version and commit, the app opens its window (offscreen) on the bundled model and
#    takes its screenshot tour, the desktop entry, metainfo and icons are where a desktop
#    looks for them;
# 4. `apt-get remove --purge hearth` leaves none of the package's files behind.
# The first run builds the Debian 12 root with debootstrap (a few minutes) and keeps it as a
# tarball in $HEARTH_ROOT_CACHE (default /var/cache/hearth/test-install); every run unpacks a
# fresh copy of it, so no run sees what another installed. Not part of `setup.sh test`: it takes
# minutes and needs the network.
set -euo pipefail
cd "$(dirname "$0")/.."

mirror=${HEARTH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${HEARTH_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
cache=${HEARTH_ROOT_CACHE:-/var/cache/hearth/test-install}
base_tarball=$cache/debian12-minbase.tar
# The bundled model's greedy continuation (tests/app/cli_test.cpp checks the same in the tree).
expected_story="Once upon a time, there was"

step() { echo "== $*"; }
fail() {
    echo "test-install: FAILED: $*" >&2
    exit 1
}

package=${1:-}
if [ -z "$package" ]; then
    package=$(ls -t build-package/hearth_*.deb 2>/dev/null | head -n 1 || true)
    [ -n "$package" ] || fail "no package given and none in build-package/; build one first (README, 'Installing')"
fi
[ -f "$package" ] || fail "$package does not exist"
[ "$(id -u)" -eq 0 ] || fail "run as root: debootstrap, chroot and mount need it"
for tool in debootstrap lintian dpkg-deb; do
    command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install $tool)"
done

# Makes the minimal Debian 12 root once: debootstrap, then the same suites a user's
# bookworm has (updates and security), so the versions shlibdeps asked for can be found.
make_base_root() {
    [ -f "$base_tarball" ] && return
    step "making a Debian 12 root with debootstrap (once; kept in $base_tarball)"
    mkdir -p "$cache"
    local root
    root=$(mktemp -d "$cache/root.XXXXXX")
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        fail "debootstrap failed; see $cache/debootstrap.log"
    cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security_mirror bookworm-security main
EOF
    rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
    tar -C "$root" -cf "$base_tarball.partial" .
    mv "$base_tarball.partial" "$base_tarball"
    rm -rf "$root"
}

step "lintian $(basename "$package")"
# Errors fail the test; warnings and the rest are listed for the reader.
lintian_report=$(lintian --tag-display-limit 0 "$package" || true)
[ -n "$lintian_report" ] && echo "$lintian_report"
if grep -q '^E:' <<<"$lintian_report"; then fail "lintian reports errors"; fi
echo "lintian: no errors ($(grep -c '^W:' <<<"$lintian_report" || true) warnings)"

make_base_root
root=$(mktemp -d /var/tmp/hearth-install-root.XXXXXX)
cleanup() {
    umount "$root/dev/pts" "$root/proc" 2>/dev/null || true
    # --one-file-system: never into a mount that failed to come off (the host's /proc).
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT
step "a fresh Debian 12 root in $root"
tar -C "$root" -xf "$base_tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t devpts devpts "$root/dev/pts"  # dpkg logs its terminal output through a pty
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"; }

step "apt-get install ./$(basename "$package")"
cp "$package" "$root/tmp/"
in_root apt-get update -qq
in_root sh -c "cd /tmp && apt-get install -y -q ./$(basename "$package")" ||
    fail "apt-get could not install the package"
in_root dpkg -L hearth >"$root/tmp/hearth-files.txt"

step "hearth-cli on the bundled model"
story=$(in_root hearth-cli -p "Once upon a time" -n 3 --temp 0)
echo "$story"
[ "$story" = "$expected_story" ] || fail "hearth-cli wrote '$story', expected '$expected_story'"

step "--version"
version_pattern='^[0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)$'
for program in hearth-cli hearth; do
    line=$(in_root env QT_QPA_PLATFORM=offscreen "$program" --version)
    echo "$line"
    [[ "${line#"$program "}" =~ $version_pattern ]] || fail "$program --version printed '$line'"
done

step "the app starts its Qt platform (offscreen) and lists its options"
in_root env QT_QPA_PLATFORM=offscreen hearth --help | grep -q -- '--version' ||
    fail "hearth --help did not run"

step "the app opens its window on the bundled model and takes its screenshot tour (offscreen)"
# The whole app from the package: the window, the engine thread, the SQLite history (Qt's driver
# is a run-time dependency shlibdeps cannot see) and the in-process server.
in_root env QT_QPA_PLATFORM=offscreen timeout 300 hearth --screenshots /tmp/tour ||
    fail "hearth --screenshots did not finish"
pictures=$(find "$root/tmp/tour" -name '*.png' | wc -l)
[ "$pictures" -gt 0 ] || fail "the tour saved no pictures"
[ -f "$root/root/.local/share/Hearth/Hearth/history.sqlite" ] || fail "the app kept no history"
echo "$pictures pictures; history in /root/.local/share/Hearth/Hearth/history.sqlite"

step "desktop entry, metainfo, icons and the bundled model are installed"
for file in /usr/share/applications/io.github.hearth.Hearth.desktop \
    /usr/share/metainfo/io.github.hearth.Hearth.metainfo.xml \
    /usr/share/icons/hicolor/scalable/apps/io.github.hearth.Hearth.svg \
    /usr/share/icons/hicolor/{48x48,128x128,256x256}/apps/io.github.hearth.Hearth.png \
    /usr/share/hearth/models/stories260K.gguf /usr/share/doc/hearth/copyright \
    /usr/bin/hearth /usr/bin/hearth-cli /usr/bin/hearth-server; do
    [ -f "$root$file" ] || fail "$file is not installed"
    echo "$file"
done

step "apt-get remove --purge hearth"
in_root apt-get remove --purge -y -q hearth || fail "apt-get could not remove the package"
if in_root dpkg -s hearth >/dev/null 2>&1; then fail "dpkg still knows the package"; fi
left=()
while read -r path; do
    [ -f "$root$path" ] || [ -L "$root$path" ] && left+=("$path")
done <"$root/tmp/hearth-files.txt"
[ -d "$root/usr/share/hearth" ] && left+=(/usr/share/hearth)
[ -d "$root/usr/share/doc/hearth" ] && left+=(/usr/share/doc/hearth)
[ ${#left[@]} -eq 0 ] || fail "left behind: ${left[*]}"
echo "none of its $(wc -l <"$root/tmp/hearth-files.txt") paths is left"

echo "test-install: PASSED ($(basename "$package"))"
