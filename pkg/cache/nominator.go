package cache

import (
	"slices"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// nominator remembers which pending pods are nominated to which nodes: preemptors waiting
// for their victims to leave. Later cycles count them as present (when their priority is
// not lower than the pod being scheduled).
type nominator struct {
	byPod  map[string]nomination
	byNode map[string][]*framework.PodInfo
	// order keeps nominations in the order they were made, so that every walk over them
	// is deterministic.
	order []string
}

type nomination struct {
	pi   *framework.PodInfo
	node string
}

func newNominator() nominator {
	return nominator{byPod: map[string]nomination{}, byNode: map[string][]*framework.PodInfo{}}
}

// Nominate records that a pending pod is nominated to a node, replacing an earlier
// nomination of the same pod.
func (c *Cache) Nominate(pi *framework.PodInfo, node string) {
	c.ClearNomination(pi.Key)
	c.nominator.byPod[pi.Key] = nomination{pi: pi, node: node}
	c.nominator.byNode[node] = append(c.nominator.byNode[node], pi)
	c.nominator.order = append(c.nominator.order, pi.Key)
}

// ClearNomination forgets a pod's nomination and returns the node it had ("" for none).
func (c *Cache) ClearNomination(key string) string {
	nom, ok := c.nominator.byPod[key]
	if !ok {
		return ""
	}
	delete(c.nominator.byPod, key)
	if i := slices.Index(c.nominator.order, key); i >= 0 {
		c.nominator.order = slices.Delete(c.nominator.order, i, i+1)
	}
	list := c.nominator.byNode[nom.node]
	if i := slices.Index(list, nom.pi); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(c.nominator.byNode, nom.node)
	} else {
		c.nominator.byNode[nom.node] = list
	}
	return nom.node
}

// NominatedNode returns the node a pod is nominated to, or "".
func (c *Cache) NominatedNode(key string) string { return c.nominator.byPod[key].node }

// NominatedPodsForNode implements framework.Nominator.
func (c *Cache) NominatedPodsForNode(node string) []*framework.PodInfo {
	return c.nominator.byNode[node]
}

// NumNominated is the number of nominated pods.
func (c *Cache) NumNominated() int { return len(c.nominator.byPod) }

// ForEachNominated visits every nomination, oldest first.
func (c *Cache) ForEachNominated(fn func(pi *framework.PodInfo, node string)) {
	for _, key := range c.nominator.order {
		nom := c.nominator.byPod[key]
		fn(nom.pi, nom.node)
	}
}
