#!/usr/bin/env bash
# build-app.sh [OUTDIR]: assemble Tend.app from a darwin build of ./cmd/tend.
#
# Builds with cgo, since the FSEvents watcher and the menu-bar icon need it:
# on a Mac with the Command Line Tools (xcode-select --install), or
# elsewhere with CC set to a darwin cross compiler. Where neither is there
# it stops and says so; CGO_ENABLED=0 builds a bundle anyway that polls
# folders and shows no menu-bar icon. OUTDIR defaults to dist/ at the
# repository root. GOARCH defaults to arm64. VERSION (like 1.4.2; default:
# the newest vX.Y.Z tag, else 0.0.0) and BUILD (default: the commit count)
# are stamped into Info.plist.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="${1:-$root/dist}"
arch="${GOARCH:-arm64}"
cgo="${CGO_ENABLED:-1}"

version="${VERSION:-}"
if [ -z "$version" ]; then
	version="$(git -C "$root" describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null || true)"
	version="${version#v}"
	version="${version%%-*}"
	version="${version:-0.0.0}"
fi
build="${BUILD:-$(git -C "$root" rev-list --count HEAD 2>/dev/null || echo 1)}"

if [ "$cgo" = "1" ] && [ -z "${CC:-}" ]; then
	why=""
	if [ "$(uname -s)" != "Darwin" ]; then
		why="this is $(uname -s), and no darwin C compiler is set in CC"
	elif ! xcrun --find clang >/dev/null 2>&1; then
		why="no C compiler answers (xcrun --find clang failed): install the Command Line Tools with xcode-select --install"
	fi
	if [ -n "$why" ]; then
		cat >&2 <<-MSG
		build-app.sh: cannot build Tend.app with cgo: $why.
		  The FSEvents watcher and the menu-bar icon need cgo and a macOS SDK.
		  Build on a Mac, or set CC to a darwin cross compiler, or run
		  CGO_ENABLED=0 $0 for a bundle that polls folders and has no menu-bar icon.
		MSG
		exit 1
	fi
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
app="$out/Tend.app"
# Build into a scratch bundle beside the final one, then swap it in, so a
# failed build never leaves a half-made Tend.app.
tmp="$(mktemp -d "$out/.Tend.app.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
bundle="$tmp/Tend.app"
mkdir -p "$bundle/Contents/MacOS" "$bundle/Contents/Resources"

echo "building tend $version ($build) for darwin/$arch (CGO_ENABLED=$cgo)"
(cd "$root" && GOOS=darwin GOARCH="$arch" CGO_ENABLED="$cgo" \
	go build -trimpath -ldflags "-s -w" -o "$bundle/Contents/MacOS/tend" ./cmd/tend)
if [ "$cgo" != "1" ]; then
	echo "WARNING: built without cgo: this bundle watches folders by polling (no FSEvents)"
	echo "         and shows no menu-bar icon. Build on a Mac with cgo for the real app."
fi

"$here/stamp-info.sh" "$version" "$build" <"$root/Info.plist" >"$bundle/Contents/Info.plist"
printf 'APPL????' >"$bundle/Contents/PkgInfo"
cp "$here/Tend.icns" "$bundle/Contents/Resources/Tend.icns"
if command -v plutil >/dev/null 2>&1; then
	plutil -lint "$bundle/Contents/Info.plist" >/dev/null
fi

rm -rf "$app"
mv "$bundle" "$app"
echo "assembled $app"
