package main

import (
	dto "github.com/prometheus/client_model/go"

	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// decisionSeconds is the time phalanx's preemption decisions have taken so far: the sum
// of the PostFilter and PodGroupPostFilter extension points' durations, which the
// scheduler records for every run (scheduler_framework_extension_point_duration_seconds),
// failed cycles' decisions to preempt nothing included.
func decisionSeconds(s *scheduler.Scheduler) float64 {
	fams, err := s.Metrics().Registry.Gather()
	if err != nil {
		return 0
	}
	sum := 0.0
	for _, f := range fams {
		if f.GetName() != "scheduler_framework_extension_point_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			if isDecision(m) {
				sum += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return sum
}

func isDecision(m *dto.Metric) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == "extension_point" {
			return l.GetValue() == metrics.PostFilter || l.GetValue() == metrics.PodGroupPostFilter
		}
	}
	return false
}
