package admission

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// AdmitOver makes the scenario Admit makes of the same objects, without admitting the
// earlier scenario's nodes and pods again, and finds duplicates across both.
func TestAdmitOver(t *testing.T) {
	const cluster = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {generateName: made-}
spec: {containers: [{name: c, resources: {limits: {cpu: "1"}}}], priorityClassName: high}
---
apiVersion: v1
kind: Pod
metadata: {name: bound, namespace: ns}
spec: {nodeName: n1, containers: [{name: c}]}
`
	for _, tc := range []struct {
		name, news string
		err        string
		// names are the pods' when names are generated, which Admit of all gives in input
		// order (the cluster's pod could be renamed); else AdmitOver is Admit.
		names []string
	}{
		{name: "a new pod naming the cluster's class, and a generated name", names: []string{"made-bbbbb", "bound", "made-bbbbc"},
			news: "apiVersion: v1\nkind: Pod\nmetadata: {generateName: made-}\nspec: {containers: [{name: c}], priorityClassName: high}\n"},
		{name: "a new node and a new class",
			news: "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 10\n"},
		{name: "a pod the cluster has", err: "new.yaml: document 1 (Pod ns/bound): metadata.name: Duplicate value: also defined at ",
			news: "apiVersion: v1\nkind: Pod\nmetadata: {name: bound, namespace: ns}\nspec: {containers: [{name: c}]}\n"},
		{name: "a node the cluster has", err: "new.yaml: document 1 (Node n1): metadata.name: Duplicate value: also defined at ",
			news: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range map[string]string{"cluster.yaml": cluster, "new.yaml": tc.news} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			decode := func() (cl, news *manifest.Input) {
				var err error
				if cl, err = manifest.Decode([]string{filepath.Join(dir, "cluster.yaml")}, nil); err != nil {
					t.Fatal(err)
				}
				if news, err = manifest.Decode([]string{filepath.Join(dir, "new.yaml")}, nil); err != nil {
					t.Fatal(err)
				}
				return cl, news
			}
			cl, news := decode()
			want, wantErr := Admit(ControlPlane{}, cl, news)

			cl, news = decode()
			bulk, rest := cl.Split(func(o any) bool {
				_, node := o.(*v1.Node)
				_, pod := o.(*v1.Pod)
				return node || pod
			})
			restAgain, err := rest.Copy()
			if err != nil {
				t.Fatal(err)
			}
			prior, err := Admit(ControlPlane{}, bulk, rest)
			if err != nil {
				t.Fatal(err)
			}
			got, gotErr := AdmitOver(ControlPlane{}, prior, restAgain, news)
			if tc.err != "" {
				if gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error() || !strings.Contains(gotErr.Error(), tc.err) {
					t.Fatalf("error %v, want %v (Admit: %v)", gotErr, tc.err, wantErr)
				}
				return
			}
			if gotErr != nil || wantErr != nil {
				t.Fatalf("AdmitOver: %v; Admit: %v", gotErr, wantErr)
			}
			if tc.names != nil {
				var names []string
				for _, p := range got.Pods {
					names = append(names, p.Name)
				}
				if !reflect.DeepEqual(names, tc.names) || prior.Pods[0].Name != tc.names[0] || *got.Pods[2].Spec.Priority != 1000 {
					t.Errorf("pods %v (priority %d of the new one), want %v", names, *got.Pods[2].Spec.Priority, tc.names)
				}
				return
			}
			if !reflect.DeepEqual(got.Nodes, want.Nodes) || !reflect.DeepEqual(got.Pods, want.Pods) ||
				!reflect.DeepEqual(got.PriorityClasses, want.PriorityClasses) || !reflect.DeepEqual(got.Warnings, want.Warnings) {
				t.Errorf("AdmitOver differs from Admit:\n got nodes %v pods %v classes %v warnings %v\nwant nodes %v pods %v classes %v warnings %v",
					got.Nodes, got.Pods, got.PriorityClasses, got.Warnings, want.Nodes, want.Pods, want.PriorityClasses, want.Warnings)
			}
			for i := range prior.Pods {
				if got.Pods[i] != prior.Pods[i] {
					t.Errorf("pod %s: not the earlier scenario's", prior.Pods[i].Name)
				}
			}
		})
	}
}
