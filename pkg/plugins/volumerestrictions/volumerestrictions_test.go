package volumerestrictions

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func gcePD(name string, ro bool) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: name, ReadOnly: ro}}}
}

// TestMissingClaim: a claim that does not exist rejects the pod in PreFilter with the API
// server's NotFound message, as kube-scheduler's VolumeRestrictions does.
func TestMissingClaim(t *testing.T) {
	c := cache.New()
	pl, _ := New(nil, &testutil.Handle{Cache: c})
	p := framework.NewPodInfo(testutil.Pod("p").PVC("gone").Obj())
	_, st := pl.(*VolumeRestrictions).PreFilter(context.Background(), framework.NewCycleState(), p)
	if st.Code() != framework.UnschedulableAndUnresolvable || st.Message() != `persistentvolumeclaim "gone" not found` {
		t.Errorf("PreFilter: %v %q, want UnschedulableAndUnresolvable: persistentvolumeclaim \"gone\" not found", st.Code(), st.Message())
	}
}

func TestVolumeRestrictions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing []v1.Volume
		incoming []v1.Volume
		rwop     bool
		want     string
	}{
		{name: "same disk", existing: []v1.Volume{gcePD("d", false)}, incoming: []v1.Volume{gcePD("d", false)}, want: ErrReasonDiskConflict},
		{name: "same disk read-only twice", existing: []v1.Volume{gcePD("d", true)}, incoming: []v1.Volume{gcePD("d", true)}},
		{name: "other disk", existing: []v1.Volume{gcePD("d", false)}, incoming: []v1.Volume{gcePD("e", false)}},
		{name: "ReadWriteOncePod claim in use", rwop: true, want: ErrReasonReadWriteOncePodConflict},
		// kube-scheduler checks the disks first (schedulerdiff seed 72776).
		{name: "both conflicts: the disk is named", existing: []v1.Volume{gcePD("d", false)}, incoming: []v1.Volume{gcePD("d", false)}, rwop: true, want: ErrReasonDiskConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n").Capacity("cpu", "4").Obj())
			pvc := testutil.PVC("data", "pv")
			pvc.Spec.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod}
			c.Storage().SetPVC(pvc)
			holder := testutil.Pod("holder").Node("n")
			if tc.rwop {
				holder = holder.PVC("data")
			}
			h := holder.Obj()
			h.Spec.Volumes = append(h.Spec.Volumes, tc.existing...)
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(h)); err != nil {
				t.Fatal(err)
			}
			in := testutil.Pod("p")
			if tc.rwop {
				in = in.PVC("data")
			}
			pod := in.Obj()
			pod.Spec.Volumes = append(pod.Spec.Volumes, tc.incoming...)
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			vr := pl.(*VolumeRestrictions)
			p := framework.NewPodInfo(pod)
			cs := framework.NewCycleState()
			if _, st := vr.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := vr.Filter(context.Background(), cs, p, c.Get("n"))
			if st.Message() != tc.want || (tc.want == "") != st.IsSuccess() {
				t.Errorf("%v %q, want %q", st.Code(), st.Message(), tc.want)
			}
			if tc.rwop && len(tc.existing) == 0 {
				// Preempting the holder frees the claim.
				cp := c.Checkpoint()
				c.RemovePod(c.Nodes().Pod("default/holder"))
				if st := vr.Filter(context.Background(), cs, p, c.Get("n")); !st.IsSuccess() {
					t.Errorf("after removing the holder: %v", st)
				}
				c.Rollback(cp)
			}
		})
	}
}
