package sim

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// Without TakeOver a run leaves the scenario's nodes and pods as they were, so runs of
// scenarios sharing them (admission.AdmitOver) do not see each other's changes; with it
// the run, the last to read them, changes the pods in place and reports the same.
func TestTakeOver(t *testing.T) {
	cluster := []string{"../../../testdata/whatif/cluster.yaml"}
	news := []string{"../../../testdata/whatif/gang-job.yaml", "../../../testdata/whatif/gpu-pod.yaml"}
	decode := func(paths []string) *manifest.Input {
		in, err := manifest.Decode(paths, nil)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	run := func(sc *admission.Scenario, takeOver bool) string {
		s, err := New(sc, Options{CheckInvariants: true, TakeOver: takeOver})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violations) > 0 {
			t.Fatalf("invariants broken: %v", r.Violations)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	bulk, rest := decode(cluster).Split(func(o any) bool {
		_, node := o.(*v1.Node)
		_, pod := o.(*v1.Pod)
		return node || pod
	})
	restAgain, err := rest.Copy()
	if err != nil {
		t.Fatal(err)
	}
	restThird, err := rest.Copy()
	if err != nil {
		t.Fatal(err)
	}
	alone, err := admission.Admit(admission.ControlPlane{}, bulk, rest)
	if err != nil {
		t.Fatal(err)
	}
	// Two scenarios with the new objects over the same nodes and pods (a scenario's
	// controllers run once): one run copying, one taking over.
	with, err := admission.AdmitOver(admission.ControlPlane{}, alone, restAgain, decode(news))
	if err != nil {
		t.Fatal(err)
	}
	withToo, err := admission.AdmitOver(admission.ControlPlane{}, alone, restThird, decode(news))
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]*v1.Node, len(alone.Nodes))
	for i, n := range alone.Nodes {
		nodes[i] = n.DeepCopy()
	}
	pods := make([]*v1.Pod, len(alone.Pods))
	for i, p := range alone.Pods {
		pods[i] = p.DeepCopy()
	}
	unchanged := func(when string) {
		t.Helper()
		for i := range nodes {
			if alone.Nodes[i] != with.Nodes[i] || !reflect.DeepEqual(alone.Nodes[i], nodes[i]) {
				t.Errorf("%s: node %s changed", when, nodes[i].Name)
			}
		}
		for i := range pods {
			if alone.Pods[i] != with.Pods[i] || !reflect.DeepEqual(alone.Pods[i], pods[i]) {
				t.Errorf("%s: pod %s/%s changed", when, pods[i].Namespace, pods[i].Name)
			}
		}
	}
	run(alone, false)
	unchanged("after the run without the new objects")
	copied := run(with, false)
	unchanged("after the run with them, without TakeOver")
	if taken := run(withToo, true); taken != copied {
		t.Errorf("the run with TakeOver reports differently:\n got %s\nwant %s", taken, copied)
	}
	changed := 0
	for i := range pods {
		if withToo.Pods[i] != alone.Pods[i] {
			t.Fatalf("pod %d: the scenarios do not share their pods", i)
		}
		if !reflect.DeepEqual(withToo.Pods[i], pods[i]) {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("TakeOver changed no pod in place: the run still copies them")
	}
}
