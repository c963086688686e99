#!/usr/bin/env bash
# build-app.sh [OUTDIR]: assemble Tend.app from a darwin build of ./cmd/tend.
#
# Runs on macOS and, cross-compiling, on Linux. OUTDIR defaults to dist/ at
# the repository root. GOARCH (default arm64) and CGO_ENABLED (default 0)
# pass through to `go build`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="${1:-$root/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
app="$out/Tend.app"
arch="${GOARCH:-arm64}"
cgo="${CGO_ENABLED:-0}"

# Build into a scratch bundle beside the final one, then swap it in, so a
# failed build never leaves a half-made Tend.app.
tmp="$(mktemp -d "$out/.Tend.app.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
bundle="$tmp/Tend.app"
mkdir -p "$bundle/Contents/MacOS" "$bundle/Contents/Resources"

echo "building tend for darwin/$arch (CGO_ENABLED=$cgo)"
(cd "$root" && GOOS=darwin GOARCH="$arch" CGO_ENABLED="$cgo" \
	go build -trimpath -o "$bundle/Contents/MacOS/tend" ./cmd/tend)
if [ "$cgo" = "0" ]; then
	echo "note: built without cgo, so this bundle watches folders by polling;"
	echo "      the FSEvents watcher needs CGO_ENABLED=1 and a macOS SDK (build on a Mac)."
fi

cp "$root/Info.plist" "$bundle/Contents/Info.plist"
printf 'APPL????' >"$bundle/Contents/PkgInfo"
if [ -f "$here/Tend.icns" ]; then
	cp "$here/Tend.icns" "$bundle/Contents/Resources/Tend.icns"
fi
if command -v plutil >/dev/null 2>&1; then
	plutil -lint "$bundle/Contents/Info.plist" >/dev/null
fi

rm -rf "$app"
mv "$bundle" "$app"
echo "assembled $app"
