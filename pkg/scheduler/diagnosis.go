package scheduler

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// ErrNoNodesAvailable is kube-scheduler's message when the cluster has no node at all.
const ErrNoNodesAvailable = "no nodes available to schedule pods"

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
		counted := countReasons(f.Diagnosis, reasons)
		if absent := f.Diagnosis.NodeToStatus.Absent; absent != nil && f.NumAllNodes > counted {
			for _, r := range absent.Reasons() {
				reasons[r] += f.NumAllNodes - counted
			}
		}
		if len(reasons) > 0 {
			msg += " " + histogram(reasons) + "."
		}
	}
	if f.PostFilterMsg != "" {
		msg += " " + f.PostFilterMsg
	}
	return msg
}

// histogram renders "N reason" items sorted as kube-scheduler sorts them.
func histogram(reasons map[string]int) string {
	items := make([]string, 0, len(reasons))
	for r, n := range reasons {
		items = append(items, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(items)
	return strings.Join(items, ", ")
}

// countReasons adds each recorded node's reasons to the histogram and returns how many
// nodes were recorded.
func countReasons(d *Diagnosis, reasons map[string]int) int {
	n := 0
	d.NodeToStatus.ForEach(func(_ string, st *framework.Status) {
		n++
		for _, r := range st.Reasons() {
			reasons[r]++
		}
	})
	return n
}

// reasons lists the distinct reasons in the diagnosis, sorted.
func (d *Diagnosis) reasons() []string {
	if d.PreFilterMsg != "" {
		return []string{d.PreFilterMsg}
	}
	set := map[string]int{}
	countReasons(d, set)
	if absent := d.NodeToStatus.Absent; absent != nil {
		for _, r := range absent.Reasons() {
			set[r]++
		}
	}
	return slices.Sorted(maps.Keys(set))
}
