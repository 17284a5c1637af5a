package schedulerdiff

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// differencesDoc is the one list of deliberate differences.
const differencesDoc = "../../docs/kube-scheduler-differences.md"

// rowRE matches a row of the document's table: | `id` | scopes | ...
var rowRE = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| ([^|]+) \\|")

// TestDifferencesAreListed holds Differences to the table of
// docs/kube-scheduler-differences.md: the same ids, in the same order, with the same
// scopes, so that the test skips exactly what the document lists.
func TestDifferencesAreListed(t *testing.T) {
	data, err := os.ReadFile(differencesDoc)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id     string
		scopes []string
	}
	var doc []row
	for _, line := range strings.Split(string(data), "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var scopes []string
		for _, s := range strings.Split(m[2], ",") {
			scopes = append(scopes, strings.TrimSpace(s))
		}
		doc = append(doc, row{m[1], scopes})
	}
	var code []row
	for _, d := range Differences {
		code = append(code, row{d.ID, d.Scopes})
	}
	if len(doc) != len(code) {
		t.Fatalf("%s lists %d differences, differences.go %d", filepath.Base(differencesDoc), len(doc), len(code))
	}
	for i := range doc {
		if doc[i].id != code[i].id || !slices.Equal(doc[i].scopes, code[i].scopes) {
			t.Errorf("difference %d: the document says %s %v, differences.go %s %v", i, doc[i].id, doc[i].scopes, code[i].id, code[i].scopes)
		}
	}
	known := append([]string{CycleName, PreemptionName}, ComparedPlugins...)
	for _, d := range Differences {
		for _, s := range d.Scopes {
			if !slices.Contains(known, s) {
				t.Errorf("difference %s: scope %q is neither a compared plugin, %q nor %q", d.ID, s, CycleName, PreemptionName)
			}
		}
	}
}

// TestSkippedBy: a case is skipped by the first listed difference of its scope that
// concerns it, and by none of another scope.
func TestSkippedBy(t *testing.T) {
	c := Generate(1)
	if got := SkippedBy("NodeAffinity", c); got != "" {
		t.Errorf("NodeAffinity: skipped by %q, want none", got)
	}
	if got := SkippedBy(PreemptionName, c); got != "victim-order" {
		t.Errorf("preemption: skipped by %q, want victim-order", got)
	}
	if got := SkippedBy(CycleName, c); got != "" {
		t.Errorf("cycle, a pod in no group: skipped by %q, want none", got)
	}
	c.Pod.Labels["scheduling.phalanx.dev/pod-group"] = "g"
	if got := SkippedBy(CycleName, c); got != "pod-groups" {
		t.Errorf("cycle, a pod in a group: skipped by %q, want pod-groups", got)
	}
}
