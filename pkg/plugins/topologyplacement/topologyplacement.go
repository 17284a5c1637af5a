// Package topologyplacement generates a pod group's candidate placements from its topology
// constraints (KEP-5732's TopologyPlacement plugin, with the nested and Preferred levels
// the KEP lists as future work): one placement per domain, that is per value of a level's
// node label inside its parent domain.
package topologyplacement

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "TopologyPlacement"

// DefaultPackingWeight is how strongly members prefer the nodes their group leaves fullest,
// against the profile's Score plugins (whose weights add up to 11 by default). At 5 it
// outweighs NodeResourcesFit's spreading and BalancedAllocation, not taints or affinity
// preferences.
const DefaultPackingWeight = 5

// Args are the plugin's arguments.
type Args struct {
	// PackingWeight weighs node packing inside a placement (default 5; 0 turns it off).
	PackingWeight *int64 `json:"packingWeight,omitempty"`
}

// TopologyPlacement is a PlacementGenerate plugin.
type TopologyPlacement struct {
	h     framework.Handle
	pack  int64
	trees map[string]*domainTree
}

// New builds the plugin.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	args := Args{}
	if err := framework.DecodeArgs(raw, &args); err != nil {
		return nil, err
	}
	pack := int64(DefaultPackingWeight)
	if args.PackingWeight != nil {
		if *args.PackingWeight < 0 || *args.PackingWeight > 100 {
			return nil, fmt.Errorf("packingWeight: Invalid value: %d: must be between 0 and 100", *args.PackingWeight)
		}
		pack = *args.PackingWeight
	}
	return &TopologyPlacement{h: h, pack: pack, trees: map[string]*domainTree{}}, nil
}

// Name implements framework.Plugin.
func (*TopologyPlacement) Name() string { return Name }

// GeneratePlacements returns the group's candidate placements: the domains of every level
// from the finest Required one down, each ranked by how many Preferred levels it gives up.
// A placement of a level with finer Preferred levels below carries their domains as
// children, to be filled one after the other when the group fits in none alone. Running
// members pin the group to their domains. Parents from an earlier generator are not
// supported: TopologyPlacement is the first.
func (pl *TopologyPlacement) GeneratePlacements(_ context.Context, _ *framework.CycleState, g *framework.GroupInfo, _ []*framework.PodInfo, parents []*framework.Placement) ([]*framework.Placement, *framework.Status) {
	levels, owners := pl.topologyOf(g)
	if len(levels) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	if parents != nil {
		return nil, framework.NewStatus(framework.Error, "TopologyPlacement must run before any other placement generator")
	}
	keys := make([]string, len(levels))
	lastRequired := -1
	for i, l := range levels {
		keys[i] = l.Key
		if l.Mode != v1alpha1.TopologyModePreferred {
			lastRequired = i
		}
	}
	t := pl.tree(keys)
	root := t.root

	// Running members pin the group: to their domain at each Required level (or nowhere,
	// if they are spread), and, at a Preferred level, to their domain if they share one. A
	// level inherited from a composite is pinned by the running members of the whole
	// composite, so that its groups share one domain.
	on := make([]map[*framework.NodeInfo]bool, len(levels))
	pinned := false
	for i := range levels {
		on[i] = pl.runningNodes(owners[i])
		pinned = pinned || len(on[i]) > 0
	}
	if !pinned {
		if out, ok := t.unpinned(lastRequired); ok {
			return out, nil
		}
	}
	// frontier holds the domains of the current depth that are still candidates.
	frontier := []*domain{root}
	for depth := 0; depth <= lastRequired; depth++ {
		if len(on[depth]) == 0 {
			frontier = childrenOf(frontier)
			continue
		}
		var kept []*domain
		for _, f := range frontier {
			if d := f.containing(on[depth]); d != nil {
				kept = append(kept, d)
			}
		}
		if len(kept) == 0 {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(
				"the running members of %s are not all in one domain of %s", owners[depth].what(), keys[depth]))
		}
		frontier = kept
	}
	if len(frontier) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf(
			"no node has the topology label %s", strings.Join(keys[:lastRequired+1], " and ")))
	}

	// Every domain from the finest Required level down is a candidate; its rank counts the
	// Preferred levels below it.
	var out []*framework.Placement
	var build func(d *domain, parent *framework.Placement) *framework.Placement
	build = func(d *domain, parent *framework.Placement) *framework.Placement {
		p := &framework.Placement{Name: d.name, Level: d.depth, Parent: parent, Nodes: d.nodes, Set: d.set,
			Rank: len(levels) - 1 - d.depth, PackWeight: pl.pack}
		if d.depth < len(levels)-1 {
			children := d.children
			if below := on[d.depth+1]; len(below) > 0 {
				// Only a domain holding every running member can meet the preference.
				children = nil
				if c := d.containing(below); c != nil {
					children = []*domain{c}
				}
			}
			for _, c := range children {
				p.Children = append(p.Children, build(c, p))
			}
		}
		out = append(out, p)
		return p
	}
	var parent *framework.Placement
	for _, d := range frontier {
		build(d, parent)
	}
	if !pinned {
		out = t.remember(lastRequired, out)
	}
	return out, nil
}

