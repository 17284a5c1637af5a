//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestStorageCapacity: a WaitForFirstConsumer claim to provision by a CSI driver that
// tracks storage capacity (its CSIDriver says storageCapacity: true) goes only where a
// CSIStorageCapacity has room for it. Node a's capacity is too small, node b's is not:
// phalanx names node b on the claim (selected-node). The test then plays the external
// provisioner (kwok nodes run none): it makes a volume on b pre-bound to the claim, the PV
// controller completes the binding, and phalanx binds the pod to b.
func TestStorageCapacity(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	ns := c.CreateNamespace(t)
	pin := map[string]string{pinLabel: e2eutil.UniqueName(t, "cap")}
	a := c.CreateNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	b := c.CreateNode(t, e2eutil.Node{CPU: "8", Memory: "16Gi", Labels: pin})
	c.WaitNodeReady(t, a.Name)
	c.WaitNodeReady(t, b.Name)

	driver := e2eutil.UniqueName(t, "capacity") + ".csi.e2e.phalanx.dev"
	yes := true
	if _, err := c.Client.StorageV1().CSIDrivers().Create(ctx, &storagev1.CSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: driver}, Spec: storagev1.CSIDriverSpec{StorageCapacity: &yes},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.StorageV1().CSIDrivers().Delete(context.Background(), driver, metav1.DeleteOptions{})
	})
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: e2eutil.UniqueName(t, "tracked")}, Provisioner: driver, VolumeBindingMode: &wffc}
	if _, err := c.Client.StorageV1().StorageClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.StorageV1().StorageClasses().Delete(context.Background(), class.Name, metav1.DeleteOptions{})
	})
	capacity := func(node, size string) {
		q := resource.MustParse(size)
		sc := &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "on-" + node}, StorageClassName: class.Name,
			NodeTopology: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelHostname: node}}, Capacity: &q}
		if _, err := c.Client.StorageV1().CSIStorageCapacities(ns).Create(ctx, sc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	capacity(a.Name, "1Gi")
	capacity(b.Name, "100Gi")
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class.Name,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}},
		},
	}
	created, err := c.Client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := c.StartPhalanx(t, "capacity")
	p.WaitReady(t)

	pod := e2eutil.Pod{Namespace: ns, Name: "trainer", SchedulerName: e2eutil.SchedulerName(t), CPU: "1", Memory: "100Mi"}.Build()
	pod.Spec.NodeSelector = pin
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
	}}}
	c.CreatePod(t, pod)

	var selected string
	e2eutil.WaitFor(t, 2*time.Minute, "a node named on the claim", func(ctx context.Context) (bool, error) {
		got, err := c.Client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		selected = got.Annotations["volume.kubernetes.io/selected-node"]
		return selected != "", nil
	})
	if selected != b.Name {
		t.Fatalf("claim provisioned on %s, want %s (the only node whose storage capacity has room)", selected, b.Name)
	}
	// The provisioner's part: a volume on the selected node, pre-bound to the claim.
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e2eutil.UniqueName(t, "pv")},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName:              class.Name,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "vol-" + selected}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: ns, Name: "data", UID: created.UID},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{selected}}},
			}}}},
		},
	}
	if _, err := c.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
	})
	bound := c.WaitPodsBound(t, ns, []string{"trainer"}, 2*time.Minute)
	if got := bound["trainer"].Spec.NodeName; got != b.Name {
		t.Errorf("trainer bound to %s, want %s", got, b.Name)
	}
}
