package kube

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/client-go/tools/leaderelection"
	clientmetrics "k8s.io/client-go/tools/metrics"

	"github.com/phalanx-dev/phalanx/pkg/version"
)

// Process-wide metrics: client-go and leader election report through package-level
// hooks that can be set once per process, so their collectors live in one registry
// shared by every driver in the process.
var (
	processMetricsOnce sync.Once
	processRegistry    = prometheus.NewRegistry()

	restRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rest_client_requests_total",
		Help: "Number of HTTP requests, partitioned by status code, method, and host.",
	}, []string{"code", "method", "host"})
	restLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "rest_client_request_duration_seconds",
		Help:    "Request latency in seconds. Broken down by verb, and host.",
		Buckets: []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0},
	}, []string{"verb", "host"})
	rateLimiterLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "rest_client_rate_limiter_duration_seconds",
		Help:    "Client side rate limiter latency in seconds. Broken down by verb, and host.",
		Buckets: []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0},
	}, []string{"verb", "host"})
	leaderStatus = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
	}, []string{"name"})
	leaderSlowpath = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "leader_election_slowpath_total",
		Help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease.",
	}, []string{"name"})
	// buildInfo is 1, labelled with the running build, as kube-scheduler's
	// kubernetes_build_info.
	buildInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "phalanx_build_info",
		Help: "A metric with a constant '1' value labeled by the git version and commit phalanx was built from, the Go version and the platform.",
	}, []string{"git_version", "git_commit", "go_version", "platform"})
)

func registerProcessMetrics() {
	processMetricsOnce.Do(func() {
		processRegistry.MustRegister(
			collectors.NewGoCollector(),
			collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
			restRequests, restLatency, rateLimiterLatency, leaderStatus, leaderSlowpath, buildInfo,
		)
		v := version.Get()
		commit := v.GitCommit
		if commit == "" { // a build outside git: the label says so rather than go missing
			commit = "unknown"
		}
		buildInfo.WithLabelValues(v.GitVersion, commit, v.GoVersion, v.Platform).Set(1)
		clientmetrics.Register(clientmetrics.RegisterOpts{
			RequestResult:      resultAdapter{},
			RequestLatency:     latencyAdapter{restLatency},
			RateLimiterLatency: latencyAdapter{rateLimiterLatency},
		})
		leaderelection.SetProvider(leaderProvider{})
	})
}

type resultAdapter struct{}

func (resultAdapter) Increment(_ context.Context, code, method, host string) {
	restRequests.WithLabelValues(code, method, host).Inc()
}

type latencyAdapter struct{ h *prometheus.HistogramVec }

func (a latencyAdapter) Observe(_ context.Context, verb string, u url.URL, latency time.Duration) {
	a.h.WithLabelValues(verb, u.Host).Observe(latency.Seconds())
}

type leaderProvider struct{}

func (leaderProvider) NewLeaderMetric() leaderelection.LeaderMetric { return leaderMetric{} }

type leaderMetric struct{}

func (leaderMetric) On(name string)                { leaderStatus.WithLabelValues(name).Set(1) }
func (leaderMetric) Off(name string)               { leaderStatus.WithLabelValues(name).Set(0) }
func (leaderMetric) SlowpathExercised(name string) { leaderSlowpath.WithLabelValues(name).Inc() }
