#!/usr/bin/env bash
# Measures tend's dispatch overhead on a folder of ENTRIES entries
# (default 150000): from the end of the debounce window to the first byte
# of the chat request at the model, and from the model's last answer to
# the watcher being idle again (settleSeconds 0). Real kernel watcher,
# engine, runner, sandbox and Ollama client; a streaming stand-in model.
#
#   scripts/bench_dispatch.sh [ENTRIES] [ITERATIONS]
#
# Prints the figures in ms (mean, p50, max); the target is < 10 ms each.
# TEND_BENCH_SPLIT=1 also splits the time back to idle into its parts.
set -euo pipefail
cd "$(dirname "$0")/.."
entries="${1:-150000}"
iterations="${2:-50}"
TEND_BENCH_ENTRIES="$entries" go test -run '^$' -bench DispatchOverhead -benchtime "${iterations}x" ./e2e/ |
	awk '/^Benchmark/ { for (i = 3; i < NF; i += 2) printf "%-28s %s\n", $(i+1), $i; next } { print }'
