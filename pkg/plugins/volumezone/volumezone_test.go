package volumezone

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func TestVolumeZone(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pvLabels map[string]string
		node     map[string]string
		fits     bool
	}{
		{"same zone", map[string]string{v1.LabelTopologyZone: "a"}, map[string]string{v1.LabelTopologyZone: "a"}, true},
		{"other zone", map[string]string{v1.LabelTopologyZone: "a"}, map[string]string{v1.LabelTopologyZone: "b"}, false},
		{"one of several zones", map[string]string{v1.LabelTopologyZone: "a__b"}, map[string]string{v1.LabelTopologyZone: "b"}, true},
		{"beta label on the volume", map[string]string{v1.LabelFailureDomainBetaZone: "a"}, map[string]string{v1.LabelTopologyZone: "a"}, true},
		{"region mismatch", map[string]string{v1.LabelTopologyRegion: "eu"}, map[string]string{v1.LabelTopologyRegion: "us", v1.LabelTopologyZone: "a"}, false},
		{"node without topology labels", map[string]string{v1.LabelTopologyZone: "a"}, nil, true},
		{"node missing the volume's label", map[string]string{v1.LabelTopologyRegion: "eu"}, map[string]string{v1.LabelTopologyZone: "a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			n := testutil.Node("n").Capacity("cpu", "1").Obj()
			n.Labels = tc.node
			c.Nodes().AddNode(n)
			c.Storage().SetPV(&v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", Labels: tc.pvLabels},
				Spec: v1.PersistentVolumeSpec{Capacity: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}}})
			c.Storage().SetPVC(testutil.PVC("data", "pv"))
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			vz := pl.(*VolumeZone)
			p := framework.NewPodInfo(testutil.Pod("p").PVC("data").Obj())
			cs := framework.NewCycleState()
			if _, st := vz.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := vz.Filter(context.Background(), cs, p, c.Get("n"))
			if st.IsSuccess() != tc.fits || !tc.fits && st.Message() != ErrReasonConflict {
				t.Errorf("%v %q, want fits=%v", st.Code(), st.Message(), tc.fits)
			}
		})
	}
}
