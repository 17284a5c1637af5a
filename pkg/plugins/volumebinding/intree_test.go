package volumebinding

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

// TestMigratedVolumeTopology: as kube-scheduler v1.37, a bound in-tree volume whose plugin
// the node's CSINode lists as migrated is checked in its CSI form, its zone under the
// driver's topology key (a GCE PD's from its zone label); a node without the annotation,
// or without a CSINode, checks it as it is; a volume the translation refuses fails the
// node with kube-scheduler's error.
func TestMigratedVolumeTopology(t *testing.T) {
	gce := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-gce", Labels: map[string]string{v1.LabelTopologyZone: "z0"}},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "d"}}}}
	ebs := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-ebs"},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://z0/vol-1"}},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn, Values: []string{"z0"}}}}}}}}}
	bad := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-bad"},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://z0/x/y"}}}}
	azureFile := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-files", Labels: map[string]string{v1.LabelTopologyZone: "z0"}},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{AzureFile: &v1.AzureFilePersistentVolumeSource{SecretName: "s", ShareName: "x"}}}}
	for _, tc := range []struct {
		name     string
		pv       *v1.PersistentVolume
		migrated string // the CSINode's annotation; "-" for no CSINode
		labels   map[string]string
		code     framework.Code
		msg      string
	}{
		{name: "GCE PD migrated, node in the driver's zone", pv: gce, migrated: "kubernetes.io/gce-pd",
			labels: map[string]string{"topology.gke.io/zone": "z0"}, code: framework.Success},
		{name: "GCE PD migrated, node without the driver's zone", pv: gce, migrated: "kubernetes.io/aws-ebs,kubernetes.io/gce-pd",
			labels: map[string]string{v1.LabelTopologyZone: "z0"}, code: framework.UnschedulableAndUnresolvable, msg: ErrReasonNodeConflict},
		{name: "GCE PD not migrated on the node", pv: gce, migrated: "kubernetes.io/aws-ebs", code: framework.Success},
		{name: "GCE PD, no CSINode", pv: gce, migrated: "-", code: framework.Success},
		{name: "EBS migrated: its zone term renamed", pv: ebs, migrated: "kubernetes.io/aws-ebs",
			labels: map[string]string{v1.LabelTopologyZone: "z0"}, code: framework.UnschedulableAndUnresolvable, msg: ErrReasonNodeConflict},
		{name: "EBS migrated, node in the driver's zone", pv: ebs, migrated: "kubernetes.io/aws-ebs",
			labels: map[string]string{"topology.ebs.csi.aws.com/zone": "z0"}, code: framework.Success},
		{name: "EBS not migrated: its own term", pv: ebs, migrated: "",
			labels: map[string]string{"topology.ebs.csi.aws.com/zone": "z0"}, code: framework.UnschedulableAndUnresolvable, msg: ErrReasonNodeConflict},
		{name: "a volume the translation refuses", pv: bad, migrated: "kubernetes.io/aws-ebs", code: framework.Error,
			msg: "could not translate pv: failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://z0/x/y)"},
		{name: "azureFile is never migrated", pv: azureFile, migrated: "kubernetes.io/azure-file", code: framework.Success},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cache.New()
			nb := testutil.Node("n").Capacity("cpu", "4")
			for k, v := range tc.labels {
				nb = nb.Labels(k, v)
			}
			c.Nodes().AddNode(nb.Obj())
			if tc.migrated != "-" {
				n := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
				if tc.migrated != "" {
					n.Annotations = map[string]string{v1.MigratedPluginsAnnotationKey: tc.migrated}
				}
				c.Storage().SetCSINode(n)
			}
			c.Storage().SetPV(tc.pv)
			c.Storage().SetPVC(testutil.PVC("data", tc.pv.Name))
			pl, err := New(nil, &testutil.Handle{Cache: c})
			if err != nil {
				t.Fatal(err)
			}
			vb := pl.(*VolumeBinding)
			p := framework.NewPodInfo(testutil.Pod("p").PVC("data").Obj())
			cs := framework.NewCycleState()
			if _, st := vb.PreFilter(context.Background(), cs, p); !st.IsSuccess() {
				t.Fatal(st)
			}
			st := vb.Filter(context.Background(), cs, p, c.Get("n"))
			if st.Code() != tc.code || st.Message() != tc.msg {
				t.Errorf("Filter: %v %q, want %v %q", st.Code(), st.Message(), tc.code, tc.msg)
			}
		})
	}
}
