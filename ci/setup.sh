#!/usr/bin/env bash
# Install what Skidpad's checks need on a Debian 12 machine (root; pyenv's CPython 3.11 as
# `python3`, Node.js + npm, pip): nox and hatchling (PyPI), Pyodide (npm, as pinned in
# package-lock.json), the CPython versions of the matrix (checked; pyenv installs a missing
# one; SKIDPAD_PYTHON3_11/_12/_13 name them instead, as on a hosted runner without pyenv),
# strace/unshare/ip for the network proof (Debian's strace, util-linux, iproute2) and the
# browser runtimes (ci/install_browsers.sh: Debian's browsers, Playwright, Selenium).
# Idempotent: every step checks first; re-running installs nothing new.
# Registries only (PyPI, npm, Debian): nothing is downloaded from anywhere else.
#
#   bash ci/setup.sh            (PYTHON=... to use another interpreter than python3)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# --- Python and its tools -------------------------------------------------------------
PY=${PYTHON:-python3}
command -v "$PY" >/dev/null 2>&1 || die "$PY not found: Skidpad needs CPython 3.11+ (pyenv's 3.11.7)"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$PY is $("$PY" -V 2>&1); Skidpad needs CPython 3.11+"
say "python: $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
if ! "$PY" -m pip --version >/dev/null 2>&1; then
    say "pip missing: bootstrapping it with ensurepip"
    "$PY" -m ensurepip --upgrade
fi
# nox runs the sessions; hatchling builds the project wheel without an isolated env; uv
# makes nox's virtualenvs and installs into them (ADR 0257: a tenth of pip's time).
if "$PY" -c 'import nox, hatchling, uv' >/dev/null 2>&1; then
    say "nox, hatchling and uv already installed"
else
    say "pip install nox hatchling uv"
    "$PY" -m pip install --disable-pip-version-check -q 'nox>=2024.3' 'hatchling>=1.21' \
        'uv>=0.5'
fi
if command -v pyenv >/dev/null 2>&1; then
    pyenv rehash 2>/dev/null || true   # a freshly pip-installed nox needs its shim
fi
if ! command -v nox >/dev/null 2>&1; then
    say "note: nox is not on PATH; add $("$PY" -c 'import sysconfig; print(sysconfig.get_path("scripts"))') to PATH"
fi

# --- The CPython versions of the matrix (docs/architecture.md §5: pyenv 3.11.7, 3.12.1, 3.13.0) -------
for version in 3.11.7 3.12.1 3.13.0; do
    minor=${version%.*}
    override_var="SKIDPAD_PYTHON${minor/./_}"
    if [ -n "${!override_var:-}" ]; then
        # checked here, so a wrong path fails setup, not a nox session later
        got=$("${!override_var}" -c 'import sys; print("%d.%d" % sys.version_info[:2])' \
            2>/dev/null) || got=""
        [ "$got" = "$minor" ] \
            || die "$override_var=${!override_var} is not a CPython $minor (${got:-does not run})"
        say "CPython $minor: ${!override_var} (from $override_var)"
    elif command -v pyenv >/dev/null 2>&1 && pyenv prefix "$version" >/dev/null 2>&1; then
        say "CPython $minor: $(pyenv prefix "$version")/bin/python$minor"
    elif command -v pyenv >/dev/null 2>&1; then
        say "CPython $version missing: pyenv install $version"
        pyenv install -s "$version" \
            || die "pyenv install $version failed; install CPython $version or set $override_var to a python$minor"
    else
        die "CPython $version not found and pyenv is not installed; install it or set $override_var"
    fi
done

# --- Node.js and Pyodide ----------------------------------------------------------------
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    say "node/npm missing: apt-get install nodejs npm"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
fi
say "node: $(node --version), npm: $(npm --version)"
want=$(node -p 'require("./package-lock.json").packages["node_modules/pyodide"].version')
have=$(node -p 'try { require("./node_modules/pyodide/package.json").version } catch (e) { "" }')
if [ "$have" = "$want" ]; then
    say "pyodide $have already in node_modules"
else
    say "npm ci (pyodide $want from package-lock.json)"
    npm ci --no-audit --no-fund
fi

# --- The network proof (tests/test_network_loopback.py): strace, unshare, ip --------------
missing_tools=()
command -v strace >/dev/null 2>&1 || missing_tools+=(strace)
command -v unshare >/dev/null 2>&1 || missing_tools+=(util-linux)
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing_tools+=(iproute2)
if [ ${#missing_tools[@]} -eq 0 ]; then
    say "strace, unshare and ip already installed"
else
    say "apt-get install ${missing_tools[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_tools[@]}"
fi

# --- The browser runtimes -----------------------------------------------------------------
if [ "${SKIDPAD_NO_BROWSERS:-}" = 1 ]; then
    say "SKIDPAD_NO_BROWSERS=1: not installing the browser runtimes"
else
    bash ci/install_browsers.sh "$PY"
fi
say "done"
