package podfit

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
)

// staticVerdicts are the cached results of the static filters (framework.StaticFilterPlugin
// and StaticPrecheckPlugin) for one key, per node, and the nodes that pass them.
type staticVerdicts struct {
	layout uint64
	// static is framework.LastStaticGeneration() when every verdict was last brought up to
	// date; while it has not moved, no node needs a look.
	static int64
	// gen holds the node's StaticGeneration when its verdict was computed (0: never).
	gen    []int64
	status []*framework.Status
	// eligible lists the indices of the nodes that pass, in node order; valid when
	// complete is set (all verdicts computed).
	eligible []int32
	complete bool
	used     uint64
}

// staticCache keeps verdicts for the most recently used keys, within a memory budget.
type staticCache struct {
	entries map[string]*staticVerdicts
	clock   uint64
}

// staticCacheSlots bounds the cache: about 20 bytes per key and node, so some 80 MB.
const staticCacheSlots = 4_000_000

// get returns the verdicts for a key, sized for the current node layout.
func (c *staticCache) get(key string, layout uint64, numNodes int) *staticVerdicts {
	if c.entries == nil {
		c.entries = map[string]*staticVerdicts{}
	}
	c.clock++
	v := c.entries[key]
	if v == nil || v.layout != layout || len(v.gen) != numNodes {
		if v == nil && len(c.entries) >= max(16, staticCacheSlots/max(1, numNodes)) {
			c.evictOldest()
		}
		v = &staticVerdicts{layout: layout, gen: make([]int64, numNodes), status: make([]*framework.Status, numNodes)}
		c.entries[key] = v
	}
	v.used = c.clock
	return v
}

func (c *staticCache) evictOldest() {
	var oldest string
	var at uint64
	for k, v := range c.entries {
		if oldest == "" || v.used < at {
			oldest, at = k, v.used
		}
	}
	delete(c.entries, oldest)
}

// verdict brings one node's verdict up to date and returns it. Different nodes may be
// visited concurrently: each touches only its own slots.
func (v *staticVerdicts) verdict(ctx context.Context, fwk *fwkruntime.Framework, state *framework.CycleState, p *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	i := n.Index
	if v.gen[i] != n.StaticGeneration {
		st := fwk.RunStaticFilterPlugins(ctx, state, p, n)
		if st.Code() == framework.Error {
			return st // not cached: the next cycle tries again
		}
		v.status[i], v.gen[i] = st, n.StaticGeneration
	}
	return v.status[i]
}

// refresh brings every node's verdict up to date and rebuilds the eligible list, unless
// nothing static changed since the last time.
func (pf Profile) refresh(ctx context.Context, v *staticVerdicts, state *framework.CycleState, p *framework.PodInfo) error {
	now := framework.LastStaticGeneration()
	if v.complete && v.static == now {
		return nil
	}
	nodes := pf.f.opts.Snapshot.NodeInfos()
	errs := make([]*framework.Status, len(nodes))
	pf.f.opts.Parallelizer.Until(ctx, len(nodes), func(i int) {
		if st := v.verdict(ctx, pf.fwk, state, p, nodes[i]); st.Code() == framework.Error {
			errs[i] = st
		}
	})
	for _, st := range errs {
		if st != nil {
			v.complete = false
			return st.AsError()
		}
	}
	v.eligible = v.eligible[:0]
	for i := range nodes {
		if v.status[i] == nil {
			v.eligible = append(v.eligible, int32(i))
		}
	}
	v.static, v.complete = now, true
	return nil
}

// verdicts returns p's cached static verdicts (keyed by its StaticFilterKey, computed
// once), sized for the current node layout.
func (pf Profile) verdicts(state *framework.CycleState, p *framework.PodInfo) *staticVerdicts {
	snap := pf.f.opts.Snapshot
	if p.StaticFilterKey == "" {
		p.StaticFilterKey = pf.fwk.StaticFilterKey(state, p)
	}
	return pf.f.static.get(p.StaticFilterKey, snap.LayoutVersion(), len(snap.NodeInfos()))
}
