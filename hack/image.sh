#!/usr/bin/env bash
# make image: builds the container image IMAGE:VERSION.
#   - where docker or podman runs (its daemon answers): from the Dockerfile, as before;
#   - otherwise (IMAGE_BUILDER=go forces it): in Go, with go-containerregistry
#     (hack/image, a module of its own): the static binary (CGO_ENABLED=0, linux/GOARCH)
#     in one layer, user 65532:65532, entrypoint /phalanx, the OCI labels (version,
#     revision, source, created = the commit's time), written to bin/image/oci (an OCI
#     image layout) and bin/image/phalanx-image.tar (`docker load` reads it); then checked:
#     read back from the tarball, unpacked, and the binary inside run with --version.
# PUSH=1 pushes it to IMAGE:VERSION (credentials of `docker login`/`crane auth login`).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

IMAGE=${IMAGE:-ghcr.io/phalanx-dev/phalanx}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || true)}
ARCH=${ARCH:-$(go env GOARCH)}
OUT=${OUT:-bin/image}
REF="${IMAGE}:${VERSION}"

runtime=""
if [[ ${IMAGE_BUILDER:-} != go ]]; then
	for r in docker podman; do
		if command -v "$r" >/dev/null 2>&1 && "$r" info >/dev/null 2>&1; then
			runtime=$r
			break
		fi
	done
fi

if [[ -n $runtime ]]; then
	echo "image: $runtime build -t $REF"
	"$runtime" build --build-arg VERSION="$VERSION" --build-arg GIT_COMMIT="$GIT_COMMIT" -t "$REF" .
	if [[ ${PUSH:-0} == 1 ]]; then "$runtime" push "$REF"; fi
	exit 0
fi

echo "image: no container runtime answers; building $REF in Go (hack/image)"
created=$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
created=$(date -u -d "$created" +%Y-%m-%dT%H:%M:%SZ)
mkdir -p "$OUT"
CGO_ENABLED=0 GOOS=linux GOARCH="$ARCH" go build -trimpath \
	-ldflags "-s -w -X github.com/phalanx-dev/phalanx/pkg/version.gitVersion=${VERSION} -X github.com/phalanx-dev/phalanx/pkg/version.gitCommit=${GIT_COMMIT}" \
	-o "$OUT/phalanx" ./cmd/phalanx
tool() { (cd hack/image && GOWORK=off go run . "$@"); }
tool build -binary "$ROOT/$OUT/phalanx" -ref "$REF" -version "$VERSION" -revision "$GIT_COMMIT" \
	-arch "$ARCH" -created "$created" -out "$ROOT/$OUT"
if [[ $ARCH == "$(go env GOHOSTARCH)" ]]; then
	tool check -dir "$ROOT/$OUT" -ref "$REF" -version "$VERSION" -revision "$GIT_COMMIT"
else
	echo "image: built for $ARCH; not run here ($(go env GOHOSTARCH))"
fi
if [[ ${PUSH:-0} == 1 ]]; then
	tool push -dir "$ROOT/$OUT" -ref "$REF"
fi
