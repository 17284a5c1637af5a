package snapshot

import (
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// The simulator's timeline annotations a terminating pod is written with.
const (
	annotationDeleteAt       = "sim.phalanx.dev/delete-at"
	annotationTerminateAfter = "sim.phalanx.dev/terminate-after"
)

// keptAnnotations are the annotation prefixes scheduling, the simulator or the
// controllers it models read; every other annotation is dropped.
var keptAnnotations = []string{
	"sim.phalanx.dev/",
	"scheduling.phalanx.dev/",
	"resource.kubernetes.io/",                      // a claim's pod-claim-name
	"pv.kubernetes.io/",                            // volume binding
	"volume.kubernetes.io/",                        // selected-node, storage-provisioner
	"volume.beta.kubernetes.io/",                   // the older spellings
	"storage.alpha.kubernetes.io/migrated-plugins", // a CSINode's in-tree plugins migrated to CSI
	"storageclass.kubernetes.io/is-default-class",
	"batch.kubernetes.io/job-completion-index",
}

// meta keeps of an object's metadata what scheduling reads: name, namespace, UID, labels,
// the kept annotations and the controller owner reference (a pod's replacement depends on
// its controller's kind).
func meta(m *metav1.ObjectMeta) metav1.ObjectMeta {
	out := metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, Labels: m.Labels}
	for k, v := range m.Annotations {
		for _, p := range keptAnnotations {
			if strings.HasPrefix(k, p) {
				if out.Annotations == nil {
					out.Annotations = map[string]string{}
				}
				out.Annotations[k] = v
				break
			}
		}
	}
	if ref := metav1.GetControllerOf(m); ref != nil {
		out.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	return out
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

// pod keeps a pod's scheduling constraints and requests, its node, its priority and what
// its claims and volumes are. A pod being deleted is written to go at once with the time
// its grace period has left (the simulator's timeline annotations), as seen at now.
func pod(p *v1.Pod, now time.Time) *v1.Pod {
	s := &p.Spec
	out := &v1.Pod{TypeMeta: typeMeta("v1", "Pod"), ObjectMeta: meta(&p.ObjectMeta), Spec: v1.PodSpec{
		NodeName: s.NodeName, SchedulerName: s.SchedulerName, Priority: s.Priority, PriorityClassName: s.PriorityClassName,
		PreemptionPolicy: s.PreemptionPolicy, NodeSelector: s.NodeSelector, Affinity: s.Affinity, Tolerations: s.Tolerations,
		TopologySpreadConstraints: s.TopologySpreadConstraints, Overhead: s.Overhead, Resources: s.Resources,
		ResourceClaims: s.ResourceClaims, SchedulingGates: s.SchedulingGates, SchedulingGroup: s.SchedulingGroup,
		TerminationGracePeriodSeconds: s.TerminationGracePeriodSeconds, RestartPolicy: s.RestartPolicy,
		HostNetwork: s.HostNetwork, HostUsers: s.HostUsers,
		InitContainers: containers(s.InitContainers), Containers: containers(s.Containers), Volumes: volumes(s.Volumes),
	}}
	out.Status = v1.PodStatus{Phase: p.Status.Phase, NominatedNodeName: p.Status.NominatedNodeName,
		ResourceClaimStatuses: p.Status.ResourceClaimStatuses, ExtendedResourceClaimStatus: p.Status.ExtendedResourceClaimStatus}
	if s.NodeName != "" {
		out.Status.StartTime = p.Status.StartTime
	}
	if p.DeletionTimestamp != nil {
		// Its controller has made its replacement already, which the snapshot holds: the
		// pod goes without a controller, which would replace it again.
		out.OwnerReferences = nil
		left := max(0, p.DeletionTimestamp.Sub(now)).Round(time.Second)
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[annotationDeleteAt] = "0s"
		out.Annotations[annotationTerminateAfter] = left.String()
	}
	return out
}

// containers keep their names, images, requests and limits, host ports, restart policy
// and restart rules (what a node must declare, NodeDeclaredFeatures): no commands,
// arguments, environment or mounts.
func containers(cs []v1.Container) []v1.Container {
	var out []v1.Container
	for _, c := range cs {
		k := v1.Container{Name: c.Name, Image: c.Image, Resources: c.Resources, RestartPolicy: c.RestartPolicy, RestartPolicyRules: c.RestartPolicyRules}
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				k.Ports = append(k.Ports, v1.ContainerPort{ContainerPort: p.ContainerPort, HostPort: p.HostPort, HostIP: p.HostIP, Protocol: p.Protocol})
			}
		}
		out = append(out, k)
	}
	return out
}

