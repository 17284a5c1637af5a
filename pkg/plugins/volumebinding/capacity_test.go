package volumebinding

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func csiDriver(name string, capacity *bool) *storagev1.CSIDriver {
	return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.CSIDriverSpec{StorageCapacity: capacity}}
}

// storageCapacity is a CSIStorageCapacity of class "standard" for the nodes named (none:
// no nodeTopology; "*": an empty selector), with a capacity and a maximum volume size
// ("" for unset).
func storageCapacity(name, capacity, maxSize string, nodes ...string) *storagev1.CSIStorageCapacity {
	c := &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name}, StorageClassName: "standard"}
	switch {
	case len(nodes) == 1 && nodes[0] == "*":
		c.NodeTopology = &metav1.LabelSelector{}
	case len(nodes) > 0:
		c.NodeTopology = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: v1.LabelHostname, Operator: metav1.LabelSelectorOpIn, Values: nodes}}}
	}
	if capacity != "" {
		q := resource.MustParse(capacity)
		c.Capacity = &q
	}
	if maxSize != "" {
		q := resource.MustParse(maxSize)
		c.MaximumVolumeSize = &q
	}
	return c
}

// TestStorageCapacity: a claim to provision by a CSI driver that tracks capacity fits a
// node only where a CSIStorageCapacity of its class reaches the node with room for its
// request (maximumVolumeSize first, else capacity), with kube-scheduler's reason
// elsewhere; drivers without a CSIDriver, or not opting in, and claims that ask no size
// are not checked. The score rates the claims by the capacity that admitted them.
func TestStorageCapacity(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	for _, tc := range []struct {
		name       string
		driver     *storagev1.CSIDriver
		capacities []*storagev1.CSIStorageCapacity
		request    string // "" asks no size
		fits       []string
		scores     map[string]int64
	}{
		{name: "no CSIDriver", capacities: nil, request: "5Gi", fits: []string{"n1", "n2"}},
		{name: "driver not tracking capacity", driver: csiDriver("disk.example.com", no), request: "5Gi", fits: []string{"n1", "n2"}},
		{name: "storageCapacity unset", driver: csiDriver("disk.example.com", nil), request: "5Gi", fits: []string{"n1", "n2"}},
		{name: "another driver tracks capacity", driver: csiDriver("other.example.com", yes), request: "5Gi", fits: []string{"n1", "n2"}},
		{name: "no capacity anywhere", driver: csiDriver("disk.example.com", yes), request: "5Gi"},
		{name: "claim asks no size", driver: csiDriver("disk.example.com", yes), request: "", fits: []string{"n1", "n2"}},
		{name: "room on n1 only", driver: csiDriver("disk.example.com", yes), request: "5Gi",
			capacities: []*storagev1.CSIStorageCapacity{storageCapacity("n1", "10Gi", "", "n1"), storageCapacity("n2", "4Gi", "", "n2")},
			fits:       []string{"n1"}, scores: map[string]int64{"n1": 50}},
		{name: "exactly the request", driver: csiDriver("disk.example.com", yes), request: "5Gi",
			capacities: []*storagev1.CSIStorageCapacity{storageCapacity("both", "5Gi", "", "n1", "n2")},
			fits:       []string{"n1", "n2"}, scores: map[string]int64{"n1": 0, "n2": 0}},
		{name: "maximum volume size before capacity", driver: csiDriver("disk.example.com", yes), request: "5Gi",
			capacities: []*storagev1.CSIStorageCapacity{storageCapacity("n1", "100Gi", "1Gi", "n1"), storageCapacity("n2", "1Gi", "20Gi", "n2")},
			fits:       []string{"n2"}, scores: map[string]int64{"n2": 0}},
		{name: "only a maximum volume size", driver: csiDriver("disk.example.com", yes), request: "5Gi",
			capacities: []*storagev1.CSIStorageCapacity{storageCapacity("all", "", "20Gi", "*")},
			fits:       []string{"n1", "n2"}, scores: map[string]int64{"n1": 0, "n2": 0}},
		{name: "no nodeTopology reaches no node", driver: csiDriver("disk.example.com", yes), request: "5Gi",
			capacities: []*storagev1.CSIStorageCapacity{storageCapacity("none", "100Gi", "")}},
		{name: "empty selector reaches every node", driver: csiDriver("disk.example.com", yes), request: "5Gi",
			capacities: []*storagev1.CSIStorageCapacity{storageCapacity("all", "20Gi", "", "*")},
			fits:       []string{"n1", "n2"}, scores: map[string]int64{"n1": 75, "n2": 75}},
		{name: "another class's capacity", driver: csiDriver("disk.example.com", yes), request: "5Gi",
			capacities: []*storagev1.CSIStorageCapacity{func() *storagev1.CSIStorageCapacity {
				c := storageCapacity("all", "20Gi", "", "*")
				c.StorageClassName = "local"
				return c
			}()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, _ := setup(t)
			if tc.driver != nil {
				c.Storage().SetCSIDriver(tc.driver)
			}
			for _, sc := range tc.capacities {
				c.Storage().SetStorageCapacity(sc)
			}
			pvc := testutil.PVC("data", "")
			delete(pvc.Spec.Resources.Requests, v1.ResourceStorage)
			if tc.request != "" {
				pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse(tc.request)
			}
			c.Storage().SetPVC(pvc)
			p := framework.NewPodInfo(testutil.Pod("p").PVC("data").Obj())
			cs := framework.NewCycleState()
			ctx := context.Background()
			if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			var feasible []*framework.NodeInfo
			for _, n := range []string{"n1", "n2"} {
				st := pl.Filter(ctx, cs, p, c.Get(n))
				fits := slicesContains(tc.fits, n)
				if st.IsSuccess() != fits || !fits && (st.Message() != ErrReasonNotEnoughSpace || st.Code() != framework.UnschedulableAndUnresolvable) {
					t.Errorf("%s: %v %q, want fits=%v (%q)", n, st.Code(), st.Message(), fits, ErrReasonNotEnoughSpace)
				}
				if fits {
					feasible = append(feasible, c.Get(n))
				}
			}
			if st := pl.PreScore(ctx, cs, p, feasible); !st.IsSuccess() {
				t.Fatal(st)
			}
			for _, n := range feasible {
				got, st := pl.Score(ctx, cs, p, n)
				if !st.IsSuccess() || got != tc.scores[n.Name] {
					t.Errorf("Score %s: %d %v, want %d", n.Name, got, st, tc.scores[n.Name])
				}
			}
		})
	}
}

