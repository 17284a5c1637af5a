package schedulerdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// In-tree volumes migrated to CSI (decision 43): the part of the storage universe with
// awsElasticBlockStore, gcePersistentDisk, azureDisk, azureFile, cinder, vsphereVolume and
// portworxVolume volumes, bound to claims, inline in pods, or provisioned by an in-tree
// provisioner; the CSINodes list the migrated drivers with limits and name some migrated
// plugins in their storage.alpha.kubernetes.io/migrated-plugins annotation, and nodes
// carry some drivers' topology labels. Which of these a case uses comes from a random
// stream of its own (inTree), so the cases drawn before are the same clusters with
// in-tree volumes added.
const (
	ebsDriver      = "ebs.csi.aws.com"
	gceDriver      = "pd.csi.storage.gke.io"
	azureDriver    = "disk.csi.azure.com"
	cinderDriver   = "cinder.csi.openstack.org"
	portworxDriver = "pxd.portworx.com"
	gceTopology    = "topology.gke.io/zone"
	ebsTopology    = "topology.ebs.csi.aws.com/zone"
	cinderTopology = "topology.cinder.csi.openstack.org/zone"
	classInTreeEBS = "intree-ebs"     // WaitForFirstConsumer, provisioned by kubernetes.io/aws-ebs
	classVSphere   = "intree-vsphere" // WaitForFirstConsumer, kubernetes.io/vsphere-volume (not migrated)
)

var allPlugins = "kubernetes.io/aws-ebs,kubernetes.io/gce-pd,kubernetes.io/azure-disk,kubernetes.io/cinder,kubernetes.io/portworx-volume,kubernetes.io/azure-file,kubernetes.io/vsphere-volume"

// migratedPlugins is the migrated-plugins annotation of node-i's CSINode ("": none).
var migratedPlugins = []string{
	0: allPlugins,
	1: "kubernetes.io/aws-ebs",
	2: "kubernetes.io/gce-pd,kubernetes.io/azure-file",
	3: allPlugins,
	4: "",
	5: "kubernetes.io/cinder,kubernetes.io/vsphere-volume,kubernetes.io/azure-disk",
	6: "kubernetes.io/gce-pd,kubernetes.io/aws-ebs",
}

// inTreeCSINodeDrivers are the migrated drivers node-i's CSINode lists: EBS with a limit
// of 1 or 2 on nodes 0 to 3, GCE PD with 2 on the even nodes, Azure Disk with 1 on nodes
// 1 and 5, Cinder with 1 on node 3, Portworx without a limit on node 6. The GCE PD
// CSIDriver must be installed (preventPodSchedulingIfMissing): the odd nodes lack it.
func inTreeCSINodeDrivers(i int) []storagev1.CSINodeDriver {
	d := func(name string, limit int) storagev1.CSINodeDriver {
		out := storagev1.CSINodeDriver{Name: name, NodeID: fmt.Sprintf("node-%d", i)}
		if limit > 0 {
			out.Allocatable = &storagev1.VolumeNodeResources{Count: pointerTo(int32(limit))}
		}
		return out
	}
	var out []storagev1.CSINodeDriver
	if i <= 3 {
		out = append(out, d(ebsDriver, 1+i%2))
	}
	if i%2 == 0 {
		out = append(out, d(gceDriver, 2))
	}
	if i == 1 || i == 5 {
		out = append(out, d(azureDriver, 1))
	}
	if i == 3 {
		out = append(out, d(cinderDriver, 1))
	}
	if i == 6 {
		out = append(out, d(portworxDriver, 0))
	}
	return out
}

func inTreeCSIDrivers() []*storagev1.CSIDriver {
	return []*storagev1.CSIDriver{
		{ObjectMeta: metav1.ObjectMeta{Name: gceDriver}, Spec: storagev1.CSIDriverSpec{PreventPodSchedulingIfMissing: pointerTo(true)}},
	}
}

func inTreeClasses() []*storagev1.StorageClass {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	return []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: classInTreeEBS}, Provisioner: "kubernetes.io/aws-ebs", VolumeBindingMode: &wffc},
		{ObjectMeta: metav1.ObjectMeta{Name: classVSphere}, Provisioner: "kubernetes.io/vsphere-volume", VolumeBindingMode: &wffc},
	}
}

