package schedulerdiff

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"sigs.k8s.io/yaml"
)

// casesFromEnv is the number of generated cases per plugin: SCHEDULERDIFF_CASES, or def
// (a short run for `make test`; `make fuzz` runs 1,000,000).
func casesFromEnv(t *testing.T, def int) int {
	t.Helper()
	v := os.Getenv("SCHEDULERDIFF_CASES")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("SCHEDULERDIFF_CASES=%q: want a positive number of cases", v)
	}
	return n
}

// firstSeed is SCHEDULERDIFF_SEED (default 1): a failure names its seed, and
// SCHEDULERDIFF_SEED=<seed> SCHEDULERDIFF_CASES=1 replays it.
func firstSeed(t *testing.T) uint64 {
	t.Helper()
	v := os.Getenv("SCHEDULERDIFF_SEED")
	if v == "" {
		return 1
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("SCHEDULERDIFF_SEED=%q: want an unsigned number", v)
	}
	return n
}

// describe renders a case for a failure message.
func describe(c *Case) string {
	nodes := make([]map[string]any, len(c.Nodes))
	for i, n := range c.Nodes {
		nodes[i] = map[string]any{"name": n.Name, "labels": n.Labels, "spec": n.Spec, "allocatable": n.Status.Allocatable, "images": n.Status.Images}
	}
	all := map[string]any{"nodes": nodes, "pods": c.Pods, "pod": c.Pod}
	if len(c.Slices) > 0 || len(c.Claims) > 0 {
		all["resourceSlices"], all["resourceClaims"] = c.Slices, c.Claims
	}
	out, err := yaml.Marshal(all)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

// tally counts a plugin's cases.
type tally struct {
	cases, agreed, disagreed int
	skipped                  map[string]int
	// read counts the agreed cases where a listed difference read phalanx's verdicts.
	read map[string]int
}

func (t *tally) String() string {
	var skips []string
	total := 0
	for _, d := range Differences {
		if n := t.skipped[d.ID]; n > 0 {
			skips = append(skips, fmt.Sprintf("%s %d", d.ID, n))
			total += n
		}
	}
	s := fmt.Sprintf("cases %d, agreed %d, disagreed %d, skipped as listed differences %d", t.cases, t.agreed, t.disagreed, total)
	if len(skips) > 0 {
		s += " (" + strings.Join(skips, ", ") + ")"
	}
	var reads []string
	for _, d := range Differences {
		if n := t.read[d.ID]; n > 0 {
			reads = append(reads, fmt.Sprintf("%s %d", d.ID, n))
		}
	}
	if len(reads) > 0 {
		s += "; agreed once read through listed differences: " + strings.Join(reads, ", ")
	}
	return s
}

const maxReported = 3

// TestPluginsAgree runs each compared plugin of phalanx and of kube-scheduler on the same
// generated cases and compares PreFilter, Filter (code and reasons) and normalized Score
// (on the nodes a cycle would score), node by node. Cases that hit a difference listed in
// docs/kube-scheduler-differences.md are skipped and counted. Each case is generated once
// and every plugin compared on it.
func TestPluginsAgree(t *testing.T) {
	n := casesFromEnv(t, 2000)
	seed := firstSeed(t)
	ctx := t.Context()
	ph := NewPhalanx()
	var names []string
	for _, name := range ComparedPlugins {
		if ph.Has(name) {
			names = append(names, name)
		} else {
			t.Logf("%s: phalanx does not implement it yet; not compared", name)
		}
	}
	up, err := NewUpstream(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	tallies := map[string]*tally{}
	for _, name := range names {
		tallies[name] = &tally{skipped: map[string]int{}, read: map[string]int{}}
	}
	// devices counts, for DynamicResources, the cases whose pod to place has claims by
	// kube-scheduler's verdict, and those with devices.
	devices := map[string]int{}
	// inTree counts, for NodeVolumeLimits and VolumeBinding, kube-scheduler's verdicts on
	// the cases whose pod to place mounts in-tree volumes (intree.go).
	inTree := map[string]int{}
	for s := seed; s < seed+uint64(n); s++ {
		c := Generate(s)
		var feasible []string
		for i, name := range names {
			tl := tallies[name]
			tl.cases++
			if d := SkippedBy(name, c); d != "" {
				tl.skipped[d]++
				continue
			}
			if i == 0 || feasible == nil {
				feasible = up.Feasible(ctx, c)
			}
			want := up.Plugin(ctx, name, c, feasible)
			if name == "DynamicResources" {
				countDevices(devices, c, want)
			}
			if name == "NodeVolumeLimits" || name == "VolumeBinding" {
				countInTree(inTree, name, c, want)
			}
			got, err := ph.Plugin(ctx, name, c, feasible)
			if err != nil {
				t.Fatal(err)
			}
			read := readVerdicts(name, got.Filter)
			if diff := got.Diff(want); diff != "" {
				tl.disagreed++
				if tl.disagreed <= maxReported {
					t.Errorf("seed %d: %s disagrees:\n%s\ncase:\n%s", s, name, diff, describe(c))
				}
				continue
			}
			tl.agreed++
			if read != "" {
				tl.read[read]++
			}
		}
	}
	for _, name := range names {
		t.Logf("%s: %s", name, tallies[name])
		fmt.Printf("schedulerdiff %s: %s\n", name, tallies[name])
	}
	t.Logf("DynamicResources cases: %v", devices)
	fmt.Printf("schedulerdiff DynamicResources cases: %v\n", devices)
	t.Logf("in-tree volumes: %v", inTree)
	fmt.Printf("schedulerdiff in-tree volumes: %v\n", inTree)
}

// countDevices counts a case for the report of the DynamicResources comparison: whether
// it has slices and claims, and for a pod with claims what kube-scheduler's plugin says.
func countDevices(counts map[string]int, c *Case, r *PluginResult) {
	if len(c.Slices) > 0 {
		counts["with slices"]++
	}
	if len(c.Claims) > 0 {
		counts["with claims"]++
	}
	if _, ok := c.Pod.Spec.Containers[0].Resources.Requests[draGPU]; ok {
		counts["pod with an extended resource backed by devices"]++
	}
	if len(c.Rules) > 0 {
		counts["with DeviceTaintRules"]++
	}
	if slices.ContainsFunc(c.Slices, func(s *resourceapi.ResourceSlice) bool {
		return slices.ContainsFunc(s.Spec.Devices, func(d resourceapi.Device) bool { return len(d.BindingConditions) > 0 })
	}) {
		counts["with devices with binding conditions"]++
	}
	for _, cl := range c.Claims {
		if cl.Annotations[resourceapi.ExtendedResourceClaimAnnotation] == "true" {
			counts["pod with an earlier attempt's claim for extended resources"]++
		}
		if cl.Name == "incoming-bc" {
			counts["pod with a claim allocated on devices with binding conditions"]++
		}
	}
	if len(c.Pod.Spec.ResourceClaims) == 0 {
		return
	}
	counts["pod with claims"]++
	switch {
	case r.PreFilter.Code != "Success":
		counts["pod with claims: PreFilter rejects"]++
	case slices.ContainsFunc(slices.Collect(maps.Values(r.Filter)), func(v Verdict) bool { return v.Code == "Success" }):
		counts["pod with claims: some node passes Filter"]++
		if len(r.Score) > 0 && slices.ContainsFunc(slices.Collect(maps.Values(r.Score)), func(s int64) bool { return s > 0 }) {
			counts["pod with claims: scored above 0"]++
		}
	default:
		counts["pod with claims: Filter passes no node"]++
	}
}

// TestWholeCycleAgrees compares whole cycles: phalanx's default profile against
// kube-scheduler's compared plugins with their default weights, on the feasible nodes and
// the set of best-scoring nodes.
func TestWholeCycleAgrees(t *testing.T) {
	n := casesFromEnv(t, 2000)
	seed := firstSeed(t)
	ctx := t.Context()
	ph := NewPhalanx()
	names := bothHave(ph)
	up, err := NewUpstream(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	tl := &tally{skipped: map[string]int{}, read: map[string]int{}}
	// claims counts the compared cases whose pod to place has claims, by outcome.
	claims := map[string]int{}
	for s := seed; s < seed+uint64(n); s++ {
		c := Generate(s)
		tl.cases++
		if d := SkippedBy(CycleName, c); d != "" {
			tl.skipped[d]++
			continue
		}
		want := up.Cycle(ctx, c)
		got, err := ph.Cycle(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		read := readVerdicts(CycleName, got.Rejected)
		if len(c.Pod.Spec.ResourceClaims) > 0 {
			claims[cycleOutcome(want)]++
		}
		if diff := got.Diff(want); diff != "" {
			tl.disagreed++
			if tl.disagreed <= maxReported {
				t.Errorf("seed %d: the cycles disagree:\n%s\ncase:\n%s", s, diff, describe(c))
			}
			continue
		}
		tl.agreed++
		if read != "" {
			tl.read[read]++
		}
	}
	t.Logf("whole cycle: %s", tl)
	fmt.Printf("schedulerdiff whole cycle: %s\n", tl)
	t.Logf("whole cycle, pods with claims (kube-scheduler's outcome): %v", claims)
	fmt.Printf("schedulerdiff whole cycle, pods with claims (kube-scheduler's outcome): %v\n", claims)
}

// cycleOutcome names a cycle's outcome, for the counts of cases.
func cycleOutcome(r *CycleResult) string {
	switch {
	case r.PreFilter != "Success":
		return "rejected by PreFilter"
	case len(r.Feasible) == 0:
		return "fits nowhere"
	default:
		return "fits"
	}
}

// TestGenerateIsDeterministic: a seed names one case, so that a failure can be replayed.
func TestGenerateIsDeterministic(t *testing.T) {
	for s := range uint64(50) {
		if a, b := describe(Generate(s)), describe(Generate(s)); a != b {
			t.Fatalf("seed %d generated two different cases", s)
		}
	}
}

// TestPreemptionAgrees compares, for a pod that must preempt, phalanx's DefaultPreemption
// (pkg/preemption's pod evaluator) with kube-scheduler's (its Evaluator's dry run and
// candidate choice): the outcome, the chosen node (kube-scheduler's, or one its criteria
// cannot tell from it) and the victims there. Cases that hit a difference listed with the
// preemption scope are skipped and counted; cases where the pod fits somewhere, or PreFilter
// rejects it, are counted and agree when both schedulers say so.
func TestPreemptionAgrees(t *testing.T) {
	n := casesFromEnv(t, 2000)
	seed := firstSeed(t)
	ctx := t.Context()
	ph := NewPhalanx()
	names := bothHave(ph)
	up, err := NewUpstreamPreemption(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	tl := &tally{skipped: map[string]int{}, read: map[string]int{}}
	outcomes := map[string]int{}
	for s := seed; s < seed+uint64(n); s++ {
		c := GeneratePreemption(s)
		tl.cases++
		if d := SkippedBy(PreemptionName, c); d != "" {
			tl.skipped[d]++
			continue
		}
		want, err := up.Preempt(ctx, c)
		if err != nil {
			t.Fatalf("seed %d: kube-scheduler: %v", s, err)
		}
		got, err := ph.Preempt(ctx, c)
		if err != nil {
			t.Fatalf("seed %d: phalanx: %v", s, err)
		}
		if diff := got.Diff(want); diff != "" {
			tl.disagreed++
			if tl.disagreed <= maxReported {
				t.Errorf("seed %d: preemption disagrees:\n%s\ncase:\n%s", s, diff, describe(c))
			}
			continue
		}
		tl.agreed++
		outcomes[want.Outcome]++
		if want.BudgetsInPlay {
			outcomes[want.Outcome+", a budget in play"]++
		}
		if len(want.Victims[want.Node]) > 1 {
			outcomes[want.Outcome+", several victims"]++
		}
	}
	t.Logf("preemption: %s; agreed by outcome %v", tl, outcomes)
	fmt.Printf("schedulerdiff preemption: %s; agreed by outcome %v\n", tl, outcomes)
}

// bothHave is the compared plugins phalanx has (kube-scheduler has them all).
func bothHave(ph *Phalanx) []string {
	var names []string
	for _, name := range ComparedPlugins {
		if ph.Has(name) {
			names = append(names, name)
		}
	}
	return names
}
