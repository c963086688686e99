#!/usr/bin/env bash
# bench_fingerprint.sh [ENTRIES] [RUNS]
#
# Compares a full `tend fingerprint` of a generated tree with
# `find DIR -printf '%p %s %T@\n'` on the same tree, in the same run, warm
# cache, and prints both times and the ratio (issue 2 asks for <= 0.7). Then
# runs the Go benchmark of an incremental update after one file changed
# (issue 2 asks for < 1 ms) and the heap bytes per entry of a built tree.
#
# Needs only bash, coreutils and go. ENTRIES defaults to 150000, RUNS to 5.
set -euo pipefail

entries=${1:-150000}
runs=${2:-5}
case $entries$runs in
*[!0-9]*) echo "usage: $0 [ENTRIES] [RUNS]  (both positive numbers)" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tend-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "building tend and the tree generator..."
(cd "$repo" && go build -o "$tmp/tend" ./cmd/tend && go build -o "$tmp/treegen" ./fingerprint/internal/treegen/cmd/treegen)

tree=$tmp/tree
"$tmp/treegen" "$tree" "$entries"

# Warm the cache: both tools once, not timed.
find "$tree" -printf '%p %s %T@\n' >/dev/null
"$tmp/tend" fingerprint "$tree" >/dev/null

now() { date +%s%N; }
declare -a find_ms tend_ms
for ((i = 0; i < runs; i++)); do
	s=$(now)
	find "$tree" -printf '%p %s %T@\n' >/dev/null
	e=$(now)
	find_ms+=($(((e - s) / 1000)))
	s=$(now)
	"$tmp/tend" fingerprint "$tree" >/dev/null
	e=$(now)
	tend_ms+=($(((e - s) / 1000)))
done

# best and median of a list of microsecond figures
best() { printf '%s\n' "$@" | sort -n | head -n1; }
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
ms() { printf '%d.%03d ms' $(($1 / 1000)) $(($1 % 1000)); }
ratio() { local r=$(($1 * 1000 / $2)); printf '%d.%03d' $((r / 1000)) $((r % 1000)); }

fb=$(best "${find_ms[@]}"); fm=$(median "${find_ms[@]}")
tb=$(best "${tend_ms[@]}"); tm=$(median "${tend_ms[@]}")
echo
echo "tree: $("$tmp/tend" fingerprint --json "$tree" | grep -E '"(files|dirs)"' | tr -d ' ,\n' | sed 's/"//g;s/:/=/g;s/dirs/ dirs/')"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs: $runs each, alternating"
echo "find DIR -printf ...   best $(ms "$fb")   median $(ms "$fm")"
echo "tend fingerprint DIR   best $(ms "$tb")   median $(ms "$tm")"
echo "ratio tend/find        best $(ratio "$tb" "$fb")   median $(ratio "$tm" "$fm")   (target <= 0.700)"
echo

echo "go benchmarks on the same tree (update after one file changed; heap per entry):"
(cd "$repo" && TEND_BENCH_DIR=$tree go test -run '^$' -bench 'BenchmarkUpdateOneFile|BenchmarkBuild' -benchtime 2s ./fingerprint) |
	grep -E '^Benchmark' || true