// levelOwner is the group a topology level comes from: the group itself, or a composite
// above it (a PodGroup or a composite, with the keys of the PodGroups whose running
// members pin the level).
type levelOwner struct {
	g      *framework.GroupInfo
	groups []string
}

func (o levelOwner) what() string {
	if o.g.IsComposite() {
		return "the composite pod group " + o.g.Key
	}
	return "the pod group"
}

// runningNodes are the nodes the owner's running members are on.
func (pl *TopologyPlacement) runningNodes(o levelOwner) map[*framework.NodeInfo]bool {
	snap := pl.h.Snapshot()
	on := map[*framework.NodeInfo]bool{}
	for _, key := range o.groups {
		for _, m := range snap.GroupMembers(key) {
			if n := snap.Get(m.NodeName); n != nil {
				on[n] = true
			}
		}
	}
	return on
}

func childrenOf(ds []*domain) []*domain {
	var out []*domain
	for _, d := range ds {
		out = append(out, d.children...)
	}
	return out
}

// tree returns the domain tree for keys, rebuilt only when nodes or their labels changed.
func (pl *TopologyPlacement) tree(keys []string) *domainTree {
	snap := pl.h.Snapshot()
	id := strings.Join(keys, "\x00")
	t := pl.trees[id]
	layout, static := snap.LayoutVersion(), framework.LastStaticGeneration()
	if t == nil || t.layout != layout || t.static != static {
		if len(pl.trees) > 64 {
			clear(pl.trees) // many distinct key lists: a rare, cheap reset
		}
		t = &domainTree{root: buildTree(snap.NodeInfos(), keys), layout: layout, static: static,
			placements: map[int][]*framework.Placement{}}
		pl.trees[id] = t
	}
	return t
}

// topologyOf returns a group's topology levels, coarse to fine, with their modes
// defaulted: those of the composites above it first (a composite holds all its groups in
// one domain of each of its levels), then its own, a key named twice kept once. Each level
// comes with the group it is from.
func (pl *TopologyPlacement) topologyOf(g *framework.GroupInfo) ([]v1alpha1.TopologyConstraint, []levelOwner) {
	chain := []*framework.GroupInfo{g}
	snap := pl.h.Snapshot()
	for c := snap.Composite(g.ParentKey()); c != nil && len(chain) < v1alpha1.MaxCompositeDepth; c = snap.Composite(c.ParentKey()) {
		chain = append(chain, c)
	}
	var levels []v1alpha1.TopologyConstraint
	var owners []levelOwner
	seen := map[string]bool{}
	for i := len(chain) - 1; i >= 0; i-- {
		o := levelOwner{g: chain[i]}
		if chain[i].IsComposite() {
			o.groups = snap.CompositeGroups(chain[i].Key)
		} else {
			o.groups = []string{chain[i].Key}
		}
		for _, l := range chain[i].Topology() {
			if seen[l.Key] {
				continue
			}
			seen[l.Key] = true
			levels = append(levels, l)
			owners = append(owners, o)
		}
	}
	return levels, owners
}

var _ framework.PlacementGeneratePlugin = (*TopologyPlacement)(nil)
