package kube

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

// errNotScheduling: a standby replica has no loop, so nothing to compare.
var errNotScheduling = errors.New("this replica is not scheduling (it stands by, or is stopping)")

// compareCache compares the scheduler's cache and queue with the informers' view of
// nodes and pods (kube-scheduler's cache comparer, scheduler.Compare). The informers
// are listed first, then the comparison runs on the loop after the events already
// posted: an event still on its way from an informer to the loop shows as a difference
// until it arrives.
func (d *Driver) compareCache(ctx context.Context) (scheduler.Comparison, error) {
	if !d.scheduling.Load() {
		return scheduler.Comparison{}, errNotScheduling
	}
	var nodes []*v1.Node
	var pods []*v1.Pod
	for _, inf := range d.informers {
		for _, obj := range inf.informer.GetStore().List() {
			switch o := obj.(type) {
			case *v1.Node:
				nodes = append(nodes, o)
			case *v1.Pod:
				pods = append(pods, o)
			}
		}
	}
	done := make(chan scheduler.Comparison, 1)
	d.sched.Post(func() { done <- d.sched.Compare(nodes, pods) })
	select {
	case c := <-done:
		return c, nil
	case <-ctx.Done():
		return scheduler.Comparison{}, ctx.Err()
	}
}

// logComparison compares and logs the result, every difference included.
func (d *Driver) logComparison(ctx context.Context) (scheduler.Comparison, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := d.compareCache(ctx)
	switch {
	case err != nil:
		d.logger.Info("Cache comparison not done", "err", err)
	case c.Consistent():
		d.logger.Info("Cache comparison: the cache matches the cluster", "nodes", c.Nodes, "boundPods", c.BoundPods,
			"assumedPods", c.AssumedPods, "pendingPods", c.PendingPods)
	default:
		d.logger.Info("Cache comparison: the cache differs from the cluster", "differences", len(c.Differences),
			"nodes", c.Nodes, "boundPods", c.BoundPods, "assumedPods", c.AssumedPods, "pendingPods", c.PendingPods)
		for _, diff := range c.Differences {
			d.logger.Info("Cache difference", "difference", diff)
		}
	}
	return c, err
}

// comparisonHandler serves /debug/cache-comparison: the comparison as JSON (also
// logged), 503 on a replica that is not scheduling.
func (d *Driver) comparisonHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := d.logComparison(r.Context())
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if err != nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(err.Error() + "\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(c)
	})
}
