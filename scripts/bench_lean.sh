#!/usr/bin/env bash
# bench_lean.sh OLD_REF [ENTRIES]
#
# Measures this checkout's HEAD against OLD_REF (e.g. the last commit that used
# github.com/openai/openai-go) side by side, in one run on one machine, as
# issue 11 asks. For each of the two it reports:
#   - the cold build time of the release binary (GOCACHE an empty temp
#     folder; modules already downloaded, so the network is not counted),
#   - the size of that binary (-trimpath -ldflags "-s -w"),
#   - the daemon's RSS per entry at ENTRIES (default 150000) entries, from
#     scripts/bench_daemon.sh run on that binary.
# COLD=0 skips the cold builds (the binaries are built with the usual
# cache, and no build time is reported). Both are checked out in temporary
# worktrees (so edits made meanwhile do
# not leak in), removed at the end.
set -euo pipefail

old=${1:?usage: $0 OLD_REF [ENTRIES]}
entries=${2:-150000}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tend-lean.XXXXXX")
cleanup() {
	git -C "$repo" worktree remove --force "$tmp/old" 2>/dev/null || true
	git -C "$repo" worktree remove --force "$tmp/new" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

git -C "$repo" worktree add --detach "$tmp/old" "$old" >/dev/null 2>&1
git -C "$repo" worktree add --detach "$tmp/new" HEAD >/dev/null 2>&1
old_rev=$(git -C "$tmp/old" rev-parse --short HEAD)
new_rev=$(git -C "$tmp/new" rev-parse --short HEAD)

build() { # build NAME DIR: cold release build into $tmp/bin/NAME
	local name=$1 dir=$2 start end
	if [ "${COLD:-1}" != 0 ]; then
		export GOCACHE=$tmp/gocache-$name
		mkdir -p "$GOCACHE"
	fi
	(cd "$dir" && go mod download)
	start=$(date +%s%N)
	(cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$tmp/bin/$name" ./cmd/tend)
	end=$(date +%s%N)
	echo "$(((end - start) / 1000000))" >"$tmp/bin/$name.ms"
	[ "${COLD:-1}" = 0 ] || unset GOCACHE
}

mkdir -p "$tmp/bin"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
build old "$tmp/old"
build new "$tmp/new"
for name in old new; do
	rev=$old_rev
	[ $name = new ] && rev=$new_rev
	ms=$(cat "$tmp/bin/$name.ms")
	echo "== $name ($rev): binary $(stat -c %s "$tmp/bin/$name") bytes; cold build $((ms / 1000)).$(((ms % 1000) / 100)) s"
done
for name in old new; do
	echo "== $name: daemon at $entries entries"
	TEND_BIN=$tmp/bin/$name "$tmp/new/scripts/bench_daemon.sh" "$entries" || echo "(the $name daemon bench failed; see above)"
done
echo "machine load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
