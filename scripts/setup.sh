#!/usr/bin/env bash
# `npm run setup`: installs what the demo and the end-to-end tests need on a Debian/Ubuntu
# machine, and nothing when it is already there (a second run takes about a second).
#
#   1. Debian packages (apt-get, as root or through sudo): chromium (Playwright drives it),
#      libkrb5-dev (VS Code's kerberos module builds against it), ripgrep (VS Code's search),
#      fonts (readable screenshots), a C++ toolchain + python3 for node-gyp, and slurm-wlm +
#      munge for the Slurm suite (test/cluster; its daemons are never started as services).
#   2. The VS Code server from the npm package code-server@4.100.3 (= VS Code 1.100.3, the last
#      release that runs on Node 20) into .cache/vscode-server/ (or $SIMLENS_VSCODE_SERVER_DIR),
#      following ../shared/docs/real-vscode.md: every download-at-install step of the package
#      is skipped (no internet here) and its native modules are rebuilt from source instead.
#
# Options: --no-apt skips step 1, --force reinstalls step 2.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

CODE_SERVER_VERSION=4.100.3
# Bump RECIPE when the steps below change so existing caches are rebuilt.
RECIPE=3
SERVER_DIR=${SIMLENS_VSCODE_SERVER_DIR:-$ROOT/.cache/vscode-server}
STAMP="$SERVER_DIR/.simlens-setup-stamp"
STAMP_TEXT="code-server@$CODE_SERVER_VERSION recipe=$RECIPE node=$(node -p 'process.versions.modules')"

do_apt=1
force=0
for arg in "$@"; do
  case "$arg" in
    --no-apt) do_apt=0 ;;
    --force) force=1 ;;
    *) echo "setup: unknown option $arg (known: --no-apt, --force)" >&2; exit 2 ;;
  esac
done

started=$(date +%s)
say() { printf 'setup: %s\n' "$*"; }

# ---- 1. Debian packages -------------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

if [ "$do_apt" = 1 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    say "apt-get not found: install chromium, ripgrep, libkrb5-dev and a C++ toolchain yourself"
  else
    # slurm-wlm + munge: the Slurm suite (test/cluster) starts a single-node cluster of its own.
    wanted=(chromium libkrb5-dev ripgrep fonts-dejavu-core fonts-liberation slurm-wlm munge)
    command -v make >/dev/null 2>&1 || wanted+=(make)
    command -v g++ >/dev/null 2>&1 || wanted+=(g++)
    command -v python3 >/dev/null 2>&1 || wanted+=(python3)
    missing=()
    for pkg in "${wanted[@]}"; do installed "$pkg" || missing+=("$pkg"); done
    if [ ${#missing[@]} -eq 0 ]; then
      say "Debian packages present: ${wanted[*]}"
    else
      if [ "$(id -u)" = 0 ]; then SUDO=()
      elif command -v sudo >/dev/null 2>&1; then SUDO=(sudo)
      else
        say "need root or sudo to install: ${missing[*]}" >&2
        exit 1
      fi
      say "installing Debian packages: ${missing[*]}"
      export DEBIAN_FRONTEND=noninteractive
      "${SUDO[@]}" apt-get update -qq
      "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
      say "Debian packages installed"
    fi
  fi
fi

# ---- 2. VS Code server (code-server from npm) ---------------------------------------------
if [ "$force" = 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_TEXT" ] \
   && [ -f "$SERVER_DIR/node_modules/code-server/out/node/entry.js" ]; then
  say "VS Code server ready in ${SERVER_DIR#$ROOT/} ($STAMP_TEXT)"
  say "done in $(( $(date +%s) - started ))s"
  exit 0
fi

RG=$(command -v rg || true)
if [ -z "$RG" ]; then
  say "ripgrep (rg) is missing: install it (apt-get install ripgrep) or run without --no-apt" >&2
  exit 1
fi

say "installing code-server@$CODE_SERVER_VERSION into ${SERVER_DIR#$ROOT/} (about 1-2 minutes)"
rm -rf "$SERVER_DIR"
mkdir -p "$SERVER_DIR"
cd "$SERVER_DIR"
printf '{ "name": "simlens-vscode-server", "private": true }\n' > package.json
# No install scripts: the package's postinstall downloads things; its steps are redone below.
npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
  "code-server@$CODE_SERVER_VERSION"
say "rebuilding argon2"
npm rebuild argon2 --loglevel=error >/dev/null

CS="$SERVER_DIR/node_modules/code-server"
cd "$CS/lib/vscode"
say "installing VS Code's own runtime modules"
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
say "building VS Code's native modules (kerberos node-pty native-watchdog spdlog deviceid)"
# node-pty's build runs `npx node-gyp`, which needs npm's --yes.
npm_config_yes=true npm rebuild kerberos node-pty native-watchdog @vscode/spdlog @vscode/deviceid \
  --loglevel=error >/dev/null
# @vscode/ripgrep's postinstall downloads rg from the internet: use Debian's.
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$RG" node_modules/@vscode/ripgrep/bin/rg
# What the package's postinstall would have done.
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)

# Fail now rather than in a test when a native module did not build.
for f in node_modules/native-watchdog/build/Release/watchdog.node \
         node_modules/node-pty/build/Release/pty.node \
         node_modules/@vscode/spdlog/build/Release/spdlog.node; do
  if [ ! -f "$f" ]; then say "native module missing after build: lib/vscode/$f" >&2; exit 1; fi
done

printf '%s' "$STAMP_TEXT" > "$STAMP"
say "VS Code server installed ($(du -sh "$SERVER_DIR" | cut -f1))"
say "done in $(( $(date +%s) - started ))s"
