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

// TestCountedAsKubeSchedulerCounts: a missing claim rejects every node, with or without a
// CSINode; an unbound claim of a node's pod counts against the limit by its class's
// provisioner; an inline CSI volume is not counted.
func TestCountedAsKubeSchedulerCounts(t *testing.T) {
	inlineCSI := v1.Volume{Name: "scratch", VolumeSource: v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: "disk.example.com"}}}
	for _, tc := range []struct {
		name string
		// holder mounts these claims (and the inline volume when inline is set)
		holder []string
		inline bool
		pod    string
		code   framework.Code
		msg    string
	}{
		{name: "missing claim", pod: "gone", code: framework.UnschedulableAndUnresolvable,
			msg: `looking up PVC default/gone: persistentvolumeclaim "gone" not found`},
		{name: "a node's pod with an unbound claim is at the limit", holder: []string{"unbound"}, pod: "own",
			code: framework.Unschedulable, msg: ErrReasonMaxVolumeCountExceeded},
		{name: "the same unbound claim counts once", holder: []string{"unbound"}, pod: "unbound", code: framework.Success},
		{name: "inline CSI volumes are not counted", inline: true, pod: "own", code: framework.Success},
		{name: "a node over its limit takes a pod that adds no volume", holder: []string{"unbound", "own"}, pod: "own", code: framework.Success},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n").Capacity("cpu", "4").Obj())
			count := int32(1)
			c.Storage().SetCSINode(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: storagev1.CSINodeSpec{
				Drivers: []storagev1.CSINodeDriver{{Name: "disk.example.com", NodeID: "n", Allocatable: &storagev1.VolumeNodeResources{Count: &count}}},
			}})
			class := "standard"
			c.Storage().SetStorageClass(&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "disk.example.com"})
			c.Storage().SetPV(csiPV("pv-own", "h-own"))
			c.Storage().SetPVC(testutil.PVC("own", "pv-own"))
			unbound := testutil.PVC("unbound", "")
			unbound.Spec.StorageClassName = &class
			c.Storage().SetPVC(unbound)
			holder := testutil.Pod("holder").Node("n")
			for _, claim := range tc.holder {
				holder = holder.PVC(claim)
			}
			h := holder.Obj()
			if tc.inline {
				h.Spec.Volumes = append(h.Spec.Volumes, inlineCSI)
			}
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(h)); err != nil {
				t.Fatal(err)
			}
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			nl := pl.(*NodeVolumeLimits)
			p := framework.NewPodInfo(testutil.Pod("p").PVC(tc.pod).Obj())
			cs := framework.NewCycleState()
			if _, st := nl.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := nl.Filter(context.Background(), cs, p, c.Get("n"))
			if st.Code() != tc.code || st.Message() != tc.msg {
				t.Errorf("Filter: %v %q, want %v %q", st.Code(), st.Message(), tc.code, tc.msg)
			}
		})
	}
}

func attachment(name, attacher, pv, node string) *storagev1.VolumeAttachment {
	a := &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.VolumeAttachmentSpec{Attacher: attacher, NodeName: node}}
	if pv != "" {
		a.Spec.Source.PersistentVolumeName = &pv
	}
	return a
}