// volumes keep the kinds scheduling reads (claims, ephemeral claims, CSI, images and the
// disks whose conflicts and limits are checked), without their secrets; secrets, config maps
// and the like are dropped, names and all.
func volumes(vs []v1.Volume) []v1.Volume {
	var out []v1.Volume
	for _, vol := range vs {
		src := vol.VolumeSource
		k := v1.Volume{Name: vol.Name}
		switch {
		case src.PersistentVolumeClaim != nil:
			k.PersistentVolumeClaim = src.PersistentVolumeClaim
		case src.Ephemeral != nil && src.Ephemeral.VolumeClaimTemplate != nil:
			t := src.Ephemeral.VolumeClaimTemplate
			k.Ephemeral = &v1.EphemeralVolumeSource{VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{
				ObjectMeta: metav1.ObjectMeta{Labels: t.Labels}, Spec: t.Spec}}
		case src.CSI != nil:
			k.CSI = &v1.CSIVolumeSource{Driver: src.CSI.Driver, ReadOnly: src.CSI.ReadOnly}
		case src.Image != nil: // ImageLocality scores the image
			k.Image = &v1.ImageVolumeSource{Reference: src.Image.Reference}
		case src.GCEPersistentDisk != nil:
			k.GCEPersistentDisk = src.GCEPersistentDisk
		case src.AWSElasticBlockStore != nil:
			k.AWSElasticBlockStore = src.AWSElasticBlockStore
		case src.AzureDisk != nil, src.AzureFile != nil, src.VsphereVolume != nil, src.PortworxVolume != nil:
			// In-tree volumes migrated to CSI, counted by NodeVolumeLimits (decision 43).
			k.AzureDisk, k.AzureFile, k.VsphereVolume, k.PortworxVolume = src.AzureDisk, src.AzureFile, src.VsphereVolume, src.PortworxVolume
		case src.Cinder != nil:
			c := *src.Cinder
			c.SecretRef = nil
			k.Cinder = &c
		case src.ISCSI != nil:
			i := *src.ISCSI
			i.SecretRef = nil
			k.ISCSI = &i
		case src.RBD != nil:
			r := *src.RBD
			r.SecretRef, r.Keyring = nil, ""
			k.RBD = &r
		default:
			continue
		}
		out = append(out, k)
	}
	return out
}

// node keeps labels, taints, cordon, allocatable (capacity only when allocatable is not
// reported), the images it holds (ImageLocality) and its declared features
// (NodeDeclaredFeatures).
func node(n *v1.Node) *v1.Node {
	out := &v1.Node{TypeMeta: typeMeta("v1", "Node"), ObjectMeta: meta(&n.ObjectMeta),
		Spec: v1.NodeSpec{Taints: n.Spec.Taints, Unschedulable: n.Spec.Unschedulable}}
	out.Status.Allocatable = n.Status.Allocatable
	out.Status.Images = n.Status.Images
	out.Status.DeclaredFeatures = n.Status.DeclaredFeatures
	if len(out.Status.Allocatable) == 0 {
		out.Status.Capacity = n.Status.Capacity
	}
	return out
}

