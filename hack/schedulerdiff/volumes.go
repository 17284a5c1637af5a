package schedulerdiff

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/cache"
)

// The volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone) read
// claims, volumes, classes, CSINodes, CSIDrivers, CSIStorageCapacities and
// VolumeAttachments through informers that upstream's framework handle
// makes once per test, as it does for namespaces. So the storage objects are one fixed
// universe, the same for every case, and what varies is which claims the generated pods
// mount and where the bound ones run. The node names a case can have (node-0 to node-7)
// are fixed too, so each has its CSINode here, or deliberately none.
const (
	csiDriver      = "csi.example.com"
	classLocal     = "local"     // WaitForFirstConsumer, no provisioner: only the PVs below
	classDynamic   = "dynamic"   // WaitForFirstConsumer, provisioned by the CSI driver
	classImmediate = "immediate" // Immediate binding: an unbound claim of it blocks the pod
	// capacityDriver tracks storage capacity (its CSIDriver says storageCapacity) and must
	// be installed on a node to serve it (preventPodSchedulingIfMissing): nodes 0 to 5
	// list it in their CSINodes, without a limit.
	capacityDriver = "capacity.example.com"
	classTracked   = "tracked" // WaitForFirstConsumer, provisioned by capacityDriver
	maxNodes       = 8
)

// Claims are the claim names a pod may mount, each in the default namespace (a pod of
// another namespace that mounts one refers to a claim that does not exist there), plus
// one that exists nowhere.
var claimNames = []string{
	"bound-z0", "bound-z1", "bound-z2", "bound-node-1", // bound, to zonal or node-local PVs
	"rwop",               // bound, ReadWriteOncePod: one pod at a time
	"local-a", "local-b", // unbound, WaitForFirstConsumer, matched to the local PVs
	"dynamic", // unbound, WaitForFirstConsumer, provisioned
	// unbound, WaitForFirstConsumer, provisioned where a CSIStorageCapacity has room:
	// 5Gi, 30Gi and no size asked
	"tracked-small", "tracked-big", "tracked-nosize",
	"immediate-unbound", // unbound, Immediate: the pod waits for the PV controller
	"missing",           // no such claim
}

// StorageObjects are the storage universe, for upstream's informers.
func StorageObjects() []runtime.Object {
	var out []runtime.Object
	for _, sc := range storageClasses() {
		out = append(out, sc)
	}
	for _, pv := range persistentVolumes() {
		out = append(out, pv)
	}
	for _, pvc := range persistentVolumeClaims() {
		out = append(out, pvc)
	}
	for _, n := range csiNodes() {
		out = append(out, n)
	}
	for _, d := range csiDrivers() {
		out = append(out, d)
	}
	for _, c := range storageCapacities() {
		out = append(out, c)
	}
	for _, a := range volumeAttachments() {
		out = append(out, a)
	}
	return out
}

// setStorage puts the storage universe in phalanx's cache.
func setStorage(c *cache.Cache) {
	vs := c.Storage()
	for _, sc := range storageClasses() {
		vs.SetStorageClass(sc)
	}
	for _, pv := range persistentVolumes() {
		vs.SetPV(pv)
	}
	for _, pvc := range persistentVolumeClaims() {
		vs.SetPVC(pvc)
	}
	for _, n := range csiNodes() {
		vs.SetCSINode(n)
	}
	for _, d := range csiDrivers() {
		vs.SetCSIDriver(d)
	}
	for _, c := range storageCapacities() {
		vs.SetStorageCapacity(c)
	}
	for _, a := range volumeAttachments() {
		vs.SetVolumeAttachment(a)
	}
}

