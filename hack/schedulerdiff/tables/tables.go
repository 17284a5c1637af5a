// Package tables holds the cases of kube-scheduler v1.37.2's own table-driven plugin tests,
// transcribed: each subpackage has the tables of one upstream plugin package, copied
// verbatim from its _test.go files (which cannot be imported) with the helpers they use,
// and turns each case into a Case. schedulerdiff's TestUpstreamTables runs every Case
// through kube-scheduler's plugin (which must give the outcome its test states) and
// phalanx's (which must give the same). See docs/decisions/0038-upstream-test-tables.md.
package tables

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
)

// Case is one case of an upstream table: upstream's cluster, pod and plugin arguments,
// and the outcome upstream's test states.
type Case struct {
	// From is the upstream file and test function, Name upstream's name of the case.
	From, Name string
	Plugin     string
	// Args are the plugin's arguments in kube-scheduler's internal configuration types, as
	// upstream's test passes them; nil: the default profile's. phalanx's plugin gets them in
	// their v1 form (the form of a configuration file).
	Args runtime.Object
	// WantArgsError: upstream's test states that the arguments are refused (both plugins
	// must then refuse to be built).
	WantArgsError bool
	Nodes         []*v1.Node
	// Namespaces are the namespaces upstream's test puts in its informers (nil: the
	// harness's fixed ones).
	Namespaces []*v1.Namespace
	// Storage, when not nil, are the storage objects upstream's test puts in its listers
	// or informers (PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
	// CSIDrivers, CSIStorageCapacities, VolumeAttachments): both plugins read these
	// instead of the harness's fixed storage universe (an empty, non-nil list: none).
	Storage []runtime.Object
	// DRA, when not nil, are the Dynamic Resource Allocation objects upstream's test puts
	// in its API server: both plugins read these instead of the harness's fixed
	// DeviceClasses and generated slices and claims.
	DRA *DRA
	// Pods are the pods bound to the nodes (by spec.nodeName).
	Pods []*v1.Pod
	Pod  *v1.Pod
	// WantPreFilter is the PreFilter status upstream states (its code is checked when set).
	WantPreFilter *fwk.Status
	// CheckPreFilterNodes: WantPreFilterNodes are the nodes upstream states its PreFilter
	// narrows to, sorted (nil: it does not narrow).
	CheckPreFilterNodes bool
	WantPreFilterNodes  []string
	// CheckFilter: WantFilter holds upstream's stated Filter status by node name (a node
	// missing there, or nil, passes).
	CheckFilter bool
	WantFilter  map[string]*fwk.Status
	// FilterCodesOnly: upstream states the Filter codes, not the reasons.
	FilterCodesOnly bool
	// MessagesOnly: upstream's test checks a failed PreFilter or Filter status by its
	// message only (the stated message must be part of the status's, whatever the code),
	// as DynamicResources' TestPlugin does; phalanx is still compared with kube-scheduler
	// by code and reasons.
	MessagesOnly bool
	// ScoreOn are the nodes upstream scores (nil: every node of the case).
	ScoreOn []string
	// WantScores are upstream's stated scores by node name (nil: not checked);
	// WantScoreError: upstream states that scoring fails.
	WantScores     map[string]int64
	WantScoreError bool
	// NotRun, when set, says why the case is transcribed but not run: it needs a setting
	// the harness does not have (a feature gate other than v1.37's default, objects its
	// informers do not hold). Such cases are counted apart.
	NotRun string
}

// ID names a case in failures and in the list of differences.
func (c *Case) ID() string { return c.From + " " + c.Name }

// FilterOn is the stated Filter of a single node, the form of most upstream Filter tables.
func FilterOn(node string, s *fwk.Status) map[string]*fwk.Status {
	return map[string]*fwk.Status{node: s}
}

// Scores reads an upstream NodeScoreList.
func Scores(list fwk.NodeScoreList) map[string]int64 {
	out := map[string]int64{}
	for _, s := range list {
		out[s.Name] = s.Score
	}
	return out
}

// NodeInfo reads the node and pods of an upstream NodeInfo (the form of its Filter tables)
// as a cluster: a node without a name gets one, and the pods are bound to it.
func NodeInfo(ni fwk.NodeInfo, node *v1.Node) ([]*v1.Node, []*v1.Pod) {
	node = node.DeepCopy()
	if node.Name == "" {
		node.Name = "node"
	}
	var pods []*v1.Pod
	for _, p := range ni.GetPods() {
		p := p.GetPod().DeepCopy()
		p.Spec.NodeName = node.Name
		pods = append(pods, p)
	}
	return []*v1.Node{node}, pods
}

// Objects reads one of upstream's fake listers (a slice of objects, such as
// tf.PersistentVolumeLister) as storage objects for Case.Storage.
func Objects[T any, PT interface {
	*T
	runtime.Object
}](list []T) []runtime.Object {
	out := make([]runtime.Object, 0, len(list))
	for i := range list {
		out = append(out, PT(&list[i]).DeepCopyObject())
	}
	return out
}

// DRA are a case's own DeviceClasses, ResourceSlices and ResourceClaims (Case.DRA).
type DRA struct {
	Classes []*resourceapi.DeviceClass
	Slices  []*resourceapi.ResourceSlice
	Claims  []*resourceapi.ResourceClaim
	// WantReserve, when not nil, are the claims upstream's test states are pending
	// allocation after Reserve on the node its loop selects (with their allocations).
	WantReserve []*resourceapi.ResourceClaim
}
