package framework

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// Diagnosis says why a pod fits nowhere.
type Diagnosis struct {
	NodeToStatus *NodeToStatus
	// UnschedulablePlugins rejected the pod somewhere; only events they registered retry it.
	UnschedulablePlugins sets.Set[string]
	// PreFilterMsg is set when PreFilter rejected the pod outright.
	PreFilterMsg string
	// NumNodes is the number of nodes considered.
	NumNodes int
}

// NewDiagnosis returns an empty diagnosis of numNodes nodes.
func NewDiagnosis(numNodes int) *Diagnosis {
	return &Diagnosis{NodeToStatus: NewNodeToStatus(), UnschedulablePlugins: sets.New[string](), NumNodes: numNodes}
}

// Reasons lists the distinct reasons in the diagnosis, sorted.
func (d *Diagnosis) Reasons() []string {
	if d.PreFilterMsg != "" {
		return []string{d.PreFilterMsg}
	}
	set := map[string]int{}
	d.countReasons(set)
	if absent := d.NodeToStatus.Absent; absent != nil {
		for _, r := range absent.Reasons() {
			set[r]++
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// countReasons adds each recorded node's reasons to the histogram and returns how many
// nodes were recorded.
func (d *Diagnosis) countReasons(reasons map[string]int) int {
	n := 0
	d.NodeToStatus.ForEach(func(_ string, st *Status) {
		n++
		for _, r := range st.Reasons() {
			reasons[r]++
		}
	})
	return n
}

// FitError is the kube-scheduler style explanation of why a pod fits nowhere:
// "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't match Pod's node
// affinity/selector."
type FitError struct {
	NumAllNodes int
	Diagnosis   *Diagnosis
	// PostFilterMsg is what preemption (or another PostFilter) found, appended as
	// kube-scheduler does.
	PostFilterMsg string
}

func (f *FitError) Error() string {
	msg := fmt.Sprintf("0/%d nodes are available:", f.NumAllNodes)
	if f.Diagnosis.PreFilterMsg != "" {
		// A PreFilter rejection applies to every node alike; it is said once.
		msg += " " + f.Diagnosis.PreFilterMsg + "."
	} else {
		reasons := map[string]int{}
		counted := f.Diagnosis.countReasons(reasons)
		if absent := f.Diagnosis.NodeToStatus.Absent; absent != nil && f.NumAllNodes > counted {
			for _, r := range absent.Reasons() {
				reasons[r] += f.NumAllNodes - counted
			}
		}
		if len(reasons) > 0 {
			msg += " " + Histogram(reasons) + "."
		}
	}
	if f.PostFilterMsg != "" {
		msg += " " + f.PostFilterMsg
	}
	return msg
}

// Histogram renders "N reason" items sorted as kube-scheduler sorts them.
func Histogram(reasons map[string]int) string {
	items := make([]string, 0, len(reasons))
	for r, n := range reasons {
		items = append(items, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(items)
	return strings.Join(items, ", ")
}
