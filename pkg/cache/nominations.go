package cache

import (
	"fmt"
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// NominationStore remembers which pending pods are nominated to which nodes: preemptors
// waiting for their victims to leave. Later cycles count them as present (when their
// priority is not lower than the pod being scheduled). It is the framework.Nominator.
type NominationStore struct {
	byPod  map[string]*nomination
	byNode map[string][]*framework.PodInfo
	// order keeps nominations in the order they were made, so that every walk over them
	// is deterministic; the walk reads them from here, without a lookup per pod.
	order []*nomination
}

type nomination struct {
	pi   *framework.PodInfo
	node string
	// seen is what the last cycle that added the pod found (NodeStore.AddNominated): its
	// node and the generations before and after; only a cache of lookups.
	seen nominatedAdd
}

// nominatedAdd remembers a nominated pod's last simulated add: the node it was added to
// (still the node of that name while it is live) and the Generation the add took from the
// node at from with the pod's leaving mark as it was.
type nominatedAdd struct {
	node     *framework.NodeInfo
	from, to int64
	leaving  bool
	// steps is the node sets' record of that add (nodeSets.simulated): the versions it
	// took the sets of the node from and to, which the same add gives again.
	steps []int64
	// labels are the label index's postings the add took (labelIndex.add).
	labels labelPostings
}

func newNominationStore() *NominationStore {
	return &NominationStore{byPod: map[string]*nomination{}, byNode: map[string][]*framework.PodInfo{}}
}

var _ framework.Nominator = (*NominationStore)(nil)

// Nominate records that a pending pod is nominated to a node, replacing an earlier
// nomination of the same pod.
func (s *NominationStore) Nominate(pi *framework.PodInfo, node string) {
	s.ClearNomination(pi.Key)
	nom := &nomination{pi: pi, node: node}
	s.byPod[pi.Key] = nom
	s.byNode[node] = append(s.byNode[node], pi)
	s.order = append(s.order, nom)
}

// ClearNomination forgets a pod's nomination and returns the node it had ("" for none).
func (s *NominationStore) ClearNomination(key string) string {
	nom, ok := s.byPod[key]
	if !ok {
		return ""
	}
	delete(s.byPod, key)
	if i := slices.Index(s.order, nom); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	list := s.byNode[nom.node]
	if i := slices.Index(list, nom.pi); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(s.byNode, nom.node)
	} else {
		s.byNode[nom.node] = list
	}
	return nom.node
}

// NominatedNode returns the node a pod is nominated to, or "".
func (s *NominationStore) NominatedNode(key string) string {
	if nom := s.byPod[key]; nom != nil {
		return nom.node
	}
	return ""
}

// NominatedPodsForNode implements framework.Nominator.
func (s *NominationStore) NominatedPodsForNode(node string) []*framework.PodInfo {
	return s.byNode[node]
}

// NumNominated is the number of nominated pods.
func (s *NominationStore) NumNominated() int { return len(s.byPod) }

// ForEachNominated visits every nomination, oldest first.
func (s *NominationStore) ForEachNominated(fn func(pi *framework.PodInfo, node string)) {
	for _, nom := range s.order {
		fn(nom.pi, nom.node)
	}
}

// verify: the per-node lists and the order are the per-pod nominations.
func (s *NominationStore) verify() error {
	if len(s.order) != len(s.byPod) {
		return fmt.Errorf("%d nominations, %d in order", len(s.byPod), len(s.order))
	}
	for _, o := range s.order {
		if nom, ok := s.byPod[o.pi.Key]; !ok || nom != o {
			return fmt.Errorf("nomination order names %s on %s, which is not nominated there", o.pi.Key, o.node)
		}
	}
	count := 0
	for node, list := range s.byNode {
		if len(list) == 0 {
			return fmt.Errorf("node %s kept with no nominated pods", node)
		}
		for _, pi := range list {
			count++
			if nom, ok := s.byPod[pi.Key]; !ok || nom.node != node || nom.pi != pi {
				return fmt.Errorf("pod %s listed as nominated to %s, nominated to %q", pi.Key, node, nom.node)
			}
		}
	}
	if count != len(s.byPod) {
		return fmt.Errorf("%d nominations, %d listed by node", len(s.byPod), count)
	}
	return nil
}
