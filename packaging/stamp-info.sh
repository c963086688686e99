#!/usr/bin/env bash
# stamp-info.sh VERSION BUILD <Info.plist >stamped
#
# Writes the repository's Info.plist with CFBundleShortVersionString set
# to VERSION (up to three numbers, as macOS wants: 1.4.2) and
# CFBundleVersion to BUILD (numbers and dots: 317). build-app.sh calls it.
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 VERSION BUILD <Info.plist >stamped" >&2
	exit 2
fi
version=$1 build=$2
if ! [[ $version =~ ^[0-9]+(\.[0-9]+){0,2}$ ]]; then
	echo "stamp-info.sh: version \"$version\" is not what macOS accepts: give up to three numbers, like 1.4.2" >&2
	exit 2
fi
if ! [[ $build =~ ^[0-9]+(\.[0-9]+){0,2}$ ]]; then
	echo "stamp-info.sh: build \"$build\" is not what macOS accepts: give a number, like 317" >&2
	exit 2
fi
# The value is the <string> line right after its <key> line.
awk -v version="$version" -v build="$build" '
	want != "" { sub(/<string>[^<]*<\/string>/, "<string>" want "</string>"); want = ""; print; next }
	/<key>CFBundleShortVersionString<\/key>/ { want = version }
	/<key>CFBundleVersion<\/key>/ { want = build }
	{ print }
'
