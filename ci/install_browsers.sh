#!/usr/bin/env bash
# Install the browser stack of docs/architecture.md §5 from Debian 12 (and PyPI for the
# drivers). Idempotent: re-running installs nothing new. Needs root.
#
#   chromium, firefox-esr          driven by Playwright 1.64.1 (pinned: 1.65
#                                  sends a BiDi command Firefox ESR 153 lacks)
#   webkit2gtk-driver,             WebKitWebDriver + MiniBrowser, driven by Selenium
#   libwebkit2gtk-4.1-0
#   xvfb, xauth                    a display for MiniBrowser
#
# Never runs `playwright install`: Playwright's own browser download does not
# work offline, and the project drives Debian's browsers instead.
#
# Usage: ci/install_browsers.sh [PYTHON]   (PYTHON defaults to `python3`/`python`)
set -euo pipefail

say() { printf '[install_browsers] %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
    say "must run as root (apt-get install); try: sudo $0"
    exit 2
fi

PY="${1:-}"
if [ -z "$PY" ]; then
    if command -v python >/dev/null 2>&1; then PY=python; else PY=python3; fi
fi

DEBS=(chromium firefox-esr webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb xauth)
missing=()
for p in "${DEBS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    say "Debian packages already installed: ${DEBS[*]}"
else
    say "apt-get update"
    apt-get update -q
    say "apt-get install -y --no-install-recommends ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

say "pip install playwright==1.64.1 selenium (with $PY)"
"$PY" -m pip install -q "playwright==1.64.1" "selenium>=4.20"

mb="$(dpkg -L libwebkit2gtk-4.1-0 | grep '/MiniBrowser$' | head -n1 || true)"
say "chromium:        $(command -v chromium || echo MISSING) ($(chromium --version 2>/dev/null || echo '?'))"
say "firefox-esr:     $(command -v firefox-esr || echo MISSING) ($(firefox-esr --version 2>/dev/null || echo '?'))"
say "WebKitWebDriver: $(command -v WebKitWebDriver || echo MISSING)"
say "MiniBrowser:     ${mb:-MISSING}"
say "Xvfb:            $(command -v Xvfb || echo MISSING)"
say "playwright:      $("$PY" -c 'import playwright, importlib.metadata as m; print(m.version("playwright"))')"
say "selenium:        $("$PY" -c 'import selenium; print(selenium.__version__)')"
if [ -z "$mb" ] || ! command -v chromium >/dev/null || ! command -v firefox-esr >/dev/null \
   || ! command -v WebKitWebDriver >/dev/null || ! command -v Xvfb >/dev/null; then
    say "something is missing (see above)"
    exit 1
fi
say "done"
