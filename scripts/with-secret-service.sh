#!/usr/bin/env bash
# Runs a command inside a private D-Bus session that has an unlocked
# gnome-keyring Secret Service, so tests can use the real OS keyring.
#
#   scripts/with-secret-service.sh go test ./dispatch/keyringtest/
#
# The keyring lives in a temporary folder (never the user's own), and the
# command sees TEND_TEST_SECRET_SERVICE=1. Needs the Debian packages
# dbus, dbus-x11 (dbus-launch, which go-keyring may call), gnome-keyring and
# libsecret-tools (secret-tool, for the smoke check below).
set -euo pipefail

if [ "$#" -eq 0 ]; then
	echo "usage: $0 COMMAND [ARGS...]" >&2
	exit 2
fi

for tool in dbus-run-session gnome-keyring-daemon; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$0: $tool is missing: install the packages dbus, dbus-x11 and gnome-keyring" >&2
		exit 1
	fi
done

if [ "${_TEND_IN_DBUS_SESSION:-}" != 1 ]; then
	# A fresh session bus; it ends (and takes the keyring daemon with it)
	# when the command returns.
	exec env _TEND_IN_DBUS_SESSION=1 dbus-run-session -- "$0" "$@"
fi
unset _TEND_IN_DBUS_SESSION

# The keyring daemon exits by itself when the session bus closes, right
# after this script; only the temporary folder needs removing.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/data" "$tmp/runtime" "$tmp/config"
chmod 700 "$tmp/runtime"
export XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/runtime" XDG_CONFIG_HOME="$tmp/config"

# --unlock creates the login keyring with this password, unlocked; --start
# then brings up the secrets component on the session bus.
eval "$(printf 'test' | gnome-keyring-daemon --daemonize --unlock --components=secrets)"
eval "$(gnome-keyring-daemon --start --components=secrets 2>/dev/null)"

# Wait until the Secret Service answers (up to 10 s).
for _ in $(seq 1 100); do
	if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; then
		break
	fi
	sleep 0.1
done

export TEND_TEST_SECRET_SERVICE=1
"$@"
