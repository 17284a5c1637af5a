//go:build e2e

package e2e

// Regression test: a PodGroup's status writes used to race (each on its own goroutine),
// and an older "waiting for minCount pods ... (k of n)" landing last, or re-applied after
// a conflict, left a bound gang Pending for good. phalanx now writes a group's status one
// write at a time, the latest winning (pkg/scheduler/groupstatus.go).

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestPodGroupStatusWritesInOrder: twenty gangs of three, each created before its members
// (the usual order for a controller), are all bound; each must end PodGroupScheduled=True
// with the phase Scheduled.
func TestPodGroupStatusWritesInOrder(t *testing.T) {
	const groups, size = 20, 3
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	sched := e2eutil.SchedulerName(t)
	pinValue := e2eutil.UniqueName(t, "order")
	c.CreateReadyNode(t, e2eutil.Node{CPU: "64", Memory: "64Gi", Labels: map[string]string{pinLabel: pinValue}})
	gh := c.RecordPodGroups(t, ns)
	p := c.StartPhalanx(t, "status-order")
	p.WaitReady(t)

	var all []string
	for g := range groups {
		group := fmt.Sprintf("gang-%d", g)
		c.CreatePodGroup(t, gangGroup(ns, group, size, "", nil))
		for m := range size {
			name := fmt.Sprintf("%s-%d", group, m)
			all = append(all, name)
			c.CreatePod(t, pin(member(e2eutil.Pod{Namespace: ns, Name: name, SchedulerName: sched, CPU: "1"}.Build(), group), pinValue))
		}
	}
	c.WaitPodsBound(t, ns, all, time.Minute)

	stale := map[string]bool{}
	_ = e2eutil.Poll(e2eutil.Context(t), 20*time.Second, func(context.Context) (bool, error) {
		clear(stale)
		for g := range groups {
			group := fmt.Sprintf("gang-%d", g)
			pg := c.GetPodGroup(t, ns, group)
			cond := meta.FindStatusCondition(pg.Status.Conditions, v1alpha1.PodGroupScheduled)
			if cond == nil || cond.Status != metav1.ConditionTrue || pg.Status.Phase != v1alpha1.PodGroupPhaseScheduled {
				stale[group] = true
			}
		}
		return len(stale) == 0, nil
	})
	for g := range groups {
		group := fmt.Sprintf("gang-%d", g)
		if !stale[group] {
			continue
		}
		pg := c.GetPodGroup(t, ns, group)
		t.Errorf("%s: all %d members bound, but phase %q and PodGroupScheduled %+v", group, size, pg.Status.Phase,
			meta.FindStatusCondition(pg.Status.Conditions, v1alpha1.PodGroupScheduled))
		for _, v := range gh.Versions(group) {
			if cd := meta.FindStatusCondition(v.Status.Conditions, v1alpha1.PodGroupScheduled); cd != nil {
				t.Logf("  %s resourceVersion %s: %s %s %q", group, v.ResourceVersion, v.Status.Phase, cd.Status, cd.Message)
			}
		}
	}
}
