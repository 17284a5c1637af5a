package nodevolumelimits

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// TestInTreeVolumes: as kube-scheduler v1.37, in-tree volumes count under the CSI driver
// that replaces their plugin on a node with a CSINode (whatever its migrated-plugins
// annotation), by their translated handle, bound (an EBS volume named by URL and by ID is
// one volume), provisioned by an in-tree provisioner, or inline; not on a node without a
// CSINode, and never for azureFile and vsphereVolume, whose migration kube-scheduler
// treats as off. A volume the translation refuses is not counted when bound, and fails
// the node when inline (the pod's, or a pod's on the node).
func TestInTreeVolumes(t *testing.T) {
	ebsPV := func(name, id string) *v1.PersistentVolume {
		return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.PersistentVolumeSpec{
			PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id}}}}
	}
	inlineEBS := func(name, id string) v1.Volume {
		return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id}}}
	}
	azureFile := v1.Volume{Name: "files", VolumeSource: v1.VolumeSource{AzureFile: &v1.AzureFileVolumeSource{SecretName: "s", ShareName: "x"}}}
	const badMsg = "converting volume(bad) from inline to csi: failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://z/x/y)"
	for _, tc := range []struct {
		name string
		// holder, on the node, mounts these claims and inline volumes
		holder       []string
		holderInline []v1.Volume
		// the pod mounts these
		pod       []string
		podInline []v1.Volume
		noCSINode bool
		skip      bool
		code      framework.Code
		msg       string
	}{
		{name: "a bound EBS volume counts under its driver", holder: []string{"ebs-1"}, pod: []string{"ebs-2"},
			code: framework.Unschedulable, msg: ErrReasonMaxVolumeCountExceeded},
		{name: "one EBS volume by URL and by ID counts once", holder: []string{"ebs-1"}, pod: []string{"ebs-1-url"}, code: framework.Success},
		{name: "an inline EBS volume is the same volume", holderInline: []v1.Volume{inlineEBS("data", "vol-1")}, pod: []string{"ebs-1"}, code: framework.Success},
		{name: "an inline EBS volume counts", holderInline: []v1.Volume{inlineEBS("data", "vol-1")}, podInline: []v1.Volume{inlineEBS("data", "vol-9")},
			code: framework.Unschedulable, msg: ErrReasonMaxVolumeCountExceeded},
		{name: "an in-tree provisioner's claim counts under its driver", holder: []string{"ebs-unbound"}, pod: []string{"ebs-2"},
			code: framework.Unschedulable, msg: ErrReasonMaxVolumeCountExceeded},
		{name: "a volume the translation refuses is not counted", holder: []string{"ebs-bad"}, pod: []string{"ebs-2"}, code: framework.Success},
		{name: "no CSINode: nothing migrated", holder: []string{"ebs-1"}, pod: []string{"ebs-2"}, noCSINode: true, code: framework.Success},
		{name: "an inline volume the translation refuses", podInline: []v1.Volume{inlineEBS("bad", "aws://z/x/y")},
			code: framework.Error, msg: badMsg},
		{name: "no CSINode: an inline volume is not translated", podInline: []v1.Volume{inlineEBS("bad", "aws://z/x/y")}, noCSINode: true, code: framework.Success},
		{name: "a missing claim before a refused inline volume", pod: []string{"gone"}, podInline: []v1.Volume{inlineEBS("bad", "aws://z/x/y")},
			code: framework.UnschedulableAndUnresolvable, msg: `looking up PVC default/gone: persistentvolumeclaim "gone" not found`},
		{name: "a node's pod with an inline volume the translation refuses", holderInline: []v1.Volume{inlineEBS("bad", "aws://z/x/y")}, pod: []string{"ebs-2"},
			code: framework.Error, msg: badMsg},
		{name: "azureFile is never migrated, but the pod is not skipped", podInline: []v1.Volume{azureFile}, code: framework.Success},
		{name: "only other inline volumes: skipped", podInline: []v1.Volume{{Name: "tmp", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}, skip: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			c.Nodes().AddNode(testutil.Node("n").Capacity("cpu", "4").Obj())
			count := int32(1)
			if !tc.noCSINode {
				c.Storage().SetCSINode(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: storagev1.CSINodeSpec{
					Drivers: []storagev1.CSINodeDriver{{Name: "ebs.csi.aws.com", NodeID: "n", Allocatable: &storagev1.VolumeNodeResources{Count: &count}}},
				}})
			}
			class := "gp2"
			c.Storage().SetStorageClass(&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Provisioner: "kubernetes.io/aws-ebs"})
			for _, pv := range []*v1.PersistentVolume{ebsPV("pv-1", "vol-1"), ebsPV("pv-1-url", "aws://us-east-1a/vol-1"), ebsPV("pv-2", "vol-2"), ebsPV("pv-bad", "aws://z/x/y")} {
				c.Storage().SetPV(pv)
			}
			c.Storage().SetPVC(testutil.PVC("ebs-1", "pv-1"))
			c.Storage().SetPVC(testutil.PVC("ebs-1-url", "pv-1-url"))
			c.Storage().SetPVC(testutil.PVC("ebs-2", "pv-2"))
			c.Storage().SetPVC(testutil.PVC("ebs-bad", "pv-bad"))
			unbound := testutil.PVC("ebs-unbound", "")
			unbound.Spec.StorageClassName = &class
			c.Storage().SetPVC(unbound)
			holder := testutil.Pod("holder").Node("n")
			for _, claim := range tc.holder {
				holder = holder.PVC(claim)
			}
			h := holder.Obj()
			h.Spec.Volumes = append(h.Spec.Volumes, tc.holderInline...)
			if err := c.Nodes().AddBoundPod(framework.NewPodInfo(h)); err != nil {
				t.Fatal(err)
			}
			pl, _ := New(nil, &testutil.Handle{Cache: c})
			nl := pl.(*NodeVolumeLimits)
			pb := testutil.Pod("p")
			for _, claim := range tc.pod {
				pb = pb.PVC(claim)
			}
			pod := pb.Obj()
			pod.Spec.Volumes = append(pod.Spec.Volumes, tc.podInline...)
			p := framework.NewPodInfo(pod)
			cs := framework.NewCycleState()
			_, st := nl.PreFilter(context.Background(), cs, p)
			if st.IsSkip() != tc.skip || !tc.skip && !st.IsSuccess() {
				t.Fatalf("PreFilter: %v, want skip=%v", st, tc.skip)
			}
			if tc.skip {
				return
			}
			st = nl.Filter(context.Background(), cs, p, c.Get("n"))
			if st.Code() != tc.code || st.Message() != tc.msg {
				t.Errorf("Filter: %v %q, want %v %q", st.Code(), st.Message(), tc.code, tc.msg)
			}
		})
	}
}
