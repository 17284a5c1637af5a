package sim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
)

// Input is objects for a scenario, decoded but not admitted: from manifests (Decode) or
// from elsewhere, a cluster say (Objects). Admit makes a scenario of one or more, so that
// a cluster's objects and new ones are admitted together (a new pod names a cluster's
// PriorityClass).
type Input struct {
	objs    []any
	origins []origin
	// Warnings are what a user should know that did not stop decoding (skipped kinds).
	Warnings []string
	// errs are the documents that did not decode.
	errs InputErrors
}

func (in *Input) add(obj any, o origin) {
	in.objs = append(in.objs, obj)
	in.origins = append(in.origins, o)
}

// FromObjects is an input of objects from source (named in messages as a file would be,
// "source: document N"), as they are: admission defaults them in place.
func FromObjects(source string, objs []runtime.Object) *Input {
	in := &Input{}
	for i, o := range objs {
		in.add(o, origin{file: source, doc: i + 1, item: -1})
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

// Objects are the input's objects, in order (admitted in place once Admit returns).
func (in *Input) Objects() []any { return in.objs }

// ControlPlane says what the modelled control plane does besides what every cluster does.
type ControlPlane struct {
	// WorkloadWithJob: the Job controller makes a Workload and a PodGroup for each Job
	// (pkg/controllers), as Kubernetes 1.37's does with the WorkloadWithJob gate on.
	WorkloadWithJob bool
}

// Admit makes one scenario of inputs, in order, admitting what a control plane would.
func Admit(cp ControlPlane, inputs ...*Input) (*Scenario, error) {
	sc := &Scenario{origin: map[any]origin{}, controlPlane: cp}
	for _, in := range inputs {
		sc.Warnings = append(sc.Warnings, in.Warnings...)
		sc.errs = append(sc.errs, in.errs...)
		for i, obj := range in.objs {
			sc.add(obj, in.origins[i])
		}
	}
	sc.generateNames()
	// The documents that decoded are admitted even when others did not, so that one run
	// reports every error.
	if err := sc.admit(); err != nil {
		sort.SliceStable(sc.errs, func(i, j int) bool { return sc.errs[i].at.seq < sc.errs[j].at.seq })
		return nil, err
	}
	return sc, nil
}
