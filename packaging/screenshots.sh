#!/usr/bin/env bash
# The screenshot tour: starts the real app (build/app/hearth, or $HEARTH_APP) on the bundled model under Xvfb,
# drives it with real X input events (xdotool: clicks, typing, key presses) through the scenes
# below, and saves a picture after each (ImageMagick's `import` of the X screen).
#   packaging/screenshots.sh [DIR] [SCENE...]   (default: build/screenshots, every scene)
#   packaging/screenshots.sh --in-process [DIR] (the older tour the app runs on itself:
#                                                `hearth --screenshots DIR`)
# Needs Xvfb, xdotool and ImageMagick (`apt-get install xvfb xdotool imagemagick`); without
# them it runs the in-process tour instead.
#
# Scenes, in order (each starts where the one before left the window):
#   welcome        the empty chat at start: what the bundled model is, how to get another
#                                                                         -> welcome.png
#   first-answer   click the message box, type a question, press Enter; the answer, its
#                  figures and Continue                                  -> first-answer.png
#   regenerate     click the answer's Regenerate; version 2/2 replaces it -> regenerated.png
#   second-chat    click New chat, ask another question                   -> second-chat.png
#   switch         click the first conversation in the list, then the
#                  second: each shows its own messages         -> switched-first.png, -second.png
#   settings       Ctrl+, opens Settings (clicks Settings… where the shortcut is missing);
#                  Escape closes it                                       -> settings.png
#   models         click Models…: the shared models folder is listed, refused files saying
#                  why; type "gemma" in its filter, click the Memory header to sort
#                                                             -> models.png, models-filtered.png
#   dashboard      the window resized to 800×600, click Performance: the dashboard docked
#                  beside the chat (then hidden, the window back to its size)
#                                                                         -> dashboard-800x600.png
#   new-chat       Ctrl+N twice: one empty chat is listed, not two; Ctrl+L puts the cursor in
#                  the message box                                        -> new-chat.png
#   search         Ctrl+F (clicks the search box where the shortcut is missing), type a word,
#                  click the first hit                      -> search.png, search-opened.png
#   thinking       New chat, load a copy of the bundled model behind DeepSeek-R1's template
#                  (its prompt ends inside <think>, so everything it writes is reasoning; made by
#                  build/bench/hearth-retemplate); the Thinking block streams, then reads
#                  "Thought for … · N tokens"; a click on it folds it      -> thinking.png,
#                                                                         thinking-folded.png
#   other-model    New chat, then load synth-qwen3-256.gguf through the Models dialog (filter,
#                  double click) and ask it something (needs ../shared/models) -> other-model.png
#
# Adding a scene: write a function scene_NAME below with the helpers (ask, click, press,
# double_click, type_text, load_model, wait_for, try_wait, wait_until with has/present/absent/
# differs, shot, shot_screen) and add NAME to `scenes`, e.g.
#   scene_thinking() { load_model synth-qwen3-256.gguf; ask "Why is the sky blue?"; shot thinking; }
# The app describes itself in $status (`hearth --tour-status FILE`, app/tour_status.h): the
# answers finished, the dialog in front, the conversation shown, and `at.NAME=X Y`, the screen
# position of every named control, so `click NAME` clicks the control whose objectName is NAME.
set -euo pipefail
cd "$(dirname "$0")/.."

app="${HEARTH_APP:-build/app/hearth}"
[ -x "$app" ] || { echo "build the app first: packaging/setup.sh run (or cmake --build build)" >&2; exit 1; }

in_process() {
    local out=$1 home
    home="$(mktemp -d)"
    # A throwaway home, so the tour neither reads nor changes the user's settings.
    if command -v xvfb-run >/dev/null 2>&1; then
        HOME="$home" xvfb-run -a -s "-screen 0 1280x800x24" "$app" --screenshots "$out"
    else
        HOME="$home" QT_QPA_PLATFORM=offscreen "$app" --screenshots "$out"
    fi
    rm -rf "$home"
    ls -1 "$out"
}

if [ "${1:-}" = "--in-process" ]; then
    in_process "${2:-build/screenshots}"
    exit
