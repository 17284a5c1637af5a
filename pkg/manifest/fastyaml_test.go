package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/testutil/workload"
)

// sameAsGeneral checks that when the fast converter accepts a document, the general one
// reads it the same way.
func sameAsGeneral(t *testing.T, doc []byte) (accepted bool) {
	t.Helper()
	fast, head, ok := fastYAMLToJSON(doc)
	sameWhenReused(t, doc, fast, head, ok)
	if !ok {
		return false
	}
	slow, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("fast path accepted a document the general converter refuses (%v):\n%s", err, doc)
	}
	if head != nil {
		// The head stands for the decoder's own reading of the document's type.
		var tm typeMeta
		if err := json.Unmarshal(slow, &tm); err != nil {
			t.Fatalf("fast path gave a head %+v where the decoder fails (%v):\n%s", *head, err, doc)
		}
		if tm.APIVersion != head.APIVersion || tm.Kind != head.Kind || tm.Items != nil {
			t.Fatalf("fast path's head %+v, the decoder's %+v:\n%s", *head, tm, doc)
		}
	}
	// The decoder does not look for duplicate fields in the fast path's JSON.
	var dup any
	if strict, err := sigsjson.UnmarshalStrict(fast, &dup, sigsjson.DisallowDuplicateFields); err != nil || len(strict) > 0 {
		t.Fatalf("fast path wrote JSON with a key twice in an object (%v %v): %s\n%s", strict, err, fast, doc)
	}
	var a, b any
	if err := json.Unmarshal(fast, &a); err != nil {
		t.Fatalf("fast path wrote invalid JSON %s: %v\n%s", fast, err, doc)
	}
	if err := json.Unmarshal(slow, &b); err != nil {
		t.Fatalf("general converter wrote invalid JSON: %v", err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("fast and general conversions differ for\n%s\nfast:    %s\ngeneral: %s", doc, fast, slow)
	}
	return true
}

// usedDoc leaves a converter with lines, open mappings' keys and JSON of its own.
const usedDoc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: used\n  labels:\n    a: b\nspec:\n  containers:\n  - name: c\n    image: i\n    args:\n    - x\n    - y\n"

// sameWhenReused checks that a converter that has converted other documents (a decoding
// worker's) converts doc as a new one does.
func sameWhenReused(t *testing.T, doc, fast []byte, head *typeMeta, ok bool) {
	t.Helper()
	var c yamlConverter
	for _, prev := range []string{usedDoc, "a: [\n", usedDoc + "  dup: 1\n  dup: 2\n"} {
		c.toJSON([]byte(prev))
		js, h, o := c.toJSON(doc)
		if o != ok || !bytes.Equal(js, fast) || !reflect.DeepEqual(h, head) {
			t.Fatalf("after converting %q, a reused converter gives %v %s %+v, a new one %v %s %+v, for\n%s", prev, o, js, h, ok, fast, head, doc)
		}
	}
}

func TestFastYAML(t *testing.T) {
	var manyKeys strings.Builder
	for i := range 3 * maxScannedKeys {
		fmt.Fprintf(&manyKeys, "  k%d: %d\n", i, i)
	}
	tests := []struct {
		name   string
		doc    string
		accept bool
	}{
		{"mapping", "a: b\nc: 1\n", true},
		{"nested", "metadata:\n  name: x\n  labels:\n    app: web\nspec: {}\n", true},
		{"sequence at key indent", "containers:\n- name: c\n  image: nginx\n- name: d\n", true},
		{"sequence indented", "args:\n  - one\n  - two\n", true},
		{"sequence of sequences", "x:\n- - a\n  - b\n- - c\n", true},
		{"null values", "a:\nb: 1\n", true},
		{"empty item", "a:\n-\n- x\n", true},
		{"quoted", "a: \"yes\"\nb: \"x\\\"y\\n\"\n", true},
		{"quantities", "cpu: 500m\nmemory: 128Gi\nx: 1.5k\n", true},
		{"comments and markers", "---\n# hello\na: b\n\n  # indented comment\nc: d\n", true},
		{"negative and zero", "a: -3\nb: 0\n", true},
		{"booleans fall back", "a: yes\n", false},
		{"true falls back", "a: True\n", false},
		{"null word falls back", "a: null\n", false},
		{"tilde falls back", "a: ~\n", false},
		{"float falls back", "a: 0.5\n", false},
		{"octal-looking falls back", "a: 0755\n", false},
		{"exponent falls back", "a: 1e3\n", false},
		{"timestamp falls back", "a: 2001-12-14\n", false},
		{"flow falls back", "a: {b: c}\n", false},
		{"anchor falls back", "a: &x b\n", false},
		{"block scalar falls back", "a: |\n  text\n", false},
		{"multi-line plain falls back", "a: one\n  two\n", false},
		{"single quotes fall back", "a: 'x'\n", false},
		{"inline comment falls back", "a: b # c\n", false},
		{"tab falls back", "a:\n\tb: c\n", false},
		{"duplicate key falls back", "a: 1\na: 2\n", false},
		{"colon in value falls back", "a: b: c\n", false},
		{"bad dedent falls back", "a:\n    b: 1\n  c: 2\n", false},
		{"top-level sequence", "- a\n- b\n", true},
		{"scalar document falls back", "hello\n", false},
		{"huge integer falls back", "a: 99999999999999999999\n", false},
		{"key of 1024 characters", strings.Repeat("k", 1024) + ": v\n", true},
		{"longer key falls back (YAML's limit)", "a:\n  " + strings.Repeat("k", 1025) + ": v\n", false},
		{"a key again in another mapping", "a:\n  x: 1\n  z:\n    x: 2\nx:\n  a: 3\nb:\n  x: 4\n", true},
		{"many keys", "m:\n" + manyKeys.String() + "p: 1\n", true},
		{"many keys, the last a duplicate", "m:\n" + manyKeys.String() + "  k0: 0\n", false},
		{"many keys, a duplicate among the first", "m:\n  k1: 1\n" + manyKeys.String(), false},
		{"a duplicate after a nested mapping", "a:\n  b:\n" + manyKeys.String() + "  c: 1\n  b: 2\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameAsGeneral(t, []byte(tc.doc)); got != tc.accept {
				t.Errorf("accepted = %v, want %v", got, tc.accept)
			}
		})
	}
}

