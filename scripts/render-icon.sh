#!/usr/bin/env bash
# Renders media/icon.svg to media/icon.png (128x128, the Marketplace size) with headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp media/icon.svg "$tmp/icon.svg"
printf '<html><body style="margin:0"><img src="icon.svg" width="128" height="128"></body></html>' > "$tmp/render.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --default-background-color=00000000 \
  --window-size=128,128 --screenshot="$PWD/media/icon.png" "file://$tmp/render.html" 2>/dev/null
echo "wrote media/icon.png"
