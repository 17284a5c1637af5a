package dispatch

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics describe the dispatcher's calls (phalanx's own names: no kube-scheduler metric
// covers them).
type Metrics struct {
	queued    *prometheus.GaugeVec
	inflight  prometheus.Gauge
	window    prometheus.Gauge
	throttled prometheus.Counter
	dropped   *prometheus.CounterVec
	duration  *prometheus.HistogramVec
}

// NewMetrics registers a dispatcher's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
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
	}
	reg.MustRegister(m.queued, m.inflight, m.window, m.throttled, m.dropped, m.duration)
	// Every class has its series from the start, so a dashboard panel reads 0, not "No
	// data", until the first call of the class.
	for c := range numClasses {
		m.queued.WithLabelValues(c.String())
		m.dropped.WithLabelValues(c.String())
	}
	return m
}

func (m *Metrics) observe(c Class, err error, d time.Duration) {
	result := "success"
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		result = "unknown"
	case err != nil:
		result = "error"
	}
	m.duration.WithLabelValues(c.String(), result).Observe(d.Seconds())
}
