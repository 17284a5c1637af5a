//go:build e2e

package e2eutil

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

var podGroupResource = v1alpha1.SchemeGroupVersion.WithResource("podgroups")

func (c *Cluster) podGroups(t testing.TB, ns string) dynamic.ResourceInterface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	return dyn.Resource(podGroupResource).Namespace(ns)
}

func toPodGroup(obj any) *v1alpha1.PodGroup {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	pg := &v1alpha1.PodGroup{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pg); err != nil {
		return nil
	}
	return pg
}

// GetPodGroup reads a PodGroup.
func (c *Cluster) GetPodGroup(t testing.TB, ns, name string) *v1alpha1.PodGroup {
	t.Helper()
	u, err := c.podGroups(t, ns).Get(Context(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get PodGroup %s/%s: %v", ns, name, err)
	}
	pg := toPodGroup(u)
	if pg == nil {
		t.Fatalf("PodGroup %s/%s: cannot convert %v", ns, name, u.Object)
	}
	return pg
}

// WaitPodGroupCondition waits until the PodGroup's condition typ has status (and, if
// message is not "", that message) and returns the condition.
func (c *Cluster) WaitPodGroupCondition(t testing.TB, ns, name, typ string, status metav1.ConditionStatus, message string, timeout time.Duration) metav1.Condition {
	t.Helper()
	client := c.podGroups(t, ns)
	return waitGroupCondition(t, "PodGroup "+ns+"/"+name, typ, status, message, timeout, func(ctx context.Context) ([]metav1.Condition, bool) {
		u, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, false
		}
		pg := toPodGroup(u)
		if pg == nil {
			return nil, false
		}
		return pg.Status.Conditions, true
	})
}

// waitGroupCondition polls a group's conditions (read by get) until typ has status and,
// if message is not "", that message.
func waitGroupCondition(t testing.TB, what, typ string, status metav1.ConditionStatus, message string, timeout time.Duration,
	get func(ctx context.Context) ([]metav1.Condition, bool)) metav1.Condition {
	t.Helper()
	var found metav1.Condition
	var last []metav1.Condition
	err := Poll(Context(t), timeout, func(ctx context.Context) (bool, error) {
		conds, ok := get(ctx)
		if !ok {
			return false, nil
		}
		last = conds
		cond := apimeta.FindStatusCondition(conds, typ)
		if cond == nil || cond.Status != status || (message != "" && cond.Message != message) {
			return false, nil
		}
		found = *cond
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s condition %s=%s %q: %v; conditions: %+v", what, typ, status, message, err, last)
	}
	return found
}

// PodGroupHistory records every version of every PodGroup of a namespace, so tests can
// assert on conditions a group had only for a while.
type PodGroupHistory struct {
	mu       sync.Mutex
	versions map[string][]*v1alpha1.PodGroup
}

// RecordPodGroups starts recording the PodGroups of ns until the test ends.
func (c *Cluster) RecordPodGroups(t testing.TB, ns string) *PodGroupHistory {
	t.Helper()
	client := c.podGroups(t, ns)
	return recordGroups(t, &unstructured.Unstructured{}, toPodGroup, &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.Watch(ctx, o)
		},
	})
}

// recordGroups records every version an informer of lw sees, as convert reads it.
func recordGroups(t testing.TB, objType runtime.Object, convert func(any) *v1alpha1.PodGroup, lw *cache.ListWatch) *PodGroupHistory {
	t.Helper()
	h := &PodGroupHistory{versions: map[string][]*v1alpha1.PodGroup{}}
	inf := cache.NewSharedIndexInformer(lw, objType, 0, cache.Indexers{})
	record := func(obj any) {
		if pg := convert(obj); pg != nil {
			h.mu.Lock()
			h.versions[pg.Name] = append(h.versions[pg.Name], pg)
			h.mu.Unlock()
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
	})
	ctx := Context(t)
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("PodGroup recorder did not sync")
	}
	return h
}

