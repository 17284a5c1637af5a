package prioritysort

import (
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

func TestLess(t *testing.T) {
	t0 := time.Unix(100, 0)
	tests := []struct {
		name string
		a, b framework.QueuedUnit
		want bool
	}{
		{"higher priority first", framework.QueuedUnit{Priority: 10, Timestamp: t0.Add(time.Hour)}, framework.QueuedUnit{Priority: 1, Timestamp: t0}, true},
		{"lower priority after", framework.QueuedUnit{Priority: 1, Timestamp: t0}, framework.QueuedUnit{Priority: 10, Timestamp: t0}, false},
		{"equal priority: earlier first", framework.QueuedUnit{Priority: 5, Timestamp: t0}, framework.QueuedUnit{Priority: 5, Timestamp: t0.Add(time.Second)}, true},
		{"equal priority: later after", framework.QueuedUnit{Priority: 5, Timestamp: t0.Add(time.Second)}, framework.QueuedUnit{Priority: 5, Timestamp: t0}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := (PrioritySort{}).Less(&tc.a, &tc.b); got != tc.want {
				t.Errorf("Less = %v, want %v", got, tc.want)
			}
		})
	}
}
