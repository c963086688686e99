#!/usr/bin/env bash
# bench_daemon.sh [ENTRIES]
#
# Measures the daemon watching a generated tree of ENTRIES files and
# folders (default 150000), as issue 2 asks:
#   - resident memory per entry once the watcher is idle (target <= 250 B),
#   - CPU time used over 10 idle seconds (target: 0 ticks: no polling while
#     the kernel watcher works),
#   - the time from changing one file until its run ended (debounce
#     "fast" 0.2 s + the run + settle 2 s; no model server answers, so the
#     run ends at once as failed, and is retried later).
# It starts `tend daemon --http ""` on a fresh TEND_HOME, stops it and
# removes everything at the end. Needs bash, coreutils, go and Linux /proc.
# TEND_BIN=path measures that binary (e.g. a release build from
# scripts/build.sh) instead of a plain `go build` of this checkout.
set -euo pipefail

entries=${1:-150000}
case $entries in
'' | *[!0-9]*) echo "usage: $0 [ENTRIES]  (a positive number)" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tend-bd.XXXXXX")
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "building tend and the tree generator..."
if [ -n "${TEND_BIN:-}" ]; then
	cp "$TEND_BIN" "$tmp/tend"
else
	(cd "$repo" && go build -o "$tmp/tend" ./cmd/tend)
fi
(cd "$repo" && go build -o "$tmp/treegen" ./fingerprint/internal/treegen/cmd/treegen)
"$tmp/treegen" "$tmp/tree" "$entries"

export TEND_HOME=$tmp/home
export OLLAMA_HOST=127.0.0.1:9 # nothing answers: runs fail fast
tend() { "$tmp/tend" "$@"; }
now() { date +%s%N; }
ms() { printf '%d.%03d s' $(($1 / 1000000000)) $((($1 / 1000000) % 1000)); }

# field N of the watcher's state in `tend status --json` (one watcher)
field() { tend status --json 2>/dev/null | sed -n "s/^ *\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" | head -n1; }
wait_for() { # wait_for WHAT SECONDS COMMAND...
	local what=$1 limit=$2 start
	shift 2
	start=$(date +%s)
	until "$@"; do
		if (($(date +%s) - start > limit)); then
			echo "timed out waiting for $what; daemon log:" >&2
			tail -n 20 "$tmp/daemon.log" >&2
			exit 1
		fi
		sleep 0.02
	done
}
daemon_up() { tend status >/dev/null 2>&1; }
idle() { [ "$(field phase)" = idle ]; }
# The run fails (no model server), and a failed run is retried after a
# while, so the watcher is not idle after it: the end of the run is when
# its end time is set.
ran() { [ "$(field runs)" -ge 1 ] 2>/dev/null && [ -n "$(field lastRunEnd)" ]; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
anon_kb() { awk '/^RssAnon:/ {print $2}' "/proc/$pid/status"; }
hwm_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$pid/status"; }

"$tmp/tend" daemon --http "" 2>"$tmp/daemon.log" &
pid=$!
wait_for "the daemon" 30 daemon_up
rss0=$(rss_kb) # the daemon with no watcher: runtime and mapped binary
t0=$(now)
tend add "$tmp/tree" --name bench --instructions "benchmark: keep as is" --responsiveness fast >/dev/null
wait_for "the baseline" 600 idle
t1=$(now)
files=$(field files)
dirs=$(field dirs)
total=$((files + dirs))
watches=$(cat /proc/$pid/fdinfo/* 2>/dev/null | grep -c '^inotify wd:' || true)

# The daemon hands the build's garbage back to the OS 2 s after the
# watcher goes idle (daemon/trim.go); idle is measured after that.
sleep 3
c0=$(cpu_ticks)
sleep 10
c1=$(cpu_ticks)
rss=$(rss_kb)
anon=$(anon_kb)

echo
echo "tree: $files files, $dirs dirs ($total entries); machine: $(nproc) cores"
echo "inotify watches: $watches"
echo "add until idle (baseline):      $(ms $((t1 - t0)))"
echo "RSS idle:                       $((rss / 1024)) MiB = $((rss * 1024 / total)) B/entry   (target <= 250; peak $(($(hwm_kb) / 1024)) MiB)"
echo "  of which anonymous:           $((anon / 1024)) MiB = $((anon * 1024 / total)) B/entry (the rest is the mapped binary)"
echo "  RSS with no watcher:          $((rss0 / 1024)) MiB; added by watching: $(((rss - rss0) * 1024 / total)) B/entry"
echo "CPU over 10 idle seconds:       $((c1 - c0)) ticks of 1/$(getconf CLK_TCK) s   (target 0)"

# Last, so a slow run on a busy machine does not lose the figures above.
f=$(find "$tmp/tree" -type f -name '*.txt' -print -quit)
s=$(now)
echo "one more line" >>"$f"
wait_for "the run after one change" 60 ran
e=$(now)
echo "one file changed until the run ended: $(ms $((e - s)))   (debounce 0.2 s + a run that fails at once + settle 2 s)"
kill -TERM "$pid"
wait "$pid" || true
pid=""
