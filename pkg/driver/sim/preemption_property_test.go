package sim_test

import (
	"fmt"

	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// propertyClusters is how many generated clusters the property tests run: a short run in
// `make test`, more with PREEMPTION_PROPERTY_CLUSTERS (`make fuzz` sets 10,000).
func propertyClusters(t *testing.T, short int) int {
	return clustersFromEnv("PREEMPTION_PROPERTY_CLUSTERS", short)
}

// clustersFromEnv is the number in the variable when set, else short (a quarter of it
// with -short).
func clustersFromEnv(variable string, short int) int {
	if v, err := strconv.Atoi(os.Getenv(variable)); err == nil && v > 0 {
		return v
	}
	if testing.Short() {
		return short / 4
	}
	return short
}

// TestPreemptionMatchesBruteForce: on generated small clusters, the victims phalanx
// chooses (through the simulator, the real scheduler end to end) cost exactly what the
// least disruptive set found by trying every subset of victim units costs; when the
// preemptor fits without preemption nothing is preempted, and when no set makes it fit
// nothing is preempted either; a preemptor that preempted is running in the end, and no
// invariant is violated on the way (the cache is verified at every step).
func TestPreemptionMatchesBruteForce(t *testing.T) {
	n := propertyClusters(t, 600)
	mismatches := 0
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 2026))
		c := generateCluster(rng, genOptions{maxUnits: 14})
		manifests := c.yaml(nil, nil, false)
		r := simtest.Simulate(t, manifests, 1, nil)
		if msg := c.checkAgainstReference(r); msg != "" {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("cluster %d: %s\n%s", seed, msg, manifests)
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of %d clusters differ from the reference", mismatches, n)
	}
}

// checkAgainstReference says how a run differs from the brute-force answer ("" when it
// does not).
func (c *genCluster) checkAgainstReference(r *report.Report) string {
	want, possible := c.reference()
	victims := c.victimsOf(r)
	got := c.costOf(victims)
	running := 0
	for _, p := range r.Pods {
		if len(p.Name) > 4 && p.Name[:4] == "pre-" && p.Phase == "Running" {
			running++
		}
	}
	all := len(c.preemptor.members)
	switch {
	case !possible && len(victims) > 0:
		return fmt.Sprintf("preempted %v (cost %+v) although no set of victims lets the preemptor fit", c.names(victims), got)
	case !possible:
		return ""
	case want == refCost{} && len(victims) > 0:
		return fmt.Sprintf("preempted %v (cost %+v) although the preemptor fits without preemption", c.names(victims), got)
	case got != want:
		return fmt.Sprintf("victims %v cost %+v, the reference's least cost is %+v", c.names(victims), got, want)
	case running != all:
		return fmt.Sprintf("%d of %d preemptor members running in the end (victims %v)", running, all, c.names(victims))
	}
	return ""
}

func (c *genCluster) names(idx []int) []string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = c.pods[k].name
	}
	return out
}

// TestPodAndOneMemberGangDecideAlike: on generated clusters with a single-pod preemptor,
// the pod and the same pod as the only member of a gang preempt exactly the same victims
// (KEP-5710: the group algorithm is compatible with the pod-based one).
func TestPodAndOneMemberGangDecideAlike(t *testing.T) {
	n := propertyClusters(t, 400)
	checked := 0
	for seed := uint64(0); checked < n; seed++ {
		rng := rand.New(rand.NewPCG(seed, 77))
		c := generateCluster(rng, genOptions{maxUnits: 18})
		if c.preemptor.gang {
			continue
		}
		checked++
		simSeed := int64(seed%7) + 1
		asPod := c.victimsOf(simtest.Simulate(t, c.yaml(nil, nil, false), simSeed, nil))
		asGang := c.victimsOf(simtest.Simulate(t, c.yaml(nil, nil, true), simSeed, nil))
		if !slicesEqual(asPod, asGang) {
			t.Errorf("cluster %d: as a pod the preemptor preempts %v, as a one-member gang %v\n%s",
				seed, c.names(asPod), c.names(asGang), c.yaml(nil, nil, true))
		}
	}
}

// TestVictimCostIndependentOfOrder: listing the nodes and the gang's members in another
// order never changes how much the chosen victims cost, with the exact search and with
// greedy reprieval alone.
func TestVictimCostIndependentOfOrder(t *testing.T) {
	n := propertyClusters(t, 300)
	greedy := greedyOnly(t)
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 99))
		c := generateCluster(rng, genOptions{maxUnits: 18})
		var cfg *config.Configuration
		if seed%2 == 1 {
			cfg = greedy
		}
		base := c.costOf(c.victimsOf(simtest.Simulate(t, c.yaml(nil, nil, false), 1, cfg)))
		for k := range 2 {
			nodes := rng.Perm(len(c.nodes))
			members := rng.Perm(len(c.preemptor.members))
			manifests := c.yaml(nodes, members, false)
			got := c.costOf(c.victimsOf(simtest.Simulate(t, manifests, int64(k+2), cfg)))
			if got != base {
				t.Errorf("cluster %d, permutation %d: victims cost %+v, in the original order %+v\n%s", seed, k, got, base, manifests)
			}
		}
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
