#!/usr/bin/env bash
# Lints and renders the Helm chart with helm built from its Go module (hack/tools/go.mod):
# with its defaults and with every values file in charts/phalanx/ci; builds config/ with
# kustomize (from its Go module too); checks that bad
# values are refused with an error; and fails when what hack/update-chart.sh generates
# (the chart's CRD and dashboard, deploy/phalanx.yaml) is out of date. The e2e tests
# (test/e2e/release_test.go) apply the renderings to a real API server in a dry run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CHART=charts/phalanx
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

helm() { go tool -modfile="$ROOT/hack/tools/go.mod" helm "$@"; }

helm lint --strict "$CHART"
for values in "$CHART"/ci/*-values.yaml; do
	helm lint --strict "$CHART" --values "$values" >/dev/null
	# (as on a cluster with the Prometheus Operator: the ServiceMonitor needs its API)
	helm template phalanx "$CHART" --namespace phalanx-system --values "$values" \
		--api-versions monitoring.coreos.com/v1/ServiceMonitor >"$TMP/$(basename "$values")"
	echo "verify-chart: $(basename "$values") lints and renders ($(grep -c '^kind:' "$TMP/$(basename "$values")") objects)"
done

# The kustomization of config/ builds too (the e2e tests apply it in a dry run as well).
go tool -modfile="$ROOT/hack/tools/go.mod" kustomize build config >"$TMP/kustomize.yaml"
echo "verify-chart: kustomize build config renders ($(grep -c '^kind:' "$TMP/kustomize.yaml") objects)"

# Bad values are refused, with a message naming them.
refuse() {
	local want=$1
	shift
	if out=$(helm template phalanx "$CHART" "$@" 2>&1); then
		echo "verify-chart: helm template $* was accepted" >&2
		exit 1
	fi
	if ! grep -q -- "$want" <<<"$out"; then
		echo "verify-chart: helm template $* failed without naming $want:" >&2
		echo "$out" >&2
		exit 1
	fi
}
refuse replicaz --set replicaz=3
refuse schedulerName --set schedulerName=default-scheduler
refuse leaderElection --set leaderElection.enabled=false
refuse nativePodGroups --set rbac.nativePodGroups=false --set podGroupSource=native
refuse format --set logging.format=yaml
# A ServiceMonitor where the Prometheus Operator's API is not served.
refuse "ServiceMonitor CRD" --set metrics.serviceMonitor.enabled=true
echo "verify-chart: bad values are refused"

# Generated files: regenerate in a temporary copy and compare.
# (go tool runs helm from the module of the working directory: the root go.mod too.)
mkdir -p "$TMP/repo/hack/tools" "$TMP/repo/config" "$TMP/repo/charts" "$TMP/repo/deploy"
cp go.mod go.sum "$TMP/repo/"
cp -R "$CHART" "$TMP/repo/charts/"
cp -R config/crd config/grafana "$TMP/repo/config/"
cp deploy/phalanx.yaml "$TMP/repo/deploy/"
cp hack/update-chart.sh "$TMP/repo/hack/"
cp hack/tools/go.mod hack/tools/go.sum "$TMP/repo/hack/tools/"
(cd "$TMP/repo" && hack/update-chart.sh)
status=0
for f in "$CHART/templates/crds.yaml" "$CHART/dashboards" deploy/phalanx.yaml; do
	if ! diff -ru "$f" "$TMP/repo/$f" >"$TMP/diff"; then
		status=1
		sed -e "s#$TMP/repo/#regenerated: #g" "$TMP/diff" >&2
	fi
done
if [[ $status -ne 0 ]]; then
	echo "verify-chart: the generated files above are out of date; run make generate and commit the result." >&2
	exit 1
fi
echo "verify-chart: ok"
