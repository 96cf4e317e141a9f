#!/usr/bin/env bash
# Hearth's one entry point on a fresh Debian 12 machine (run as root, or with sudo available).
#   packaging/setup.sh run   installs what is missing, builds, starts the app on the bundled model
#   packaging/setup.sh test  installs what is missing, builds, runs the whole test suite, then
#                            builds and runs it again under AddressSanitizer + UBSan, then
#                            runs every fuzz target (tests/fuzz/) for a short fixed time
#   packaging/setup.sh tour [DIR]  installs what is missing, builds, and saves the screenshot
#                            tour's pictures to DIR (default build/screenshots)
# All are idempotent: with nothing missing and nothing changed they only re-check.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    cmake ninja-build g++ pkg-config
    qt6-base-dev libgl-dev libqt6sql6-sqlite
    libspdlog-dev libsentencepiece-dev libicu-dev libopenblas-dev libgtest-dev libcpp-httplib-dev
    qtkeychain-qt6-dev
    libvulkan-dev glslang-tools mesa-vulkan-drivers
    fonts-dejavu-core
    clang libclang-rt-14-dev libfuzzer-14-dev
)
# What only the tests run, as command:package, installed when the command is missing: a Node.js
# from elsewhere (NodeSource's has npm inside) must not get Debian's npm beside it.
# dbus-run-session and gnome-keyring-daemon give the API-key test a real Secret Service;
# desktop-file-validate and appstreamcli check the desktop entry and metainfo the package installs.
test_tools=(curl:curl node:nodejs npm:npm dbus-run-session:dbus-daemon
    gnome-keyring-daemon:gnome-keyring desktop-file-validate:desktop-file-utils
    appstreamcli:appstream)
# What only the screenshot tour (packaging/screenshots.sh) runs, in the same form.
tour_tools=(Xvfb:xvfb xvfb-run:xvfb xdotool:xdotool import:imagemagick)
# The Node packages the OpenAI client test uses, pinned by its package-lock.json.
node_test_dir=tests/app/server/openai_client
# Seconds each fuzz target runs in `test` (two at a time on two cores; 12 targets, a minute and
# a half, to keep CI's fuzz step inside five minutes with its build); the long campaigns run
# tests/fuzz/run_fuzzers.sh by hand.
fuzz_seconds=15
jobs=$(nproc)

# Installs the Debian packages that are missing, and for each command:package argument the
# package when the command is missing.
install_missing() {
    local missing=() package tool
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$package")
    done
    for tool in "$@"; do
        command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
    done
    [ ${#missing[@]} -eq 0 ] && return
    echo "hearth: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# npm ci, again only when package-lock.json changed since the last install.
install_node_packages() {
    local stamp
    stamp=$(sha256sum "$node_test_dir/package-lock.json" | cut -d' ' -f1)
    [ "$(cat "$node_test_dir/node_modules/.hearth-lock" 2>/dev/null)" = "$stamp" ] && return
    echo "hearth: installing the OpenAI client test's Node packages (npm ci)"
    (cd "$node_test_dir" && npm ci --no-audit --no-fund)
    echo "$stamp" >"$node_test_dir/node_modules/.hearth-lock"
}

build() {
    local directory=$1
    shift
    cmake -S . -B "$directory" -G Ninja -Wno-dev "$@" >/dev/null
    cmake --build "$directory" --parallel "$jobs"
}

run_tests() {
    local directory=$1
    ctest --test-dir "$directory" --parallel "$jobs" --output-on-failure --timeout 600
}

case "${1:-}" in
    run)
        install_missing
        build build-release -DCMAKE_BUILD_TYPE=Release -DHEARTH_BUILD_TESTS=OFF
        if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
            exec build-release/app/hearth
        fi
        echo "hearth: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot"
        echo "open here; showing the bundled model through hearth-cli instead:"
        exec build-release/app/hearth-cli -p "Once upon a time" -n 128
        ;;
    test)
        install_missing "${test_tools[@]}"
        install_node_packages
        build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
        run_tests build
        # The same suite under the sanitizers; the GUI adds nothing the engine tests do not cover.
        build build-sanitize -DCMAKE_BUILD_TYPE=Debug -DHEARTH_SANITIZE=ON -DHEARTH_BUILD_GUI=OFF
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 run_tests build-sanitize
        # Every parser that reads a stranger's input, fuzzed from its seed corpus: any crash,
        # leak, timeout or out-of-memory fails the run and prints the input that caused it.
        build build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
            -DCMAKE_CXX_COMPILER=clang++ -DHEARTH_FUZZ=ON -DHEARTH_BUILD_GUI=OFF
        tests/fuzz/run_fuzzers.sh build-fuzz "$fuzz_seconds"
        ;;
    tour)
        # The screenshot tour drives the real window with real X input events: an X server of
        # its own, xdotool to send the events, ImageMagick's import to take the pictures.
        install_missing "${tour_tools[@]}"
        build build-release -DCMAKE_BUILD_TYPE=Release -DHEARTH_BUILD_TESTS=OFF
        HEARTH_APP=build-release/app/hearth exec packaging/screenshots.sh "${2:-build/screenshots}"
        ;;
    *)
        echo "usage: $0 run|test|tour [DIR]" >&2
        exit 2
        ;;
esac