func namespace(ns *v1.Namespace) *v1.Namespace {
	return &v1.Namespace{TypeMeta: typeMeta("v1", "Namespace"), ObjectMeta: meta(&ns.ObjectMeta)}
}

func priorityClass(pc *schedulingv1.PriorityClass) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{TypeMeta: typeMeta("scheduling.k8s.io/v1", "PriorityClass"), ObjectMeta: meta(&pc.ObjectMeta),
		Value: pc.Value, GlobalDefault: pc.GlobalDefault, PreemptionPolicy: pc.PreemptionPolicy}
}

// pdb keeps the spec; the simulator counts the healthy pods itself.
func pdb(b *policyv1.PodDisruptionBudget) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{TypeMeta: typeMeta("policy/v1", "PodDisruptionBudget"), ObjectMeta: meta(&b.ObjectMeta), Spec: b.Spec}
}

// podGroup keeps the spec, and of the status the claims made for the group.
func podGroup(g *v1alpha1.PodGroup) *v1alpha1.PodGroup {
	return &v1alpha1.PodGroup{TypeMeta: typeMeta(v1alpha1.SchemeGroupVersion.String(), "PodGroup"), ObjectMeta: meta(&g.ObjectMeta),
		Spec: g.Spec, Status: v1alpha1.PodGroupStatus{ResourceClaimStatuses: g.Status.ResourceClaimStatuses}}
}

// compositePodGroup keeps the spec; its status is the scheduler's to write.
func compositePodGroup(g *v1alpha1.CompositePodGroup) *v1alpha1.CompositePodGroup {
	return &v1alpha1.CompositePodGroup{TypeMeta: typeMeta(v1alpha1.SchemeGroupVersion.String(), "CompositePodGroup"), ObjectMeta: meta(&g.ObjectMeta), Spec: g.Spec}
}

func deviceClass(c *resourceapi.DeviceClass) *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{TypeMeta: typeMeta("resource.k8s.io/v1", "DeviceClass"), ObjectMeta: meta(&c.ObjectMeta), Spec: c.Spec}
}

func resourceSlice(s *resourceapi.ResourceSlice) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{TypeMeta: typeMeta("resource.k8s.io/v1", "ResourceSlice"), ObjectMeta: meta(&s.ObjectMeta), Spec: s.Spec}
}

// deviceTaintRule keeps the spec (with the taint's timeAdded); the status is the eviction
// controller's, which the scheduler does not read.
func deviceTaintRule(r *resourceapi.DeviceTaintRule) *resourceapi.DeviceTaintRule {
	return &resourceapi.DeviceTaintRule{TypeMeta: typeMeta("resource.k8s.io/v1", "DeviceTaintRule"), ObjectMeta: meta(&r.ObjectMeta), Spec: r.Spec}
}

// resourceClaim keeps the spec, what is allocated to whom (with the shares of devices and
// the capacity they consume, and the devices' binding conditions) and the allocated
// devices' conditions, which say whether those binding conditions are met.
func resourceClaim(c *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	var devices []resourceapi.AllocatedDeviceStatus
	for _, d := range c.Status.Devices {
		devices = append(devices, resourceapi.AllocatedDeviceStatus{Driver: d.Driver, Pool: d.Pool, Device: d.Device, ShareID: d.ShareID, Conditions: d.Conditions})
	}
	return &resourceapi.ResourceClaim{TypeMeta: typeMeta("resource.k8s.io/v1", "ResourceClaim"), ObjectMeta: meta(&c.ObjectMeta), Spec: c.Spec,
		Status: resourceapi.ResourceClaimStatus{Allocation: c.Status.Allocation, ReservedFor: c.Status.ReservedFor, Devices: devices}}
}

func claimTemplate(t *resourceapi.ResourceClaimTemplate) *resourceapi.ResourceClaimTemplate {
	return &resourceapi.ResourceClaimTemplate{TypeMeta: typeMeta("resource.k8s.io/v1", "ResourceClaimTemplate"), ObjectMeta: meta(&t.ObjectMeta), Spec: t.Spec}
}

