package cache

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// verify checks the NodeStore's indexes: the nodes, the pods on them, the label index, the
// node sets and the image counts; and reports the first misuse it refused.
func (s *NodeStore) verify() error {
	if len(s.faults) > 0 {
		return fmt.Errorf("refused: %s", s.faults[0])
	}
	for _, check := range []func() error{s.verifyNodes, s.verifyPods, s.verifyLabels, s.verifyNodeSets, s.verifyImages} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// verifyNodes: the node list and its index agree, and each node's own sums and positions
// match its pods (NodeInfo.Verify).
func (s *NodeStore) verifyNodes() error {
	if len(s.nodeIndex) != len(s.nodes) {
		return fmt.Errorf("%d nodes, %d indexed", len(s.nodes), len(s.nodeIndex))
	}
	for i, n := range s.nodes {
		if s.nodeIndex[n.Name] != i || n.Index != i {
			return fmt.Errorf("node %s at %d indexed at %d, thinks %d", n.Name, i, s.nodeIndex[n.Name], n.Index)
		}
		if n.Node() == nil {
			return fmt.Errorf("live node %s has no node object", n.Name)
		}
		if err := n.Verify(); err != nil {
			return err
		}
	}
	for name, n := range s.ghosts {
		if n.Node() != nil || n.Name != name {
			return fmt.Errorf("ghost node %s is live or misnamed (%s)", name, n.Name)
		}
		if _, live := s.nodeIndex[name]; live {
			return fmt.Errorf("node %s is both live and a ghost", name)
		}
		if len(n.Pods) == 0 && !s.undo.simulating() {
			return fmt.Errorf("ghost node %s kept without pods", name)
		}
		if err := n.Verify(); err != nil {
			return err
		}
	}
	return nil
}

// verifyPods: every pod on a node has an entry for that node and is the pod of its key;
// there are no other entries.
func (s *NodeStore) verifyPods() error {
	total := 0
	visit := func(n *framework.NodeInfo) error {
		for _, p := range n.Pods {
			total++
			e := s.entries[p]
			if e == nil || e.node != n || e.pi != p {
				return fmt.Errorf("pod %s on node %s has no entry for that node", p.Key, n.Name)
			}
			if s.pods[p.Key] != p {
				return fmt.Errorf("pod %s on node %s is not the cache's pod of that key", p.Key, n.Name)
			}
		}
		return nil
	}
	for _, n := range s.nodes {
		if err := visit(n); err != nil {
			return err
		}
	}
	for _, n := range s.ghosts {
		if err := visit(n); err != nil {
			return err
		}
	}
	if total != len(s.entries) || total != len(s.pods) {
		return fmt.Errorf("%d pods on nodes, %d entries, %d keys", total, len(s.entries), len(s.pods))
	}
	return nil
}

// verifyLabels rebuilds the label index's counts from the entries and compares, and
// checks each pod's recorded positions in its posting lists.
func (s *NodeStore) verifyLabels() error {
	if len(s.labels.all.items) != len(s.entries) {
		return fmt.Errorf("%d pods, %d in the label index", len(s.entries), len(s.labels.all.items))
	}
	want := map[string]map[string]int{}
	for pi, e := range s.entries {
		if len(e.postings) != len(pi.Pod.Labels)+1 || e.postings[0] != &s.labels.all {
			return fmt.Errorf("pod %s: %d postings for %d labels", pi.Key, len(e.postings), len(pi.Pod.Labels))
		}
		for s, p := range e.postings {
			if int(e.pos[s]) >= len(p.items) {
				return fmt.Errorf("pod %s: posting slot %d past the end", pi.Key, s)
			}
			if it := p.items[e.pos[s]]; it.e != e || it.slot != int32(s) {
				return fmt.Errorf("pod %s: posting slot %d out of place", pi.Key, s)
			}
		}
		for k, v := range pi.Pod.Labels {
			if want[k] == nil {
				want[k] = map[string]int{}
			}
			want[k][v]++
		}
	}
	for k, kp := range s.labels.keys {
		total := 0
		for v, p := range kp.values {
			if len(p.items) != want[k][v] {
				return fmt.Errorf("label %s=%s: %d indexed, %d pods carry it", k, v, len(p.items), want[k][v])
			}
			total += len(p.items)
			for _, it := range p.items {
				if s.entries[it.e.pi] != it.e {
					return fmt.Errorf("label %s=%s indexes %s, which is not in the cache", k, v, it.e.pi.Key)
				}
			}
		}
		if total != kp.total {
			return fmt.Errorf("label key %s: total %d but %d indexed", k, kp.total, total)
		}
		delete(want, k)
	}
	for k := range want {
		return fmt.Errorf("label key %s carried by pods but not indexed", k)
	}
	return nil
}

// verifyNodeSets: the anti-affinity and affinity node sets are exactly the live nodes with
// such pods, and their positions are right; outside a simulation the placement node sets
// hold no undo record (each is popped by its move's rollback, so one left over would
// grow the stack for ever and misplace the next records).
func (s *NodeStore) verifyNodeSets() error {
	if !s.undo.simulating() && s.sets.top() > 0 {
		return fmt.Errorf("node sets: %d undo record words outside a simulation", s.sets.top())
	}
	for _, n := range s.nodes {
		if (len(n.PodsWithRequiredAntiAffinity) > 0) != s.antiNodes.has(n) {
			return fmt.Errorf("node %s: anti-affinity node set out of date", n.Name)
		}
		if (len(n.PodsWithAffinity) > 0) != s.affinityNodes.has(n) {
			return fmt.Errorf("node %s: affinity node set out of date", n.Name)
		}
	}
	for _, set := range []*nodeSet{&s.antiNodes, &s.affinityNodes} {
		if len(set.pos) != len(set.items) {
			return fmt.Errorf("node set: %d items, %d positions", len(set.items), len(set.pos))
		}
		for i, n := range set.items {
			if set.pos[n] != int32(i) {
				return fmt.Errorf("node set: %s at %d thinks %d", n.Name, i, set.pos[n])
			}
			if s.Get(n.Name) != n {
				return fmt.Errorf("node set holds %s, which is not a live node", n.Name)
			}
		}
	}
	return nil
}

// countUsers counts, by claim key, the pods that byPod records as using each claim (or
// volume claim), for the device and volume stores' verification: every such pod must be
// in the store.
func (s *NodeStore) countUsers(byPod map[*framework.PodInfo][]string, what string) (map[string]int, error) {
	users := map[string]int{}
	for pi, keys := range byPod {
		if _, ok := s.entries[pi]; !ok {
			return nil, fmt.Errorf("pod %s uses %s but is not in the cache", pi.Key, what)
		}
		for _, k := range keys {
			users[k]++
		}
	}
	return users, nil
}
