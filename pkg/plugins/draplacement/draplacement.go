// Package draplacement makes a pod group's placements from devices that belong together
// (KEP-5732's DRA placements, "Story 2: Workload using Interconnected DRA Devices"): for a
// group with spec.schedulingConstraints.deviceTopology, one placement per set of devices
// that share a device attribute (an NVLink clique, a rack, as the ResourceSlices name it),
// or per resource pool. A placement holds the nodes that can use its devices, and while it
// is evaluated the devices of the same kind outside it count as taken, so every claim of
// every member is allocated inside it: the gang's devices are interconnected. Placements
// nest inside those of label-based topology levels when the group has both.
package draplacement

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Name is the plugin's name.
const Name = "DRAPlacement"

// DRAPlacement is a PlacementGenerate and PlacementState plugin.
type DRAPlacement struct {
	h framework.Handle
	// cache holds the domains of the last attribute asked for, rebuilt when the DRA state
	// or the nodes change.
	cache *domains
}

var (
	_ framework.PlacementGeneratePlugin = (*DRAPlacement)(nil)
	_ framework.PlacementStatePlugin    = (*DRAPlacement)(nil)
	_ framework.EnqueueExtensions       = (*DRAPlacement)(nil)
)

// New builds the plugin; it takes no arguments.
func New(raw json.RawMessage, h framework.Handle) (framework.Plugin, error) {
	if err := framework.DecodeArgs(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return &DRAPlacement{h: h}, nil
}

// Name implements framework.Plugin.
func (*DRAPlacement) Name() string { return Name }

// domain is one set of devices that belong together.
type domain struct {
	name    string
	devices sets.Set[framework.DeviceID]
	// nodes are the nodes that can use its devices (all nodes for devices that are not
	// node-local), in snapshot order.
	nodes []*framework.NodeInfo
	// excluded are the devices of the same kind, on the domain's nodes, outside it.
	excluded map[string]sets.Set[framework.DeviceID]
	onNodes  sets.Set[string]
}

// domains are the domains of one grouping, with the state they were built from.
type domains struct {
	key        string
	generation uint64
	layout     uint64
	list       []*domain
}

// GeneratePlacements returns one placement per device domain, inside each parent
// placement when an earlier generator (TopologyPlacement) made some.
func (pl *DRAPlacement) GeneratePlacements(_ context.Context, _ *framework.CycleState, g *framework.GroupInfo, _ []*framework.PodInfo, parents []*framework.Placement) ([]*framework.Placement, *framework.Status) {
	if g.PodGroup == nil {
		return nil, framework.NewStatus(framework.Skip) // a composite names no devices
	}
	c := g.PodGroup.Spec.SchedulingConstraints
	if c == nil || c.DeviceTopology == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	ds := pl.domainsFor(c.DeviceTopology)
	if len(ds) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "no devices have "+describe(c.DeviceTopology))
	}
	if parents == nil {
		parents = []*framework.Placement{nil}
	}
	var out []*framework.Placement
	for _, parent := range parents {
		for _, d := range ds {
			p := &framework.Placement{Name: d.name, Level: -1, Parent: parent, Nodes: d.nodes,
				Devices: &framework.DeviceDomain{Name: d.name, Excluded: d.excluded}}
			if parent != nil {
				p.Name = parent.Name + ", " + d.name
				p.Level, p.Rank, p.PackWeight = parent.Level, parent.Rank, parent.PackWeight
				p.Nodes = intersect(parent.Nodes, d.nodes)
				if parent.Devices != nil {
					continue // one device topology per group
				}
			}
			if len(p.Nodes) > 0 {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "no node of the group's topology domains has devices with "+describe(c.DeviceTopology))
	}
	return out, nil
}

// AssumePlacement restricts the snapshot's devices to the placement's domain.
func (pl *DRAPlacement) AssumePlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, p *framework.Placement) *framework.Status {
	if p.Devices != nil {
		pl.h.Snapshot().DRA().SetDomain(p.Devices)
	}
	return nil
}

// RevertPlacement lifts the restriction.
func (pl *DRAPlacement) RevertPlacement(_ context.Context, _ *framework.CycleState, _ *framework.GroupInfo, p *framework.Placement) {
	if p.Devices != nil {
		pl.h.Snapshot().DRA().SetDomain(nil)
	}
}

// EventsToRegister: devices published or freed, nodes added.
func (*DRAPlacement) EventsToRegister() []framework.ClusterEvent {
	return []framework.ClusterEvent{
		{Resource: framework.ResourceSlice, Action: framework.Add | framework.Update},
		{Resource: framework.ResourceClaim, Action: framework.Update | framework.Delete},
		{Resource: framework.Node, Action: framework.Add},
	}
}