fi
out="${1:-build/screenshots}"
[ $# -gt 0 ] && shift
for tool in Xvfb xvfb-run xdotool import; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "hearth: $tool is missing, so the tour runs inside the app instead of with real input" >&2
        in_process "$out"
        exit
    fi
done
# The rest runs on its own X server: xvfb-run starts one and runs this script again inside it.
if [ -z "${HEARTH_TOUR_DISPLAY:-}" ]; then
    HEARTH_TOUR_DISPLAY=1 exec xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$out" "$@"
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
status="$work/status"
app_pid=""
cleanup() {
    if [ -n "$app_pid" ]; then
        kill "$app_pid" 2>/dev/null || true
        wait "$app_pid" 2>/dev/null || true  # its status is the TERM it was sent
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# ---- helpers -------------------------------------------------------------------------------

fail() {
    echo "tour: $*" >&2
    echo "tour: the app's last status:" >&2
    sed 's/^/    /' "$status" >&2 2>/dev/null || true
    import -window root "$out/failed.png" 2>/dev/null && echo "tour: the screen: $out/failed.png" >&2
    exit 1
}

# The value of KEY in the app's status file (empty when absent).
status() {
    sed -n "s/^$1=//p" "$status" 2>/dev/null | head -n 1
}

# Waits (a tenth of a second at a time, SECONDS at most) until COMMAND succeeds, or returns 1.
#   wait_until SECONDS COMMAND...
wait_until() {
    local limit=$1 tries=0
    shift
    until "$@"; do
        tries=$((tries + 1))
        [ "$tries" -lt $((limit * 10)) ] || return 1
        sleep 0.1
    done
}

# Tests on the status for wait_until, which runs them again each time.
has() { [ "$(status "$1")" = "$2" ]; }
present() { [ -n "$(status "$1")" ]; }
absent() { [ -z "$(status "$1")" ]; }
differs() { [ "$(status "$1")" != "$2" ]; }
# Whether the app reports KEY=VALUE within SECONDS (default 5); says nothing if not.
try_wait() { wait_until "${3:-5}" has "$1" "$2"; }
# Waits until the app reports KEY=VALUE (SECONDS, default 30), or fails the tour.
wait_for() {
    try_wait "$1" "$2" "${3:-30}" || fail "waited ${3:-30} s for $1=$2 (it is '$(status "$1")')"
}

# Waits until the app's status has stopped changing (for three of its tenth-of-a-second
# polls): after a key or a click, controls can move (a filter narrows a table's columns)
# before the file says where they are now.
settle() {
    local last="" now quiet=0 tries=0
    while [ "$quiet" -lt 3 ] && [ "$tries" -lt 50 ]; do
        now=$(cat "$status" 2>/dev/null)
        if [ "$now" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; fi
        last=$now
        tries=$((tries + 1))
        sleep 0.1
    done
}

# A real mouse click on the control named NAME (its objectName), where the app says it is.
click() {
    local at
    settle
    wait_until 5 present "at.$1" || fail "no control named '$1' on screen"
    at=$(status "at.$1")
    # shellcheck disable=SC2086  # "X Y"
    xdotool mousemove --sync $at click 1
}

double_click() {
    local at
    settle
    wait_until 5 present "at.$1" || fail "nothing named '$1' on screen"
    at=$(status "at.$1")
    # shellcheck disable=SC2086  # "X Y"
    xdotool mousemove --sync $at click --repeat 2 --delay 80 1
}

# Real key presses, in xdotool's names: press ctrl+comma, press Return.
press() { xdotool key --clearmodifiers "$@"; }
type_text() { xdotool type --delay 12 -- "$1"; }

# Types TEXT in the message box, presses Enter and waits for the answer.
ask() {
    local before
    before=$(status answers)
    click prompt
    type_text "$1"
    press Return
    wait_for answers $((before + 1)) 120
}

# Loads FILE (a name the Models dialog lists, e.g. synth-qwen3-256.gguf) as a user does: the
# Models dialog, its filter, a double click on the one row left.
load_model() {
    click chooseModel
    wait_for window modelPicker
    click modelFilter
    type_text "$1"
    wait_until 5 absent at.models.row.1 || fail "more than one model matches '$1'"
    double_click models.row.0
    wait_for model "$1" 60
    wait_for window main
}

# A picture of the main window as it is on the X screen (after a paint).
shot() {
    local x y w h
    sleep 0.3  # the state the app reported is painted on the next frame or two
    read -r x y w h <<<"$(status geometry)"
    import -window root -crop "${w}x${h}+${x}+${y}" +repage "$out/$1.png"
    echo "$out/$1.png"
}
# A picture of the whole screen, for dialogs that reach past the window.
shot_screen() {
    sleep 0.3
    import -window root "$out/$1.png"
    echo "$out/$1.png"
}

# ---- scenes --------------------------------------------------------------------------------

scene_welcome() {
    wait_until 5 present at.welcome || fail "an empty chat shows no welcome"
    shot welcome
}

scene_new_chat() {
    local before
    before=$(status conversation)
    press ctrl+n
    wait_until 5 differs conversation "$before" || fail "Ctrl+N opened no new conversation"
    local listed
    listed=$(grep -c '^at.conversations\.' "$status")
    press ctrl+n
    settle
    [ "$(grep -c '^at.conversations\.' "$status")" = "$listed" ] ||
        fail "a second Ctrl+N listed another empty chat"
    press ctrl+l
    shot new-chat
}

scene_first_answer() {
    ask "Once upon a time"
    shot first-answer
}

scene_regenerate() {
    local before
    before=$(status answers)
    click regenerate
    wait_for answers $((before + 1)) 120
    shot regenerated
}

scene_second_chat() {
    local before
    before=$(status conversation)
    click newChat
    wait_until 5 differs conversation "$before" || fail "New chat opened no new conversation"
    ask "The little dog found a ball."
    shot second-chat
}

scene_switch() {
    local first second
    second=$(status conversation)
    first=$(status text.conversations.1)
    click conversations.1
    wait_for conversation "$first"
    shot switched-first
    click conversations.0
    wait_for conversation "$second"
    shot switched-second
}

scene_settings() {
    press ctrl+comma
    if ! try_wait window settingsDialog 3; then
        echo "tour: Ctrl+, did not open Settings; clicking Settings… instead" >&2
        click settings
        wait_for window settingsDialog
    fi
    shot_screen settings
    press Escape
    wait_for window main
}

scene_models() {
    click chooseModel
    wait_for window modelPicker
    shot_screen models
    click modelFilter
    type_text "gemma"
    click models.column.5  # the Memory column's header: sorted by the memory each needs
    settle
    shot_screen models-filtered
    press Escape
    wait_for window main
}

scene_dashboard() {
    xdotool windowsize --sync "$(status winid)" 800 600
    wait_for size 800x600
    click showDashboard
    wait_for dashboard 1
    sleep 0.3  # the dock takes its width on the next turn of the event loop
    has size 800x600 || fail "showing the dashboard resized the window to $(status size)"
    shot dashboard-800x600
    # Back as it was, for the scenes after this one.
    click showDashboard
    wait_for dashboard 0
    xdotool windowsize --sync "$(status winid)" "$window_width" "$window_height"
    wait_for size "${window_width}x$window_height"
}

scene_search() {
    press ctrl+f
    sleep 0.3
    click search  # where Ctrl+F focused it already, the click keeps it there
    type_text "upon"
    wait_until 5 present at.searchResults.0 || fail "no search results shown"
    has text.searchResults.0 "No matches" && fail "no search result for 'upon'"
    shot search
    click searchResults.0
    # The hit opens its conversation and the search closes.
    wait_until 5 absent at.searchResults.0 || fail "the search hit did not open"
    shot search-opened
}

scene_thinking() {
    local template="../shared/fixtures/chat_templates/deepseek-r1-distill.json"
    [ -f "$template" ] && [ -x build/bench/hearth-retemplate ] ||
        { echo "tour: no DeepSeek template or hearth-retemplate; thinking skipped" >&2; return; }
    local models="$HOME/.local/share/Hearth/Hearth/models"
    mkdir -p "$models"
    python3 -c 'import json, sys; sys.stdout.write(json.load(open(sys.argv[1]))["template"])' \
        "$template" >"$work/deepseek.jinja"
    build/bench/hearth-retemplate resources/models/stories260K.gguf \
        "$models/stories-thinking.gguf" "$work/deepseek.jinja"
    click newChat
    load_model stories-thinking.gguf
    ask "Tell me a story"
    shot thinking
    click thinkingToggle
    sleep 0.3
    shot thinking-folded
}

scene_other_model() {
    [ -d ../shared/models ] || { echo "tour: no ../shared/models; other-model skipped" >&2; return; }
    click newChat
    load_model synth-qwen3-256.gguf
    ask "Hello"
    shot other-model
}

scenes=(welcome first-answer regenerate second-chat switch settings models dashboard new-chat
    search thinking other-model)
[ $# -gt 0 ] && scenes=("$@")  # later scenes expect what earlier ones made: first-answer first

# ---- the run -------------------------------------------------------------------------------

# A throwaway home, so the tour neither reads nor changes the user's settings; the shared
# models folder, where there is one, fills the Models dialog (refused files included).
export HOME="$work/home"
mkdir -p "$HOME/.config/Hearth"
if [ -d ../shared/models ]; then
    printf '[models]\nfolders=%s\n' "$(cd ../shared/models && pwd)" >"$HOME/.config/Hearth/Hearth.conf"
fi
"$app" --tour-status "$status" >"$work/app.log" 2>&1 &
app_pid=$!
wait_until 60 present model || { cat "$work/app.log" >&2; fail "the app did not load its model"; }
# No window manager under Xvfb: the window goes to the corner, keys go where the pointer is.
xdotool windowmove --sync "$(status winid)" 0 0
read -r window_width window_height <<<"$(status size | tr x ' ')"
wait_for geometry "0 0 $window_width $window_height"

for scene in "${scenes[@]}"; do
    echo "tour: $scene"
    "scene_${scene//-/_}"
done
echo "tour: ${#scenes[@]} scenes, pictures in $out"
