package interpodaffinity

import (
	"context"
	"slices"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// BlockingPods returns the pods, on any node, that make this plugin reject node n for the
// incoming pod p with an anti-affinity reason (see RejectedByOtherPods): the pods in n's
// domains that p's required anti-affinity matches, and the pods in n's domains whose
// required anti-affinity matches p. Removing all of them (and only them, as far as this
// plugin is concerned) makes n pass the anti-affinity checks. Cross-node preemption uses
// it to find victims beyond the node. The pods come sorted by key, so that a simulation
// choosing among them is deterministic.
func BlockingPods(snap framework.Snapshot, p *framework.PodInfo, n *framework.NodeInfo) []*framework.PodInfo {
	nodeLabels := n.Node().Labels
	var out []*framework.PodInfo
	seen := map[*framework.PodInfo]bool{}
	collect := func(other *framework.PodInfo) {
		if !seen[other] {
			seen[other] = true
			out = append(out, other)
		}
	}
	// sameDomain reports whether node on is in n's domain for key.
	sameDomain := func(on *framework.NodeInfo, key string) bool {
		v, ok := nodeLabels[key]
		if !ok || on == nil {
			return false
		}
		ov, ok := on.Node().Labels[key]
		return ok && ov == v
	}

	for i := range p.RequiredAntiAffinity {
		t := &p.RequiredAntiAffinity[i]
		if _, ok := nodeLabels[t.TopologyKey]; !ok {
			continue
		}
		nsOK := func(ns string) bool { return nsAccepts(snap, t, ns) }
		snap.ForEachPodMatching(nsOK, t.Selector, func(other *framework.PodInfo) bool {
			if sameDomain(snap.Get(other.NodeName), t.TopologyKey) {
				collect(other)
			}
			return true
		})
	}

	nsLabels := snap.NamespaceLabels(p.Pod.Namespace)
	for _, on := range snap.NodesWithRequiredAntiAffinityPods() {
		for _, other := range on.PodsWithRequiredAntiAffinity {
			for i := range other.RequiredAntiAffinity {
				t := &other.RequiredAntiAffinity[i]
				if sameDomain(on, t.TopologyKey) && t.Matches(p, nsLabels) {
					collect(other)
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *framework.PodInfo) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// BlockingPods implements framework.BlockingPodsPlugin: for an anti-affinity rejection of
// node n (see RejectedByOtherPods), the pods on any node that cause it.
func (pl *InterPodAffinity) BlockingPods(_ context.Context, _ *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo, st *framework.Status) []*framework.PodInfo {
	if !RejectedByOtherPods(st) || n.Node() == nil {
		return nil
	}
	return BlockingPods(pl.snap, p, n)
}

var _ framework.BlockingPodsPlugin = (*InterPodAffinity)(nil)
