#!/usr/bin/env bash
# Renders the hicolor PNG icons from the scalable SVG. The PNGs are committed, so building
# Hearth needs no SVG renderer; run this (it needs rsvg-convert, package librsvg2-bin) after
# changing the SVG, and commit what it writes.
set -euo pipefail
cd "$(dirname "$0")/hicolor"
svg=scalable/apps/io.github.hearth.Hearth.svg
for size in 48 128 256; do
    mkdir -p "${size}x${size}/apps"
    rsvg-convert --width "$size" --height "$size" "$svg" \
        --output "${size}x${size}/apps/io.github.hearth.Hearth.png"
done
