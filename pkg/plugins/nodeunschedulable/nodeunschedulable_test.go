package nodeunschedulable

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestFilter(t *testing.T) {
	tolerate := v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}
	tests := []struct {
		name     string
		cordoned bool
		tolerate bool
		want     framework.Code
	}{
		{"schedulable node", false, false, framework.Success},
		{"cordoned node", true, false, framework.UnschedulableAndUnresolvable},
		{"cordoned node, pod tolerates it", true, true, framework.Success},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nb := testutil.Node("n1")
			if tc.cordoned {
				nb.Unschedulable()
			}
			pb := testutil.Pod("p")
			if tc.tolerate {
				pb.Toleration(tolerate)
			}
			st := NodeUnschedulable{}.Filter(context.Background(), nil, pb.Info(), framework.NewNodeInfo(nb.Obj()))
			if st.Code() != tc.want {
				t.Errorf("got %v, want %v", st, tc.want)
			}
			if st.Code() == framework.UnschedulableAndUnresolvable && (st.Message() != ErrReason || st.Plugin() != Name) {
				t.Errorf("status %q from %q", st.Message(), st.Plugin())
			}
		})
	}
}