// inTreePV is a volume bound to the claim of its name without "pv-", with the source
// given, zone labels and node affinity requirements (one term) as given.
func inTreePV(name string, src v1.PersistentVolumeSource, labels map[string]string, reqs ...v1.NodeSelectorRequirement) *v1.PersistentVolume {
	claim := strings.TrimPrefix(name, "pv-")
	p := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: v1.PersistentVolumeSpec{
			Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:            []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: src,
			ClaimRef:               &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: claim, UID: types.UID("uid-pvc-" + claim)},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	if len(reqs) > 0 {
		p.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: reqs}}}}
	}
	return p
}

func in(key string, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}
}

// inTreePVs: each path of the translation. GCE PDs zonal by a GA or beta zone label (no
// node affinity: the translation adds the driver's zone), regional, and with zones the
// translation refuses (not {locale}-{region}-{zone}; two regions); EBS volumes by URL
// (with a zone term renamed to the driver's key) and by ID, the same volume twice, one
// whose URL is refused, one with beta zone and region terms; Azure disks managed and
// shared (refused); a Cinder volume on a host, its zone label added to the term; Portworx;
// and the two plugins kube-scheduler never migrates, Azure File and vSphere.
func inTreePVs() []*v1.PersistentVolume {
	gce := func(disk string) v1.PersistentVolumeSource {
		return v1.PersistentVolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: disk}}
	}
	ebs := func(id string) v1.PersistentVolumeSource {
		return v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id}}
	}
	azure := func(uri string, kind v1.AzureDataDiskKind) v1.PersistentVolumeSource {
		s := &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: uri}
		if kind != "" {
			s.Kind = &kind
		}
		return v1.PersistentVolumeSource{AzureDisk: s}
	}
	zone := func(key, z string) map[string]string { return map[string]string{key: z} }
	return []*v1.PersistentVolume{
		inTreePV("pv-gce-z0", gce("disk-a"), zone(zoneKey, "z0")),
		inTreePV("pv-gce-beta-z1", gce("disk-b"), zone(v1.LabelFailureDomainBetaZone, "z1")),
		inTreePV("pv-gce-regional", gce("disk-c"), zone(zoneKey, "us-east1-b__us-east1-c")),
		inTreePV("pv-gce-bad-zones", gce("disk-d"), zone(zoneKey, "z0__z1")),
		inTreePV("pv-gce-two-regions", gce("disk-e"), zone(zoneKey, "us-east1-b__us-west1-a")),
		inTreePV("pv-ebs-z1", ebs("aws://z1/vol-ebs1"), zone(zoneKey, "z1"), in(zoneKey, "z1")),
		inTreePV("pv-ebs-id", ebs("vol-ebs1"), nil),
		inTreePV("pv-ebs-bad", ebs("aws://z1/bad/x"), nil),
		inTreePV("pv-ebs-beta", ebs("vol-ebs3"), zone(v1.LabelFailureDomainBetaZone, "z2"),
			in(v1.LabelFailureDomainBetaZone, "z2"), in(v1.LabelFailureDomainBetaRegion, "r1")),
		inTreePV("pv-azure", azure("/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d1", ""), nil),
		inTreePV("pv-azure-shared", azure("/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d2", v1.AzureSharedBlobDisk), nil),
		inTreePV("pv-cinder", v1.PersistentVolumeSource{Cinder: &v1.CinderPersistentVolumeSource{VolumeID: "cinder-1"}},
			zone(zoneKey, "z2"), in(hostnameKey, "node-3", "node-5")),
		inTreePV("pv-portworx", v1.PersistentVolumeSource{PortworxVolume: &v1.PortworxVolumeSource{VolumeID: "px-1"}}, nil),
		inTreePV("pv-azurefile", v1.PersistentVolumeSource{AzureFile: &v1.AzureFilePersistentVolumeSource{SecretName: "s", ShareName: "share"}}, nil),
		inTreePV("pv-vsphere", v1.PersistentVolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] v.vmdk"}}, zone(zoneKey, "z0")),
	}
}

// inTreeClaims: one bound claim per volume of inTreePVs, and an unbound claim of each
// in-tree provisioner's class.
func inTreeClaims() []*v1.PersistentVolumeClaim {
	var out []*v1.PersistentVolumeClaim
	for _, pv := range inTreePVs() {
		out = append(out, sizedClaim(pv.Spec.ClaimRef.Name, "", pv.Name, "5Gi"))
	}
	return append(out,
		sizedClaim("ebs-unbound", classInTreeEBS, "", "5Gi"),
		sizedClaim("vsphere-unbound", classVSphere, "", "5Gi"))
}

var inTreeClaimNames = func() []string {
	var out []string
	for _, c := range inTreeClaims() {
		out = append(out, c.Name)
	}
	return out
}()

