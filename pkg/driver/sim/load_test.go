package sim

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/testutil/badinput"
)

// Every input of testdata/badinput (see pkg/testutil/badinput) is refused with an error
// naming the file, the document and the field, or accepted and simulated as its
// Expectation says, with every invariant (exact quantities included) holding throughout.
func TestBadInput(t *testing.T) {
	inputs, err := badinput.Read("../../../testdata/badinput")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no bad input files: %v", err)
	}
	for _, in := range inputs {
		t.Run(in.Name, func(t *testing.T) {
			if in.Accepted != "" {
				runScenario(t, in.Data)
				return
			}
			dir := filepath.Join(t.TempDir(), "badinput")
			f := filepath.Join(dir, in.Name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, in.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Load([]string{f}, nil)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an InputError, got %v", err)
			}
			if !strings.Contains(err.Error(), in.Want) {
				t.Errorf("error %q\ndoes not contain %q", err.Error(), in.Want)
			}
			if !strings.Contains(err.Error(), in.Name) {
				t.Errorf("error %q does not name the file", err.Error())
			}
		})
	}
}

func TestLoadSourcesAndDefaults(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: second}\nspec: {containers: [{name: c, resources: {limits: {cpu: '1'}}}]}\n")
	write("a.yml", "apiVersion: v1\nkind: NodeList\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}}\n---\n# only a comment\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: skipped}\n")
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
	if len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0], "Deployment") {
		t.Errorf("warnings %v, want one about the Deployment", sc.Warnings)
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
	seeds, _ := filepath.Glob("../../../testdata/badinput/*.yaml")
	more, _ := filepath.Glob("../../../testdata/scenarios/*/*.yaml")
	for _, s := range append(seeds, more...) {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: List, items: []}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Load([]string{"-"}, bytes.NewReader(data))
		var ie *InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("non-input error: %v", err)
		}
	})
}