// setStorageObjects puts a case's own storage objects in phalanx's cache (an upstream
// table's, Case.Storage); an object of another kind is a transcription mistake.
func setStorageObjects(c *cache.Cache, objs []runtime.Object) {
	vs := c.Storage()
	for _, o := range objs {
		switch o := o.(type) {
		case *storagev1.StorageClass:
			vs.SetStorageClass(o)
		case *v1.PersistentVolume:
			vs.SetPV(o)
		case *v1.PersistentVolumeClaim:
			vs.SetPVC(o)
		case *storagev1.CSINode:
			vs.SetCSINode(o)
		case *storagev1.CSIDriver:
			vs.SetCSIDriver(o)
		case *storagev1.CSIStorageCapacity:
			vs.SetStorageCapacity(o)
		case *storagev1.VolumeAttachment:
			vs.SetVolumeAttachment(o)
		default:
			panic(fmt.Sprintf("a storage object of kind %T", o))
		}
	}
}

// csiDrivers: the first driver neither tracks capacity nor must be installed; the
// capacity driver does both.
func csiDrivers() []*storagev1.CSIDriver {
	return append([]*storagev1.CSIDriver{
		{ObjectMeta: metav1.ObjectMeta{Name: csiDriver}, Spec: storagev1.CSIDriverSpec{StorageCapacity: pointerTo(false), PreventPodSchedulingIfMissing: pointerTo(false)}},
		{ObjectMeta: metav1.ObjectMeta{Name: capacityDriver}, Spec: storagev1.CSIDriverSpec{StorageCapacity: pointerTo(true), PreventPodSchedulingIfMissing: pointerTo(true)}},
	}, inTreeCSIDrivers()...)
}

// storageCapacities of the tracked class, one per zone and one for the nodes without a
// zone, so that no node reaches two (kube-scheduler scores by the first it lists, in no
// fixed order): z0 50Gi, z1 100Gi in volumes of at most 20Gi, z2 3Gi, no zone 8Gi. One
// without a nodeTopology reaches no node; one of the dynamic class is ignored (its driver
// does not track capacity).
func storageCapacities() []*storagev1.CSIStorageCapacity {
	c := func(name, class, capacity, maxSize string, topology *metav1.LabelSelector) *storagev1.CSIStorageCapacity {
		out := &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name}, StorageClassName: class, NodeTopology: topology}
		q := resource.MustParse(capacity)
		out.Capacity = &q
		if maxSize != "" {
			m := resource.MustParse(maxSize)
			out.MaximumVolumeSize = &m
		}
		return out
	}
	zone := func(z string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{zoneKey: z}}
	}
	return []*storagev1.CSIStorageCapacity{
		c("tracked-z0", classTracked, "50Gi", "", zone("z0")),
		c("tracked-z1", classTracked, "100Gi", "20Gi", zone("z1")),
		c("tracked-z2", classTracked, "3Gi", "", zone("z2")),
		c("tracked-no-zone", classTracked, "8Gi", "", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: zoneKey, Operator: metav1.LabelSelectorOpDoesNotExist}}}),
		c("tracked-nowhere", classTracked, "1Ti", "", nil),
		c("dynamic-z0", classDynamic, "1Gi", "", zone("z0")),
	}
}

// volumeAttachments attach volumes no pod of a case need use: node-0 the zonal volume of
// bound-z0 (counted once with a pod mounting it there), node-1 and node-2 a volume of a
// pod gone; ignored, node-3's of a volume that does not exist, node-4's of a volume that
// is not CSI, node-5's by the capacity driver (no limit).
func volumeAttachments() []*storagev1.VolumeAttachment {
	va := func(node int, attacher, pv string) *storagev1.VolumeAttachment {
		n := fmt.Sprintf("node-%d", node)
		return &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va-" + pv + "-" + n},
			Spec: storagev1.VolumeAttachmentSpec{Attacher: attacher, NodeName: n, Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: pointerTo(pv)}}}
	}
	return []*storagev1.VolumeAttachment{
		va(0, csiDriver, "pv-bound-z0"),
		va(1, csiDriver, "pv-gone-pod"),
		va(2, csiDriver, "pv-gone-pod"),
		va(3, csiDriver, "pv-does-not-exist"),
		va(4, csiDriver, "pv-nfs"),
		va(5, capacityDriver, "pv-gone-pod"),
	}
}

