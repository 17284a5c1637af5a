package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// deferredExec holds tasks until the test runs them, as goroutines that have not been
// scheduled yet would be.
type deferredExec struct{ tasks []func() }

func (d *deferredExec) Go(task func()) { d.tasks = append(d.tasks, task) }
func (d *deferredExec) Parallel(n int, fn func(i int)) {
	for i := range n {
		fn(i)
	}
}

// statusRecorder is a fakeCluster that records the PodGroup statuses written, in order.
type statusRecorder struct {
	fakeCluster
	mu      sync.Mutex
	written []string
}

func (r *statusRecorder) UpdateStatus(_ context.Context, obj runtime.Object) error {
	pg := obj.(*v1alpha1.PodGroup)
	c := meta.FindStatusCondition(pg.Status.Conditions, v1alpha1.PodGroupScheduled)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.written = append(r.written, c.Message)
	return nil
}

// A PodGroup's status writes go one at a time and the latest wins: a gate message written
// while an older one is in flight is written after it, never before, and nothing is
// written twice in parallel.
func TestGroupStatusWritesInOrder(t *testing.T) {
	exec := &deferredExec{}
	rec := &statusRecorder{fakeCluster: fakeCluster{binds: map[string]string{}}}
	s, err := New(Options{Registry: plugins.NewRegistry(), Clock: &fixedClock{t: time.Unix(1000, 0)},
		Client: rec, Exec: exec, Logger: klog.Background(), AnySchedulerName: true})
	if err != nil {
		t.Fatal(err)
	}
	rec.s = s
	s.AddPodGroup(podGroup("g", 4, false, 0))
	for m := range 3 {
		s.AddPod(testutil.Pod(fmt.Sprintf("g-%d", m)).Labels(v1alpha1.LabelPodGroup, "g").Req("cpu", "1").Obj())
	}
	// Three gate messages were decided; only the first write may be on its way.
	if n := len(exec.tasks); n != 1 {
		t.Fatalf("%d writes in flight, want 1", n)
	}
	for len(exec.tasks) > 0 {
		task := exec.tasks[0]
		exec.tasks = exec.tasks[1:]
		task()
		s.DrainInbox()
		if len(exec.tasks) > 1 {
			t.Fatalf("%d writes in flight, want at most 1", len(exec.tasks))
		}
	}
	want := []string{
		"waiting for minCount pods from a gang to appear in scheduling queue (1 of 4)",
		"waiting for minCount pods from a gang to appear in scheduling queue (3 of 4)",
	}
	if fmt.Sprint(rec.written) != fmt.Sprint(want) {
		t.Errorf("written %q, want %q (the first, then the latest)", rec.written, want)
	}
}

// conditionRecorder is a fakeCluster that records the PodGroupScheduled conditions
// written: "status reason: message".
type conditionRecorder struct {
	fakeCluster
	written []string
}

func (r *conditionRecorder) UpdateStatus(_ context.Context, obj runtime.Object) error {
	if pg, ok := obj.(*v1alpha1.PodGroup); ok {
		if c := meta.FindStatusCondition(pg.Status.Conditions, v1alpha1.PodGroupScheduled); c != nil {
			r.mu.Lock()
			r.written = append(r.written, fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message))
			r.mu.Unlock()
		}
	}
	return nil
}

// settle runs the actuator's tasks and the loop until neither has anything left (the
// group's status writes go one at a time, each after the last one's answer).
func settle(s *Scheduler, exec *deferredExec) {
	drain(s)
	for len(exec.tasks) > 0 {
		exec.run()
		drain(s)
	}
}

func (r *conditionRecorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.written) == 0 {
		return ""
	}
	return r.written[len(r.written)-1]
}

// A gang's members are placed but the API server refuses their bindings (a ClusterRole
// without pods/binding, issue 29): the PodGroup does not say Scheduled, its condition
// names the refusal, a Warning event says it, and an error is logged (shown at any
// verbosity). Once the bindings go through, it says Scheduled again.
func TestGroupBindingRefused(t *testing.T) {
	refusal := apierrors.NewForbidden(v1.Resource("pods/binding"), "g-0",
		errors.New(`User "system:serviceaccount:phalanx:phalanx" cannot create resource "pods/binding"`))
	tests := []struct {
		name     string
		minCount int32
		members  int
	}{
		{name: "gang of 3", minCount: 3, members: 3},
		{name: "basic group", minCount: 1, members: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logged []string
			logger := funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{Verbosity: 0})
			exec := &deferredExec{}
			clock := &fixedClock{t: time.Unix(1000, 0)}
			rec := &conditionRecorder{fakeCluster: fakeCluster{binds: map[string]string{}}}
			s, err := New(Options{Registry: plugins.NewRegistry(), Clock: clock, Client: rec, Exec: exec, Logger: logger,
				AnySchedulerName: true})
			if err != nil {
				t.Fatal(err)
			}
			rec.s = s
			s.AddNode(testutil.Node("n").Capacity("cpu", "8", "memory", "8Gi").Obj())
			s.AddPodGroup(podGroup("g", tt.minCount, false, 0))
			for m := range tt.members {
				s.AddPod(testutil.Pod(fmt.Sprintf("g-%d", m)).Labels(v1alpha1.LabelPodGroup, "g").Req("cpu", "1").Obj())
			}
			rec.bindErr = refusal
			settle(s, exec)
			if len(rec.binds) != 0 {
				t.Fatalf("bound %v despite the refusal", rec.binds)
			}
			got := rec.last()
			want := fmt.Sprintf("False %s: Binding of member default/g-", v1alpha1.PodGroupReasonSchedulerError)
			if !strings.HasPrefix(got, want) || !strings.Contains(got, `cannot create resource "pods/binding"`) ||
				!strings.Contains(got, fmt.Sprintf("(0 of %d members bound)", tt.minCount)) {
				t.Errorf("PodGroupScheduled %q, want %q... naming the refusal and 0 of %d members bound", got, want, tt.minCount)
			}
			warned := false
			for _, e := range rec.events {
				warned = warned || strings.HasPrefix(e, "FailedScheduling: Binding of member default/g-")
			}
			if !warned {
				t.Errorf("no Warning event on the group: %q", rec.events)
			}
			if !slices.ContainsFunc(logged, func(l string) bool {
				return strings.Contains(l, `"msg"="Binding of a pod group member failed"`) && strings.Contains(l, "pods/binding")
			}) {
				t.Errorf("no error logged at verbosity 0: %q", logged)
			}
			// The group is tried again (after its backoff): placing its members does not
			// make it Scheduled while their bindings are refused.
			clock.t = clock.t.Add(time.Minute)
			settle(s, exec)
			if got := rec.last(); !strings.HasPrefix(got, "False ") {
				t.Errorf("PodGroupScheduled %q after a second refusal, want False", got)
			}
			rec.bindErr = nil
			for range 3 {
				clock.t = clock.t.Add(time.Minute)
				settle(s, exec)
			}
			if len(rec.binds) != tt.members {
				t.Fatalf("bound %v once the refusal ended, want %d members", rec.binds, tt.members)
			}
			if got := rec.last(); !strings.HasPrefix(got, "True Scheduled") {
				t.Errorf("PodGroupScheduled %q once bound, want True Scheduled (written: %q)", got, rec.written)
			}
		})
	}
}
