package kube

import "github.com/prometheus/client_golang/prometheus"

// callMetrics describe, beside the dispatcher's (pkg/driver/kube/dispatch), what became of
// bindings whose outcome was unknown, and the events dropped (phalanx's own names: no
// kube-scheduler metric covers them).
type callMetrics struct {
	resolved      *prometheus.CounterVec
	eventsDropped prometheus.Counter
}

func newCallMetrics(reg prometheus.Registerer) *callMetrics {
	m := &callMetrics{
		resolved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "phalanx_api_binding_outcomes_resolved_total",
			Help: "Bindings whose call failed without saying what the server did, by what reading the pod back found: bound, not-bound, gone, elsewhere (bound to another node), unknown (the client stopped first).",
		}, []string{"outcome"}),
		eventsDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "phalanx_events_dropped_total",
			Help: "Events not written because the event budget's backlog was full.",
		}),
	}
	reg.MustRegister(m.resolved, m.eventsDropped)
	// Every outcome has its series from the start: a dashboard panel reads 0, not "No
	// data", until the first binding whose outcome had to be read back.
	for _, o := range bindingOutcomes {
		m.resolved.WithLabelValues(o)
	}
	return m
}

// bindingOutcomes are the values of phalanx_api_binding_outcomes_resolved_total's outcome
// label (resolveBinding's findings).
var bindingOutcomes = []string{"bound", "not-bound", "gone", "elsewhere", "unknown"}
