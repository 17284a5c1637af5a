package nodevolumelimits

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func csiPV(name, handle string) *v1.PersistentVolume {
	return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PersistentVolumeSpec{
		Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
		PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "disk.example.com", VolumeHandle: handle}},
	}}
}

func TestCSILimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int32
		// the pod uses shared (the volume the node's pod already uses) or its own
		incoming string
		fits     bool
	}{
		{"room for one more", 2, "own", true},
		{"at the limit", 1, "own", false},
		{"the same volume counts once", 1, "shared", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n").Capacity("cpu", "4").Obj())
			count := tc.limit
			c.Storage().SetCSINode(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: storagev1.CSINodeSpec{
				Drivers: []storagev1.CSINodeDriver{{Name: "disk.example.com", NodeID: "n", Allocatable: &storagev1.VolumeNodeResources{Count: &count}}},
			}})
			c.Storage().SetPV(csiPV("pv-shared", "h-shared"))
			c.Storage().SetPV(csiPV("pv-own", "h-own"))
			c.Storage().SetPVC(testutil.PVC("shared", "pv-shared"))
			c.Storage().SetPVC(testutil.PVC("own", "pv-own"))
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(testutil.Pod("holder").PVC("shared").Node("n").Obj())); err != nil {
				t.Fatal(err)
			}
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			nl := pl.(*NodeVolumeLimits)
			p := framework.NewPodInfo(testutil.Pod("p").PVC(tc.incoming).Obj())
			cs := framework.NewCycleState()
			if _, st := nl.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := nl.Filter(context.Background(), cs, p, c.Get("n"))
			if st.IsSuccess() != tc.fits || !tc.fits && st.Message() != ErrReasonMaxVolumeCountExceeded {
				t.Errorf("%v %q, want fits=%v", st.Code(), st.Message(), tc.fits)
			}
		})
	}
}
