#!/usr/bin/env bash
# test-deps.sh: makes sure the machine has what the test suite uses for
# real, and installs what is missing on Debian or Ubuntu. scripts/test.sh
# runs it first, so on a fresh machine `scripts/test.sh` is all it takes.
#
# As root, or where sudo works, it installs the missing packages through
# apt-get. Otherwise it prints the one command to run and exits 1.
set -euo pipefail

# Debian packages the tests use: Chromium (history viewer tests), a D-Bus
# session bus and gnome-keyring (Secret Service and tray tests), systemd
# (systemd-analyze verify of the user unit), desktop-file-utils
# (desktop-file-validate of the tray's autostart entry), git (checkout
# test), procps and util-linux (setpriv, mount for the disk-full tests),
# poppler-utils (pdftotext, the PDF reader tend prefers when installed).
packages="chromium dbus dbus-x11 gnome-keyring libsecret-tools systemd desktop-file-utils git procps util-linux poppler-utils"

if ! command -v dpkg >/dev/null 2>&1; then
	# Not Debian: say what the suite needs and let it skip what is absent.
	echo "test-deps.sh: not a Debian or Ubuntu system; the tests that need these skip where they are missing:" >&2
	echo "  $packages" >&2
	exit 0
fi

missing=""
for p in $packages; do
	# dpkg -s also lists removed packages; the status must say "installed".
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed$'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	exit 0
fi

install="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
	sudo="sudo"
else
	echo "The tests need these Debian packages:$missing" >&2
	echo "Install them, then run scripts/test.sh again:" >&2
	echo "  sudo sh -c '$install'" >&2
	exit 1
fi
echo "installing the packages the tests need:$missing"
$sudo sh -c "$install" >/dev/null
