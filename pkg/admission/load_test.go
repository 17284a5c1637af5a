package admission

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/manifest"
	v1 "k8s.io/api/core/v1"
)

func TestLoadSourcesAndDefaults(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: second}\nspec: {containers: [{name: c, resources: {limits: {cpu: '1'}}}]}\n")
	write("a.yml", "apiVersion: v1\nkind: NodeList\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n---\n# only a comment\n---\napiVersion: v1\nkind: Service\nmetadata: {name: skipped}\n")
	write("ignored.txt", "not yaml")
	write("c.yaml", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: normal}\nvalue: 100\nglobalDefault: true\npreemptionPolicy: Never\n")
	stdin := bytes.NewBufferString("apiVersion: v1\nkind: Pod\nmetadata: {name: first, namespace: ns}\nspec: {containers: [{name: c}]}\n")
	sc, err := Load([]string{"-", dir}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Nodes) != 1 || sc.Nodes[0].Name != "n1" {
		t.Errorf("nodes from the List: %v", sc.Nodes)
	}
	if len(sc.Pods) != 2 || sc.Pods[0].Name != "first" || sc.Pods[1].Name != "second" {
		t.Fatalf("pods not in input order: %v", sc.Pods)
	}
	if len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0], "Service") {
		t.Errorf("warnings %v, want one about the Service", sc.Warnings)
	}
	p := sc.Pods[1]
	if p.Namespace != "default" || *p.Spec.Priority != 100 || p.Spec.PriorityClassName != "normal" ||
		*p.Spec.PreemptionPolicy != v1.PreemptNever || *p.Spec.TerminationGracePeriodSeconds != 30 {
		t.Errorf("admission defaults not applied: ns %q priority %d class %q policy %s grace %d", p.Namespace,
			*p.Spec.Priority, p.Spec.PriorityClassName, *p.Spec.PreemptionPolicy, *p.Spec.TerminationGracePeriodSeconds)
	}
	if got := p.Spec.Containers[0].Resources.Requests.Cpu().String(); got != "1" {
		t.Errorf("requests not defaulted from limits: %s", got)
	}
}

// FuzzLoad feeds arbitrary bytes to the loader: it must return a scenario or an
// InputError, never panic or fail otherwise.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/badinput/*.yaml")
	more, _ := filepath.Glob("../../testdata/scenarios/*/*.yaml")
	for _, s := range append(seeds, more...) {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: List, items: []}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Load([]string{"-"}, bytes.NewReader(data))
		var ie *manifest.InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("non-input error: %v", err)
		}
	})
}

// CompositePodGroups of both APIs are loaded and admitted: a class gives a CRD composite
// its priority and policy; the global default class is a root's but not a child's (a group
// or composite in a composite takes its parent's, which the scheduler resolves); a native
// composite goes through the Priority admission plugin as the API server runs it.
func TestLoadComposites(t *testing.T) {
	in := `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: normal}
value: 7
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: training}
value: 100
preemptionPolicy: Never
---
apiVersion: scheduling.phalanx.dev/v1alpha1
kind: CompositePodGroup
metadata: {name: root}
spec: {schedulingPolicy: {gang: {minGroupCount: 1}}}
---
apiVersion: scheduling.phalanx.dev/v1alpha1
kind: CompositePodGroup
metadata: {name: child, namespace: ml}
spec: {parentCompositePodGroupName: root, schedulingPolicy: {basic: {}}}
---
apiVersion: scheduling.phalanx.dev/v1alpha1
kind: CompositePodGroup
metadata: {name: classed}
spec: {schedulingPolicy: {basic: {}}, priorityClassName: training}
---
apiVersion: scheduling.phalanx.dev/v1alpha1
kind: PodGroup
metadata: {name: slice}
spec: {parentCompositePodGroupName: root, schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: native}
spec:
  workloadRef: {workloadName: w, templateName: t}
  schedulingPolicy: {gang: {minGroupCount: 2}}
  priorityClassName: training
`
	sc, err := Load([]string{"-"}, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Warnings) != 0 || len(sc.CompositePodGroups) != 3 || len(sc.NativeComposites) != 1 {
		t.Fatalf("warnings %v, %d CRD and %d native composites", sc.Warnings, len(sc.CompositePodGroups), len(sc.NativeComposites))
	}
	prio := func(p *int32) string {
		if p == nil {
			return "unset"
		}
		return fmt.Sprint(*p)
	}
	root, child, classed := sc.CompositePodGroups[0], sc.CompositePodGroups[1], sc.CompositePodGroups[2]
	if prio(root.Spec.Priority) != "7" || root.Spec.PriorityClassName != "normal" {
		t.Errorf("root: priority %s class %q, want the global default's", prio(root.Spec.Priority), root.Spec.PriorityClassName)
	}
	if child.Namespace != "ml" || child.Spec.Priority != nil || child.Spec.PriorityClassName != "" {
		t.Errorf("child: priority %s class %q, want its parent's, left to the scheduler", prio(child.Spec.Priority), child.Spec.PriorityClassName)
	}
	if prio(classed.Spec.Priority) != "100" || classed.Spec.PreemptionPolicy == nil || *classed.Spec.PreemptionPolicy != v1.PreemptNever {
		t.Errorf("classed: priority %s policy %v, want its class's", prio(classed.Spec.Priority), classed.Spec.PreemptionPolicy)
	}
	if pg := sc.PodGroups[0]; pg.Spec.Priority != nil || pg.Spec.PriorityClassName != "" {
		t.Errorf("a PodGroup in a composite took priority %s class %q, want its composite's", prio(pg.Spec.Priority), pg.Spec.PriorityClassName)
	}
	n := sc.NativeComposites[0]
	if n.APIVersion != "scheduling.k8s.io/v1alpha3" || prio(n.Spec.Priority) != "100" || n.Spec.PreemptionPolicy == nil ||
		*n.Spec.PreemptionPolicy != "Never" || n.Spec.DisruptionMode == nil || n.Spec.DisruptionMode.Single == nil || n.UID == "" {
		t.Errorf("native composite admitted as %+v", n)
	}
}
