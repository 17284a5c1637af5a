#!/usr/bin/env bash
# Checks a change before it lands: formatting, vet, staticcheck, generated files up to date,
# the Helm chart (lint, renderings, the release manifest up to date), and that the
# scheduling core stays pure (no client-go).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'; git ls-files --others --exclude-standard '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...
go vet -tags e2e ./test/e2e/...
go -C hack/schedulerdiff vet ./...
go -C hack/bench-scale vet ./...

echo "== staticcheck"
go tool -modfile=hack/tools/go.mod staticcheck ./...
go tool -modfile=hack/tools/go.mod staticcheck -tags e2e ./test/e2e/...
(cd hack/schedulerdiff && go tool -modfile=../tools/go.mod staticcheck ./...)
(cd hack/bench-scale && go tool -modfile=../tools/go.mod staticcheck ./...)

echo "== the browser test's module (hack/browsertest)"
go -C hack/browsertest vet ./...
go build -modfile=hack/tools/go.mod -o bin/staticcheck honnef.co/go/tools/cmd/staticcheck
(cd hack/browsertest && ../../bin/staticcheck ./...)

echo "== generated files"
hack/verify-codegen.sh

echo "== Helm chart and release manifest"
hack/verify-chart.sh

echo "== CRD against the API server's own validation"
go -C hack/tools/crdcheck test -count=1 ./...

echo "== pure scheduling core"
# pkg/nativegroup is not the core, but the simulator shares it with the kube driver.
pure="./pkg/cache/... ./pkg/groupapi/... ./pkg/preemptexec/... ./pkg/queue/... ./pkg/framework/... ./pkg/plugins/... ./pkg/podfit/... ./pkg/placement/... ./pkg/preemption/... ./pkg/scheduler/... ./pkg/nativegroup/..."
bad=0
for pkg in $(go list $pure 2>/dev/null); do
	if go list -deps "$pkg" | grep -q '^k8s.io/client-go'; then
		echo "$pkg imports k8s.io/client-go: the scheduling core must stay pure"; bad=1
	fi
done
[ "$bad" = 0 ]
echo "verify: ok"
