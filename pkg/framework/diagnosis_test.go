package framework

import "testing"

func TestFitErrorMessage(t *testing.T) {
	diag := &Diagnosis{NodeToStatus: NewNodeToStatus()}
	diag.NodeToStatus.Set("a", NewStatus(Unschedulable, "Insufficient cpu"))
	diag.NodeToStatus.Set("b", NewStatus(Unschedulable, "Insufficient cpu", "Insufficient memory"))
	diag.NodeToStatus.Set("c", NewStatus(UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector"))
	diag.NodeToStatus.Absent = NewStatus(UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [X]")
	err := &FitError{NumAllNodes: 5, Diagnosis: diag, PostFilterMsg: "preemption: not eligible"}
	want := "0/5 nodes are available: 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, " +
		"2 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [X]. preemption: not eligible"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err.Error(), want)
	}
	pre := &FitError{NumAllNodes: 3, Diagnosis: &Diagnosis{NodeToStatus: NewNodeToStatus(), PreFilterMsg: "pod affinity terms conflict"}}
	if got := pre.Error(); got != "0/3 nodes are available: pod affinity terms conflict." {
		t.Errorf("prefilter rejection: %q", got)
	}
}
