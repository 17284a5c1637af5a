package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Extension points, as the extension_point label names them (kube-scheduler's names;
// the last three are phalanx's).
const (
	PreEnqueue         = "PreEnqueue"
	PreFilter          = "PreFilter"
	Filter             = "Filter"
	PostFilter         = "PostFilter"
	PreScore           = "PreScore"
	Score              = "Score"
	Reserve            = "Reserve"
	Unreserve          = "Unreserve"
	Permit             = "Permit"
	PreBind            = "PreBind"
	Bind               = "Bind"
	PodGroupPostFilter = "PodGroupPostFilter"
	PlacementGenerate  = "PlacementGenerate"
	PlacementScore     = "PlacementScore"
)

// PodScheduled records a bound pod's scheduling SLI: from its first attempt to its
// binding, labelled by its attempts as kube-scheduler labels them ("15+" from 15).
func (m *Metrics) PodScheduled(attempts int, sinceFirstAttempt time.Duration) {
	if m == nil {
		return
	}
	label := "15+"
	if attempts < 15 {
		label = strconv.Itoa(attempts)
	}
	m.PodSchedulingSLIDuration.WithLabelValues(label).Observe(sinceFirstAttempt.Seconds())
}

// PodGroupScheduled records how long a gang of a profile waited before the cycle that
// placed its minCount members. A basic group does not wait for its members: nothing is
// recorded.
func (m *Metrics) PodGroupScheduled(gang bool, profile string, waited time.Duration) {
	if m == nil || !gang {
		return
	}
	m.PodGroupWaitDuration.WithLabelValues(profile).Observe(waited.Seconds())
}

// QueueRecorder keeps the scheduling queue's metrics. The queue records on every move of
// an entry, so label children are looked up once and kept. A nil recorder records
// nothing.
type QueueRecorder struct {
	m             *Metrics
	incoming      map[[2]string]prometheus.Counter
	unschedulable map[[2]string]prometheus.Gauge
	groups        map[string]prometheus.Gauge
}

// Queue returns the recorder of the scheduler's queue (nil for nil metrics).
func (m *Metrics) Queue() *QueueRecorder {
	if m == nil {
		return nil
	}
	return &QueueRecorder{m: m, incoming: map[[2]string]prometheus.Counter{},
		unschedulable: map[[2]string]prometheus.Gauge{}, groups: map[string]prometheus.Gauge{}}
}

// Incoming counts an entry entering a pool of the queue, for an event.
func (r *QueueRecorder) Incoming(queue, event string) {
	if r != nil {
		child(r.incoming, [2]string{queue, event}, func() prometheus.Counter { return r.m.QueueIncomingPods.WithLabelValues(queue, event) }).Inc()
	}
}

// Unschedulable adds delta to the unschedulable entries a plugin holds back.
func (r *QueueRecorder) Unschedulable(plugin, profile string, delta float64) {
	if r != nil {
		child(r.unschedulable, [2]string{plugin, profile}, func() prometheus.Gauge { return r.m.UnschedulablePods.WithLabelValues(plugin, profile) }).Add(delta)
	}
}

// PendingGroups adds delta to the pod groups in a pool.
func (r *QueueRecorder) PendingGroups(queue string, delta float64) {
	if r != nil {
		child(r.groups, queue, func() prometheus.Gauge { return r.m.PendingPodGroups.WithLabelValues(queue) }).Add(delta)
	}
}

// child is a vector's child for a key, looked up once and kept.
func child[K comparable, C any](cache map[K]C, key K, make func() C) C {
	c, ok := cache[key]
	if !ok {
		c = make()
		cache[key] = c
	}
	return c
}

// FrameworkRecorder times one profile's extension points and plugins. It is used from
// the parallel Filter and Score loops, so its cache of label children is concurrent.
// A nil recorder records nothing.
type FrameworkRecorder struct {
	m       *Metrics
	profile string
	points  sync.Map // [2]string{point, status} -> prometheus.Observer
	plugins sync.Map // [3]string{plugin, point, status} -> prometheus.Observer
}

// Framework returns the recorder of a profile (nil for nil metrics).
func (m *Metrics) Framework(profile string) *FrameworkRecorder {
	if m == nil {
		return nil
	}
	return &FrameworkRecorder{m: m, profile: profile}
}

// ExtensionPoint records one run of every plugin at an extension point.
func (r *FrameworkRecorder) ExtensionPoint(point, status string, d time.Duration) {
	if r == nil {
		return
	}
	k := [2]string{point, status}
	o, ok := r.points.Load(k)
	if !ok {
		o, _ = r.points.LoadOrStore(k, r.m.FrameworkExtensionPointDuration.WithLabelValues(point, status, r.profile))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

// Plugin records one run of a plugin at an extension point.
func (r *FrameworkRecorder) Plugin(point, plugin, status string, d time.Duration) {
	if r == nil {
		return
	}
	k := [3]string{plugin, point, status}
	o, ok := r.plugins.Load(k)
	if !ok {
		o, _ = r.plugins.LoadOrStore(k, r.m.PluginExecutionDuration.WithLabelValues(plugin, point, status))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

// BatchRecorder records OpportunisticBatching (podfit's batch.go).
type BatchRecorder struct{ m *Metrics }

// Batch returns the recorder of batching.
func (m *Metrics) Batch() *BatchRecorder { return &BatchRecorder{m: m} }

// Attempt counts a batch attempt's result (no_hint, hint_used, hint_not_used).
func (r *BatchRecorder) Attempt(profile, result string) {
	r.m.BatchAttempts.WithLabelValues(profile, result).Inc()
}

// Flushed counts a batch state found unusable, by reason.
func (r *BatchRecorder) Flushed(profile, reason string) {
	r.m.BatchCacheFlushed.WithLabelValues(profile, reason).Inc()
}

// Rescored counts a rescore of the last chosen node and observes its duration.
func (r *BatchRecorder) Rescored(profile string, d time.Duration) {
	r.m.BatchRescoreAttempts.WithLabelValues(profile).Inc()
	r.m.BatchRescoreDuration.WithLabelValues(profile).Observe(d.Seconds())
}

// Hint observes how long a hint's search took, by whether it gave one.
func (r *BatchRecorder) Hint(profile string, hinted bool, d time.Duration) {
	label := "no_hint"
	if hinted {
		label = "hint"
	}
	r.m.GetNodeHintDuration.WithLabelValues(label, profile).Observe(d.Seconds())
}

// Stored observes how long storing a cycle's results took.
func (r *BatchRecorder) Stored(profile string, d time.Duration) {
	r.m.StoreScheduleResultsDuration.WithLabelValues(profile).Observe(d.Seconds())
}
