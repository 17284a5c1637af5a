package scheduler

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

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
