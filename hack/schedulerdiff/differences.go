package schedulerdiff

import (
	"slices"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// ComparedPlugins are the plugins compared, in kube-scheduler's default profile order.
// A plugin phalanx does not implement yet (ImageLocality and NodeDeclaredFeatures are
// being added) is reported and left out until phalanx's registry has it: then it is
// compared with no change here.
var ComparedPlugins = []string{
	"NodeUnschedulable",
	"NodeName",
	"TaintToleration",
	"NodeAffinity",
	"NodePorts",
	"NodeResourcesFit",
	"VolumeRestrictions",
	"NodeVolumeLimits",
	"VolumeBinding",
	"VolumeZone",
	"PodTopologySpread",
	"InterPodAffinity",
	"NodeResourcesBalancedAllocation",
	"ImageLocality",
	"NodeDeclaredFeatures",
	"DynamicResources",
}

// The scopes of differences besides plugins: the whole cycle, and a pod's preemption.
const (
	CycleName      = "cycle"
	PreemptionName = "preemption"
)

// Difference is one deliberate difference between phalanx and kube-scheduler, as listed in
// docs/kube-scheduler-differences.md (TestDifferencesAreListed holds this list and the
// document's table to each other): the cases it concerns are skipped, and counted.
type Difference struct {
	ID string
	// Scopes are the plugins (or CycleName) whose comparison it concerns.
	Scopes []string
	// Applies says whether a case is concerned: its comparisons of the scopes are skipped.
	Applies func(c *Case) bool
	// Reads is set instead of Applies for a difference in what a verdict says rather than
	// in where the pod goes: it gives kube-scheduler's verdict for phalanx's verdict v
	// (and true) when v is concerned. The comparisons of the scopes read phalanx's Filter
	// verdicts (a cycle's rejected nodes) through it instead of skipping cases, and count
	// the cases where it read one.
	Reads func(v Verdict) (Verdict, bool)
}

// Differences are the deliberate differences, in the order of the document's table: a case
// is credited to the first that concerns it, so the narrow preemption rows come before
// victim-order, which concerns most preemption cases.
var Differences = []Difference{
	{ID: "pod-groups", Scopes: []string{CycleName, PreemptionName}, Applies: inPodGroup},
	{ID: "leaving-pods", Scopes: []string{PreemptionName}, Applies: leavingPods},
	{ID: "best-effort-victims", Scopes: []string{PreemptionName}, Applies: bestEffortVictim},
	{ID: "cross-node-preemption", Scopes: []string{PreemptionName}, Applies: blockedByPods},
	{ID: "victim-devices", Scopes: []string{PreemptionName}, Applies: victimDevices},
	{ID: "shared-host-port", Scopes: []string{PreemptionName}, Applies: sharedHostPort},
	{ID: "shared-once-claim", Scopes: []string{PreemptionName}, Applies: sharedOnceClaim},
	{ID: "budget-order", Scopes: []string{PreemptionName}, Applies: budgetSplitsVictims},
	{ID: "victim-order", Scopes: []string{PreemptionName}, Applies: severalVictimsOnANode},
	{ID: "pod-level-requests-score", Scopes: []string{"NodeResourcesFit", CycleName}, Applies: podLevelRequests},
	{ID: "internal-arguments", Scopes: []string{"NodeResourcesFit"}, Applies: never},
	{ID: "refused-pods", Scopes: []string{"InterPodAffinity"}, Applies: never},
	{ID: "devices-preemptible", Scopes: []string{"DynamicResources", CycleName}, Reads: devicesUnresolvable},
	{ID: "outside-allocation-unstamped", Scopes: []string{"DynamicResources"}, Applies: never},
	{ID: "binding-wait-deallocates", Scopes: []string{"DynamicResources"}, Applies: never},
	{ID: "error-texts", Scopes: []string{"DynamicResources"}, Applies: never},
}

// devicesUnresolvable reads DynamicResources' verdict on a node where the pod's claims
// cannot be allocated: phalanx says Unschedulable (preemption may free the devices of its
// victims' claims there), kube-scheduler UnschedulableAndUnresolvable, with the same
// reason.
func devicesUnresolvable(v Verdict) (Verdict, bool) {
	if v.Code != "Unschedulable" || !slices.Equal(v.Reasons, []string{"cannot allocate all claims"}) {
		return v, false
	}
	return Verdict{Code: "UnschedulableAndUnresolvable", Reasons: v.Reasons}, true
}

// readVerdicts reads phalanx's verdicts of a scope through the listed differences that
// concern them, in place, and returns the ID of the first difference that read one ("" if
// none did).
func readVerdicts(scope string, verdicts map[string]Verdict) string {
	read := ""
	for _, d := range Differences {
		if d.Reads == nil || !slices.Contains(d.Scopes, scope) {
			continue
		}
		for n, v := range verdicts {
			if w, ok := d.Reads(v); ok {
				verdicts[n] = w
				if read == "" {
					read = d.ID
				}
			}
		}
	}
	return read
}

// never: a difference that concerns no generated case, only the upstream test cases that
// TableDifferences lists.
func never(*Case) bool { return false }

// podLevelRequests: the pod to place has pod-level requests (PodLevelResources).
func podLevelRequests(c *Case) bool {
	return c.Pod.Spec.Resources != nil && len(c.Pod.Spec.Resources.Requests) > 0
}

// inPodGroup: the pod to place belongs to a pod group, phalanx's or Kubernetes' own.
func inPodGroup(c *Case) bool {
	return c.Pod.Labels[v1alpha1.LabelPodGroup] != "" || c.Pod.Spec.SchedulingGroup != nil
}

// SkippedBy returns the ID of the listed difference that a case of a scope hits, or "".
func SkippedBy(scope string, c *Case) string {
	for _, d := range Differences {
		for _, s := range d.Scopes {
			if s == scope && d.Applies != nil && d.Applies(c) {
				return d.ID
			}
		}
	}
	return ""
}

// TableDifferences are the cases of kube-scheduler's own test tables (TestUpstreamTables)
// where phalanx differs on purpose: the case's id (upstream file, test function and case
// name) and the ID of the listed difference (Differences) that explains it.
var TableDifferences = map[string]string{
	"noderesources/least_allocated_test.go TestLeastAllocatedScoringStrategy Resources not set, pods scheduled with error":                        "internal-arguments",
	"noderesources/least_allocated_test.go TestLeastAllocatedScoringStrategy resource with zero weight":                                           "internal-arguments",
	"noderesources/most_allocated_test.go TestMostAllocatedScoringStrategy Resources not set, pods scheduled with error":                          "internal-arguments",
	"noderesources/most_allocated_test.go TestMostAllocatedScoringStrategy resource with zero weight":                                             "internal-arguments",
	"interpodaffinity/filtering_test.go TestRequiredAffinitySingleNode PodAffinity fails PreFilter with an invalid affinity label syntax":         "refused-pods",
	"interpodaffinity/filtering_test.go TestRequiredAffinitySingleNode PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax": "refused-pods",
}

// StepDifferences are the cases of DynamicResources' TestPlugin whose PreBind, PostFilter
// or Unreserve phalanx does differently on purpose (TestUpstreamTablesDRASteps): the
// case's id and the ID of the listed difference that explains it. A case listed must
// differ as stated and agree once read through the difference.
var StepDifferences = map[string]string{
	"dynamicresources/dynamicresources_test.go TestPlugin allocated-skip-node-operations-with-feature":                "outside-allocation-unstamped",
	"dynamicresources/dynamicresources_test.go TestPlugin bind-failure":                                               "outside-allocation-unstamped",
	"dynamicresources/dynamicresources_test.go TestPlugin bound-claim-without-binding-conditions":                     "outside-allocation-unstamped",
	"dynamicresources/dynamicresources_test.go TestPlugin claim-reference":                                            "outside-allocation-unstamped",
	"dynamicresources/dynamicresources_test.go TestPlugin claim-template":                                             "outside-allocation-unstamped",
	"dynamicresources/dynamicresources_test.go TestPlugin good-topology":                                              "outside-allocation-unstamped",
	"dynamicresources/dynamicresources_test.go TestPlugin podgroup-claim-reference-feature-disabled-reserves-for-pod": "outside-allocation-unstamped",
	"dynamicresources/dynamicresources_test.go TestPlugin bind-claim-with-binding-conditions":                         "binding-wait-deallocates",
	"dynamicresources/dynamicresources_test.go TestPlugin bind-failure-concurrent-deallocation":                       "binding-wait-deallocates",
	"dynamicresources/dynamicresources_test.go TestPlugin prebind-fail-with-binding-timeout":                          "binding-wait-deallocates",
	"dynamicresources/dynamicresources_test.go TestPlugin add-allocation-timestamp-failure":                           "error-texts",
}
