#!/usr/bin/env bash
# install-chromium.sh — make sure a headless Chromium is present for the
# report's browser test (reports/browser_test.go). Run by `make test`; safe
# to re-run: it does nothing when Chromium is already installed.
#
# As root it installs Debian's `chromium` package without recommends (running
# `apt-get update` once if the package index does not know it yet). Not root,
# or when the install fails, it says so and exits 0: the browser test then
# skips with the reason, and every other test still runs.
#
# Environment:
#   LEGALFUZZ_CHROMIUM   a Chromium binary to use instead (nothing is installed)
set -euo pipefail

have() {
	if [ -n "${LEGALFUZZ_CHROMIUM:-}" ]; then
		[ -x "$LEGALFUZZ_CHROMIUM" ]
		return
	fi
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
		command -v google-chrome >/dev/null 2>&1 || command -v google-chrome-stable >/dev/null 2>&1
}

if have; then
	exit 0
fi
if [ -n "${LEGALFUZZ_CHROMIUM:-}" ]; then
	echo "install-chromium: LEGALFUZZ_CHROMIUM=$LEGALFUZZ_CHROMIUM is not executable; the browser test will skip" >&2
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-chromium: chromium is missing and this is not root; the browser test will skip" \
		"(install it with: sudo apt-get install --no-install-recommends chromium)" >&2
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-chromium: chromium is missing and there is no apt-get; the browser test will skip" >&2
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
install_chromium() { apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
echo "install-chromium: installing Debian's chromium (headless browser for the report test)" >&2
if ! install_chromium 2>/dev/null; then
	apt-get update -qq >/dev/null 2>&1 || true
	if ! install_chromium; then
		echo "install-chromium: apt-get install chromium failed; the browser test will skip" >&2
		exit 0
	fi
fi
have && echo "install-chromium: $(command -v chromium) installed" >&2
