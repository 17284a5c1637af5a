package schedulerdiff

import "github.com/phalanx-dev/phalanx/api/v1alpha1"

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
	// Applies says whether a case is concerned.
	Applies func(c *Case) bool
}

// Differences are the deliberate differences, in the order of the document's table: a case
// is credited to the first that concerns it, so the narrow preemption rows come before
// victim-order, which concerns most preemption cases.
var Differences = []Difference{
	{ID: "pod-groups", Scopes: []string{CycleName, PreemptionName}, Applies: inPodGroup},
	{ID: "leaving-pods", Scopes: []string{PreemptionName}, Applies: leavingPods},
	{ID: "best-effort-victims", Scopes: []string{PreemptionName}, Applies: bestEffortVictim},
	{ID: "cross-node-preemption", Scopes: []string{PreemptionName}, Applies: blockedByPods},
	{ID: "victim-order", Scopes: []string{PreemptionName}, Applies: severalVictimsOnANode},
	{ID: "pod-level-requests-score", Scopes: []string{"NodeResourcesFit", CycleName}, Applies: podLevelRequests},
	{ID: "internal-arguments", Scopes: []string{"NodeResourcesFit"}, Applies: never},
	{ID: "refused-pods", Scopes: []string{"InterPodAffinity"}, Applies: never},
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
			if s == scope && d.Applies(c) {
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