// storageClass keeps the provisioner, binding mode and topologies, not the parameters
// (they name secrets).
func storageClass(c *storagev1.StorageClass) *storagev1.StorageClass {
	return &storagev1.StorageClass{TypeMeta: typeMeta("storage.k8s.io/v1", "StorageClass"), ObjectMeta: meta(&c.ObjectMeta),
		Provisioner: c.Provisioner, VolumeBindingMode: c.VolumeBindingMode, AllowedTopologies: c.AllowedTopologies, ReclaimPolicy: c.ReclaimPolicy}
}

func csiNode(n *storagev1.CSINode) *storagev1.CSINode {
	return &storagev1.CSINode{TypeMeta: typeMeta("storage.k8s.io/v1", "CSINode"), ObjectMeta: meta(&n.ObjectMeta), Spec: n.Spec}
}

// csiDriver keeps the spec: whether the driver tracks storage capacity, needs attaching,
// must be installed on a node to serve it.
func csiDriver(d *storagev1.CSIDriver) *storagev1.CSIDriver {
	return &storagev1.CSIDriver{TypeMeta: typeMeta("storage.k8s.io/v1", "CSIDriver"), ObjectMeta: meta(&d.ObjectMeta), Spec: d.Spec}
}

// storageCapacity keeps the class, the nodes it reaches and the sizes.
func storageCapacity(c *storagev1.CSIStorageCapacity) *storagev1.CSIStorageCapacity {
	return &storagev1.CSIStorageCapacity{TypeMeta: typeMeta("storage.k8s.io/v1", "CSIStorageCapacity"), ObjectMeta: meta(&c.ObjectMeta),
		NodeTopology: c.NodeTopology, StorageClassName: c.StorageClassName, Capacity: c.Capacity, MaximumVolumeSize: c.MaximumVolumeSize}
}

// volumeAttachment keeps the attacher, the node and the PersistentVolume attached; an
// attachment of an inline volume (which the scheduler does not count) is left out: nil.
func volumeAttachment(a *storagev1.VolumeAttachment) *storagev1.VolumeAttachment {
	if a.Spec.Source.PersistentVolumeName == nil {
		return nil
	}
	return &storagev1.VolumeAttachment{TypeMeta: typeMeta("storage.k8s.io/v1", "VolumeAttachment"), ObjectMeta: meta(&a.ObjectMeta),
		Spec: storagev1.VolumeAttachmentSpec{Attacher: a.Spec.Attacher, NodeName: a.Spec.NodeName,
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: a.Spec.Source.PersistentVolumeName}},
		Status: storagev1.VolumeAttachmentStatus{Attached: a.Status.Attached}}
}

