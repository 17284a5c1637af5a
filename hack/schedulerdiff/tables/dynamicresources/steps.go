package dynamicresources

import (
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	cgotesting "k8s.io/client-go/testing"
	fwk "k8s.io/kube-scheduler/framework"
)

// Steps are what TestPlugin's loop does after Filter and Reserve, and what it states of
// each step: the steps that write through its fake API server (PreBind, PostFilter,
// Unreserve). TestUpstreamTablesDRASteps drives phalanx's plugin through the same steps
// on a fake API server built as upstream's is, and compares the claims each step leaves
// and its status with what the case states.
type Steps struct {
	// Objects are what upstream's setup puts in its fake client directly (a case's objs,
	// the claims excepted: those are the case's, in Claims).
	Objects []apiruntime.Object
	// Reactors are the case's own, prepended to the fake client's (they make writes fail
	// on purpose); FailPatch makes every patch fail, as upstream's createReactor does.
	Reactors  []cgotesting.Reactor
	FailPatch bool
	// Prepare* change the API server's claims before the step, as the loop's
	// updateAPIServer does (nil: no change).
	PrepareReserve, PrepareUnreserve, PreparePreBind, PreparePostFilter func([]metav1.Object) []metav1.Object
	// The outcome stated of each step; a step the loop does not reach is not read.
	PreBind, Unreserve, PostFilter Step
	// UnreserveBeforePreBind, when set, makes the loop call Unreserve instead of PreBind
	// (another PreBind plugin failed); UnreserveAfterBindFailure calls it after PreBind
	// (the binding failed).
	UnreserveBeforePreBind, UnreserveAfterBindFailure *Step
}

// Step is the outcome upstream's test states of one step, read as its verify reads it.
type Step struct {
	// Status: nil is success; a failed status is checked by its message.
	Status *fwk.Status
	// Want are the API server's objects (ResourceClaims) the step must leave, from those
	// before it: the stated changes applied, the stated added objects added and the
	// removed ones removed, sorted as upstream sorts them.
	Want func(before []metav1.Object) []metav1.Object
	// InFlight are the claims (namespace/name) stated pending allocation after the step.
	InFlight []string
}

// Update applies a stated change to a list of objects, as the loop's updateAPIServer.
func Update(objects []metav1.Object, updates func(*resourceapi.ResourceClaim) *resourceapi.ResourceClaim) []metav1.Object {
	return update(objects, change{claim: updates})
}

// SortObjects sorts objects as upstream's test does before it compares them.
func SortObjects(objects []metav1.Object) { sortObjects(objects) }

// NewReactor is upstream's createReactor: UIDs, generated names and resource versions
// on create and update, conflicts on a stale update, and failed patches when failPatch.
func NewReactor(tracker cgotesting.ObjectTracker, failPatch bool) func(action cgotesting.Action) (handled bool, ret apiruntime.Object, err error) {
	return createReactor(tracker, failPatch)
}

// StepsOf are the steps of every case of TestPlugin, by name.
func StepsOf() map[string]*Steps {
	out := map[string]*Steps{}
	for name, tc := range testcases() {
		if tc.patchTestCase != nil {
			tc.patchTestCase(&tc)
		}
		s := &Steps{Reactors: tc.reactors, FailPatch: tc.failPatch}
		for _, o := range tc.objs {
			if _, ok := o.(*resourceapi.ResourceClaim); !ok {
				s.Objects = append(s.Objects, o)
			}
		}
		s.PrepareReserve = prepared(tc.prepare.reserve)
		s.PrepareUnreserve = prepared(tc.prepare.unreserve)
		s.PreparePreBind = prepared(tc.prepare.prebind)
		s.PreparePostFilter = prepared(tc.prepare.postfilter)
		s.PreBind = stepOf(tc.want.prebind)
		s.Unreserve = stepOf(tc.want.unreserve)
		s.PostFilter = stepOf(tc.want.postfilter)
		if r := tc.want.unreserveBeforePreBind; r != nil {
			st := stepOf(*r)
			s.UnreserveBeforePreBind = &st
		}
		if r := tc.want.unreserveAfterBindFailure; r != nil {
			st := stepOf(*r)
			s.UnreserveAfterBindFailure = &st
		}
		out[name] = s
	}
	return out
}

func prepared(c change) func([]metav1.Object) []metav1.Object {
	if c.claim == nil && c.pod == nil {
		return nil
	}
	return func(objects []metav1.Object) []metav1.Object { return update(objects, c) }
}

// stepOf reads a stated result as upstream's verify does (the objects it lists are the
// claims; a change of the pod is checked apart, and not here).
func stepOf(r result) Step {
	st := Step{Status: r.status}
	st.Want = func(before []metav1.Object) []metav1.Object {
		want := update(before, r.changes)
		want = append(want, r.added...)
		for _, remove := range r.removed {
			for i, obj := range want {
				if obj.GetName() == remove.GetName() && obj.GetNamespace() == remove.GetNamespace() {
					want = append(want[0:i], want[i+1:]...)
					break
				}
			}
		}
		sortObjects(want)
		return want
	}
	for _, o := range r.inFlightClaims {
		st.InFlight = append(st.InFlight, o.GetNamespace()+"/"+o.GetName())
	}
	slices.Sort(st.InFlight)
	return st
}

// DefaultArgs are the arguments upstream's tests build the plugin with when a case gives
// none.
func DefaultArgs() apiruntime.Object { return getDefaultDynamicResourcesArgs() }
