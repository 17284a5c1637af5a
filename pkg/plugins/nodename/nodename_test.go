package nodename

import (
	"context"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name     string
		nodeName string
		node     string
		want     framework.Code
	}{
		{"no node name", "", "n1", framework.Success},
		{"matching node", "n1", "n1", framework.Success},
		{"other node", "n2", "n1", framework.UnschedulableAndUnresolvable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := testutil.Pod("p").Obj()
			p.Spec.NodeName = tc.nodeName
			st := NodeName{}.Filter(context.Background(), nil, framework.NewPodInfo(p), framework.NewNodeInfo(testutil.Node(tc.node).Obj()))
			if st.Code() != tc.want {
				t.Errorf("got %v, want %v", st, tc.want)
			}
			if !st.IsSuccess() && st.Message() != ErrReason {
				t.Errorf("message %q", st.Message())
			}
		})
	}
}

// TestPreFilter: a pod naming a node narrows the cycle to that node, as kube-scheduler's
// NodeName does (found by hack/schedulerdiff).
func TestPreFilter(t *testing.T) {
	tests := []struct {
		name     string
		nodeName string
		want     []string // nil: no narrowing
	}{
		{"no node name", "", nil},
		{"a node name", "n1", []string{"n1"}},
		{"a node that does not exist", "missing", []string{"missing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := testutil.Pod("p").Obj()
			p.Spec.NodeName = tc.nodeName
			r, st := NodeName{}.PreFilter(context.Background(), framework.NewCycleState(), framework.NewPodInfo(p))
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			if tc.want == nil {
				if r != nil {
					t.Fatalf("got %v, want no narrowing", r.NodeNames)
				}
				return
			}
			if r == nil || len(r.NodeNames) != len(tc.want) {
				t.Fatalf("got %v, want %v", r, tc.want)
			}
			for _, n := range tc.want {
				if _, ok := r.NodeNames[n]; !ok {
					t.Errorf("got %v, want %v", r.NodeNames, tc.want)
				}
			}
		})
	}
}
