package schedulinggates

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestPreEnqueue(t *testing.T) {
	tests := []struct {
		name  string
		gates []string
		want  string
	}{
		{"no gates", nil, ""},
		{"one gate", []string{"example.com/quota"}, "waiting for scheduling gates: [example.com/quota]"},
		{"two gates", []string{"a", "b"}, "waiting for scheduling gates: [a b]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := testutil.Pod("p").Obj()
			for _, g := range tc.gates {
				p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: g})
			}
			pi := testutil.Pod("x").Info()
			pi.Pod = p
			st := SchedulingGates{}.PreEnqueue(context.Background(), pi)
			if st.Message() != tc.want {
				t.Errorf("got %q, want %q", st.Message(), tc.want)
			}
			if (tc.want == "") != st.IsSuccess() {
				t.Errorf("success = %v", st.IsSuccess())
			}
		})
	}
}
