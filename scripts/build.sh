#!/usr/bin/env bash
# build.sh [OUTPUT]
#
# Builds the release binary of tend (default ./tend; set GOOS/GOARCH to
# cross-build): -trimpath (no build paths in the binary), -ldflags "-s -w"
# (no symbol table or DWARF: about a third smaller), the version stamped in
# with -X, and the commit recorded from git. `tend version` and
# `tend --version` print both.
#
# The version is $TEND_VERSION, else `git describe --tags`, else the
# default in cmd/tend/wiring.go. The commit comes from the toolchain's own
# VCS stamp (-buildvcs=true: vcs.revision, vcs.modified); in a linked git
# worktree, where the toolchain finds no .git folder, the same two values
# are passed with -X instead.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$repo/tend}
cd "$repo"

version=${TEND_VERSION:-}
commit="" modified=""
if git rev-parse --git-dir >/dev/null 2>&1; then
	[ -n "$version" ] || version=$(git describe --tags --always --dirty 2>/dev/null || true)
	commit=$(git rev-parse HEAD)
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then modified=true; else modified=false; fi
else
	echo "build.sh: not a git checkout; the binary will say its commit is unknown" >&2
fi

ldflags="-s -w"
[ -z "$version" ] || ldflags+=" -X main.version=$version"
[ -z "$commit" ] || ldflags+=" -X main.commit=$commit -X main.modified=$modified"
# GOFLAGS may carry -buildvcs=false (CI sets it): the flag here wins.
go build -trimpath -buildvcs=true -ldflags "$ldflags" -o "$out" ./cmd/tend
"$out" version
