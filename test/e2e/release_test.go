//go:build e2e

package e2e

// The ways to install phalanx, applied to the API server in a server-side dry run: the
// release manifest (deploy/phalanx.yaml), the Helm chart rendered with each of its CI
// values files, and `kustomize build config/`. The server checks every object as it
// would on a real install (schemas, RBAC objects, the CRD, the ServiceMonitor against
// its CRD); nothing is kept.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/kube"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

func TestInstallDryRun(t *testing.T) {
	c := e2eutil.Connect(t)
	c.PhalanxKubeconfig(t) // the phalanx-system namespace
	root := e2eutil.RepoRoot(t)
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	installServiceMonitorCRD(t, dyn)

	renderings := map[string][]byte{}
	release, err := os.ReadFile(filepath.Join(root, "deploy", "phalanx.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	renderings["deploy/phalanx.yaml"] = release
	values, err := filepath.Glob(filepath.Join(root, "charts", "phalanx", "ci", "*-values.yaml"))
	if err != nil || len(values) == 0 {
		t.Fatalf("no CI values files: %v", err)
	}
	for _, v := range values {
		renderings["chart with "+filepath.Base(v)] = tool(t, root, "helm", "template", "phalanx", "charts/phalanx",
			"--namespace", e2eutil.PhalanxNamespace, "--values", v,
			"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor")
	}
	renderings["kustomize build config"] = tool(t, root, "kustomize", "build", "config")

	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(c.Config)))
	for name, data := range renderings {
		t.Run(name, func(t *testing.T) {
			objs := decodeAll(t, data)
			if len(objs) < 6 {
				t.Fatalf("%d objects", len(objs))
			}
			for _, o := range objs {
				dryRunApply(t, dyn, mapper, o)
			}
			checkRendering(t, name, objs)
		})
	}
}

// tool runs a build tool of hack/tools/go.mod in the repository and returns its output.
func tool(t *testing.T, root string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", append([]string{"tool", "-modfile=hack/tools/go.mod"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

func decodeAll(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("decoding: %v", err)
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
}

// dryRunApply applies an object server-side, with every change dropped at the end.
func dryRunApply(t *testing.T, dyn dynamic.Interface, mapper meta.RESTMapper, o *unstructured.Unstructured) {
	t.Helper()
	gvk := o.GroupVersionKind()
	var mapping *meta.RESTMapping
	err := e2eutil.Poll(context.Background(), 30*time.Second, func(context.Context) (bool, error) {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			mapper.(*restmapper.DeferredDiscoveryRESTMapper).Reset() // a CRD just made
			return false, nil
		}
		mapping = m
		return true, nil
	})
	if err != nil {
		t.Fatalf("%s %s: the API server does not serve its kind", gvk, o.GetName())
	}
	var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = dyn.Resource(mapping.Resource).Namespace(o.GetNamespace())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := ri.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: "phalanx-e2e-install", Force: true, DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("%s %s/%s: %v", gvk.Kind, o.GetNamespace(), o.GetName(), err)
	}
}

// checkRendering checks what the server cannot: the configuration is one phalanx reads,
// and the ClusterRole grants exactly the driver's calls (without the native PodGroup API
// when the values turn it off).
func checkRendering(t *testing.T, name string, objs []*unstructured.Unstructured) {
	t.Helper()
	native := !strings.Contains(name, "native-api-off")
	for _, o := range objs {
		switch o.GetKind() {
		case "ConfigMap":
			data, _, _ := unstructured.NestedStringMap(o.Object, "data")
			if cfg, ok := data["config.yaml"]; ok {
				if _, err := config.Parse([]byte(cfg)); err != nil {
					t.Errorf("ConfigMap %s: %v", o.GetName(), err)
				}
			}
		case "ClusterRole":
			cr := &rbacv1.ClusterRole{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, cr); err != nil {
				t.Fatal(err)
			}
			var want, got []string
			for _, call := range kube.APICalls {
				isNative := call.Group == "scheduling.k8s.io" && (call.Resource == "podgroups" || call.Resource == "workloads" || call.Resource == "compositepodgroups")
				if !call.LeaderElection && (native || !isNative) {
					want = append(want, call.Verb+" "+call.Group+" "+call.Resource+"/"+call.Subresource)
				}
			}
			for _, r := range cr.Rules {
				for _, g := range r.APIGroups {
					for _, res := range r.Resources {
						resource, sub, _ := strings.Cut(res, "/")
						for _, v := range r.Verbs {
							got = append(got, v+" "+g+" "+resource+"/"+sub)
						}
					}
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("ClusterRole %s grants\n%v\nwant\n%v", cr.Name, got, want)
			}
		}
	}
}

// installServiceMonitorCRD serves the Prometheus Operator's ServiceMonitor kind, with no
// schema of its own, so the chart's ServiceMonitor can be applied; the operator itself
// is not part of the test.
func installServiceMonitorCRD(t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "servicemonitors.monitoring.coreos.com"},
		"spec": map[string]any{
			"group": "monitoring.coreos.com",
			"scope": "Namespaced",
			"names": map[string]any{"kind": "ServiceMonitor", "listKind": "ServiceMonitorList", "plural": "servicemonitors", "singular": "servicemonitor"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := dyn.Resource(gvr).Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: "phalanx-e2e-install", Force: true}); err != nil {
		t.Fatalf("ServiceMonitor CRD: %v", err)
	}
}
