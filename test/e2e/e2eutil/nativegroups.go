//go:build e2e

package e2eutil

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// Kubernetes' own PodGroups (scheduling.k8s.io/v1alpha2), which the e2e control plane
// serves (hack/e2e.sh turns the alpha API on).

// CreateNativePodGroup creates a native PodGroup (the namespace's deletion cleans it up)
// and returns it as created.
func (c *Cluster) CreateNativePodGroup(t testing.TB, pg *schedulingv1alpha2.PodGroup) *schedulingv1alpha2.PodGroup {
	t.Helper()
	created, err := c.Client.SchedulingV1alpha2().PodGroups(pg.Namespace).Create(Context(t), pg, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create PodGroup.scheduling.k8s.io %s/%s: %v", pg.Namespace, pg.Name, err)
	}
	return created
}

// WaitNativePodGroupCondition waits until the native PodGroup's condition typ has status
// (and, if message is not "", that message) and returns the condition.
func (c *Cluster) WaitNativePodGroupCondition(t testing.TB, ns, name, typ string, status metav1.ConditionStatus, message string, timeout time.Duration) metav1.Condition {
	t.Helper()
	client := c.Client.SchedulingV1alpha2().PodGroups(ns)
	return waitGroupCondition(t, "PodGroup.scheduling.k8s.io "+ns+"/"+name, typ, status, message, timeout, func(ctx context.Context) ([]metav1.Condition, bool) {
		pg, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, false
		}
		return pg.Status.Conditions, true
	})
}

// RecordNativePodGroups records every version of the native PodGroups of ns until the
// test ends, read as phalanx's PodGroups with their metadata and conditions (the native
// status has no phase).
func (c *Cluster) RecordNativePodGroups(t testing.TB, ns string) *PodGroupHistory {
	t.Helper()
	client := c.Client.SchedulingV1alpha2().PodGroups(ns)
	convert := func(obj any) *v1alpha1.PodGroup {
		n, ok := obj.(*schedulingv1alpha2.PodGroup)
		if !ok {
			return nil
		}
		return &v1alpha1.PodGroup{ObjectMeta: n.ObjectMeta, Status: v1alpha1.PodGroupStatus{Conditions: n.Status.Conditions}}
	}
	return recordGroups(t, &schedulingv1alpha2.PodGroup{}, convert, &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.Watch(ctx, o)
		},
	})
}
