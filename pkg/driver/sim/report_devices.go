package sim

import (
	"context"
	"slices"
	"sort"

	"k8s.io/dynamic-resource-allocation/cel"
)

// DeviceInfo is a device of a node's ResourceSlices and the DeviceClasses it belongs to,
// for the HTML report's device occupancy. Report.Devices is not part of -o json.
type DeviceInfo struct {
	// Key is "driver/pool/device", as pods' and claims' devices are named.
	Key  string
	Node string
	// Resources are the occupancy resources the device counts in: "devices of class C" for
	// each class whose selectors it matches, or "devices of driver D (no class)".
	Resources []string
}

// deviceClassResource names the occupancy resource of a device class.
func deviceClassResource(class string) string { return "devices of class " + class }

// noClassResource names the occupancy resource of a driver's devices no class selects.
func noClassResource(driver string) string { return "devices of driver " + driver + " (no class)" }

// deviceInventory lists the devices of the scenario's node-local ResourceSlices with the
// classes whose CEL selectors match them (a device may be in several classes; a selector
// that fails to evaluate does not match, as in the allocator).
func (s *Simulator) deviceInventory() []DeviceInfo {
	classes := s.sc.Resources.DeviceClasses
	compiled := cel.NewCache(100, cel.Features{})
	var out []DeviceInfo
	for _, sl := range s.sc.Resources.Slices {
		if sl.Spec.NodeName == nil || *sl.Spec.NodeName == "" {
			continue // devices not attached to one node have no place in a per-node view
		}
		for _, d := range sl.Spec.Devices {
			info := DeviceInfo{Key: sl.Spec.Driver + "/" + sl.Spec.Pool.Name + "/" + d.Name, Node: *sl.Spec.NodeName}
			dev := cel.Device{Driver: sl.Spec.Driver, Attributes: d.Attributes, Capacity: d.Capacity}
			for _, dc := range classes {
				matches := true
				for _, sel := range dc.Spec.Selectors {
					if sel.CEL == nil {
						continue
					}
					res := compiled.GetOrCompile(sel.CEL.Expression)
					ok, _, err := res.DeviceMatches(context.Background(), dev)
					if res.Error != nil || err != nil || !ok {
						matches = false
						break
					}
				}
				if matches {
					info.Resources = append(info.Resources, deviceClassResource(dc.Name))
				}
			}
			if len(info.Resources) == 0 {
				info.Resources = []string{noClassResource(sl.Spec.Driver)}
			}
			out = append(out, info)
		}
	}
	return out
}

// deviceLifetimes are the stretches each device was in use by bound pods (pods that
// share a claim share its devices: the stretches are merged), as lifetimes requesting one
// of each of the device's occupancy resources, for the occupancy charts.
func deviceLifetimes(devices []DeviceInfo, pods []Lifetime, podDevices map[string][]string) []Lifetime {
	info := map[string]DeviceInfo{}
	for _, d := range devices {
		info[d.Key] = d
	}
	busy := map[string][]span{}
	for _, l := range pods {
		for _, key := range podDevices[l.Pod] {
			if _, ok := info[key]; ok && l.End > l.Start {
				busy[key] = append(busy[key], span{from: l.Start, to: l.End})
			}
		}
	}
	var out []Lifetime
	for _, key := range sortedKeys(busy) {
		d := info[key]
		spans := busy[key]
		sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
		requests := map[string]int64{}
		for _, res := range d.Resources {
			requests[res] = 1
		}
		cur := spans[0]
		flush := func() {
			out = append(out, Lifetime{Device: key, Node: d.Node, Start: cur.from, End: cur.to, Requests: requests, Phase: PhaseRunning})
		}
		for _, sp := range spans[1:] {
			if sp.from <= cur.to {
				cur.to = max(cur.to, sp.to)
				continue
			}
			flush()
			cur = sp
		}
		flush()
	}
	return out
}

// deviceAllocatable adds each node's device count per occupancy resource to its
// allocatable.
func deviceAllocatable(nodes []NodeReport, devices []DeviceInfo) {
	byNode := map[string]int{}
	for i, n := range nodes {
		byNode[n.Name] = i
	}
	for _, d := range devices {
		i, ok := byNode[d.Node]
		if !ok {
			continue
		}
		for _, res := range d.Resources {
			nodes[i].Allocatable[res]++
		}
	}
}

// deviceResources lists the occupancy resources of devices, sorted.
func deviceResources(devices []DeviceInfo) []string {
	var out []string
	for _, d := range devices {
		for _, res := range d.Resources {
			if !slices.Contains(out, res) {
				out = append(out, res)
			}
		}
	}
	slices.Sort(out)
	return out
}
