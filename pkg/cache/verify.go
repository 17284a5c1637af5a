package cache

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Verify checks the cache's internal consistency: nodes, the label index and the node sets
// agree with the pods. Tests and the simulator's invariant checks call it after mutations
// and rollbacks.
func (c *Cache) Verify() error {
	for i, n := range c.nodes {
		if c.nodeIndex[n.Name] != i {
			return fmt.Errorf("node %s at %d indexed at %d", n.Name, i, c.nodeIndex[n.Name])
		}
		if err := n.Verify(); err != nil {
			return err
		}
		if (len(n.PodsWithRequiredAntiAffinity) > 0) != c.antiNodes.has(n) {
			return fmt.Errorf("node %s: anti-affinity node set out of date", n.Name)
		}
		if (len(n.PodsWithAffinity) > 0) != c.affinityNodes.has(n) {
			return fmt.Errorf("node %s: affinity node set out of date", n.Name)
		}
		for _, p := range n.Pods {
			e := c.entries[p]
			if e == nil || e.node != n {
				return fmt.Errorf("pod %s on node %s has no entry for that node", p.Key, n.Name)
			}
		}
	}
	for _, set := range []*nodeSet{&c.antiNodes, &c.affinityNodes} {
		for i, n := range set.items {
			if set.pos[n] != int32(i) {
				return fmt.Errorf("node set: %s at %d thinks %d", n.Name, i, set.pos[n])
			}
		}
	}
	total := 0
	for _, n := range c.nodes {
		total += len(n.Pods)
	}
	for _, n := range c.ghosts {
		total += len(n.Pods)
	}
	if total != len(c.entries) || len(c.labels.all.items) != len(c.entries) {
		return fmt.Errorf("%d pods on nodes, %d entries, %d indexed", total, len(c.entries), len(c.labels.all.items))
	}
	for pi, e := range c.entries {
		if e.pi != pi {
			return fmt.Errorf("entry of %s points to %s", pi.Key, e.pi.Key)
		}
		for s, p := range e.postings {
			if it := p.items[e.pos[s]]; it.e != e || it.slot != int32(s) {
				return fmt.Errorf("pod %s: posting slot %d out of place", pi.Key, s)
			}
		}
	}
	for k, kp := range c.labels.keys {
		n := 0
		for _, p := range kp.values {
			n += len(p.items)
		}
		if n != kp.total {
			return fmt.Errorf("label key %s: total %d but %d indexed", k, kp.total, n)
		}
	}
	return nil
}

func (s *nodeSet) has(n *framework.NodeInfo) bool {
	_, ok := s.pos[n]
	return ok
}
