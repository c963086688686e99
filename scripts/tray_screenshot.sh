#!/usr/bin/env bash
# Screenshots the real tray menu for docs/tray-menu.png: a private X
# server (Xvfb) and session bus, xfce4-panel's status tray as the
# StatusNotifierItem host (it renders the dbusmenu with libdbusmenu-gtk),
# and a real `tend daemon --tray` with three watchers, one paused. It
# opens the menu and the first watcher's submenu with xdotool and crops
# the screen with ImageMagick.
#
#   scripts/tray_screenshot.sh [OUT.png]        (default docs/tray-menu.png)
#
# Debian packages: xvfb xfce4-panel xfconf dbus dbus-x11 xdotool imagemagick.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/tray-menu.png}"

for tool in Xvfb xfce4-panel xdotool import dbus-run-session dbus-send; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "$0: $tool is missing: apt-get install xvfb xfce4-panel xfconf dbus dbus-x11 xdotool imagemagick" >&2
		exit 1
	}
done

if [ "${_TEND_SHOT_INNER:-}" != 1 ]; then
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	# Set before the bus starts, so the xfconfd it activates reads our
	# panel layout and not the user's.
	export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
	export _TEND_SHOT_INNER=1 _TEND_SHOT_TMP="$tmp"
	mkdir -p "$XDG_CONFIG_HOME/xfce4/xfconf/xfce-perchannel-xml"
	cat >"$XDG_CONFIG_HOME/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="30"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
        <value type="int" value="2"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="separator">
      <property name="expand" type="bool" value="true"/>
      <property name="style" type="uint" value="0"/>
    </property>
    <property name="plugin-2" type="string" value="systray"/>
  </property>
</channel>
XML
	go build -o "$tmp/tend" ./cmd/tend
	dbus-run-session -- "$0" "$@"
	exit $?
fi

tmp="$_TEND_SHOT_TMP"
W=900 H=560
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# until CMD...: retry for up to 10 s.
until_ok() {
	for _ in $(seq 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "$0: timed out waiting for: $*" >&2
	return 1
}

Xvfb :87 -screen 0 ${W}x${H}x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=:87
until_ok xdotool getdisplaygeometry

xfce4-panel --disable-wm-check >"$tmp/panel.log" 2>&1 &
pids+=($!)
until_ok dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
	org.freedesktop.DBus.GetNameOwner string:org.kde.StatusNotifierWatcher

home="$tmp/home"
mkdir -p "$home/folders/inbox" "$home/folders/notes" "$home/folders/photos"
"$tmp/tend" --home "$home" daemon --tray --http 127.0.0.1:0 >"$tmp/daemon.log" 2>&1 &
pids+=($!)
until_ok "$tmp/tend" --home "$home" status
for n in inbox notes photos; do
	"$tmp/tend" --home "$home" add "$home/folders/$n" --name "$n" --instructions "keep it tidy" >/dev/null
done
"$tmp/tend" --home "$home" pause photos >/dev/null
# The tray registers with the panel once the daemon is ready.
until_ok grep -q . <(dbus-send --session --print-reply --dest=org.kde.StatusNotifierWatcher \
	/StatusNotifierWatcher org.freedesktop.DBus.Properties.Get \
	string:org.kde.StatusNotifierWatcher string:RegisteredStatusNotifierItems | grep StatusNotifierItem)

sleep 1 # let the panel draw the icon and the menu take its last labels
xdotool mousemove $((W - 15)) 15 click 1
sleep 1
xdotool mousemove $((W - 200)) 62 # over the first watcher: opens its submenu
sleep 1
mkdir -p "$(dirname "$out")"
import -window root -crop 520x270+$((W - 520))+0 +repage "$out"
echo "wrote $out"