// TestVolumeAttachments: a volume a VolumeAttachment attaches to the node counts against
// the limit though no pod there uses it, once when a pod does (but twice when it is the
// incoming pod's, as kube-scheduler counts it), and not when the attachment
// names no attacher, no volume, a volume that does not exist or one that is not CSI, or
// another node.
func TestVolumeAttachments(t *testing.T) {
	nfs := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-nfs"}, Spec: v1.PersistentVolumeSpec{
		PersistentVolumeSource: v1.PersistentVolumeSource{NFS: &v1.NFSVolumeSource{Server: "s", Path: "/"}}}}
	for _, tc := range []struct {
		name       string
		attachment *storagev1.VolumeAttachment
		fits       bool
	}{
		{"a volume of a pod gone", attachment("a", "disk.example.com", "pv-gone", "n"), false},
		{"the volume of the node's pod", attachment("a", "disk.example.com", "pv-shared", "n"), true},
		// As kube-scheduler: the pod's own volume counts twice, attached and added.
		{"the pod's own volume", attachment("a", "disk.example.com", "pv-own", "n"), false},
		{"another node", attachment("a", "disk.example.com", "pv-gone", "m"), true},
		{"no attacher", attachment("a", "", "pv-gone", "n"), true},
		{"no volume", attachment("a", "disk.example.com", "", "n"), true},
		{"a volume that does not exist", attachment("a", "disk.example.com", "pv-missing", "n"), true},
		{"not a CSI volume", attachment("a", "disk.example.com", "pv-nfs", "n"), true},
		{"another driver", attachment("a", "other.example.com", "pv-gone", "n"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n").Capacity("cpu", "4").Obj())
			count := int32(2)
			c.Storage().SetCSINode(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: storagev1.CSINodeSpec{
				Drivers: []storagev1.CSINodeDriver{{Name: "disk.example.com", NodeID: "n", Allocatable: &storagev1.VolumeNodeResources{Count: &count}}},
			}})
			for _, pv := range []*v1.PersistentVolume{csiPV("pv-shared", "h-shared"), csiPV("pv-own", "h-own"), csiPV("pv-gone", "h-gone"), nfs} {
				c.Storage().SetPV(pv)
			}
			c.Storage().SetPVC(testutil.PVC("shared", "pv-shared"))
			c.Storage().SetPVC(testutil.PVC("own", "pv-own"))
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(testutil.Pod("holder").PVC("shared").Node("n").Obj())); err != nil {
				t.Fatal(err)
			}
			c.Storage().SetVolumeAttachment(tc.attachment)
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			nl := pl.(*NodeVolumeLimits)
			p := framework.NewPodInfo(testutil.Pod("p").PVC("own").Obj())
			cs := framework.NewCycleState()
			if _, st := nl.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := nl.Filter(context.Background(), cs, p, c.Get("n"))
			if st.IsSuccess() != tc.fits || !tc.fits && st.Message() != ErrReasonMaxVolumeCountExceeded {
				t.Errorf("%v %q, want fits=%v", st.Code(), st.Message(), tc.fits)
			}
			c.Storage().RemoveVolumeAttachment(tc.attachment.Name)
			if st := nl.Filter(context.Background(), cs, p, c.Get("n")); !st.IsSuccess() {
				t.Errorf("detached: %v", st)
			}
		})
	}
}

// TestDriverNotInstalled: a driver whose CSIDriver sets preventPodSchedulingIfMissing
// rejects a node whose CSINode does not list it (or that has none), with or without limits.
func TestDriverNotInstalled(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		prevent *bool
		csiNode []string // drivers listed; nil for no CSINode
		fits    bool
	}{
		{"no CSIDriver field", nil, nil, true},
		{"opted out", &no, nil, true},
		{"no CSINode", &yes, nil, false},
		{"not listed", &yes, []string{"other.example.com"}, false},
		{"listed", &yes, []string{"disk.example.com"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n").Capacity("cpu", "4").Obj())
			if tc.csiNode != nil {
				n := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
				for _, d := range tc.csiNode {
					n.Spec.Drivers = append(n.Spec.Drivers, storagev1.CSINodeDriver{Name: d, NodeID: "n"})
				}
				c.Storage().SetCSINode(n)
			}
			c.Storage().SetCSIDriver(&storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "disk.example.com"},
				Spec: storagev1.CSIDriverSpec{PreventPodSchedulingIfMissing: tc.prevent}})
			c.Storage().SetPV(csiPV("pv-own", "h-own"))
			c.Storage().SetPVC(testutil.PVC("own", "pv-own"))
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			nl := pl.(*NodeVolumeLimits)
			p := framework.NewPodInfo(testutil.Pod("p").PVC("own").Obj())
			cs := framework.NewCycleState()
			if _, st := nl.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := nl.Filter(context.Background(), cs, p, c.Get("n"))
			want := "disk.example.com CSI driver is not installed on the node"
			if st.IsSuccess() != tc.fits || !tc.fits && (st.Message() != want || st.Code() != framework.Unschedulable) {
				t.Errorf("%v %q, want fits=%v", st.Code(), st.Message(), tc.fits)
			}
		})
	}
}

