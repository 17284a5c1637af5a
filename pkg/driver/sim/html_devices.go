package sim

import "strings"

// deviceSection is the HTML report's list of what pods got besides room: the devices
// allocated to their claims and the volumes bound to their claims, and every
// ResourceClaim with its devices and consumers.
type deviceSection struct {
	Pods   []devicePodRow
	Claims []ClaimReport
	Total  int
}

type devicePodRow struct {
	Namespace, Name, Phase, Node string
	Devices, Volumes             string
}

// maxDeviceRows bounds the rows of each table, as the other sections do.
const maxDeviceRows = 500

func devices(r *Report) deviceSection {
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
	return s
}
