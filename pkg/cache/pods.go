package cache

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// podEntry is the cache's bookkeeping for a pod on a node: where it sits in the label
// index, so that removing it is O(labels).
type podEntry struct {
	pi       *framework.PodInfo
	node     *framework.NodeInfo
	postings []*posting
	pos      []int32
}

// AddBoundPod records a pod the API says is bound. When the scheduler had assumed it, the
// assumption is confirmed (and moved, should the pod have landed elsewhere).
func (c *Cache) AddBoundPod(pi *framework.PodInfo) error {
	node := pi.Pod.Spec.NodeName
	if node == "" {
		return fmt.Errorf("pod %s is not bound", pi.Key)
	}
	if old := c.pods[pi.Key]; old != nil {
		c.removePod(old)
	}
	n := c.nodeOrGhost(node)
	if n == nil {
		// A pod on a node we have not seen yet: keep it on a ghost until the node arrives.
		n = framework.NewNodeInfo(nil)
		n.Name = node
		c.ghosts[node] = n
	}
	pi.Assumed = false
	c.addPod(pi, n)
	return nil
}

// AssumePod places a pending pod on a node before its binding is confirmed, so the next
// cycles see the room as taken.
func (c *Cache) AssumePod(pi *framework.PodInfo, node string) error {
	n := c.Get(node)
	if n == nil {
		return fmt.Errorf("assume pod %s: node %q not found", pi.Key, node)
	}
	if _, ok := c.pods[pi.Key]; ok {
		return fmt.Errorf("assume pod %s: already in the cache", pi.Key)
	}
	pi.Assumed = true
	c.addPod(pi, n)
	return nil
}

// ForgetPod drops an assumed pod whose binding failed.
func (c *Cache) ForgetPod(key string) {
	if pi := c.pods[key]; pi != nil && pi.Assumed {
		c.removePod(pi)
		pi.Assumed = false
	}
}

// RemoveBoundPod drops a pod that was deleted or finished.
func (c *Cache) RemoveBoundPod(key string) *framework.PodInfo {
	pi := c.pods[key]
	if pi != nil {
		c.removePod(pi)
	}
	return pi
}

// AddPod places a pod on a node inside a simulation (framework.Snapshot).
func (c *Cache) AddPod(pi *framework.PodInfo, node string) {
	if n := c.Get(node); n != nil {
		c.addPod(pi, n)
	}
}

// RemovePod takes a pod off its node inside a simulation (framework.Snapshot).
func (c *Cache) RemovePod(pi *framework.PodInfo) {
	if _, ok := c.entries[pi]; ok {
		c.removePod(pi)
	}
}

func (c *Cache) addPod(pi *framework.PodInfo, n *framework.NodeInfo) {
	if old, ok := c.entries[pi]; ok {
		// A pod already on a node: adding it again would corrupt its positions. This is a
		// scheduler bug; it is refused and reported by Verify instead of spreading.
		c.faults = append(c.faults, fmt.Sprintf("pod %s added to node %s while on node %s", pi.Key, n.Name, old.node.Name))
		return
	}
	e := &podEntry{pi: pi, node: n}
	c.entries[pi] = e
	c.pods[pi.Key] = pi
	gen := n.Generation
	n.AddPod(pi)
	c.labels.add(e)
	if n.Node() != nil {
		if len(n.PodsWithRequiredAntiAffinity) == 1 && len(pi.RequiredAntiAffinity) > 0 {
			c.antiNodes.add(n)
		}
		if len(n.PodsWithAffinity) == 1 && pi.HasAffinityTerms() {
			c.affinityNodes.add(n)
		}
	}
	c.trackMember(pi, true)
	c.log(undoOp{kind: opAdd, entry: e, generation: gen})
	// Logged after the pod, so undone before it.
	c.dra.podAdded(pi)
	c.vols.podAdded(pi)
}

func (c *Cache) removePod(pi *framework.PodInfo) {
	e := c.entries[pi]
	n := e.node
	op := undoOp{kind: opRemove, entry: e, generation: n.Generation, antiPos: -1, affinityPos: -1}
	op.labelPos = c.labels.remove(e, c.simulating())
	op.slot = n.RemovePod(pi)
	if n.Node() != nil {
		if len(pi.RequiredAntiAffinity) > 0 && len(n.PodsWithRequiredAntiAffinity) == 0 {
			op.antiPos = c.antiNodes.remove(n)
		}
		if pi.HasAffinityTerms() && len(n.PodsWithAffinity) == 0 {
			op.affinityPos = c.affinityNodes.remove(n)
		}
	}
	delete(c.entries, pi)
	if c.pods[pi.Key] == pi {
		delete(c.pods, pi.Key)
	}
	if n.Node() == nil && len(n.Pods) == 0 && !c.simulating() {
		delete(c.ghosts, n.Name)
	}
	c.trackMember(pi, false)
	c.log(op)
	c.dra.podRemoved(pi)
	c.vols.podRemoved(pi)
}

// SetLeaving marks a pod as leaving its node (terminating, or taken by a preemption being
// carried out) or no longer; the node's LeavingGeneration changes, so what preemption
// cached about the node is stale.
func (c *Cache) SetLeaving(pi *framework.PodInfo, leaving bool) {
	if n := c.Get(pi.NodeName); n != nil && c.pods[pi.Key] == pi {
		n.SetLeaving(pi, leaving)
		return
	}
	pi.Terminating = leaving
}