// TestEphemeralClaimOwnership: as kube-scheduler, a generic ephemeral volume's claim must be
// controlled by the pod: the pod to place's claim that is not rejects every node with an
// error, after a missing claim of an earlier volume (the first volume in the pod's order
// decides); a node's pod's claim that is not is an error once the node has a limit.
func TestEphemeralClaimOwnership(t *testing.T) {
	ephemeralVol := func(name string) v1.Volume {
		return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}
	}
	claim := func(pod *v1.Pod, vol string, owned bool) *v1.PersistentVolumeClaim {
		c := testutil.PVC(pod.Name+"-"+vol, "")
		if owned {
			controller := true
			c.OwnerReferences = []metav1.OwnerReference{{Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &controller}}
		}
		return c
	}
	notOwner := func(pod, pvc string) string {
		return "PVC default/" + pvc + " was not created for pod default/" + pod + " (pod is not owner)"
	}
	for _, tc := range []struct {
		name string
		// missingFirst: the pod mounts a claim that does not exist before its ephemeral
		// volume; holderNotOwner: the node's pod has an ephemeral claim it does not own.
		owned, missingFirst, holderNotOwner, noLimit bool
		code                                         framework.Code
		msg                                          string
	}{
		{name: "owned", owned: true, code: framework.Success},
		{name: "not owned", code: framework.Error, msg: notOwner("p", "p-scratch")},
		{name: "a missing claim first", missingFirst: true, code: framework.UnschedulableAndUnresolvable,
			msg: `looking up PVC default/gone: persistentvolumeclaim "gone" not found`},
		{name: "a node's pod's claim not owned", owned: true, holderNotOwner: true, code: framework.Error, msg: notOwner("holder", "holder-tmp")},
		{name: "a node's pod's claim not owned, no limit", owned: true, holderNotOwner: true, noLimit: true, code: framework.Success},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n").Capacity("cpu", "4").Obj())
			d := storagev1.CSINodeDriver{Name: "disk.example.com", NodeID: "n"}
			if !tc.noLimit {
				count := int32(4)
				d.Allocatable = &storagev1.VolumeNodeResources{Count: &count}
			}
			c.Storage().SetCSINode(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{d}}})
			c.Storage().SetStorageClass(&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Provisioner: "disk.example.com"})
			holder := testutil.Pod("holder").Node("n").Obj()
			holder.Spec.Volumes = append(holder.Spec.Volumes, ephemeralVol("tmp"))
			c.Storage().SetPVC(claim(holder, "tmp", !tc.holderNotOwner))
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(holder)); err != nil {
				t.Fatal(err)
			}
			builder := testutil.Pod("p")
			if tc.missingFirst {
				builder = builder.PVC("gone")
			}
			pod := builder.Obj()
			pod.Spec.Volumes = append(pod.Spec.Volumes, ephemeralVol("scratch"))
			c.Storage().SetPVC(claim(pod, "scratch", tc.owned))
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			nl := pl.(*NodeVolumeLimits)
			p := framework.NewPodInfo(pod)
			cs := framework.NewCycleState()
			if _, st := nl.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := nl.Filter(context.Background(), cs, p, c.Get("n"))
			if st.Code() != tc.code || (tc.msg != "" && st.Message() != tc.msg) {
				t.Errorf("Filter: %v %q, want %v %q", st.Code(), st.Message(), tc.code, tc.msg)
			}
		})
	}
}
