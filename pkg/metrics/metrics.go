// Package metrics defines phalanx's Prometheus metrics. Names follow kube-scheduler's where
// the meaning is the same, so existing dashboards work. Each scheduler has its own
// registry, so simulations and tests never share counters.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Results of a scheduling attempt, as kube-scheduler labels them.
const (
	ResultScheduled     = "scheduled"
	ResultUnschedulable = "unschedulable"
	ResultError         = "error"
)

// Metrics holds the collectors of one scheduler.
type Metrics struct {
	Registry *prometheus.Registry

	ScheduleAttempts          *prometheus.CounterVec
	SchedulingAttemptDuration *prometheus.HistogramVec
	PendingPods               *prometheus.GaugeVec

	PodGroupScheduleAttempts *prometheus.CounterVec

	// PodGroupPlacements counts the placements of topology-constrained groups (KEP-5732)
	// by stage: generated, pruned (too small in aggregate), evaluated, feasible.
	PodGroupPlacements        *prometheus.CounterVec
	PodGroupPlacementDuration *prometheus.HistogramVec

	PodGroupPreemptionAttempts        *prometheus.CounterVec
	PodGroupPreemptionAttemptDuration prometheus.Histogram
	PodGroupPreemptionVictims         prometheus.Histogram
	PodGroupPreemptionReprieved       prometheus.Counter

	PreemptionAttempts          prometheus.Counter
	PreemptionVictims           prometheus.Histogram
	PreemptionGoroutineDuration *prometheus.HistogramVec
	PreemptionGoroutines        *prometheus.CounterVec
	PreemptionReleaseWaits      *prometheus.CounterVec

	// DRABindingConditionsAllocations counts the allocated devices with binding
	// conditions whose wait ended, and DRABindingConditionsWaitDuration how long it took,
	// by profile, driver and status (success, failure, timeout, error): kube-scheduler's.
	DRABindingConditionsAllocations  *prometheus.CounterVec
	DRABindingConditionsWaitDuration *prometheus.HistogramVec

	// kube-scheduler's, with its labels and buckets: dashboards built for it work.
	PodSchedulingSLIDuration        *prometheus.HistogramVec
	UnschedulablePods               *prometheus.GaugeVec
	QueueIncomingPods               *prometheus.CounterVec
	FrameworkExtensionPointDuration *prometheus.HistogramVec
	PluginExecutionDuration         *prometheus.HistogramVec

	// PodGroupWaitDuration is how long gangs waited, from their first member's arrival to
	// the cycle that placed their minCount; PendingPodGroups counts the groups in the queue.
	PodGroupWaitDuration *prometheus.HistogramVec
	PendingPodGroups     *prometheus.GaugeVec

	// OpportunisticBatching's, kube-scheduler's names, labels and buckets (batch.go).
	BatchAttempts                *prometheus.CounterVec
	BatchCacheFlushed            *prometheus.CounterVec
	BatchRescoreAttempts         *prometheus.CounterVec
	BatchRescoreDuration         *prometheus.HistogramVec
	GetNodeHintDuration          *prometheus.HistogramVec
	StoreScheduleResultsDuration *prometheus.HistogramVec
}