func storageClasses() []*storagev1.StorageClass {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	immediate := storagev1.VolumeBindingImmediate
	return append([]*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: classLocal}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &wffc},
		{ObjectMeta: metav1.ObjectMeta{Name: classDynamic}, Provisioner: csiDriver, VolumeBindingMode: &wffc},
		{ObjectMeta: metav1.ObjectMeta{Name: classImmediate}, Provisioner: csiDriver, VolumeBindingMode: &immediate},
		{ObjectMeta: metav1.ObjectMeta{Name: classTracked}, Provisioner: capacityDriver, VolumeBindingMode: &wffc},
	}, inTreeClasses()...)
}

// pv is a CSI volume of a class, of 10Gi unless said, reachable from the nodes the
// selector term allows.
func pv(name, class string, modes []v1.PersistentVolumeAccessMode, term v1.NodeSelectorRequirement, claim string) *v1.PersistentVolume {
	p := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec: v1.PersistentVolumeSpec{
			Capacity:         v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:      modes,
			StorageClassName: class,
			PersistentVolumeSource: v1.PersistentVolumeSource{
				CSI: &v1.CSIPersistentVolumeSource{Driver: csiDriver, VolumeHandle: "handle-" + name},
			},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{term}}},
			}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	if term.Key == zoneKey {
		// VolumeZone reads the zone from the volume's labels, as cloud volumes carry it.
		p.Labels[zoneKey] = term.Values[0]
	}
	if claim != "" {
		p.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: claim, UID: types.UID("uid-pvc-" + claim)}
		p.Status.Phase = v1.VolumeBound
	}
	return p
}

func persistentVolumes() []*v1.PersistentVolume {
	rwo := []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	zone := func(z string) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: zoneKey, Operator: v1.NodeSelectorOpIn, Values: []string{z}}
	}
	host := func(n int) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: hostnameKey, Operator: v1.NodeSelectorOpIn, Values: []string{fmt.Sprintf("node-%d", n)}}
	}
	out := []*v1.PersistentVolume{
		pv("pv-bound-z0", classDynamic, rwo, zone("z0"), "bound-z0"),
		pv("pv-bound-z1", classDynamic, rwo, zone("z1"), "bound-z1"),
		pv("pv-bound-z2", classDynamic, rwo, zone("z2"), "bound-z2"),
		pv("pv-bound-node-1", classLocal, rwo, host(1), "bound-node-1"),
		pv("pv-rwop", classDynamic, []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod}, zone("z0"), "rwop"),
	}
	// Available local volumes on some nodes, for the WaitForFirstConsumer claims to find.
	for _, n := range []int{0, 2, 3, 5} {
		out = append(out, pv(fmt.Sprintf("pv-local-node-%d", n), classLocal, rwo, host(n), ""))
	}
	small := pv("pv-local-small-node-4", classLocal, rwo, host(4), "")
	small.Spec.Capacity[v1.ResourceStorage] = resource.MustParse("1Gi")
	// The volume of a pod gone, still attached (volumeAttachments), bound to no claim of
	// the universe; and a volume that is not CSI.
	gone := pv("pv-gone-pod", "", rwo, zone("z1"), "")
	gone.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "other", Name: "gone", UID: "uid-pvc-gone"}
	gone.Status.Phase = v1.VolumeReleased
	nfs := pv("pv-nfs", "", rwo, zone("z2"), "")
	nfs.Spec.CSI, nfs.Spec.NFS = nil, &v1.NFSVolumeSource{Server: "nfs.example.com", Path: "/"}
	nfs.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "other", Name: "nfs", UID: "uid-pvc-nfs"}
	nfs.Status.Phase = v1.VolumeReleased
	return append(append(out, small, gone, nfs), inTreePVs()...)
}