// TestProvisionReasons: the first claim to provision decides the reason, as
// kube-scheduler's checkVolumeProvisions stops at it: smallest first, a class that cannot
// provision on the node before a driver without room.
func TestProvisionReasons(t *testing.T) {
	c, pl, _ := setup(t)
	c.Storage().SetCSIDriver(csiDriver("disk.example.com", ptr(true)))
	c.Storage().SetStorageCapacity(storageCapacity("n1", "10Gi", "", "n1"))
	zonal := class("zonal", "zonal.example.com")
	zonal.AllowedTopologies = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{
		{Key: v1.LabelHostname, Values: []string{"n1"}}}}}
	c.Storage().SetStorageClass(zonal)
	big := testutil.PVC("big", "")
	big.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("20Gi")
	small := testutil.PVC("small", "")
	small.Spec.StorageClassName = ptr("zonal")
	c.Storage().SetPVC(big)
	c.Storage().SetPVC(small)
	for _, tc := range []struct {
		claims []string
		want   map[string]string
	}{
		// n2: the small zonal claim, checked first, cannot be provisioned there.
		{claims: []string{"big", "small"}, want: map[string]string{"n1": ErrReasonNotEnoughSpace, "n2": ErrReasonBindConflict}},
		{claims: []string{"big"}, want: map[string]string{"n1": ErrReasonNotEnoughSpace, "n2": ErrReasonNotEnoughSpace}},
	} {
		p := framework.NewPodInfo(testutil.Pod("p").PVC(tc.claims...).Obj())
		cs := framework.NewCycleState()
		ctx := context.Background()
		if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() {
			t.Fatal(st)
		}
		for n, want := range tc.want {
			if st := pl.Filter(ctx, cs, p, c.Get(n)); st.Message() != want {
				t.Errorf("%v on %s: %q, want %q", tc.claims, n, st.Message(), want)
			}
		}
	}
}
