package manifest

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/testutil/workload"
)

// referenceDecode decodes each document on its own through the general converter only
// (sigs.k8s.io/yaml, then the decoder reading the type itself): what decoding gives
// without the fast path and its reused buffers.
func referenceDecode(docs []rawDoc) []decoded {
	out := make([]decoded, len(docs))
	for i, d := range docs {
		if len(d.data) > maxRequestBytes || d.json {
			out[i] = decodeDoc(d, &yamlConverter{})
			continue
		}
		js, err := yaml.YAMLToJSONStrict(d.data)
		if err != nil {
			e := yamlError(d, err)
			e.at = d.where
			out[i].errs = append(out[i].errs, e)
			continue
		}
		decodeObject(js, nil, false, d.where, &out[i])
	}
	return out
}

// sameAsReference checks that decodeAll (both workers, each converter reused from
// document to document) gives every document's objects, origins, warnings and errors as
// referenceDecode does.
func sameAsReference(t *testing.T, name string, docs []rawDoc) {
	t.Helper()
	got, want := decodeAll(docs), referenceDecode(docs)
	for i := range docs {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s, %s: decoded\n%#v\nthe general converter gives\n%#v\ndocument:\n%s", name, docs[i].where, got[i], want[i], docs[i].data)
		}
	}
}

func readTestDocs(t *testing.T, file string) []rawDoc {
	t.Helper()
	docs, err := readDocs(file, nil)
	if err != nil {
		return nil // an input that cannot be split: nothing to decode
	}
	for i := range docs {
		docs[i].where.seq = i
	}
	return docs
}

// Every input under testdata/ and examples/, bad inputs included: the same objects, and
// the same errors, as the general converter's.
func TestDecodeAsGeneralConverterOnInputs(t *testing.T) {
	var files []string
	for _, root := range []string{"../../testdata", "../../examples"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".json")) {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 100 {
		t.Fatalf("found %d inputs under testdata/ and examples/", len(files))
	}
	var all []rawDoc
	for _, f := range files {
		docs := readTestDocs(t, f)
		sameAsReference(t, f, docs)
		all = append(all, docs...)
	}
	// All of them in one run: each worker's converter goes from one file's documents to
	// another's.
	for i := range all {
		all[i].where.seq = i
	}
	sameAsReference(t, "all inputs", all)
}

// Generated clusters, their documents shuffled and some of them damaged (keys given twice,
// values the fast path leaves to the general converter, unknown fields, lines cut): the
// same objects and errors as the general converter's.
func TestDecodeAsGeneralConverterRandomized(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	damage := []func(string) string{
		func(d string) string { return strings.Replace(d, "  name: ", "  name: x\n  name: ", 1) },
		func(d string) string { return strings.Replace(d, "cpu: ", "cpu: yes\n    other: ", 1) },
		func(d string) string { return strings.Replace(d, "spec:\n", "spec:\n  unknownField: 1\n", 1) },
		func(d string) string { return strings.Replace(d, "memory: ", "memory: 1.5.5", 1) },
		func(d string) string { return d[:rng.IntN(len(d))] },
		func(d string) string {
			return strings.Replace(d, "labels:\n", "labels:\n    a: \"quoted \\\" value\"\n", 1)
		},
		func(d string) string { return strings.Replace(d, "kind: ", "kind: List\nitems:\n- kind: ", 1) },
	}
	for round := range 4 {
		spec := workload.Spec{Nodes: 20 + rng.IntN(50), Pods: 50 + rng.IntN(200), Seed: rng.Uint64()}
		var docs []string
		for _, n := range workload.Nodes(spec) {
			b, _ := yaml.Marshal(n)
			docs = append(docs, "apiVersion: v1\nkind: Node\n"+string(b))
		}
		for _, p := range workload.Pods(spec) {
			b, _ := yaml.Marshal(p)
			docs = append(docs, "apiVersion: v1\nkind: Pod\n"+string(b))
		}
		rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		raw := make([]rawDoc, len(docs))
		for i, d := range docs {
			if rng.IntN(10) == 0 {
				d = damage[rng.IntN(len(damage))](d)
			}
			raw[i] = rawDoc{where: Origin{File: "generated", Doc: i + 1, Item: -1, seq: i}, data: bytes.Clone([]byte(d))}
		}
		sameAsReference(t, "round "+string(rune('1'+round)), raw)
	}
}
