{{/* The name of every object, and the ServiceAccount's. */}}
{{- define "phalanx.fullname" -}}
{{- if eq .Release.Name .Chart.Name -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "phalanx.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* What selects phalanx's pods. */}}
{{- define "phalanx.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The PodGroup APIs phalanx reads: without the native API's RBAC, its CRD only. */}}
{{- define "phalanx.podGroupSource" -}}
{{- if and .Values.rbac.create (not .Values.rbac.nativePodGroups) -}}
{{- if eq .Values.podGroupSource "native" -}}
{{- fail "podGroupSource native needs rbac.nativePodGroups" -}}
{{- end -}}
crd
{{- else -}}
{{ .Values.podGroupSource }}
{{- end -}}
{{- end -}}

{{/* The scheduler configuration: the one given (YAML, or a string of it from
--set-file), or one profile with the defaults. */}}
{{- define "phalanx.config" -}}
{{- if kindIs "string" .Values.config -}}
{{ trimSuffix "\n" .Values.config }}
{{- else if .Values.config -}}
{{ toYaml .Values.config }}
{{- else -}}
apiVersion: config.phalanx.dev/v1alpha1
kind: SchedulerConfiguration
profiles:
- schedulerName: {{ .Values.schedulerName }}
{{- end -}}
{{- end -}}
