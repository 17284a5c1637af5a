#!/usr/bin/env bash
# Regenerates what the Helm chart and the release manifest derive from the rest of the
# repository, with helm built from its Go module (hack/tools/go.mod):
#   charts/phalanx/templates/crds.yaml          the CRDs of config/crd, behind crds.install
#   charts/phalanx/dashboards/*.json            the Grafana dashboard of config/grafana
#   deploy/phalanx.yaml                         the release manifest: the chart rendered with
#                                               its defaults and namespace.create=true (a
#                                               manifest has no --create-namespace) into
#                                               phalanx-system
# hack/update-codegen.sh (make generate) runs it; hack/verify-chart.sh checks the result.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CHART=charts/phalanx

helm() { go tool -modfile="$ROOT/hack/tools/go.mod" helm "$@"; }

# The CRDs, installed and upgraded with the chart, kept on uninstall unless crds.keep is
# false (deleting them would delete every PodGroup and CompositePodGroup).
{
	echo '{{- if .Values.crds.install }}'
	for crd in config/crd/*.yaml; do
		echo '---'
		sed -e 's/^    controller-gen.kubebuilder.io\/version: \(.*\)$/    controller-gen.kubebuilder.io\/version: \1\n    {{- if .Values.crds.keep }}\n    helm.sh\/resource-policy: keep\n    {{- end }}/' \
			-e '/^---$/d' "$crd"
	done
	echo '{{- end }}'
} >"$CHART/templates/crds.yaml"
grep -q 'helm.sh/resource-policy' "$CHART/templates/crds.yaml" || { echo "update-chart: no CRD annotation to extend in config/crd" >&2; exit 1; }

mkdir -p "$CHART/dashboards"
cp config/grafana/*.json "$CHART/dashboards/"

mkdir -p deploy
{
	echo "# phalanx $(sed -n 's/^appVersion: //p' "$CHART/Chart.yaml"): the release manifest, rendered from charts/phalanx by"
	echo "# hack/update-chart.sh (do not edit) with the chart's defaults and one more value,"
	echo "# namespace.create=true (the namespace phalanx-system is in it). Install with"
	echo "#   kubectl apply --server-side -f deploy/phalanx.yaml"
	helm template phalanx "$CHART" --namespace phalanx-system --set namespace.create=true
} >deploy/phalanx.yaml
