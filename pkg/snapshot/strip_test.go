package snapshot

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestStripKeepsImagesAndFeatures: what ImageLocality and NodeDeclaredFeatures read
// survives the snapshot: a node's images and declared features, a pod's images (image
// volumes too), host network, user namespace and restart rules.
func TestStripKeepsImagesAndFeatures(t *testing.T) {
	images := []v1.ContainerImage{{Names: []string{"app:v1", "app@sha256:1"}, SizeBytes: 5 << 30}}
	features := []string{"RestartAllContainersOnContainerExits"}
	n := node(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{
		Images: images, DeclaredFeatures: features,
		Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}})
	if !reflect.DeepEqual(n.Status.Images, images) || !reflect.DeepEqual(n.Status.DeclaredFeatures, features) || n.Status.Conditions != nil {
		t.Errorf("node status %+v", n.Status)
	}
	hostUsers := false
	never := v1.ContainerRestartPolicyNever
	rules := []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &v1.ContainerRestartRuleOnExitCodes{Operator: v1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
	p := pod(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: v1.PodSpec{
		HostNetwork: true, HostUsers: &hostUsers,
		Containers: []v1.Container{{Name: "c", Image: "app:v1", RestartPolicy: &never, RestartPolicyRules: rules, Command: []string{"x"}}},
		Volumes:    []v1.Volume{{Name: "model", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "weights:v3", PullPolicy: v1.PullIfNotPresent}}}},
	}}, time.Now())
	s := p.Spec
	if !s.HostNetwork || s.HostUsers == nil || *s.HostUsers || !reflect.DeepEqual(s.Containers[0].RestartPolicyRules, rules) || s.Containers[0].Command != nil {
		t.Errorf("pod spec %+v", s)
	}
	if len(s.Volumes) != 1 || s.Volumes[0].Image == nil || s.Volumes[0].Image.Reference != "weights:v3" {
		t.Errorf("volumes %+v", s.Volumes)
	}
}

// TestStripKeepsDeviceSharesAndBindingConditions: what consumable capacity and device
// binding conditions read survives the snapshot: a slice's shared devices with their
// capacity and binding conditions, a claim's shares with the capacity they consume, and
// the allocated devices' conditions (their other status data is dropped).
func TestStripKeepsDeviceSharesAndBindingConditions(t *testing.T) {
	yes := true
	node := "n1"
	sl := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: resourceapi.ResourceSliceSpec{
		Driver: "d", NodeName: &node, Pool: resourceapi.ResourcePool{Name: "p"},
		Devices: []resourceapi.Device{{Name: "gpu-0", AllowMultipleAllocations: &yes,
			Capacity:          map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}},
			BindingConditions: []string{"Attached"}, BindingFailureConditions: []string{"Failed"}, BindsToNode: &yes}},
	}}
	if got := resourceSlice(sl); !reflect.DeepEqual(got.Spec, sl.Spec) {
		t.Errorf("slice spec %+v", got.Spec)
	}
	share := types.UID("abc")
	alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
		Request: "gpu", Driver: "d", Pool: "p", Device: "gpu-0", ShareID: &share,
		ConsumedCapacity:  map[resourceapi.QualifiedName]resource.Quantity{"memory": resource.MustParse("16Gi")},
		BindingConditions: []string{"Attached"}, BindingFailureConditions: []string{"Failed"},
	}}}}
	conds := []metav1.Condition{{Type: "Attached", Status: metav1.ConditionTrue}}
	cl := resourceClaim(&resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}, Status: resourceapi.ResourceClaimStatus{
		Allocation: alloc,
		Devices: []resourceapi.AllocatedDeviceStatus{{Driver: "d", Pool: "p", Device: "gpu-0", ShareID: ptr("abc"), Conditions: conds,
			NetworkData: &resourceapi.NetworkDeviceData{InterfaceName: "eth1"}}},
	}})
	if !reflect.DeepEqual(cl.Status.Allocation, alloc) {
		t.Errorf("allocation %+v", cl.Status.Allocation)
	}
	if len(cl.Status.Devices) != 1 || !reflect.DeepEqual(cl.Status.Devices[0].Conditions, conds) || *cl.Status.Devices[0].ShareID != "abc" || cl.Status.Devices[0].NetworkData != nil {
		t.Errorf("device status %+v", cl.Status.Devices)
	}
}

func ptr(s string) *string { return &s }

// TestStripKeepsInTreeVolumes: what in-tree volumes migrated to CSI need survives the
// snapshot (decision 43): a CSINode's migrated-plugins annotation, the seven in-tree
// sources of volumes and of pods' inline volumes, Cinder's without its secret.
func TestStripKeepsInTreeVolumes(t *testing.T) {
	ann := map[string]string{v1.MigratedPluginsAnnotationKey: "kubernetes.io/gce-pd", "other.example.com/x": "y"}
	n := csiNode(&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "n1", Annotations: ann}})
	if !reflect.DeepEqual(n.Annotations, map[string]string{v1.MigratedPluginsAnnotationKey: "kubernetes.io/gce-pd"}) {
		t.Errorf("CSINode annotations %v", n.Annotations)
	}
	secret := &v1.LocalObjectReference{Name: "s"}
	for _, src := range []v1.PersistentVolumeSource{
		{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"}},
		{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "d"}},
		{AzureDisk: &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "uri"}},
		{AzureFile: &v1.AzureFilePersistentVolumeSource{SecretName: "s", ShareName: "x"}},
		{Cinder: &v1.CinderPersistentVolumeSource{VolumeID: "c", SecretRef: &v1.SecretReference{Name: "s"}}},
		{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "p"}},
		{PortworxVolume: &v1.PortworxVolumeSource{VolumeID: "px"}},
	} {
		got := persistentVolume(&v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}, Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: src}}).Spec.PersistentVolumeSource
		want := *src.DeepCopy()
		if want.Cinder != nil {
			want.Cinder.SecretRef = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("volume source %+v, want %+v", got, want)
		}
	}
	inline := []v1.VolumeSource{
		{AzureDisk: &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "uri"}},
		{AzureFile: &v1.AzureFileVolumeSource{SecretName: "s", ShareName: "x"}},
		{Cinder: &v1.CinderVolumeSource{VolumeID: "c", SecretRef: secret}},
		{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "p"}},
		{PortworxVolume: &v1.PortworxVolumeSource{VolumeID: "px"}},
	}
	var vols []v1.Volume
	for i, src := range inline {
		vols = append(vols, v1.Volume{Name: fmt.Sprint("v", i), VolumeSource: src})
	}
	got := volumes(vols)
	if len(got) != len(inline) {
		t.Fatalf("volumes %+v", got)
	}
	for i, v := range got {
		want := *inline[i].DeepCopy()
		if want.Cinder != nil {
			want.Cinder.SecretRef = nil
		}
		if !reflect.DeepEqual(v.VolumeSource, want) {
			t.Errorf("inline volume %+v, want %+v", v.VolumeSource, want)
		}
	}
}
