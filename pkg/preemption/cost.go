package preemption

import (
	"cmp"
	"math"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Cost is how much a set of victims disrupts. Every decision of the engine, for a pod or a
// group, for a node, a domain or a placement, is compared by it, in this order (the
// preemption design's and kube-scheduler's criteria):
//
//  1. fewest victims whose eviction violates a PodDisruptionBudget;
//  2. lowest highest victim priority;
//  3. lowest sum of victim priorities, each shifted by 2^31 so that it is positive:
//     with ordinary priorities this counts victims first, then their priorities;
//  4. fewest victims;
//  5. the least important most important victim, by the preemption design's importance
//     past priority: a single pod before a whole group (KEP-5710), then the lower QoS
//     class, then the later start (less work lost; kube-scheduler's last criterion).
//
// A victim's priority is its group's when it belongs to one (KEP-5710).
type Cost struct {
	Violations int
	Highest    int32
	Sum        int64
	Count      int
	// The most important victim of the highest priority: whether it is a whole group,
	// its QoS rank, and when it started.
	TopGroup bool
	TopQOS   int
	TopStart time.Time
}

// NoCost is the cost of preempting nothing.
var NoCost = Cost{Highest: math.MinInt32}

// Compare orders costs: negative when c disrupts less than o.
func (c Cost) Compare(o Cost) int {
	if r := cmp.Compare(c.Violations, o.Violations); r != 0 {
		return r
	}
	if r := cmp.Compare(c.Highest, o.Highest); r != 0 {
		return r
	}
	if r := cmp.Compare(c.Sum, o.Sum); r != 0 {
		return r
	}
	if r := cmp.Compare(c.Count, o.Count); r != 0 {
		return r
	}
	if c.TopGroup != o.TopGroup {
		if c.TopGroup {
			return 1
		}
		return -1
	}
	if r := cmp.Compare(c.TopQOS, o.TopQOS); r != 0 {
		return r
	}
	return -c.TopStart.Compare(o.TopStart)
}

// WithLeastTop is c with the least important top victim there can be (a single pod,
// below every QoS class, started last): how a lower bound, which knows at most the top
// victim's priority, leaves the rest of the order to the sets it bounds.
func (c Cost) WithLeastTop() Cost {
	c.TopGroup, c.TopQOS, c.TopStart = false, -1, latest
	return c
}

// latest stands for "no earlier start is known" in a bound: a later start is cheaper.
var latest = time.Unix(1<<62, 0)

// Shifted is a priority made positive for summing (kube-scheduler does the same).
func Shifted(p int32) int64 { return int64(p) + math.MaxInt32 + 1 }

// CostOfUnits is the cost of preempting these units (most important first, as SortUnits
// orders them): every pod of each unit is a victim, with the unit's priority.
func CostOfUnits(us []*Unit, pdbs []*framework.PDBInfo) Cost {
	c := NoCost
	for _, u := range us {
		c.add(u)
	}
	if len(pdbs) > 0 {
		c.Violations = unitViolations(us, pdbs)
	}
	return c
}

// add accounts one more unit (less important than those before it).
func (c *Cost) add(u *Unit) {
	n := len(u.Pods)
	c.Count += n
	c.Sum += int64(n) * Shifted(u.Priority)
	top := Unit{Priority: c.Highest, Group: c.TopGroup, QOS: c.TopQOS, Start: c.TopStart}
	if c.Count == n || moreImportantUnit(u, &top) {
		c.Highest, c.TopGroup, c.TopQOS, c.TopStart = u.Priority, u.Group, u.QOS, u.Start
	}
}

// unitViolations counts the pods of the units whose eviction violates a budget, spending
// each budget's allowed disruptions on the units in the order given.
func unitViolations(us []*Unit, pdbs []*framework.PDBInfo) int {
	var pods []*framework.PodInfo
	for _, u := range us {
		pods = append(pods, u.Pods...)
	}
	bad, _ := splitByPDB(pods, pdbs)
	return len(bad)
}