// Versions returns the versions of a PodGroup seen so far.
func (h *PodGroupHistory) Versions(name string) []*v1alpha1.PodGroup {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*v1alpha1.PodGroup(nil), h.versions[name]...)
}

// Conditions returns the distinct states (status, reason, message) the group's
// condition typ went through, in order.
func (h *PodGroupHistory) Conditions(name, typ string) []metav1.Condition {
	var out []metav1.Condition
	for _, pg := range h.Versions(name) {
		c := apimeta.FindStatusCondition(pg.Status.Conditions, typ)
		if c == nil {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Status == c.Status && out[n-1].Reason == c.Reason && out[n-1].Message == c.Message {
			continue
		}
		out = append(out, *c)
	}
	return out
}

// Phases returns the distinct status.phase values the group had, in order.
func (h *PodGroupHistory) Phases(name string) []v1alpha1.PodGroupPhase {
	var out []v1alpha1.PodGroupPhase
	for _, pg := range h.Versions(name) {
		if p := pg.Status.Phase; p != "" && (len(out) == 0 || out[len(out)-1] != p) {
			out = append(out, p)
		}
	}
	return out
}

// PodChange is one change of a pod, as the API server's watch reported it.
type PodChange struct {
	Type watch.EventType // Added, Modified or Deleted
	Pod  *corev1.Pod
}

// PodTimeline records the changes of the pods of a namespace in the order of one watch
// stream (the order in which the API server made them), so tests can assert that one
// thing happened before another: a binding after the victims were gone, say.
type PodTimeline struct {
	mu      sync.Mutex
	changes []PodChange
}

// RecordPodTimeline starts recording the pods of ns, from their current state, until
// the test ends.
func (c *Cluster) RecordPodTimeline(t testing.TB, ns string) *PodTimeline {
	t.Helper()
	ctx := Context(t)
	pods := c.Client.CoreV1().Pods(ns)
	list, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list pods of %s: %v", ns, err)
	}
	tl := &PodTimeline{}
	for i := range list.Items {
		tl.changes = append(tl.changes, PodChange{Type: watch.Added, Pod: &list.Items[i]})
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return pods.Watch(ctx, o)
		},
	})
	if err != nil {
		t.Fatalf("watch pods of %s: %v", ns, err)
	}
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				tl.mu.Lock()
				tl.changes = append(tl.changes, PodChange{Type: ev.Type, Pod: pod})
				tl.mu.Unlock()
			}
		}
	}()
	return tl
}

// Changes returns the changes seen so far, in order.
func (tl *PodTimeline) Changes() []PodChange {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]PodChange(nil), tl.changes...)
}

// FirstBound is the index in Changes of the first version of the pod with a node, or -1.
func (tl *PodTimeline) FirstBound(name string) int {
	for i, ch := range tl.Changes() {
		if ch.Pod.Name == name && ch.Pod.Spec.NodeName != "" {
			return i
		}
	}
	return -1
}

// FirstNominated is the index in Changes of the first version of the pod with a
// status.nominatedNodeName, or -1.
func (tl *PodTimeline) FirstNominated(name string) int {
	for i, ch := range tl.Changes() {
		if ch.Pod.Name == name && ch.Pod.Status.NominatedNodeName != "" {
			return i
		}
	}
	return -1
}

// PodsAt returns the pods as they were right after change i of Changes: the latest
// version of each pod seen by then, without those deleted.
func (tl *PodTimeline) PodsAt(i int) map[string]*corev1.Pod {
	out := map[string]*corev1.Pod{}
	for j, ch := range tl.Changes() {
		if j > i {
			break
		}
		if ch.Type == watch.Deleted {
			delete(out, ch.Pod.Name)
		} else {
			out[ch.Pod.Name] = ch.Pod
		}
	}
	return out
}

// DeletePodGroup deletes a PodGroup of phalanx's CRD.
func (c *Cluster) DeletePodGroup(t testing.TB, ns, name string) {
	t.Helper()
	if err := c.podGroups(t, ns).Delete(Context(t), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete PodGroup %s/%s: %v", ns, name, err)
	}
}