// inlineVolumes are the inline in-tree volumes a pod may have, each named after its kind
// (so a pod has each at most once): the same disks and volumes as some of inTreePVs, and
// those the translation refuses (an EBS URL, a shared Azure disk).
func inlineVolumes() []v1.Volume {
	shared := v1.AzureSharedBlobDisk
	v := func(name string, src v1.VolumeSource) v1.Volume { return v1.Volume{Name: name, VolumeSource: src} }
	return []v1.Volume{
		v("inline-gce", v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "disk-a", ReadOnly: true}}),
		v("inline-ebs", v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://z1/vol-ebs1"}}),
		v("inline-ebs-other", v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-ebs9"}}),
		v("inline-ebs-bad", v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://z1/bad/x"}}),
		v("inline-azure", v1.VolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d1"}}),
		v("inline-azure-shared", v1.VolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "uri-shared", Kind: &shared}}),
		v("inline-cinder", v1.VolumeSource{Cinder: &v1.CinderVolumeSource{VolumeID: "cinder-1"}}),
		v("inline-portworx", v1.VolumeSource{PortworxVolume: &v1.PortworxVolumeSource{VolumeID: "px-2"}}),
		v("inline-azurefile", v1.VolumeSource{AzureFile: &v1.AzureFileVolumeSource{SecretName: "s", ShareName: "share"}}),
		v("inline-vsphere", v1.VolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] v.vmdk"}}),
	}
}

// inTree draws a case's in-tree part from a stream of its own: the drivers' topology
// labels on nodes with a zone (mostly the same zone, now and then another), and in-tree
// claims and inline volumes for some pods.
func inTree(seed uint64, c *Case) {
	r := rand.New(rand.NewPCG(seed, 0x702))
	for _, n := range c.Nodes {
		z, ok := n.Labels[zoneKey]
		if !ok {
			continue
		}
		for _, key := range []string{gceTopology, ebsTopology, cinderTopology} {
			if r.Float64() < 0.6 {
				v := z
				if r.Float64() < 0.15 {
					v = zones[r.IntN(len(zones))]
				}
				n.Labels[key] = v
			}
		}
	}
	inline := inlineVolumes()
	add := func(p *v1.Pod, chance float64) {
		if r.Float64() >= chance {
			return
		}
		for i := range 1 + r.IntN(2) {
			if r.Float64() < 0.5 {
				claim := inTreeClaimNames[r.IntN(len(inTreeClaimNames))]
				p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: fmt.Sprintf("intree-%d", i), VolumeSource: v1.VolumeSource{
					PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
				}})
				continue
			}
			vol := inline[r.IntN(len(inline))]
			if !hasVolume(p, vol.Name) {
				p.Spec.Volumes = append(p.Spec.Volumes, *vol.DeepCopy())
			}
		}
	}
	for _, p := range c.Pods {
		add(p, 0.2)
	}
	add(c.Pod, 0.4)
}

func hasVolume(p *v1.Pod, name string) bool {
	for _, v := range p.Spec.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

// inTreeClaimSet are the claims of the universe whose volumes are in-tree or provisioned
// by an in-tree plugin.
var inTreeClaimSet = func() map[string]bool {
	out := map[string]bool{}
	for _, n := range inTreeClaimNames {
		out[n] = true
	}
	return out
}()

// usesInTree reports whether a pod mounts an in-tree volume: inline, or through a claim
// of the universe's in-tree part.
func usesInTree(p *v1.Pod) bool {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && inTreeClaimSet[v.PersistentVolumeClaim.ClaimName] || strings.HasPrefix(v.Name, "inline-") {
			return true
		}
	}
	return false
}

// countInTree counts a case for the report of the comparison of NodeVolumeLimits and
// VolumeBinding, when the pod to place mounts in-tree volumes: how many, and
// kube-scheduler's verdicts on the nodes (code and the reason's start), so the report shows
// which paths of the migration the cases reach.
func countInTree(counts map[string]int, name string, c *Case, r *PluginResult) {
	if !usesInTree(c.Pod) {
		return
	}
	counts[name+": pod with in-tree volumes"]++
	for _, v := range r.Filter {
		reason := ""
		if len(v.Reasons) > 0 {
			reason, _, _ = strings.Cut(v.Reasons[0], ":")
		}
		if strings.HasPrefix(reason, "looking up PVC") || strings.HasPrefix(reason, "persistentvolumeclaim") {
			reason = "claim not found"
		}
		counts[name+": "+v.Code+" "+reason]++
	}
}
