package manifest

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// Split keeps each object's origin, in order, and leaves the warnings with the rest;
// Concat puts inputs back together in order.
func TestSplitAndConcat(t *testing.T) {
	in, err := Decode([]string{"-"}, strings.NewReader(`apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: example.com/v1
kind: Unknown
metadata: {name: u}
`))
	if err != nil {
		t.Fatal(err)
	}
	nodes, rest := in.Split(func(o any) bool { _, ok := o.(*v1.Node); return ok })
	names := func(in *Input) string {
		var out []string
		for i, o := range in.Objects() {
			switch o := o.(type) {
			case *v1.Node:
				out = append(out, o.Name+"@"+in.Origins()[i].String())
			case *v1.Pod:
				out = append(out, o.Name+"@"+in.Origins()[i].String())
			}
		}
		return strings.Join(out, " ")
	}
	if got, want := names(nodes), "n1@<stdin>: document 1 n2@<stdin>: document 3"; got != want {
		t.Errorf("split off: %s, want %s", got, want)
	}
	if got, want := names(rest), "p1@<stdin>: document 2"; got != want {
		t.Errorf("the rest: %s, want %s", got, want)
	}
	if len(nodes.Warnings) != 0 || len(rest.Warnings) != 1 {
		t.Errorf("warnings %v and %v, want the skipped kind's with the rest", nodes.Warnings, rest.Warnings)
	}
	all := Concat(rest, nodes)
	if got, want := names(all), "p1@<stdin>: document 2 n1@<stdin>: document 1 n2@<stdin>: document 3"; got != want {
		t.Errorf("concat: %s, want %s", got, want)
	}
	if len(all.Warnings) != 1 {
		t.Errorf("concat warnings %v, want 1", all.Warnings)
	}
}
