package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
)

// encoderJSON is what WriteJSON must write: json.Encoder's indented output.
func encoderJSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteJSONAsEncoder(t *testing.T) {
	f := 1.5
	tests := []struct {
		name string
		v    any
	}{
		{"number", 3},
		{"string with brackets, commas and colons", `{"a": [1, 2]}, x: y`},
		{"escapes", "quote \" backslash \\ \\\" newline \n html <&> unicode \u2028 é"},
		{"null", nil},
		{"empty object and array", map[string]any{"o": map[string]any{}, "a": []int{}, "n": []int(nil)}},
		{"nested", map[string]any{"a": []any{1, []any{}, map[string]any{"b": []any{map[string]any{}}}}, "c": "d"}},
		{"array of objects", []map[string]int{{"x": 1}, {"y": 2, "z": 3}}},
		{"report", &Report{
			SchemaVersion: SchemaVersion,
			Pods: []Pod{
				{Namespace: "ns", Name: `p"{[`, Phase: PhaseRunning, Node: "n", BoundAt: &f, Devices: []string{"d/p/x"}},
				{Namespace: "ns", Name: "q", Phase: PhasePreempted, PreemptedBy: &ObjectRef{Kind: "Pod", Name: "r"}, Message: "0/5 nodes are available: <none>"},
			},
			PodGroups:  []Group{},
			Violations: []string{"x: y, z"},
		}},
		{"empty report", &Report{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := WriteJSON(&got, tc.v); err != nil {
				t.Fatal(err)
			}
			if want := encoderJSON(t, tc.v); !bytes.Equal(got.Bytes(), want) {
				t.Errorf("WriteJSON wrote\n%s\njson.Encoder writes\n%s", got.Bytes(), want)
			}
		})
	}
}

type failingWriter struct{ n int }

var errFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n += len(p); w.n > 100 {
		return 0, errFull
	}
	return len(p), nil
}

func TestWriteJSONWriteError(t *testing.T) {
	pods := make([]Pod, 10000)
	if err := WriteJSON(&failingWriter{}, &Report{Pods: pods}); !errors.Is(err, errFull) {
		t.Errorf("WriteJSON = %v, want the writer's error", err)
	}
	if err := WriteJSON(&bytes.Buffer{}, func() {}); err == nil {
		t.Error("WriteJSON of a func succeeded, want the encoder's error")
	}
}

// FuzzIndenter: on any JSON value as the Encoder writes it (compact, then a newline), the
// indenter lays it out as json.Indent does.
func FuzzIndenter(f *testing.F) {
	for _, seed := range []string{`{}`, `[]`, `{"a":[1,{"b":"}\"]"}],"c":{}}`, `"\\"`, `[[[]],{}]`, `null`, `-1.5e3`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			return
		}
		compact.WriteByte('\n')
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		in := &indenter{w: bufio.NewWriter(&got)}
		// Written in two parts: the layout must not depend on where Writes split the bytes.
		half := compact.Len() / 2
		if _, err := in.Write(compact.Bytes()[:half]); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Write(compact.Bytes()[half:]); err != nil {
			t.Fatal(err)
		}
		if err := in.w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("indenter wrote\n%q\njson.Indent writes\n%q", got.Bytes(), want.Bytes())
		}
	})
}

// BenchmarkWriteJSON writes a 20,000-pod report (10 MB, as `make bench-sim`'s) with the
// Encoder's own indentation and with WriteJSON.
func BenchmarkWriteJSON(b *testing.B) {
	r := &Report{SchemaVersion: SchemaVersion, Pods: make([]Pod, 20000)}
	for i := range r.Pods {
		at := float64(i)
		r.Pods[i] = Pod{Namespace: "bench", Name: fmt.Sprintf("app-%03d-%05d", i%100, i), Phase: PhaseRunning,
			Node: fmt.Sprintf("node-%05d", i%5000), BoundAt: &at, CreatedAt: &at}
	}
	b.Run("encoder", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			enc.SetIndent("", "  ")
			if err := enc.Encode(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("WriteJSON", func(b *testing.B) {
		for b.Loop() {
			if err := WriteJSON(io.Discard, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
