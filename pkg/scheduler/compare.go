package scheduler

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Comparison is the difference between what the scheduler holds (its cache of nodes and
// bound or assumed pods, its queue of pending pods) and the cluster as the informers see
// it, in the spirit of kube-scheduler's cache comparer. Right after a change, informer
// events still on their way show as differences; one that stays is a bug.
type Comparison struct {
	Nodes       int `json:"nodes"`
	BoundPods   int `json:"boundPods"`
	AssumedPods int `json:"assumedPods"`
	PendingPods int `json:"pendingPods"`
	// Differences are the disagreements, one a line, sorted.
	Differences []string `json:"differences"`
}

// Consistent reports whether nothing differs.
func (c Comparison) Consistent() bool { return len(c.Differences) == 0 }

// Compare checks the cache and queue against the cluster's nodes and (unfinished) pods:
//
//   - every node is in the cache, and the cache has no other;
//   - every bound pod is in the cache on its node, and every pod the cache holds as bound
//     exists there;
//   - every assumed pod has its binding in flight or waits at Permit (an assumption nobody
//     will resolve is a pod lost: it takes room, and retries fail to assume it);
//   - every pending pod of our profiles is queued (alone or in its group) or being bound,
//     and nothing else is queued;
//   - the cache's own indexes are consistent (cache.Verify).
//
// It must run on the loop.
func (s *Scheduler) Compare(nodes []*v1.Node, pods []*v1.Pod) Comparison {
	cc := cacheComparer{s: s}
	return cc.compare(nodes, pods)
}

// cacheComparer compares the scheduler's cache and queue with the cluster.
type cacheComparer struct {
	s *Scheduler
}

func (cc cacheComparer) compare(nodes []*v1.Node, pods []*v1.Pod) Comparison {
	s := cc.s
	var c Comparison
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	cached := map[string]bool{}
	for _, n := range s.cache.NodeInfos() {
		cached[n.Name] = true
	}
	for _, n := range nodes {
		c.Nodes++
		if !cached[n.Name] {
			add("node %s: in the cluster, not in the cache", n.Name)
		}
		delete(cached, n.Name)
	}
	for name := range cached {
		add("node %s: in the cache, not in the cluster", name)
	}

	bound := map[string]*v1.Pod{}
	pending := map[string]*v1.Pod{}
	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		switch {
		case isTerminal(p):
		case p.Spec.NodeName != "":
			bound[key] = p
		case p.DeletionTimestamp == nil:
			if _, _, err := s.profileFor(p.Spec.SchedulerName); err == nil {
				pending[key] = p
			}
		}
	}
	for _, n := range s.cache.NodeInfos() {
		for _, pi := range n.Pods {
			cc.cachedPod(pi, bound[pi.Key], &c, add)
		}
	}
	for key, p := range bound {
		if s.cache.Nodes().Pod(key) == nil {
			add("pod %s: bound to %s in the cluster, not in the cache", key, p.Spec.NodeName)
		}
	}
	c.BoundPods = len(bound)
	c.PendingPods = len(pending)
	for key, p := range pending {
		if !cc.tracksPending(key, p) {
			add("pod %s: pending in the cluster, neither queued nor being bound", key)
		}
	}
	for _, key := range cc.queuedPods() {
		if pending[key] == nil {
			where := "gone"
			if p := bound[key]; p != nil {
				where = "bound to " + p.Spec.NodeName
			}
			add("pod %s: queued, but %s in the cluster", key, where)
		}
	}
	if err := s.cache.Verify(); err != nil {
		add("cache: %v", err)
	}
	slices.Sort(diffs)
	c.Differences = diffs
	return c
}

// cachedPod checks one pod the cache holds against the cluster's copy (nil: the cluster
// has no bound pod of that name).
func (cc cacheComparer) cachedPod(pi *framework.PodInfo, p *v1.Pod, c *Comparison, add func(string, ...any)) {
	if pi.Assumed {
		c.AssumedPods++
		if cc.s.binder.binding[pi.Key] != pi && cc.s.pods.waiting[pi.Key] == nil {
			add("pod %s: assumed on %s with no binding in flight", pi.Key, pi.NodeName)
		}
		if p != nil && p.Spec.NodeName != pi.NodeName {
			add("pod %s: assumed on %s, bound to %s in the cluster", pi.Key, pi.NodeName, p.Spec.NodeName)
		}
		return
	}
	switch {
	case p == nil:
		add("pod %s: on %s in the cache, not bound in the cluster", pi.Key, pi.NodeName)
	case p.Spec.NodeName != pi.NodeName:
		add("pod %s: on %s in the cache, bound to %s in the cluster", pi.Key, pi.NodeName, p.Spec.NodeName)
	case p.UID != pi.Pod.UID:
		add("pod %s: the cache holds another pod of that name (uid %s, the cluster's is %s)", pi.Key, pi.Pod.UID, p.UID)
	}
}

// tracksPending reports whether a pending pod is queued (alone, or as a pending member of
// its group's entry) or on its way to being bound.
func (cc cacheComparer) tracksPending(key string, p *v1.Pod) bool {
	s := cc.s
	if s.binder.binding[key] != nil || s.pods.waiting[key] != nil {
		return true
	}
	if v1alpha1.PodGroupNameOf(p) == "" {
		return s.queue.Get(key) != nil
	}
	gs := s.pending.filed[key]
	return gs != nil && s.queue.Get(gs.entryKey()) != nil &&
		slices.ContainsFunc(gs.pending, func(q *framework.PodInfo) bool { return q.Key == key })
}

// queuedPods lists the pods the queue holds, alone or as pending group members.
func (cc cacheComparer) queuedPods() []string {
	var keys []string
	for _, entry := range cc.s.queue.Entries() {
		switch {
		case entry.Pod != nil:
			keys = append(keys, entry.Key)
		case entry.Group != nil:
			for _, p := range entry.Group.(*groupState).pending {
				keys = append(keys, p.Key)
			}
		}
	}
	return keys
}
