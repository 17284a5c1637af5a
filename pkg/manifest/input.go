package manifest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
)

// Input is objects for a scenario, decoded but not admitted: from manifests (Decode) or
// from elsewhere, a cluster say (FromObjects). pkg/admission makes a scenario of one or
// more, so that a cluster's objects and new ones are admitted together (a new pod names a
// cluster's PriorityClass).
type Input struct {
	objs    []any
	origins []Origin
	// Warnings are what a user should know that did not stop decoding (skipped kinds).
	Warnings []string
	// errs are the documents that did not decode.
	errs InputErrors
}

func (in *Input) add(obj any, o Origin) {
	in.objs = append(in.objs, obj)
	in.origins = append(in.origins, o)
}

// FromObjects is an input of objects from source (named in messages as a file would be,
// "source: document N"), as they are: admission defaults them in place.
func FromObjects(source string, objs []runtime.Object) *Input {
	in := &Input{}
	for i, o := range objs {
		in.add(o, Origin{File: source, Doc: i + 1, Item: -1})
	}
	return in
}

// Copy is an input of deep copies of the objects: a scenario runs once, and admission and
// the run change its objects, so a second run needs copies.
func (in *Input) Copy() (*Input, error) {
	out := &Input{origins: in.origins, Warnings: in.Warnings, objs: make([]any, len(in.objs))}
	for i, o := range in.objs {
		if ro, ok := o.(runtime.Object); ok {
			out.objs[i] = ro.DeepCopyObject()
			continue
		}
		// Types of our own without DeepCopy (JobSet): through JSON.
		data, err := json.Marshal(o)
		c := reflect.New(reflect.TypeOf(o).Elem()).Interface()
		if err == nil {
			err = json.Unmarshal(data, c)
		}
		if err != nil {
			return nil, fmt.Errorf("copying a %T: %w", o, err)
		}
		out.objs[i] = c
	}
	return out, nil
}

// Objects are the input's objects, in order (admitted in place once admission returns).
func (in *Input) Objects() []any { return in.objs }

// Origins locate the input's objects, in the order of Objects.
func (in *Input) Origins() []Origin { return in.origins }

// Errors are the documents that did not decode: admission reports them with the errors it
// finds in the others.
func (in *Input) Errors() InputErrors { return in.errs }

// Split moves the objects take chooses into an input of their own, in order and with
// their origins; the others, the warnings and the documents that did not decode stay in
// rest.
func (in *Input) Split(take func(obj any) bool) (taken, rest *Input) {
	taken, rest = &Input{}, &Input{Warnings: in.Warnings, errs: in.errs}
	for i, o := range in.objs {
		if take(o) {
			taken.add(o, in.origins[i])
		} else {
			rest.add(o, in.origins[i])
		}
	}
	return taken, rest
}

// Concat is one input of the objects, warnings and errors of several, in order.
func Concat(ins ...*Input) *Input {
	out := &Input{}
	for _, in := range ins {
		for i, o := range in.objs {
			out.add(o, in.origins[i])
		}
		out.Warnings = append(out.Warnings, in.Warnings...)
		out.errs = append(out.errs, in.errs...)
	}
	return out
}