func TestFastYAMLHead(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want *typeMeta // nil: left to the decoder
	}{
		{"pod", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n", &typeMeta{APIVersion: "v1", Kind: "Pod"}},
		{"group version", "apiVersion: scheduling.phalanx.dev/v1alpha1\nkind: PodGroup\n", &typeMeta{APIVersion: "scheduling.phalanx.dev/v1alpha1", Kind: "PodGroup"}},
		{"quoted", "apiVersion: \"v1\"\nkind: \"Node\"\n", &typeMeta{APIVersion: "v1", Kind: "Node"}},
		{"kind last", "metadata:\n  kind: x\napiVersion: v1\nkind: Pod\n", &typeMeta{APIVersion: "v1", Kind: "Pod"}},
		{"nested kind ignored", "spec:\n  kind: Deployment\n  apiVersion: apps/v1\n", &typeMeta{}},
		{"missing both", "metadata:\n  name: x\n", &typeMeta{}},
		{"kind in a top-level sequence item", "containers:\n- kind: x\napiVersion: v1\nkind: Pod\n", &typeMeta{APIVersion: "v1", Kind: "Pod"}},
		{"a List", "apiVersion: v1\nkind: List\nitems: []\n", nil},
		{"items in another case", "apiVersion: v1\nkind: PodList\nItems: []\n", nil},
		{"kind in another case", "apiVersion: v1\nKind: Pod\n", nil},
		{"apiversion in another case", "apiversion: v1\nkind: Pod\n", nil},
		{"numeric kind", "apiVersion: v1\nkind: 5\n", nil},
		{"null kind", "apiVersion: v1\nkind:\n", nil},
		{"kind a mapping", "apiVersion: v1\nkind:\n  a: b\n", nil},
		{"kind empty flow", "apiVersion: v1\nkind: {}\n", nil},
		{"top-level sequence", "- apiVersion: v1\n  kind: Pod\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !sameAsGeneral(t, []byte(tc.doc)) {
				t.Fatalf("fast path refused the document")
			}
			_, head, _ := fastYAMLToJSON([]byte(tc.doc))
			if !reflect.DeepEqual(head, tc.want) {
				t.Errorf("head = %+v, want %+v", head, tc.want)
			}
		})
	}
}

// The fast path must take the documents the benchmark generator and the scenarios are
// made of, or it is not worth having.
func TestFastYAMLCoversGeneratedManifests(t *testing.T) {
	var docs [][]byte
	for _, n := range workload.Nodes(workload.Spec{Nodes: 20, Pods: 40}) {
		b, _ := yaml.Marshal(n)
		docs = append(docs, b)
	}
	for _, p := range workload.Pods(workload.Spec{Nodes: 20, Pods: 40}) {
		b, _ := yaml.Marshal(p)
		docs = append(docs, b)
	}
	for _, d := range docs {
		if !sameAsGeneral(t, d) {
			t.Errorf("fast path refused a generated manifest:\n%s", d)
		}
		if _, head, _ := fastYAMLToJSON(d); head == nil {
			t.Errorf("fast path left a generated manifest's type to the decoder:\n%s", d)
		}
	}
}

// FuzzFastYAML: whatever the input, the fast path either gives up or agrees with the
// general converter.
func FuzzFastYAML(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/scenarios/*/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			f.Add([]byte(doc))
		}
	}
	for _, seed := range []string{"a: b\n", "x:\n- - a\n  - b\n", "cpu: 500m\n", "a: \"q\\\"\"\n", "k:\n  - n: 1\n    m: [] \n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		sameAsGeneral(t, doc)
	})
}
