package resource

import (
	"errors"
	"math"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
)

func TestAmountNeverWraps(t *testing.T) {
	tests := []struct {
		q    string
		i    int
		want int64
		over bool
	}{
		{q: "1Gi", i: Memory, want: 1 << 30},
		{q: "1.5", i: CPU, want: 1500},
		{q: "1", i: Memory, want: 1},
		{q: "0.5", i: Memory, want: 1}, // rounded up, as kube-scheduler does
		{q: "1Pi", i: Memory, want: MaxAmount},
		{q: "1125899906842625", i: Memory, want: MaxAmount, over: true},
		{q: "1e30", i: Memory, want: MaxAmount, over: true},
		{q: "1e30", i: CPU, want: MaxAmount, over: true},
		{q: "9223372036854775807", i: Memory, want: MaxAmount, over: true},
		{q: "9223372036854775807", i: CPU, want: MaxAmount, over: true}, // its milli value would wrap
		{q: "1125899906842624m", i: CPU, want: MaxAmount},
		{q: "1125899906842625m", i: CPU, want: MaxAmount, over: true},
		{q: "-1e30", i: Memory, want: -MaxAmount, over: true},
		{q: "-2", i: Memory, want: -2},
		{q: "1e1000", i: Pods, want: MaxAmount, over: true},
	}
	for _, tc := range tests {
		got, over := Amount(tc.i, apiresource.MustParse(tc.q))
		if got != tc.want || over != tc.over {
			t.Errorf("Amount(%s, %s) = %d, %v; want %d, %v", Name(tc.i), tc.q, got, over, tc.want, tc.over)
		}
	}
}

func TestSumsOfMaxAmountsFit(t *testing.T) {
	if MaxAmount > math.MaxInt64/8191 {
		t.Fatalf("8191 amounts of %d overflow an int64", MaxAmount)
	}
}

func TestPodBeyondMaxAmount(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{container(list("memory", "1e30", "cpu", "1"), nil)}}}
	req, err := ForPod(pod)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), "memory 1e30") {
		t.Fatalf("ForPod error %v, want a TooLargeError naming memory 1e30", err)
	}
	if req.Vector[Memory] != MaxAmount || req.Vector[CPU] != 1000 || req.Vector[Pods] != 1 {
		t.Errorf("requests %s: want memory clamped to MaxAmount, the rest exact", req.String())
	}
}
