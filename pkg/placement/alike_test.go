package placement_test

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestAlikeKey(t *testing.T) {
	base := func(name string) *testutil.PodBuilder {
		return testutil.Pod(name).Labels("app", "train").Req("cpu", "1", "memory", "1Gi")
	}
	const (
		alike  = "alike"
		differ = "differ"
		none   = "no key" // the second member has no equivalent at all
	)
	tests := []struct {
		name  string
		other *v1.Pod
		want  string
		// guarded runs a pod with required anti-affinity in the cluster.
		guarded bool
	}{
		{"another member of the template", base("m2").Obj(), alike, false},
		{"other labels", base("m2").Labels("role", "worker").Obj(), alike, false},
		// A running pod's anti-affinity may refuse one member for its labels and accept
		// the other.
		{"other labels, while a pod with required anti-affinity runs", base("m2").Labels("role", "worker").Obj(), differ, true},
		{"the same labels, while a pod with required anti-affinity runs", base("m2").Obj(), alike, true},
		{"a soft spread constraint (scoring only)", base("m2").SpreadConstraint(v1.TopologySpreadConstraint{MaxSkew: 1,
			TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway}).Obj(), alike, false},
		{"more cpu", base("m2").Req("cpu", "2").Obj(), differ, false},
		{"a node selector", base("m2").NodeSelector("pool", "a").Obj(), differ, false},
		{"a toleration", base("m2").Toleration(v1.Toleration{Operator: v1.TolerationOpExists}).Obj(), differ, false},
		{"an extended resource", base("m2").Req("example.com/gpu", "1").Obj(), differ, false},
		{"required anti-affinity", base("m2").PodAntiAffinity(v1.LabelHostname, map[string]string{"app": "train"}).Obj(), none, false},
		{"required affinity", base("m2").PodAffinity(v1.LabelHostname, map[string]string{"app": "train"}).Obj(), none, false},
		{"a hard spread constraint", base("m2").SpreadConstraint(v1.TopologySpreadConstraint{MaxSkew: 1,
			TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "train"}}}).Obj(), none, false},
		{"a host port", base("m2").HostPort(8080).Obj(), none, false},
		{"bound to a node already", base("m2").Node("n1").Obj(), none, false},
		{"a PersistentVolumeClaim", base("m2").PVC("data").Obj(), none, false},
		{"a ResourceClaim", base("m2").Claims("gpu").Obj(), none, false},
		{"a spec that does not parse", base("m2").Affinity(&v1.Affinity{PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: v1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}}},
		}}).Obj(), none, false},
	}
	guard := testutil.Pod("guard").PodAntiAffinity(v1.LabelHostname, map[string]string{"role": "leader"}).Node("n1").Obj()
	for _, tc := range tests {
		var running []*v1.Pod
		if tc.guarded {
			running = append(running, guard)
		}
		e := newEnv(t, []*v1.Node{testutil.Node("n1").Obj()}, running)
		gp := e.placer.For(group(2), nil)
		first := gp.AlikeKey(base("m1").Info())
		if first == "" {
			t.Fatal("a plain member has no key")
		}
		key := gp.AlikeKey(framework.NewPodInfo(tc.other))
		got := differ
		switch key {
		case first:
			got = alike
		case "":
			got = none
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// Members with claims of their own are never alike, whatever their spec: here two members
// of one template each have a claim that pins them to a node of its own, and the first
// one's node is full. Were they alike, the first failing would rule the second out
// without trying it; it fits on its own node, and must be placed (placement/alike.go).
func TestAlikeKeyLeavesOutOwnClaims(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(c *cache.Cache)
		members []*v1.Pod
	}{
		{
			name: "PersistentVolumeClaims bound to volumes on different nodes",
			setup: func(c *cache.Cache) {
				for _, n := range []string{"n1", "n2"} {
					c.Storage().SetPV(localPV("pv-"+n, n))
					c.Storage().SetPVC(testutil.PVC("data-"+n, "pv-"+n))
				}
			},
			members: []*v1.Pod{
				testutil.Pod("m1").Req("cpu", "1").PVC("data-n1").Obj(),
				testutil.Pod("m2").Req("cpu", "1").PVC("data-n2").Obj(),
			},
		},
		{
			name: "ResourceClaims allocated on different nodes",
			setup: func(c *cache.Cache) {
				c.Devices().SetDeviceClass(testutil.DeviceClass("gpu", "gpu.example.com"))
				for _, n := range []string{"n1", "n2"} {
					c.Devices().SetResourceSlice(testutil.Slice(n, "gpu.example.com", "gpu", 1))
					claim := testutil.Claim("gpu-"+n, "gpu", 1)
					claim.Status.Allocation = allocatedOn(n, "gpu.example.com", "gpu-0")
					c.Devices().SetResourceClaim(claim)
				}
			},
			members: []*v1.Pod{
				testutil.Pod("m1").Req("cpu", "1").Claims("gpu-n1").Obj(),
				testutil.Pod("m2").Req("cpu", "1").Claims("gpu-n2").Obj(),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*v1.Node{
				testutil.Node("n1").Capacity("cpu", "1").Obj(),
				testutil.Node("n2").Capacity("cpu", "1").Obj(),
			}, []*v1.Pod{testutil.Pod("busy").Req("cpu", "1").Node("n1").Obj()})
			tc.setup(e.c)
			gp := e.placer.For(group(1), nil)
			members := infos(tc.members...)
			// Of one template but for their claims: without them, the members are alike.
			bare := func(m *framework.PodInfo) *framework.PodInfo {
				p := m.Pod.DeepCopy()
				p.Spec.Volumes, p.Spec.ResourceClaims = nil, nil
				return framework.NewPodInfo(p)
			}
			if k := gp.AlikeKey(bare(members[0])); k == "" || k != gp.AlikeKey(bare(members[1])) {
				t.Fatal("without their claims the members should be alike")
			}
			for _, m := range members {
				if k := gp.AlikeKey(m); k != "" {
					t.Errorf("%s has an alike key: members with their own claims must have none", m.Pod.Name)
				}
			}
			cp := e.c.Checkpoint()
			defer e.c.Rollback(cp)
			got, err := gp.Place(context.Background(), members, framework.PlaceOptions{Need: 1})
			if err != nil {
				t.Fatal(err)
			}
			if p := placed(got.Assignments); !slices.Equal(p, []string{"m2 n2"}) {
				t.Errorf("placed %v, want [m2 n2]: m1's failure must not rule m2 out (%s)", p, got.Message)
			}
		})
	}
}

// localPV is a 1Gi volume of class "standard" that only node can reach.
func localPV(name, node string) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PersistentVolumeSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: "standard",
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	return pv
}

// allocatedOn is the allocation of a node's device, pinned to that node.
func allocatedOn(node, driver, device string) *resourceapi.AllocationResult {
	a := &resourceapi.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchFields: []v1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
	}}}}
	a.Devices.Results = []resourceapi.DeviceRequestAllocationResult{{Request: "devices", Driver: driver, Pool: node, Device: device}}
	return a
}
