package snapshot

import (
	"bytes"
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"
)

// toYAML's output reads back, through the YAML library the simulator falls back on, as
// the JSON it was made from.
func TestYAMLRoundTrips(t *testing.T) {
	for _, doc := range []string{
		`{"a":1,"b":"x","c":{"d":[1,"two",{"e":null,"f":true}],"g":{},"h":[]},"i":[[1,2],[],{}],"j":-0.5}`,
		`{"metadata":{"name":"web-1","labels":{"app":"web","version":"1.0","yes":"no","empty":""}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m","memory":"1.5Gi"}}}]}}`,
		`{"strings":["true","null","~","-","- x","a: b","#c","10","1e3","0x1F","1_000","2001-12-14","8Gi","8Ei","8E","\u003cb\u003e","tab\there","line\nbreak","quote\"back\\slash","ünïcode"," lead","trail "]}`,
	} {
		check(t, []byte(doc))
	}
	s := take(t, Options{})
	for _, o := range s.Objects() {
		js, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		check(t, js)
	}
}

func check(t *testing.T, js []byte) {
	t.Helper()
	y, err := toYAML(js)
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	back, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatalf("%s\nas YAML:\n%s\n%v", js, y, err)
	}
	if !sameJSON(t, js, back) {
		t.Errorf("%s\nas YAML:\n%s\nreads back as %s", js, y, back)
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// Any string, as a key or a value, reads back as itself.
func FuzzYAMLString(f *testing.F) {
	for _, s := range []string{"", "a", "yes", "1", "8Gi", "a b", "-", ":", "\x00", "\u2028", "'", "@x", "%x", "!x", "&x", "*x", "|", ">"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		js, err := json.Marshal(map[string]any{s: s, "list": []string{s}})
		if err != nil {
			return
		}
		var probe any
		if json.Unmarshal(js, &probe) != nil {
			return
		}
		check(t, js)
	})
}

// BenchmarkYAML compares toYAML with sigs.k8s.io/yaml's JSONToYAML (what yaml.Marshal
// does after encoding/json) on the pods of a snapshot: the reason toYAML exists
// (decision 21). Each op writes every pod of the test cluster once.
func BenchmarkYAML(b *testing.B) {
	s := take(b, Options{})
	var docs [][]byte
	for _, p := range s.Pods {
		js, err := json.Marshal(p)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, js)
	}
	for _, c := range []struct {
		name string
		conv func([]byte) ([]byte, error)
	}{{"toYAML", toYAML}, {"sigs.k8s.io-yaml", yaml.JSONToYAML}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, js := range docs {
					if _, err := c.conv(js); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