func describe(t *v1alpha1.DeviceTopologyConstraint) string {
	if t.MatchAttribute == "" {
		return "a resource pool"
	}
	return "the attribute " + t.MatchAttribute
}

// domainsFor groups the devices of every slice by the constraint: by the attribute's value
// (devices without it are outside every domain and not restricted), or by driver and pool.
func (pl *DRAPlacement) domainsFor(t *v1alpha1.DeviceTopologyConstraint) []*domain {
	snap := pl.h.Snapshot()
	dra := snap.DRA()
	key := "pool"
	if t.MatchAttribute != "" {
		key = "attr:" + t.MatchAttribute
	}
	if c := pl.cache; c != nil && c.key == key && c.generation == dra.SlicesVersion() && c.layout == snap.LayoutVersion() {
		return c.list
	}
	byName := map[string]*domain{}
	// members are the devices of the grouping's kind on each node ("" for slices that are
	// not node-local), with their domain, so that a domain excludes the others' devices
	// on its nodes.
	type member struct {
		id     framework.DeviceID
		domain *domain
	}
	byNode := map[string][]member{}
	for _, s := range dra.Slices() {
		node := ""
		if s.Spec.NodeName != nil {
			node = *s.Spec.NodeName
		}
		for i := range s.Spec.Devices {
			dev := &s.Spec.Devices[i]
			name, ok := domainOf(t, s, dev)
			if !ok {
				continue
			}
			d := byName[name]
			if d == nil {
				d = &domain{name: name, devices: sets.New[framework.DeviceID](), excluded: map[string]sets.Set[framework.DeviceID]{}, onNodes: sets.New[string]()}
				byName[name] = d
			}
			id := structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, dev.Name)
			d.devices.Insert(id)
			d.onNodes.Insert(node)
			byNode[node] = append(byNode[node], member{id, d})
		}
	}
	list := make([]*domain, 0, len(byName))
	for _, name := range slices.Sorted(mapKeys(byName)) {
		d := byName[name]
		everywhere := d.onNodes.Has("")
		for _, n := range snap.NodeInfos() {
			if everywhere || d.onNodes.Has(n.Name) {
				d.nodes = append(d.nodes, n)
			}
		}
		exclude := func(node string) {
			for _, m := range byNode[node] {
				if m.domain != d {
					if d.excluded[node] == nil {
						d.excluded[node] = sets.New[framework.DeviceID]()
					}
					d.excluded[node].Insert(m.id)
				}
			}
		}
		exclude("")
		if everywhere {
			for node := range byNode {
				if node != "" {
					exclude(node)
				}
			}
		} else {
			for node := range d.onNodes {
				exclude(node)
			}
		}
		list = append(list, d)
	}
	pl.cache = &domains{key: key, generation: dra.SlicesVersion(), layout: snap.LayoutVersion(), list: list}
	return list
}

// domainOf names the domain of a device: "<attribute>=<value>" or "pool <driver>/<pool>".
func domainOf(t *v1alpha1.DeviceTopologyConstraint, s *resourceapi.ResourceSlice, dev *resourceapi.Device) (string, bool) {
	if t.MatchAttribute == "" {
		return "pool " + s.Spec.Driver + "/" + s.Spec.Pool.Name, true
	}
	v, ok := attribute(dev, s.Spec.Driver, t.MatchAttribute)
	if !ok {
		return "", false
	}
	return t.MatchAttribute + "=" + v, true
}

// attribute finds a fully qualified attribute on a device: its own key, or, for an
// unqualified key, the driver's domain (as the allocator's matchAttribute does).
func attribute(dev *resourceapi.Device, driver, qualified string) (string, bool) {
	domainPart, name, _ := strings.Cut(qualified, "/")
	a, ok := dev.Attributes[resourceapi.QualifiedName(qualified)]
	if !ok && domainPart == driver {
		a, ok = dev.Attributes[resourceapi.QualifiedName(name)]
	}
	if !ok {
		return "", false
	}
	switch {
	case a.StringValue != nil:
		return *a.StringValue, true
	case a.IntValue != nil:
		return fmt.Sprint(*a.IntValue), true
	case a.BoolValue != nil:
		return fmt.Sprint(*a.BoolValue), true
	case a.VersionValue != nil:
		return *a.VersionValue, true
	}
	return "", false
}

// intersect keeps the nodes of a that are in b, in a's order.
func intersect(a, b []*framework.NodeInfo) []*framework.NodeInfo {
	in := make(map[*framework.NodeInfo]bool, len(b))
	for _, n := range b {
		in[n] = true
	}
	var out []*framework.NodeInfo
	for _, n := range a {
		if in[n] {
			out = append(out, n)
		}
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