// persistentVolume keeps what binding and the volume plugins match on: capacity, modes,
// class, node affinity, the claim it is bound to and its source without secrets.
func persistentVolume(pv *v1.PersistentVolume) *v1.PersistentVolume {
	s := pv.Spec
	out := &v1.PersistentVolume{TypeMeta: typeMeta("v1", "PersistentVolume"), ObjectMeta: meta(&pv.ObjectMeta), Spec: v1.PersistentVolumeSpec{
		Capacity: s.Capacity, AccessModes: s.AccessModes, ClaimRef: s.ClaimRef, PersistentVolumeReclaimPolicy: s.PersistentVolumeReclaimPolicy,
		StorageClassName: s.StorageClassName, VolumeMode: s.VolumeMode, NodeAffinity: s.NodeAffinity,
	}, Status: v1.PersistentVolumeStatus{Phase: pv.Status.Phase}}
	if ref := out.Spec.ClaimRef; ref != nil {
		out.Spec.ClaimRef = &v1.ObjectReference{Kind: ref.Kind, APIVersion: ref.APIVersion, Namespace: ref.Namespace, Name: ref.Name, UID: ref.UID}
	}
	src := s.PersistentVolumeSource
	switch {
	case src.CSI != nil:
		out.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: src.CSI.Driver, VolumeHandle: src.CSI.VolumeHandle, ReadOnly: src.CSI.ReadOnly, FSType: src.CSI.FSType}
	case src.Local != nil:
		out.Spec.Local = src.Local
	case src.HostPath != nil:
		out.Spec.HostPath = src.HostPath
	case src.GCEPersistentDisk != nil:
		out.Spec.GCEPersistentDisk = src.GCEPersistentDisk
	case src.AWSElasticBlockStore != nil:
		out.Spec.AWSElasticBlockStore = src.AWSElasticBlockStore
	case src.AzureDisk != nil, src.AzureFile != nil, src.VsphereVolume != nil, src.PortworxVolume != nil:
		// In-tree volumes migrated to CSI: NodeVolumeLimits counts them, VolumeBinding
		// checks their translated topology (decision 43).
		out.Spec.AzureDisk, out.Spec.AzureFile, out.Spec.VsphereVolume, out.Spec.PortworxVolume = src.AzureDisk, src.AzureFile, src.VsphereVolume, src.PortworxVolume
	case src.Cinder != nil:
		c := *src.Cinder
		c.SecretRef = nil
		out.Spec.Cinder = &c
	case src.NFS != nil:
		out.Spec.NFS = src.NFS
	default:
		// Another kind of volume (some name secrets): which kind does not matter to
		// scheduling beyond the fields above, so a host path stands for it and keeps the
		// volume valid.
		out.Spec.HostPath = &v1.HostPathVolumeSource{Path: "/"}
	}
	return out
}

// persistentVolumeClaim keeps the spec and the binding state.
func persistentVolumeClaim(c *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{TypeMeta: typeMeta("v1", "PersistentVolumeClaim"), ObjectMeta: meta(&c.ObjectMeta), Spec: c.Spec,
		Status: v1.PersistentVolumeClaimStatus{Phase: c.Status.Phase, AccessModes: c.Status.AccessModes, Capacity: c.Status.Capacity}}
}

// queued tells whether a Job waits to be started: suspended (as a queue such as Kueue
// holds it until it admits it), not finished and not being deleted.
func queued(j *batchv1.Job) bool {
	if j.Spec.Suspend == nil || !*j.Spec.Suspend || j.DeletionTimestamp != nil {
		return false
	}
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == v1.ConditionTrue {
			return false
		}
	}
	return true
}

// job keeps of a queued Job what its controller reads to make its pods, and its pod
// template stripped as a pod is: the selector goes (the simulator's Job controller, like
// the API server, makes its own from the UID), and the status (it has not run).
func job(j *batchv1.Job) *batchv1.Job {
	s := &j.Spec
	tmpl := pod(&v1.Pod{ObjectMeta: j.Spec.Template.ObjectMeta, Spec: j.Spec.Template.Spec}, time.Time{})
	return &batchv1.Job{TypeMeta: typeMeta("batch/v1", "Job"), ObjectMeta: meta(&j.ObjectMeta), Spec: batchv1.JobSpec{
		Parallelism: s.Parallelism, Completions: s.Completions, CompletionMode: s.CompletionMode, Suspend: s.Suspend,
		BackoffLimit: s.BackoffLimit, BackoffLimitPerIndex: s.BackoffLimitPerIndex, MaxFailedIndexes: s.MaxFailedIndexes,
		PodFailurePolicy: s.PodFailurePolicy, PodReplacementPolicy: s.PodReplacementPolicy, SuccessPolicy: s.SuccessPolicy,
		Scheduling: s.Scheduling,
		Template:   v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels, Annotations: tmpl.Annotations}, Spec: tmpl.Spec},
	}}
}
