#!/usr/bin/env bash
# Times the whole `phalanx simulate` process (load, schedule, report) on the benchmark
# cluster: NODES nodes (default 5000) and PODS pending pods (default 20000).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
NODES=${NODES:-5000}
PODS=${PODS:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/phalanx" ./cmd/phalanx
go run ./hack/gen-workload -nodes "$NODES" -pods "$PODS" >"$work/cluster.yaml"
echo "cluster: $NODES nodes, $PODS pending pods ($(du -h "$work/cluster.yaml" | cut -f1) of YAML)"
# The machine is often shared: CPU time (user+sys) is the figure to compare builds by.
TIMEFORMAT='%R %U %S'
for run in 1 2 3; do
	read -r wall user sys < <({ time "$work/phalanx" simulate -f "$work/cluster.yaml" -o json --out "$work/out.json" 2>/dev/null; } 2>&1)
	awk -v s="$wall" -v u="$user" -v y="$sys" -v pods="$PODS" -v run="$run" \
		'BEGIN { printf "run %d: %.2fs wall, %.2fs CPU (user %.2f, sys %.2f), %d pods/s end to end\n", run, s, u + y, u, y, pods / s }'
done
grep -o '"running": [0-9]*' "$work/out.json" | head -1