// New creates the collectors in a fresh registry.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		ScheduleAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_schedule_attempts_total",
			Help: "Number of attempts to schedule pods, by the result.",
		}, []string{"result", "profile"}),
		SchedulingAttemptDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_scheduling_attempt_duration_seconds",
			Help:    "Scheduling attempt latency in seconds (scheduling algorithm + binding).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 20),
		}, []string{"result", "profile"}),
		PendingPods: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "scheduler_pending_pods",
			Help: "Number of pending pods, by the queue type.",
		}, []string{"queue"}),
		PodGroupScheduleAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_podgroup_schedule_attempts_total",
			Help: "Number of attempts to schedule pod groups, by the result.",
		}, []string{"result", "profile"}),
		PodGroupPlacements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_podgroup_placements_total",
			Help: "Number of placements of topology-constrained pod groups, by stage: generated, pruned, evaluated, feasible.",
		}, []string{"stage"}),
		PodGroupPlacementDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_podgroup_placement_duration_seconds",
			Help:    "Time spent on the placements of a pod group cycle, by phase: generate, evaluate (pruning and evaluation), score.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 22),
		}, []string{"phase"}),
		PodGroupPreemptionAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_podgroup_preemption_attempts_total",
			Help: "Number of workload-aware preemption attempts for pod groups, by the result.",
		}, []string{"result"}),
		PodGroupPreemptionAttemptDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "scheduler_podgroup_preemption_attempt_duration_seconds",
			Help:    "Duration of workload-aware preemption attempts (the decision) in seconds.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 20),
		}),
		PodGroupPreemptionVictims: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "scheduler_podgroup_preemption_victims",
			Help:    "Number of pods chosen as victims by workload-aware preemption.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 12),
		}),
		PodGroupPreemptionReprieved: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "scheduler_podgroup_preemption_reprieved_total",
			Help: "Number of potential victims reprieved by workload-aware preemption.",
		}),
		PreemptionAttempts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "scheduler_preemption_attempts_total",
			Help: "Total preemption attempts in the cluster till now.",
		}),
		PreemptionVictims: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "scheduler_preemption_victims",
			Help:    "Number of selected preemption victims.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 7),
		}),
		PreemptionGoroutineDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_preemption_goroutines_duration_seconds",
			Help:    "Duration in seconds for running goroutines for the preemption, measured when they end.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 20),
		}, []string{"result"}),
		PreemptionGoroutines: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_preemption_goroutines_execution_total",
			Help: "Number of preemption goroutines executed, by their result.",
		}, []string{"result"}),
		PreemptionReleaseWaits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "phalanx_preemption_release_waits_total",
			Help: "Preemptors whose victims were gone while the devices of their claims were still being released, by event: started (the preemptor waits), released, timeout (it may preempt again).",
		}, []string{"event"}),
		DRABindingConditionsAllocations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_dra_bindingconditions_allocations_total",
			Help: "Number of allocations using devices with BindingConditions, counted per driver per scheduling attempt",
		}, []string{"profile", "driver", "status"}),
		DRABindingConditionsWaitDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_dra_bindingconditions_wait_duration_seconds",
			Help:    "Time in seconds spent waiting for BindingConditions to be satisfied during PreBind.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 14),
		}, []string{"profile", "driver", "status"}),
		PodSchedulingSLIDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "scheduler_pod_scheduling_sli_duration_seconds",
			Help: "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.",
			// kube-scheduler's: 10ms to ~88m.
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 20),
		}, []string{"attempts"}),
		UnschedulablePods: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "scheduler_unschedulable_pods",
			Help: "The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for all plugins that caused it to not schedule and so this metric have meaning only when broken down by plugin.",
		}, []string{"plugin", "profile"}),
		QueueIncomingPods: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_queue_incoming_pods_total",
			Help: "Number of pods added to scheduling queues by event and queue type.",
		}, []string{"queue", "event"}),
		FrameworkExtensionPointDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "scheduler_framework_extension_point_duration_seconds",
			Help: "Latency for running all plugins of a specific extension point.",
			// kube-scheduler's: 0.1ms to ~200ms.
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 12),
		}, []string{"extension_point", "status", "profile"}),
		PluginExecutionDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "scheduler_plugin_execution_duration_seconds",
			Help: "Duration for running a plugin at a specific extension point.",
			// kube-scheduler's: 0.01ms to ~22ms, finely.
			Buckets: prometheus.ExponentialBuckets(0.00001, 1.5, 20),
		}, []string{"plugin", "extension_point", "status"}),
		PodGroupWaitDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_podgroup_wait_duration_seconds",
			Help:    "Time a gang waited, from its first member entering the scheduling queue to the scheduling cycle that placed its minCount members.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 20),
		}, []string{"profile"}),
		PendingPodGroups: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "scheduler_pending_podgroups",
			Help: "Number of pod groups with pending members, by the queue type (active, backoff, unschedulable, gated).",
		}, []string{"queue"}),
		BatchAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_batch_attempts_total",
			Help: "Counts of results when we attempt to use batching.",
		}, []string{"profile", "result"}),
		BatchCacheFlushed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_batch_cache_flushed_total",
			Help: "Counts of cache flushes by reason.",
		}, []string{"profile", "reason"}),
		BatchRescoreAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "scheduler_batch_rescore_attempts_total",
			Help: "Counts of rescore attempts during opportunistic batching.",
		}, []string{"profile"}),
		// kube-scheduler's: 0.01ms to ~20ms.
		BatchRescoreDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_batch_rescore_duration_seconds",
			Help:    "Latency for rescoring a node during opportunistic batching.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 12),
		}, []string{"profile"}),
		GetNodeHintDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_get_node_hint_duration_seconds",
			Help:    "Latency for getting a node hint.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 12),
		}, []string{"hinted", "profile"}),
		StoreScheduleResultsDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "scheduler_store_schedule_results_duration_seconds",
			Help:    "Latency for storing scheduling results.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 12),
		}, []string{"profile"}),
	}
	m.Registry.MustRegister(m.BatchAttempts, m.BatchCacheFlushed, m.BatchRescoreAttempts, m.BatchRescoreDuration,
		m.GetNodeHintDuration, m.StoreScheduleResultsDuration)
	m.Registry.MustRegister(m.PodSchedulingSLIDuration, m.UnschedulablePods, m.QueueIncomingPods, m.FrameworkExtensionPointDuration,
		m.PluginExecutionDuration, m.PodGroupWaitDuration, m.PendingPodGroups)
	m.Registry.MustRegister(m.PodGroupScheduleAttempts, m.PodGroupPlacements, m.PodGroupPlacementDuration, m.PodGroupPreemptionAttempts, m.PodGroupPreemptionAttemptDuration,
		m.PodGroupPreemptionVictims, m.PodGroupPreemptionReprieved)
	m.Registry.MustRegister(m.ScheduleAttempts, m.SchedulingAttemptDuration, m.PendingPods,
		m.PreemptionAttempts, m.PreemptionVictims, m.PreemptionGoroutineDuration, m.PreemptionGoroutines, m.PreemptionReleaseWaits)
	m.Registry.MustRegister(m.DRABindingConditionsAllocations, m.DRABindingConditionsWaitDuration)
	// The labelled metrics have a series for every value they know from the start, so a
	// dashboard's panel reads 0, not "No data", until the first pod group or preemption.
	for _, pool := range QueuePools {
		m.PendingPodGroups.WithLabelValues(pool)
	}
	for _, stage := range []string{"generated", "pruned", "evaluated", "feasible"} {
		m.PodGroupPlacements.WithLabelValues(stage)
	}
	for _, phase := range []string{"generate", "evaluate", "score"} {
		m.PodGroupPlacementDuration.WithLabelValues(phase)
	}
	for _, result := range []string{"success", "error", "unschedulable"} {
		m.PodGroupPreemptionAttempts.WithLabelValues(result)
	}
	for _, result := range []string{"success", "error"} {
		m.PreemptionGoroutineDuration.WithLabelValues(result)
		m.PreemptionGoroutines.WithLabelValues(result)
	}
	for _, event := range []string{"started", "released", "timeout"} {
		m.PreemptionReleaseWaits.WithLabelValues(event)
	}
	return m
}

// QueuePools are the pools of the scheduling queue, as the queue label names them.
var QueuePools = []string{"active", "backoff", "unschedulable", "gated"}

// InitProfile gives the series labelled with a profile (and its plugins) their first
// value, so a dashboard's panel filtered by profile reads 0 until the first attempt.
func (m *Metrics) InitProfile(profile string, plugins []string) {
	for _, result := range []string{ResultScheduled, ResultUnschedulable, ResultError} {
		m.ScheduleAttempts.WithLabelValues(result, profile)
		m.PodGroupScheduleAttempts.WithLabelValues(result, profile)
	}
	m.PodGroupWaitDuration.WithLabelValues(profile)
	for _, p := range plugins {
		m.UnschedulablePods.WithLabelValues(p, profile)
	}
}
