// Package dynamicresources holds TestPlugin's table of kube-scheduler v1.37.2's
// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, copied
// verbatim (table.go) with the fixtures, helpers and types it uses, as tables.Case: each
// case's DeviceClasses, ResourceSlices and ResourceClaims (the objects upstream's setup
// creates in its fake API server, the claims with the UIDs its reactor would give them)
// are its DRA objects, its existing pods the bound pods. Compared are the PreFilter status
// and each node's Filter status upstream states (by message, as its test checks them),
// and, where it states them, the allocations its Reserve makes pending on the node its
// loop selects (TestUpstreamTablesDRAReserve). PreBind, PostFilter and Unreserve, which
// upstream's test follows through its API server's reactors, run through phalanx's plugin
// on a fake API server built as upstream's (steps.go, loop.go:
// TestUpstreamTablesDRASteps); TestNormalizeScore's table is normalizescore.go.
//
// Upstream's loop turns feature gates off or on per case (its default is v1.36's DRA with
// the newer gates off); the harness runs v1.37.2's defaults. A case that sets a gate
// unlike v1.37's default is not run, with the reason; one that leaves a gate off that
// v1.37 has on runs under v1.37's, and the transcription check (upstream's own plugin must
// give what its test states) shows where that changes the stated outcome: notRunUnder
// names those cases.
package dynamicresources

import (
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
)

// From names the table in the cases' ids.
const From = "dynamicresources/dynamicresources_test.go TestPlugin"

// notRunUnder are the cases whose stated PreFilter or Filter outcome is that of a gate
// left off in upstream's test and on in v1.37 (kube-scheduler's plugin, run with v1.37's
// defaults, gives another): the reason, by case name.
var notRunUnder = map[string]string{
	"claim-with-prioritized-list-feature-disabled": "DRAPrioritizedList off (the test's default; v1.37 locks it on)",
	"tainted-device-disabled":                      "DRADeviceTaints off (the test's default; on in v1.37)",
	// Not a gate, a timing: the claim has 5 requests, the node 4 devices. kube-scheduler's
	// stated Error ("timed out trying to allocate devices") holds when its search is
	// interrupted within 1 ns, its "cannot allocate all claims" when the search ends
	// first: the machine's speed. phalanx's filter timeout cannot be forced: it has no
	// clock or deadline of its own to inject (a deadline on Filter's context is the
	// caller's cancel, another outcome), and it proves by counting the node's devices,
	// before any search, that the claim cannot fit: Unschedulable, whatever the timeout.
	"timeout": "a filterTimeout of 1 ns on a claim that cannot fit: kube-scheduler's outcome is whether its search is interrupted within 1 ns (timing), phalanx's filter timeout cannot be forced and it finds by counting, before any search, that the claim cannot fit",
}

// Cases are TestPlugin's cases, in name order.
func Cases() []tables.Case {
	tcs := testcases()
	var out []tables.Case
	for _, name := range slices.Sorted(maps.Keys(tcs)) {
		tc := tcs[name]
		if tc.patchTestCase != nil {
			tc.patchTestCase(&tc)
		}
		c := tables.Case{From: From, Name: name, Plugin: "DynamicResources", Pod: tc.pod, NotRun: notRun(name, &tc), MessagesOnly: true}
		if tc.args != nil {
			c.Args = tc.args
		} else {
			c.Args = getDefaultDynamicResourcesArgs()
		}
		c.Nodes = tc.nodes
		if c.Nodes == nil {
			c.Nodes = []*v1.Node{workerNode}
		}
		c.Pods = tc.existingPods
		c.DRA = &tables.DRA{Classes: []*resourceapi.DeviceClass{}}
		for _, cl := range tc.claims {
			// Upstream's test creates the claims through its fake API server, whose
			// reactor gives each a UID (the in-flight allocations are kept by UID).
			if cl.UID == "" {
				cl = cl.DeepCopy()
				cl.UID = types.UID("uid-" + cl.Namespace + "-" + cl.Name)
			}
			c.DRA.Claims = append(c.DRA.Claims, cl)
		}
		for _, o := range tc.want.reserve.inFlightClaims {
			// The claim PreFilter makes for extended resources lives in kube-scheduler's
			// and phalanx's cycle state, not among the case's claims: not compared.
			if cl, ok := o.(*resourceapi.ResourceClaim); ok && cl.Name != specialClaimInMemName {
				c.DRA.WantReserve = append(c.DRA.WantReserve, cl)
			}
		}
		c.DRA.Classes = append(c.DRA.Classes, tc.classes...)
		for _, o := range tc.objs {
			if s, ok := o.(*resourceapi.ResourceSlice); ok {
				c.DRA.Slices = append(c.DRA.Slices, s)
			}
		}
		c.WantPreFilter = tc.want.prefilter.status
		if c.WantPreFilter == nil {
			c.WantPreFilter = fwk.NewStatus(fwk.Success)
		}
		if !tc.want.prefilter.status.IsRejected() {
			c.CheckFilter = true
			c.WantFilter = map[string]*fwk.Status{}
			for _, n := range c.Nodes {
				c.WantFilter[n.Name] = tc.want.filter.forNode(n.Name).status
			}
		}
		out = append(out, c)
	}
	return out
}

// notRun says why a case is not run ("": it is).
func notRun(name string, tc *testPluginCase) string {
	var why []string
	gate := func(set bool, g string, on bool) {
		if set {
			state := "off"
			if on {
				state = "on"
			}
			why = append(why, g+" "+state+" (v1.37's default is the other)")
		}
	}
	gate(tc.disableDRA, "DynamicResourceAllocation", false)
	gate(tc.disableDRAAdminAccess, "DRAAdminAccess", false)
	gate(tc.disableDRADeviceBindingConditions, "DRADeviceBindingConditions", false)
	gate(tc.disableDRAResourceClaimDeviceStatus, "DRAResourceClaimDeviceStatus", false)
	gate(tc.disableDRASchedulerFilterTimeout, "DRASchedulerFilterTimeout", false)
	gate(tc.enableDRANodeAllocatableResources, "DRANodeAllocatableResources", true)
	gate(tc.enableDRAWorkloadResourceClaims, "DRAWorkloadResourceClaims", true)
	if len(tc.podGroups) > 0 && tc.enableDRAWorkloadResourceClaims {
		why = append(why, "claims of a PodGroup (the harness runs a single pod's cycle)")
	}
	if len(tc.inFlightClaims) > 0 {
		why = append(why, "claims pending allocation by an earlier cycle, which the harness does not hold")
	}
	if tc.want.preenqueue.status != nil {
		why = append(why, "PreEnqueue rejects the pod (the harness runs from PreFilter)")
	}
	if tc.cancelFilter {
		why = append(why, "Filter with a canceled context")
	}
	if tc.prepare.filter.claim != nil || tc.prepare.filter.pod != nil {
		why = append(why, "objects changed in the API server before Filter")
	}
	if r := notRunUnder[name]; r != "" {
		why = append(why, r)
	}
	return strings.Join(why, "; ")
}
