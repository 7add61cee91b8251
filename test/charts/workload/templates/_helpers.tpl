{{/* Labels that select the pods of one component: call with (list $ "component"). */}}
{{- define "workload.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: workload
app.kubernetes.io/instance: {{ $root.Release.Name | quote }}
app.kubernetes.io/component: {{ index . 1 | quote }}
{{- end -}}

{{/* Pod template metadata shared by the Deployment and the DaemonSet: call with (list $ "component"). */}}
{{- define "workload.podMetadata" -}}
{{- $root := index . 0 -}}
metadata:
  labels:
    {{- include "workload.selectorLabels" . | nindent 4 }}
    {{- with $root.Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
{{- end -}}
