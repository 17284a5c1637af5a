package html

import (
	"fmt"
	"slices"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// deviceSection is the HTML report's list of what pods got besides room: the devices
// allocated to their claims and the volumes bound to their claims, and every
// ResourceClaim with its devices and consumers.
type deviceSection struct {
	Pods    []devicePodRow
	Claims  []report.Claim
	Total   int
	Classes []deviceClassRow
}

// deviceClassRow is a device class's devices at the end of the run: how many are
// allocated, how many are free, and how the free ones spread over nodes (fragmentation:
// 8 free devices on 8 nodes do not hold a pod that needs 8 on one).
type deviceClassRow struct {
	Resource           string
	Total, InUse, Free int
	Nodes              int
	ByFree             string
}

type devicePodRow struct {
	Namespace, Name, Phase, Node string
	Devices, Volumes             string
}

// maxDeviceRows bounds the rows of each table, as the other sections do.
const maxDeviceRows = 500

func devices(r *report.Report) deviceSection {
	var s deviceSection
	for _, p := range r.Pods {
		if len(p.Devices) == 0 && len(p.Volumes) == 0 {
			continue
		}
		s.Total++
		if len(s.Pods) < maxDeviceRows {
			s.Pods = append(s.Pods, devicePodRow{Namespace: p.Namespace, Name: p.Name, Phase: p.Phase, Node: p.Node,
				Devices: strings.Join(p.Devices, ", "), Volumes: strings.Join(p.Volumes, ", ")})
		}
	}
	s.Claims = r.Claims
	if len(s.Claims) > maxDeviceRows {
		s.Claims = s.Claims[:maxDeviceRows]
	}
	s.Classes = deviceClasses(r)
	return s
}

// deviceClasses counts, per occupancy resource of devices, the devices allocated to
// claims at the end and the nodes by how many free devices they have.
func deviceClasses(r *report.Report) []deviceClassRow {
	taken := map[string]bool{}
	for _, c := range r.Claims {
		for _, d := range c.Devices {
			taken[d] = true
		}
	}
	var out []deviceClassRow
	for _, res := range deviceResources(r.Devices) {
		row := deviceClassRow{Resource: res}
		free := map[string]int{}
		var nodes []string
		for _, d := range r.Devices {
			if !slices.Contains(d.Resources, res) {
				continue
			}
			row.Total++
			if !slices.Contains(nodes, d.Node) {
				nodes = append(nodes, d.Node)
			}
			if taken[d.Key] {
				row.InUse++
			} else {
				row.Free++
				free[d.Node]++
			}
		}
		row.Nodes = len(nodes)
		nodesWith := map[int]int{} // free devices -> nodes
		most := 0
		for _, n := range nodes {
			nodesWith[free[n]]++
			most = max(most, free[n])
		}
		var parts []string
		for k := most; k >= 0; k-- {
			if nodesWith[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d free: %d node%s", k, nodesWith[k], plural(nodesWith[k])))
			}
		}
		row.ByFree = strings.Join(parts, " · ")
		out = append(out, row)
	}
	return out
}

// deviceResources lists the occupancy resources of devices, sorted.
func deviceResources(devices []report.Device) []string {
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
