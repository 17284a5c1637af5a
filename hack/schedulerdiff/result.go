package schedulerdiff

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Verdict is what one status says: its code by name (both frameworks name their codes
// alike) and its reasons.
type Verdict struct {
	Code    string
	Reasons []string
}

func (v Verdict) String() string {
	if len(v.Reasons) == 0 {
		return v.Code
	}
	return v.Code + ": " + strings.Join(v.Reasons, "; ")
}

// PluginResult is what one scheduler's plugin says about a case: its PreFilter verdict and
// the nodes it narrows to, its Filter verdict on every node, its normalized score on every
// node. Extension points the plugin does not implement are left empty.
type PluginResult struct {
	PreFilter *Verdict
	// PreFilterNodes are the nodes PreFilter narrowed to, sorted; nil when it did not narrow.
	PreFilterNodes []string
	// Filter is each node's verdict; nil when Filter did not run (PreFilter rejected or
	// skipped, or the plugin has no Filter).
	Filter map[string]Verdict
	// Score is each node's normalized score (zero everywhere when PreScore skipped); nil
	// when the plugin does not score. ScoreError is set when scoring failed.
	Score      map[string]int64
	ScoreError string
}

// Diff describes how two results differ, one line per difference, "" when they agree.
// Reasons are compared only for filter verdicts (as the issue asks); PreFilter is compared
// by code and narrowed nodes.
func (a *PluginResult) Diff(b *PluginResult) string {
	var out []string
	code := func(v *Verdict) string {
		if v == nil {
			return "<none>"
		}
		return v.Code
	}
	if code(a.PreFilter) != code(b.PreFilter) {
		out = append(out, fmt.Sprintf("PreFilter: phalanx %v, kube-scheduler %v", a.PreFilter, b.PreFilter))
	}
	if !slices.Equal(a.PreFilterNodes, b.PreFilterNodes) {
		out = append(out, fmt.Sprintf("PreFilter nodes: phalanx %v, kube-scheduler %v", a.PreFilterNodes, b.PreFilterNodes))
	}
	if (a.Filter == nil) != (b.Filter == nil) {
		out = append(out, fmt.Sprintf("Filter ran: phalanx %v, kube-scheduler %v", a.Filter != nil, b.Filter != nil))
	} else {
		for _, n := range slices.Sorted(maps.Keys(b.Filter)) {
			va, vb := a.Filter[n], b.Filter[n]
			if va.Code != vb.Code || !slices.Equal(va.Reasons, vb.Reasons) {
				out = append(out, fmt.Sprintf("Filter %s: phalanx %v, kube-scheduler %v", n, va, vb))
			}
		}
	}
	if a.ScoreError != b.ScoreError {
		out = append(out, fmt.Sprintf("Score error: phalanx %q, kube-scheduler %q", a.ScoreError, b.ScoreError))
	}
	if (a.Score == nil) != (b.Score == nil) {
		out = append(out, fmt.Sprintf("Scored: phalanx %v, kube-scheduler %v", a.Score != nil, b.Score != nil))
	} else {
		for _, n := range slices.Sorted(maps.Keys(b.Score)) {
			if a.Score[n] != b.Score[n] {
				out = append(out, fmt.Sprintf("Score %s: phalanx %d, kube-scheduler %d", n, a.Score[n], b.Score[n]))
			}
		}
	}
	return strings.Join(out, "\n")
}

// CycleResult is a whole cycle's outcome: whether PreFilter rejected the pod, the feasible
// nodes, and the nodes with the best total score.
type CycleResult struct {
	PreFilter string
	// Rejected is the status of each node a filter rejected: the first rejecting plugin's
	// code and reasons, what the pod's FailedScheduling message is made of.
	Rejected map[string]Verdict
	Feasible []string
	Best     []string
	Totals   map[string]int64
}

// Diff says how two cycles differ ("" when they agree on the feasible and the best nodes).
func (a *CycleResult) Diff(b *CycleResult) string {
	var out []string
	if a.PreFilter != b.PreFilter {
		out = append(out, fmt.Sprintf("PreFilter: phalanx %s, kube-scheduler %s", a.PreFilter, b.PreFilter))
	}
	if !slices.Equal(a.Feasible, b.Feasible) {
		out = append(out, fmt.Sprintf("feasible: phalanx %v, kube-scheduler %v", a.Feasible, b.Feasible))
	}
	for _, n := range slices.Sorted(maps.Keys(b.Rejected)) {
		va, vb := a.Rejected[n], b.Rejected[n]
		if va.Code != vb.Code || !slices.Equal(va.Reasons, vb.Reasons) {
			out = append(out, fmt.Sprintf("rejected %s: phalanx %v, kube-scheduler %v", n, va, vb))
		}
	}
	if !slices.Equal(a.Best, b.Best) {
		out = append(out, fmt.Sprintf("best: phalanx %v (totals %v), kube-scheduler %v (totals %v)", a.Best, a.Totals, b.Best, b.Totals))
	}
	return strings.Join(out, "\n")
}

// best returns the nodes with the highest total, sorted.
func best(totals map[string]int64) []string {
	var out []string
	var top int64
	for n, s := range totals {
		switch {
		case len(out) == 0 || s > top:
			out, top = []string{n}, s
		case s == top:
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// preFilterVerdict is the verdict of a PreFilter as a cycle sees it: Skip means that the
// plugin's Filter passes every node, which a plugin without a PreFilter (or whose PreFilter
// succeeds and whose Filter passes) also says; so Skip is compared as Success, and the
// skipped plugin's Filter as Success on every node (README of docs/kube-scheduler-differences.md:
// "how cases are compared").
func preFilterVerdict(v Verdict) (*Verdict, bool) {
	if v.Code == "Skip" {
		return &Verdict{Code: "Success"}, true
	}
	return &v, false
}
