#!/usr/bin/env bash
# Runs the whole test suite inside a private D-Bus session with an unlocked
# gnome-keyring, so the keyring and tray tests use a real Secret Service
# and a real session bus. It first installs the Debian packages the suite
# needs when they are missing (scripts/test-deps.sh). Extra arguments go
# to `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/test-deps.sh
exec scripts/with-secret-service.sh go test -count=1 -timeout 15m "$@" ./...
