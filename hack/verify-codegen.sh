#!/usr/bin/env bash
# Fails when the committed generated files (api/**/zz_generated.deepcopy.go, config/crd/ and
# internal/upstream/**/zz_generated.deepcopy.go)
# differ from what hack/update-codegen.sh makes from the current types. It regenerates in a
# temporary copy, so the working tree is never touched.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Copy what generation reads (the module files, the types, the tools pin, the header) and the
# generated files to compare.
mkdir -p "$TMP/hack/tools" "$TMP/config/crd" "$TMP/internal"
cp "$ROOT/go.mod" "$ROOT/go.sum" "$TMP/"
cp -R "$ROOT/api" "$TMP/api"
cp -R "$ROOT/internal/upstream" "$TMP/internal/upstream"
cp -R "$ROOT/config/crd/." "$TMP/config/crd/"
cp "$ROOT/hack/tools/go.mod" "$ROOT/hack/tools/go.sum" "$TMP/hack/tools/"
cp "$ROOT/hack/update-codegen.sh" "$ROOT/hack/boilerplate.go.txt" "$TMP/hack/"

"$TMP/hack/update-codegen.sh"

status=0
for dir in api config/crd internal/upstream; do
	if ! diff -ru "$ROOT/$dir" "$TMP/$dir" >"$TMP/diff"; then
		status=1
		sed -e "s#$TMP/#regenerated: #g" -e "s#$ROOT/#committed: #g" "$TMP/diff" >&2
	fi
done
if [[ $status -ne 0 ]]; then
	echo >&2
	echo "verify-codegen: the generated files above are out of date." >&2
	echo "Run hack/update-codegen.sh and commit the result." >&2
	exit 1
fi
echo "verify-codegen: generated files are up to date."
