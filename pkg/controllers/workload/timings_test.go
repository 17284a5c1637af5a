package workload

import (
	"slices"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// host plays a controller's actions in virtual time as the simulator does: pods are made
// when their time comes and run at once, timers fire at theirs.
type host struct {
	c       Controller
	now     time.Duration
	pending []timed
	seq     int
	pods    map[string]*v1.Pod
	made    []made // every pod made, in order
}

type timed struct {
	at  time.Duration
	seq int
	do  func()
}

type made struct {
	name string
	at   time.Duration
}

func (h *host) at(t time.Duration, do func()) {
	h.seq++
	h.pending = append(h.pending, timed{at: t, seq: h.seq, do: do})
}

func (h *host) perform(acts []Action) {
	for _, a := range acts {
		if a.Then != nil {
			then := a.Then
			h.at(h.now+a.After, func() { h.perform(then()) })
			continue
		}
		if p, ok := a.Object.(*v1.Pod); ok {
			h.at(h.now+a.After, func() {
				h.pods[p.Name] = p
				h.made = append(h.made, made{name: p.Name, at: h.now})
				h.perform(h.c.Observe(p, Running))
			})
		}
	}
}

// run plays everything due until until.
func (h *host) run(until time.Duration) {
	for len(h.pending) > 0 {
		sort.Slice(h.pending, func(i, j int) bool {
			a, b := h.pending[i], h.pending[j]
			return a.at < b.at || (a.at == b.at && a.seq < b.seq)
		})
		next := h.pending[0]
		if next.at > until {
			return
		}
		h.pending = h.pending[1:]
		h.now = next.at
		next.do()
	}
}

// preempt ends n of the running pods (first by name) as a preemption does: DisruptionTarget,
// their deletion starts now, they are gone after grace.
func (h *host) preempt(n int, grace time.Duration) {
	names := make([]string, 0, len(h.pods))
	for name := range h.pods {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names[:n] {
		p := h.pods[name]
		delete(h.pods, name)
		p.Status.Conditions = []v1.PodCondition{{Type: v1.DisruptionTarget, Status: v1.ConditionTrue}}
		h.perform(h.c.Observe(p, Terminating))
		h.at(h.now+grace, func() { h.perform(h.c.Observe(p, Gone)) })
	}
}

// TestControllerTimingsMatchKubernetes holds the controllers' replacements of preempted
// pods to the times Kubernetes' own controllers (k8s.io/kubernetes v1.37.2,
// pkg/controller) make them, measured from the preemption: the Job controller backs off
// once for the Job, from its failures since the last success (DefaultJobPodFailureBackOff
// 10 s doubling, MaxJobPodFailureBackOff 10 min), counted from the latest failure, and makes
// every missing pod when the delay ends (2 victims: both at +20 s; 4: all at +80 s, as
// measured on a v1.37.2 control plane); with podReplacementPolicy Failed a pod fails when
// it is gone; with backoffLimitPerIndex each index backs off on its own. The ReplicaSet
// controller (and so a Deployment) replaces a pod as soon as its deletion starts; the
// StatefulSet controller makes the same name again once the pod is gone.
func TestControllerTimingsMatchKubernetes(t *testing.T) {
	const grace = 5 * time.Second
	job := func(spec string) (string, string) {
		return "batch/v1/Job", "metadata: {name: j}\nspec:\n  " + spec + "\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}"
	}
	s := time.Second
	for _, tc := range []struct {
		name    string
		kind    string
		spec    string // a Job's spec (else parallelism 8, backoffLimit 20)
		victims int
		// again: a second preemption of as many pods, this long after the first.
		again time.Duration
		want  []time.Duration // when each replacement is made, from the (first) preemption
	}{
		{name: "Job, 1 victim", victims: 1, want: []time.Duration{10 * s}},
		{name: "Job, 2 victims: both at +20 s", victims: 2, want: []time.Duration{20 * s, 20 * s}},
		{name: "Job, 4 victims: all at +80 s", victims: 4, want: []time.Duration{80 * s, 80 * s, 80 * s, 80 * s}},
		{name: "Job, 2 victims, then 2 of the replacements 30 s later: 3 and 4 failures, +80 s from the latest",
			victims: 2, again: 30 * s, want: []time.Duration{20 * s, 20 * s, 110 * s, 110 * s}},
		{name: "Job, 8 victims: capped at 10 minutes", victims: 8, want: slices.Repeat([]time.Duration{600 * s}, 8)},
		{name: "Job, podReplacementPolicy Failed: failed when gone", spec: "parallelism: 4\n  podReplacementPolicy: Failed", victims: 2, want: []time.Duration{grace + 20*s, grace + 20*s}},
		{name: "Indexed Job, backoffLimitPerIndex: each index on its own",
			spec: "parallelism: 4\n  completions: 4\n  completionMode: Indexed\n  backoffLimitPerIndex: 2", victims: 2, want: []time.Duration{10 * s, 10 * s}},
		{name: "ReplicaSet: at once", kind: "apps/v1/ReplicaSet", victims: 2, want: []time.Duration{0, 0}},
		{name: "Deployment: at once", kind: "apps/v1/Deployment", victims: 2, want: []time.Duration{0, 0}},
		{name: "StatefulSet: once gone", kind: "apps/v1/StatefulSet", victims: 2, want: []time.Duration{grace, grace}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, doc := tc.kind, ""
			switch {
			case kind == "" && tc.spec != "":
				kind, doc = job(tc.spec)
			case kind == "":
				kind, doc = job("parallelism: 8\n  backoffLimit: 20")
			case kind == "apps/v1/StatefulSet":
				doc = "metadata: {name: s}\nspec: {replicas: 4, serviceName: s, selector: {matchLabels: {a: s}}, template: {metadata: {labels: {a: s}}, spec: {containers: [{name: c, image: i}]}}}"
			default:
				doc = "metadata: {name: r}\nspec: {replicas: 4, selector: {matchLabels: {a: r}}, template: {metadata: {labels: {a: r}}, spec: {containers: [{name: c, image: i}]}}}"
			}
			h := &host{c: decode(t, kind, doc), pods: map[string]*v1.Pod{}}
			h.perform(h.c.Start())
			h.run(0)
			first := len(h.made)
			start := 100 * s
			h.run(start)
			h.now = start
			h.preempt(tc.victims, grace)
			if tc.again > 0 {
				h.run(start + tc.again)
				h.now = start + tc.again
				// the replacements made so far are the newest pods: preempt those
				var newest []string
				for _, m := range h.made[first:] {
					newest = append(newest, m.name)
				}
				for name := range h.pods {
					if !slices.Contains(newest, name) {
						delete(h.pods, name) // only the replacements are candidates here
					}
				}
				h.preempt(tc.victims, grace)
			}
			h.run(time.Hour)
			var got []time.Duration
			for _, m := range h.made[first:] {
				got = append(got, m.at-start)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("replacements made at %v after the preemption, want %v (as Kubernetes' controller)", got, tc.want)
			}
		})
	}
}
