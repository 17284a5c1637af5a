package schedulerdiff

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
	"PodTopologySpread",
	"InterPodAffinity",
	"NodeResourcesBalancedAllocation",
	"ImageLocality",
	"NodeDeclaredFeatures",
}

// CycleName is the scope of differences that concern the whole cycle.
const CycleName = "cycle"

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

// Differences are the deliberate differences the generated cases can reach.
var Differences = []Difference{}

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
