package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// verifyResources: the pods recorded as using claims and volumes are pods in the cache,
// every claim's and volume claim's user count matches them, the taken devices are exactly
// those of the claims that hold theirs, and volume assumptions pair up.
func (c *Cache) verifyResources() error {
	d, v := c.dra, c.vols
	users := map[string]int{}
	for pi, keys := range d.podClaims {
		if _, ok := c.nodes.entries[pi]; !ok {
			return fmt.Errorf("pod %s uses claims but is not in the cache", pi.Key)
		}
		for _, k := range keys {
			users[k]++
		}
	}
	for k, ci := range d.claims {
		if ci.Users != users[k] {
			return fmt.Errorf("claim %s counts %d users, %d pods use it", k, ci.Users, users[k])
		}
		if ci.Claim == nil && ci.Users == 0 {
			return fmt.Errorf("claim %s kept without object or users", k)
		}
		if ci.Freed && (ci.Users > 0 || !c.simulating()) {
			return fmt.Errorf("claim %s freed with %d users, simulating %v", k, ci.Users, c.simulating())
		}
	}
	want := map[framework.DeviceID]int{}
	for _, ci := range d.claims {
		if ci.Claim != nil && ci.Holds() {
			for _, id := range framework.AllocatedDevices(ci.Allocation()) {
				want[id]++
			}
		}
	}
	if len(want) != len(d.holds) || !sets.KeySet(want).Equal(d.allocated) {
		return fmt.Errorf("%d devices taken, %d held by claims", d.allocated.Len(), len(want))
	}
	for id, n := range want {
		if d.holds[id] != n {
			return fmt.Errorf("device %s held %d times, counted %d", id, d.holds[id], n)
		}
	}
	pvcUsers := map[string]int{}
	for pi, keys := range v.podPVCs {
		if _, ok := c.nodes.entries[pi]; !ok {
			return fmt.Errorf("pod %s uses volumes but is not in the cache", pi.Key)
		}
		for _, k := range keys {
			pvcUsers[k]++
		}
	}
	if len(pvcUsers) != len(v.users) {
		return fmt.Errorf("%d claims counted as used, %d used", len(v.users), len(pvcUsers))
	}
	for k, n := range pvcUsers {
		if v.users[k] != n {
			return fmt.Errorf("volume claim %s counts %d users, %d pods use it", k, v.users[k], n)
		}
	}
	for pv, pvc := range v.claimOf {
		if v.volumeOf[pvc] != pv {
			return fmt.Errorf("volume %s assumed for %s, which is assumed to get %q", pv, pvc, v.volumeOf[pvc])
		}
	}
	if len(v.claimOf) != len(v.volumeOf) {
		return fmt.Errorf("%d volumes and %d claims assumed", len(v.claimOf), len(v.volumeOf))
	}
	return nil
}
