package kube

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// dispatchMetrics describe the actuator's API calls and events (phalanx's own names: no
// kube-scheduler metric covers them).
type dispatchMetrics struct {
	queued        *prometheus.GaugeVec
	inflight      prometheus.Gauge
	window        prometheus.Gauge
	throttled     prometheus.Counter
	dropped       *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	resolved      *prometheus.CounterVec
	eventsDropped prometheus.Counter
}

func newDispatchMetrics(reg prometheus.Registerer) *dispatchMetrics {
	m := &dispatchMetrics{
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "phalanx_api_calls_queued",
			Help: "API calls (bindings, evictions, status writes) waiting for their turn, by class.",
		}, []string{"class"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "phalanx_api_calls_inflight",
			Help: "API calls being made.",
		}),
		window: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "phalanx_api_calls_window",
			Help: "How many API calls may be in flight at once (halved on HTTP 429, grows back with successes).",
		}),
		throttled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "phalanx_api_throttled_total",
			Help: "Times the API server's Priority and Fairness answered 429 and the window was halved.",
		}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "phalanx_api_calls_superseded_total",
			Help: "Queued API calls dropped because a newer call made them moot (a newer condition, a binding), by class.",
		}, []string{"class"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "phalanx_api_call_duration_seconds",
			Help:    "Duration of the actuator's API calls from dispatch to answer (rate-limiter wait excluded), by class and result.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"class", "result"}),
		resolved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "phalanx_api_binding_outcomes_resolved_total",
			Help: "Bindings whose call failed without saying what the server did, by what reading the pod back found: bound, not-bound, gone, elsewhere (bound to another node), unknown (the client stopped first).",
		}, []string{"outcome"}),
		eventsDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "phalanx_events_dropped_total",
			Help: "Events not written because the event budget's backlog was full.",
		}),
	}
	reg.MustRegister(m.queued, m.inflight, m.window, m.throttled, m.dropped, m.duration, m.resolved, m.eventsDropped)
	return m
}

func (m *dispatchMetrics) observe(c callClass, err error, d time.Duration) {
	result := "success"
	switch {
	case errors.Is(err, errOutcomeUnknown):
		result = "unknown"
	case err != nil:
		result = "error"
	}
	m.duration.WithLabelValues(c.String(), result).Observe(d.Seconds())
}
