package scheduler

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
)

// fakeCluster is an in-memory actuator.Client for scheduler tests: binds are recorded and,
// unless failing, confirmed back to the scheduler as an informer would.
type fakeCluster struct {
	mu      sync.Mutex
	s       *Scheduler
	binds   map[string]string
	bindErr error
	// bindLost makes a binding succeed on the "server" and report bindErr anyway, as a
	// request that timed out after it was sent.
	bindLost bool
	// patches are the PodScheduled conditions written: "ns/name reason".
	patches []string
	// deleteErr, when set, makes every deletion fail (after counting it).
	deleteErr error
	// graceful deletions leave the pods terminating until the test deletes them.
	graceful bool
	events   []string
	deleted  int
	// writes are the pod writes in the order they were made: "delete ns/name", and
	// "status ns/name" with the condition ("DisruptionTarget", "PodScheduled=False") and
	// the nominated node ("nominated=n1", "nominated=" to clear it) each patch sets.
	writes []string
}

func (f *fakeCluster) BindPod(_ context.Context, pod *v1.Pod, node string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bindErr != nil && !f.bindLost {
		return f.bindErr
	}
	f.binds[pod.Namespace+"/"+pod.Name] = node
	bound := pod.DeepCopy()
	bound.Spec.NodeName = node
	f.s.Post(func() { f.s.UpdatePod(pod, bound) })
	return f.bindErr
}

// DeletePod deletes at once (no grace period), as an informer would then report.
func (f *fakeCluster) DeletePod(_ context.Context, pod *v1.Pod, _ *int64) error {
	f.mu.Lock()
	f.deleted++
	f.writes = append(f.writes, "delete "+pod.Namespace+"/"+pod.Name)
	err := f.deleteErr
	f.mu.Unlock()
	if err != nil || f.graceful {
		return err
	}
	f.s.Post(func() { f.s.DeletePod(pod) })
	return nil
}
func (f *fakeCluster) PatchPodStatus(_ context.Context, pod *v1.Pod, cond *v1.PodCondition, nominated *string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := "status " + pod.Namespace + "/" + pod.Name
	if cond != nil {
		w += " " + string(cond.Type)
		if cond.Status == v1.ConditionFalse {
			w += "=False"
		}
	}
	if nominated != nil {
		w += " nominated=" + *nominated
	}
	f.writes = append(f.writes, w)
	if cond != nil && cond.Type == v1.PodScheduled {
		f.patches = append(f.patches, pod.Namespace+"/"+pod.Name+" "+cond.Reason)
	}
	return nil
}
func (f *fakeCluster) UpdateStatus(context.Context, runtime.Object) error { return nil }
func (f *fakeCluster) Event(_, _ runtime.Object, _, reason, _, note string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, reason+": "+note)
}

// inline runs actuator work at once, on the caller's goroutine.
type inline struct{}

func (inline) Go(task func()) { task() }

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

func newTestScheduler(t testing.TB, cfg *config.Configuration) (*Scheduler, *fakeCluster, *fixedClock) {
	t.Helper()
	if cfg == nil {
		cfg = config.Default()
	}
	clock := &fixedClock{t: time.Unix(1000, 0)}
	fc := &fakeCluster{binds: map[string]string{}}
	s, err := New(Options{Config: cfg, Registry: plugins.NewRegistry(), Clock: clock, Client: fc, Exec: inline{}, Logger: klog.Background(), AnySchedulerName: true})
	if err != nil {
		t.Fatal(err)
	}
	fc.s = s
	return s, fc, clock
}

// drain runs cycles until the queue has nothing ready.
func drain(s *Scheduler) {
	for {
		s.DrainInbox()
		if !s.ScheduleOne(context.Background()) {
			s.DrainInbox()
			return
		}
	}
}

func gate(name string) v1.PodSchedulingGate { return v1.PodSchedulingGate{Name: name} }

func (inline) Parallel(n int, fn func(i int)) {
	for i := range n {
		fn(i)
	}
}

// defaultConfigWithArgs is the default configuration with arguments for one plugin.
func defaultConfigWithArgs(t testing.TB, plugin, args string) *config.Configuration {
	t.Helper()
	cfg := config.Default()
	cfg.Profiles[0].PluginConfig = append(cfg.Profiles[0].PluginConfig, config.PluginConfig{Name: plugin, Args: []byte(args)})
	return cfg
}

// patchesOf counts the PodScheduled conditions written for a pod.
func (f *fakeCluster) patchesOf(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, p := range f.patches {
		if strings.HasPrefix(p, key+" ") {
			n++
		}
	}
	return n
}
