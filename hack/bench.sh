#!/usr/bin/env bash
# Go benchmarks of the scheduling cycles. Reports pods/s (the custom metric) and ns/op.
# BENCH selects benchmarks (default: all), BENCHTIME how long each runs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BENCH=${BENCH:-.}
BENCHTIME=${BENCHTIME:-1x}
go test -run '^$' -bench "$BENCH" -benchtime "$BENCHTIME" -benchmem \
	./pkg/scheduler/... ./pkg/preemption/... ./pkg/plugins/... ./pkg/cache/... 2>/dev/null | grep -E '^(Benchmark|ok|FAIL|goos|cpu)' || true
