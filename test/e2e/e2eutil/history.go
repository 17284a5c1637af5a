//go:build e2e

package e2eutil

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// PodHistory records every version of every pod of a namespace, from the moment it
// starts, so tests can assert on states that pass quickly (a victim's condition while
// it terminates, a nomination before the binding) and on what never happened.
type PodHistory struct {
	mu       sync.Mutex
	versions map[string][]*corev1.Pod
	deleted  map[string]bool
}

// RecordPods starts recording the pods of ns until the test ends.
func (c *Cluster) RecordPods(t testing.TB, ns string) *PodHistory {
	t.Helper()
	h := &PodHistory{versions: map[string][]*corev1.Pod{}, deleted: map[string]bool{}}
	pods := c.Client.CoreV1().Pods(ns)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return pods.Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	record := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			h.mu.Lock()
			h.versions[pod.Name] = append(h.versions[pod.Name], pod)
			h.mu.Unlock()
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				h.mu.Lock()
				h.deleted[pod.Name] = true
				h.mu.Unlock()
			}
		},
	})
	ctx := Context(t)
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("pod recorder did not sync")
	}
	return h
}

// Versions returns the versions of a pod seen so far.
func (h *PodHistory) Versions(name string) []*corev1.Pod {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*corev1.Pod(nil), h.versions[name]...)
}

// Names returns the pods seen so far.
func (h *PodHistory) Names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	names := make([]string, 0, len(h.versions))
	for n := range h.versions {
		names = append(names, n)
	}
	return names
}

// Deleting tells whether the pod was ever seen terminating or gone.
func (h *PodHistory) Deleting(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.deleted[name] {
		return true
	}
	for _, p := range h.versions[name] {
		if p.DeletionTimestamp != nil {
			return true
		}
	}
	return false
}

// Nodes returns the distinct spec.nodeName values the pod had, in order.
func (h *PodHistory) Nodes(name string) []string {
	var out []string
	for _, p := range h.Versions(name) {
		if p.Spec.NodeName != "" && (len(out) == 0 || out[len(out)-1] != p.Spec.NodeName) {
			out = append(out, p.Spec.NodeName)
		}
	}
	return out
}

// Nominations returns the distinct non-empty status.nominatedNodeName values the pod
// had, in order.
func (h *PodHistory) Nominations(name string) []string {
	var out []string
	for _, p := range h.Versions(name) {
		if n := p.Status.NominatedNodeName; n != "" && (len(out) == 0 || out[len(out)-1] != n) {
			out = append(out, n)
		}
	}
	return out
}

// Condition returns the first version of the condition type the pod had with the
// given status, or nil.
func (h *PodHistory) Condition(name string, typ corev1.PodConditionType, status corev1.ConditionStatus) *corev1.PodCondition {
	for _, p := range h.Versions(name) {
		for i := range p.Status.Conditions {
			if c := p.Status.Conditions[i]; c.Type == typ && c.Status == status {
				return &c
			}
		}
	}
	return nil
}

// WaitPodsBound waits until every named pod of ns has a node, and returns them.
func (c *Cluster) WaitPodsBound(t testing.TB, ns string, names []string, timeout time.Duration) map[string]*corev1.Pod {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var bound map[string]*corev1.Pod
	var missing int
	err := Poll(Context(t), timeout, func(ctx context.Context) (bool, error) {
		list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil // ride out API server restarts
		}
		bound = map[string]*corev1.Pod{}
		for i := range list.Items {
			p := &list.Items[i]
			if want[p.Name] && p.Spec.NodeName != "" {
				bound[p.Name] = p
			}
		}
		missing = len(want) - len(bound)
		return missing == 0, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d pods of %s to be bound: %d still not bound: %v", len(names), ns, missing, err)
	}
	return bound
}

// WaitAllBound waits until the history has seen every named pod bound. A List can see
// bindings before the history's watch delivers them, and after an etcd or API server
// outage the watch may have to be re-listed after a backoff of up to half a minute:
// checks on the history right after WaitPodsBound would see pods "bound to nothing".
// It reports the pods still unseen instead of failing, so the caller's own check names
// them.
func (h *PodHistory) WaitAllBound(t testing.TB, names []string, timeout time.Duration) {
	t.Helper()
	unseen := func() int {
		n := 0
		for _, name := range names {
			if len(h.Nodes(name)) == 0 {
				n++
			}
		}
		return n
	}
	if err := Poll(Context(t), timeout, func(context.Context) (bool, error) { return unseen() == 0, nil }); err != nil {
		t.Logf("the pod history has not seen %d of %d pods bound after %v", unseen(), len(names), timeout)
	}
}

// WaitBound waits (up to 10s) until the history has seen the pod bound: its watch may
// deliver the binding a moment after a List or Get saw it.
func (h *PodHistory) WaitBound(t testing.TB, name string) {
	t.Helper()
	WaitFor(t, 10*time.Second, name+"'s binding in the pod history", func(context.Context) (bool, error) {
		return len(h.Nodes(name)) > 0, nil
	})
}
