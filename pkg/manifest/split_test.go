package manifest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// readYAMLDocs gives what kubectl's reader gives (streamYAMLDocs, the reference): the same
// documents, numbered alike, and the same error, whether the input takes the plain path or
// the reader's.
func TestReadYAMLDocsAsReader(t *testing.T) {
	lines := []string{"---", "---", "a: 1", "b:", "  - x", "", "   ", "# c", "--- # c", "---  ", "----", "--- x",
		"x: 1\r", "---\r", "\r", "-- ", "kind: Pod"}
	rng := rand.New(rand.NewPCG(31, 60))
	plain := 0
	for i := range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(lines[rng.IntN(len(lines))])
			b.WriteByte('\n')
		}
		in := b.String()
		if rng.IntN(3) == 0 {
			in = strings.TrimSuffix(in, "\n")
		}
		if _, ok := splitPlainYAML([]byte(in)); ok {
			plain++
		}
		var fail error
		if i%10 == 0 {
			fail = errors.New("read failed")
		}
		got, gotErr := readYAMLDocs("f", reader(in, fail), int64(len(in)))
		want, wantErr := streamYAMLDocs("f", reader(in, fail))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("input %q (read error %v):\n got %s, %v\nwant %s, %v", in, fail, show(got), gotErr, show(want), wantErr)
		}
	}
	if plain < 3000 {
		t.Errorf("only %d of 20000 inputs took the plain path", plain)
	}
}

// reader gives in, then err (io.EOF when nil), a few bytes at a time.
func reader(in string, err error) io.Reader {
	var r io.Reader = io.LimitReader(strings.NewReader(in), int64(len(in)))
	if err != nil {
		r = io.MultiReader(r, failingReader{err})
	}
	return &trickle{r}
}

type trickle struct{ r io.Reader }

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), 7)]) }

func show(docs []rawDoc) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(d.where.String() + " " + string(bytes.ReplaceAll(d.data, []byte("\n"), []byte("\\n"))) + "; ")
	}
	return b.String()
}

// The documents of the plain path are slices of the input: appending to one must not
// write into the next.
func TestSplitPlainYAMLFullSlices(t *testing.T) {
	docs, ok := splitPlainYAML([]byte("a: 1\n---\nb: 2\n---\nc: 3"))
	if !ok || len(docs) != 3 {
		t.Fatalf("got %q, %v", docs, ok)
	}
	_ = append(docs[0], "XXXXXXXX"...)
	if string(docs[1]) != "b: 2\n" || string(docs[2]) != "c: 3\n" {
		t.Errorf("an append to the first document changed the others: %q", docs)
	}
}

func FuzzSplitYAML(f *testing.F) {
	f.Add("a: 1\n---\nb: 2\n")
	f.Add("---\n---\r\n--- # x\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, gotErr := readYAMLDocs("f", strings.NewReader(in), 0)
		want, wantErr := streamYAMLDocs("f", strings.NewReader(in))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("input %q:\n got %s, %v\nwant %s, %v", in, show(got), gotErr, show(want), wantErr)
		}
	})
}
