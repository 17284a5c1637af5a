#!/usr/bin/env bash
# Regenerates what controller-gen derives from the markers in api/: the deepcopy functions
# (api/**/zz_generated.deepcopy.go) and the CRD (config/crd/); and the deepcopy functions of
# the upstream types phalanx keeps a copy of (internal/upstream/**/zz_generated.deepcopy.go). Run it after changing a type.
# controller-gen is pinned in hack/tools/go.mod, so everyone generates byte-identical files.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

controller_gen() {
	go tool -modfile="$ROOT/hack/tools/go.mod" controller-gen "$@"
}

# Start the CRDs from nothing, so that the CRD of a renamed or removed kind does not linger.
rm -f config/crd/scheduling.phalanx.dev_*.yaml

controller_gen \
	object:headerFile=hack/boilerplate.go.txt \
	crd \
	paths=./api/... \
	output:crd:dir=config/crd

controller_gen \
	object:headerFile=hack/boilerplate.go.txt \
	paths=./internal/upstream/...
