package sim_test

import (
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
	dto "github.com/prometheus/client_model/go"
)

// metricsCluster: two nodes of 4 CPUs; two single pods bound at once, a gang of three
// whose members come at 0s, 10s and 20s, and a pod too big for any node.
const metricsCluster = `
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec: {containers: [{name: c, resources: {requests: {cpu: "64"}}}]}
---
apiVersion: scheduling.phalanx.dev/v1alpha1
kind: PodGroup
metadata: {name: trainer}
spec: {schedulingPolicy: {gang: {minCount: 3}}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer-0, labels: {scheduling.phalanx.dev/pod-group: trainer}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer-1, labels: {scheduling.phalanx.dev/pod-group: trainer}, annotations: {sim.phalanx.dev/create-at: 10s}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer-2, labels: {scheduling.phalanx.dev/pod-group: trainer}, annotations: {sim.phalanx.dev/create-at: 20s}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`

// The metrics dashboards read are recorded where the scheduler acts: the SLI of each pod
// bound one by one, the gang's wait from its first member to its cycle (20s of virtual
// time), the queue's incoming pods and pending groups, the plugin that holds the huge
// pod back, and the framework's extension points and sampled plugins.
func TestSchedulerMetrics(t *testing.T) {
	sc, err := admission.Load([]string{"-"}, strings.NewReader(metricsCluster))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := simtest.Run(t, sc, sim.Options{})
	mfs, err := s.Metrics().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		families[mf.GetName()] = mf
	}
	// find returns the metric of a family with the given labels (a subset), or nil.
	find := func(name string, labels map[string]string) *dto.Metric {
		mf := families[name]
		if mf == nil {
			return nil
		}
	next:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue next
				}
			}
			return m
		}
		return nil
	}
	samples := func(name string, labels map[string]string) uint64 {
		if m := find(name, labels); m != nil {
			return m.GetHistogram().GetSampleCount()
		}
		return 0
	}

	if n := samples("scheduler_pod_scheduling_sli_duration_seconds", map[string]string{"attempts": "1"}); n != 2 {
		t.Errorf("SLI samples with 1 attempt: %d, want 2 (web-1, web-2)", n)
	}
	gang := find("scheduler_podgroup_wait_duration_seconds", map[string]string{"profile": "phalanx"})
	if gang == nil || gang.GetHistogram().GetSampleCount() != 1 || gang.GetHistogram().GetSampleSum() != 20 {
		t.Errorf("gang wait %v, want one sample of 20s", gang)
	}
	if m := find("scheduler_unschedulable_pods", map[string]string{"plugin": "NodeResourcesFit", "profile": "phalanx"}); m == nil || m.GetGauge().GetValue() != 1 {
		t.Errorf("unschedulable pods held by NodeResourcesFit: %v, want 1 (huge)", m)
	}
	if m := find("scheduler_unschedulable_pods", map[string]string{"plugin": "GangScheduling"}); m == nil || m.GetGauge().GetValue() != 0 {
		t.Errorf("unschedulable pods held by GangScheduling: %v, want 0 once the gang is complete", m)
	}
	if m := find("scheduler_queue_incoming_pods_total", map[string]string{"queue": "active", "event": "PodAdd"}); m == nil || m.GetCounter().GetValue() != 3 {
		t.Errorf("pods added to the active queue: %v, want 3 (web-1, web-2, huge)", m)
	}
	if m := find("scheduler_queue_incoming_pods_total", map[string]string{"queue": "gated", "event": "PodAdd"}); m == nil || m.GetCounter().GetValue() != 1 {
		t.Errorf("groups added gated: %v, want 1 (trainer, waiting for members)", m)
	}
	if m := find("scheduler_queue_incoming_pods_total", map[string]string{"queue": "unschedulable", "event": "ScheduleAttemptFailure"}); m == nil || m.GetCounter().GetValue() < 1 {
		t.Errorf("pods back to the unschedulable pool: %v, want the huge pod", m)
	}
	for _, pool := range []string{"active", "backoff", "unschedulable", "gated"} {
		if m := find("scheduler_pending_podgroups", map[string]string{"queue": pool}); m != nil && m.GetGauge().GetValue() != 0 {
			t.Errorf("pending groups in %s at the end: %v", pool, m.GetGauge().GetValue())
		}
	}
	if m := find("scheduler_pending_podgroups", map[string]string{"queue": "gated"}); m == nil {
		t.Error("the gang never counted as a pending group while gated")
	}
	for _, point := range []string{"PreEnqueue", "PreFilter", "PostFilter", "PreScore", "Score", "Reserve", "Permit", "PreBind", "Bind"} {
		if samples("scheduler_framework_extension_point_duration_seconds", map[string]string{"extension_point": point, "profile": "phalanx"}) == 0 {
			t.Errorf("no duration of extension point %s", point)
		}
	}
	// The first cycle is among the sampled ones.
	for _, pl := range [][2]string{{"NodeResourcesFit", "Filter"}, {"NodeAffinity", "PreFilter"}, {"TaintToleration", "Score"}} {
		if samples("scheduler_plugin_execution_duration_seconds", map[string]string{"plugin": pl[0], "extension_point": pl[1]}) == 0 {
			t.Errorf("no duration of plugin %s at %s", pl[0], pl[1])
		}
	}
}