func persistentVolumeClaims() []*v1.PersistentVolumeClaim {
	claim := func(name, class, volume string, modes ...v1.PersistentVolumeAccessMode) *v1.PersistentVolumeClaim {
		return sizedClaim(name, class, volume, "5Gi", modes...)
	}
	return append([]*v1.PersistentVolumeClaim{
		claim("bound-z0", classDynamic, "pv-bound-z0"),
		claim("bound-z1", classDynamic, "pv-bound-z1"),
		claim("bound-z2", classDynamic, "pv-bound-z2"),
		claim("bound-node-1", classLocal, "pv-bound-node-1"),
		claim("rwop", classDynamic, "pv-rwop", v1.ReadWriteOncePod),
		claim("local-a", classLocal, ""),
		claim("local-b", classLocal, ""),
		claim("dynamic", classDynamic, ""),
		claim("immediate-unbound", classImmediate, ""),
		claim("tracked-small", classTracked, ""),
		sizedClaim("tracked-big", classTracked, "", "30Gi"),
		sizedClaim("tracked-nosize", classTracked, "", ""),
	}, inTreeClaims()...)
}

// sizedClaim is a claim of the default namespace asking a size ("" for none), bound to the
// volume named (none: "").
func sizedClaim(name, class, volume, size string, modes ...v1.PersistentVolumeAccessMode) *v1.PersistentVolumeClaim {
	if len(modes) == 0 {
		modes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
	c := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-pvc-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      modes,
			StorageClassName: pointerTo(class),
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{}},
			VolumeName:       volume,
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
	if size != "" {
		c.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse(size)
	}
	if volume != "" {
		// Bound as the PV controller leaves a claim: annotated as completed.
		c.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
		c.Status.Phase = v1.ClaimBound
		c.Status.AccessModes = modes
		c.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")}
	}
	return c
}

// csiNodes gives node-i an attach limit for the CSI driver of 1 + i%3 volumes; node-6 has
// the driver without a limit and node-7 no CSINode at all. Nodes 0 to 5 also list the
// capacity driver, without a limit. The migrated drivers of in-tree volumes and the
// migrated-plugins annotations are intree.go's.
func csiNodes() []*storagev1.CSINode {
	var out []*storagev1.CSINode
	for i := range maxNodes - 1 {
		d := storagev1.CSINodeDriver{Name: csiDriver, NodeID: fmt.Sprintf("node-%d", i), TopologyKeys: []string{zoneKey}}
		if i < maxNodes-2 {
			d.Allocatable = &storagev1.VolumeNodeResources{Count: pointerTo(int32(1 + i%3))}
		}
		drivers := []storagev1.CSINodeDriver{d}
		if i < maxNodes-2 {
			drivers = append(drivers, storagev1.CSINodeDriver{Name: capacityDriver, NodeID: fmt.Sprintf("node-%d", i)})
		}
		drivers = append(drivers, inTreeCSINodeDrivers(i)...)
		n := &storagev1.CSINode{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)},
			Spec:       storagev1.CSINodeSpec{Drivers: drivers},
		}
		if a := migratedPlugins[i]; a != "" {
			n.Annotations = map[string]string{v1.MigratedPluginsAnnotationKey: a}
		}
		out = append(out, n)
	}
	return out
}

// volumes gives a pod claims of the universe to mount, from its own random stream (so
// that adding volumes to the generator changed no case drawn before): a few pods mount
// one or two claims, now and then read-only.
func volumes(r *rand.Rand, p *v1.Pod, incoming bool) {
	chance := 0.15
	if incoming {
		chance = 0.35
	}
	if r.Float64() >= chance {
		return
	}
	for i := range 1 + r.IntN(2) {
		claim := claimNames[r.IntN(len(claimNames))]
		vol := v1.Volume{Name: fmt.Sprintf("vol-%d", i), VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: r.Float64() < 0.1},
		}}
		p.Spec.Volumes = append(p.Spec.Volumes, vol)
	}
}

func pointerTo[T any](v T) *T { return &v }
