package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// verifyResources: the pods recorded as using claims are pods in the cache, every claim's
// user count matches them, and the taken devices are exactly those of the claims that hold
// theirs.
func (c *Cache) verifyResources() error {
	d := c.dra
	users := map[string]int{}
	for pi, keys := range d.podClaims {
		if !c.nodes.has(pi) {
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
	return nil
}
