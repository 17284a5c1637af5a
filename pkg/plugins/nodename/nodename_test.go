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
