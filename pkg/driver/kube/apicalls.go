package kube

// APICall is one kind of request the driver makes. The table below is the whole list:
// config/rbac and the chart's RBAC (as rendered into deploy/phalanx.yaml) grant exactly
// these and a test keeps them in step, so a new call without its permission (or a
// permission nothing uses) fails `go test`.
type APICall struct {
	Group       string // API group, "" for core
	Resource    string
	Subresource string
	Verb        string
	// LeaderElection marks calls on the leader-election Lease, granted by a Role in the
	// Lease's namespace rather than the ClusterRole.
	LeaderElection bool
	// Why the driver makes it.
	Why string
}

// APICalls lists every request the kube driver makes. Discovery (which PodGroup APIs the
// server serves, for --podgroup-source=auto) reads /apis paths that every authenticated
// user may read (the system:discovery ClusterRole), so it needs no rule here.
var APICalls = []APICall{
	{Resource: "pods", Verb: "list", Why: "pod informer"},
	{Resource: "pods", Verb: "watch", Why: "pod informer"},
	{Resource: "nodes", Verb: "list", Why: "node informer"},
	{Resource: "nodes", Verb: "watch", Why: "node informer"},
	{Resource: "namespaces", Verb: "list", Why: "namespace informer (namespace selectors of affinity terms)"},
	{Resource: "namespaces", Verb: "watch", Why: "namespace informer"},
	{Group: "policy", Resource: "poddisruptionbudgets", Verb: "list", Why: "PDB informer (preemption)"},
	{Group: "policy", Resource: "poddisruptionbudgets", Verb: "watch", Why: "PDB informer"},
	{Group: "scheduling.k8s.io", Resource: "priorityclasses", Verb: "list", Why: "PriorityClass informer (PodGroup priorities)"},
	{Group: "scheduling.k8s.io", Resource: "priorityclasses", Verb: "watch", Why: "PriorityClass informer"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Verb: "list", Why: "PodGroup informer"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Verb: "watch", Why: "PodGroup informer"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Verb: "get", Why: "re-read a PodGroup after a status write conflict"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Subresource: "status", Verb: "update", Why: "PodGroupScheduled and DisruptionTarget conditions"},
	{Group: "scheduling.phalanx.dev", Resource: "compositepodgroups", Verb: "list", Why: "CompositePodGroup informer (when its CRD is installed)"},
	{Group: "scheduling.phalanx.dev", Resource: "compositepodgroups", Verb: "watch", Why: "CompositePodGroup informer"},
	{Group: "scheduling.phalanx.dev", Resource: "compositepodgroups", Verb: "get", Why: "re-read a CompositePodGroup after a status write conflict"},
	{Group: "scheduling.phalanx.dev", Resource: "compositepodgroups", Subresource: "status", Verb: "update", Why: "PodGroupScheduled and DisruptionTarget conditions of CompositePodGroups"},
	{Group: "scheduling.k8s.io", Resource: "podgroups", Verb: "list", Why: "native PodGroup informer (scheduling.k8s.io v1beta1, v1alpha3 or v1alpha2: the newest the server serves)"},
	{Group: "scheduling.k8s.io", Resource: "podgroups", Verb: "watch", Why: "native PodGroup informer"},
	{Group: "scheduling.k8s.io", Resource: "podgroups", Subresource: "status", Verb: "patch", Why: "PodGroupInitiallyScheduled (v1alpha2: PodGroupScheduled) and DisruptionTarget conditions of native PodGroups"},
	{Group: "scheduling.k8s.io", Resource: "compositepodgroups", Verb: "list", Why: "native CompositePodGroup informer (scheduling.k8s.io/v1alpha3, when served)"},
	{Group: "scheduling.k8s.io", Resource: "compositepodgroups", Verb: "watch", Why: "native CompositePodGroup informer"},
	{Group: "scheduling.k8s.io", Resource: "compositepodgroups", Subresource: "status", Verb: "patch", Why: "CompositePodGroupInitiallyScheduled and DisruptionTarget conditions of native CompositePodGroups"},
	{Group: "scheduling.k8s.io", Resource: "workloads", Verb: "list", Why: "Workload informer (the templates native PodGroups refer to)"},
	{Group: "scheduling.k8s.io", Resource: "workloads", Verb: "watch", Why: "Workload informer"},
	{Group: "storage.k8s.io", Resource: "storageclasses", Verb: "list", Why: "StorageClass informer (volume binding modes, provisioners)"},
	{Group: "storage.k8s.io", Resource: "storageclasses", Verb: "watch", Why: "StorageClass informer"},
	{Group: "storage.k8s.io", Resource: "csinodes", Verb: "list", Why: "CSINode informer (volume limits)"},
	{Group: "storage.k8s.io", Resource: "csinodes", Verb: "watch", Why: "CSINode informer"},
	{Group: "storage.k8s.io", Resource: "csidrivers", Verb: "list", Why: "CSIDriver informer (storage capacity tracking, preventPodSchedulingIfMissing)"},
	{Group: "storage.k8s.io", Resource: "csidrivers", Verb: "watch", Why: "CSIDriver informer"},
	{Group: "storage.k8s.io", Resource: "csistoragecapacities", Verb: "list", Why: "CSIStorageCapacity informer (room to provision volumes)"},
	{Group: "storage.k8s.io", Resource: "csistoragecapacities", Verb: "watch", Why: "CSIStorageCapacity informer"},
	{Group: "storage.k8s.io", Resource: "volumeattachments", Verb: "list", Why: "VolumeAttachment informer (volumes attached to nodes, volume limits)"},
	{Group: "storage.k8s.io", Resource: "volumeattachments", Verb: "watch", Why: "VolumeAttachment informer"},
	{Resource: "persistentvolumes", Verb: "list", Why: "PersistentVolume informer"},
	{Resource: "persistentvolumes", Verb: "watch", Why: "PersistentVolume informer"},
	{Resource: "persistentvolumes", Verb: "get", Why: "re-read a volume before binding it"},
	{Resource: "persistentvolumes", Verb: "update", Why: "point a volume at its claim (VolumeBinding PreBind)"},
	{Resource: "persistentvolumeclaims", Verb: "list", Why: "PersistentVolumeClaim informer"},
	{Resource: "persistentvolumeclaims", Verb: "watch", Why: "PersistentVolumeClaim informer"},
	{Resource: "persistentvolumeclaims", Verb: "get", Why: "wait for the PV controller to bind a claim"},
	{Resource: "persistentvolumeclaims", Verb: "update", Why: "name the node a claim is provisioned on (selected-node)"},
	{Group: "resource.k8s.io", Resource: "deviceclasses", Verb: "list", Why: "DeviceClass informer"},
	{Group: "resource.k8s.io", Resource: "deviceclasses", Verb: "watch", Why: "DeviceClass informer"},
	{Group: "resource.k8s.io", Resource: "resourceslices", Verb: "list", Why: "ResourceSlice informer (devices)"},
	{Group: "resource.k8s.io", Resource: "resourceslices", Verb: "watch", Why: "ResourceSlice informer"},
	{Group: "resource.k8s.io", Resource: "devicetaintrules", Verb: "list", Why: "DeviceTaintRule informer (taints of the devices rules select; when served)"},
	{Group: "resource.k8s.io", Resource: "devicetaintrules", Verb: "watch", Why: "DeviceTaintRule informer"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Verb: "list", Why: "ResourceClaim informer"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Verb: "watch", Why: "ResourceClaim informer"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Verb: "get", Why: "re-read a claim after a write conflict"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Verb: "create", Why: "claims of PodGroups' templates and of extended resources backed by DRA"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Verb: "update", Why: "the allocation finalizer"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Verb: "delete", Why: "the claim an earlier attempt made for a pod's extended resources (DynamicResources' PostFilter) or whose devices failed to bind"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Subresource: "status", Verb: "update", Why: "write a claim's allocation and reservation"},
	{Group: "resource.k8s.io", Resource: "resourceclaims", Subresource: "binding", Verb: "update", Why: "authorizes changing status.allocation and reservedFor (DRAResourceClaimGranularStatusAuthorization)"},
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates", Verb: "get", Why: "make a PodGroup's claim from its template"},
	{Resource: "pods", Subresource: "binding", Verb: "create", Why: "bind a pod to its node"},
	{Resource: "pods", Verb: "get", Why: "read a pod back when its binding's outcome is unknown (a timeout after the request was sent)"},
	{Resource: "pods", Subresource: "status", Verb: "patch", Why: "PodScheduled and DisruptionTarget conditions, nominatedNodeName, the claim of extended resources backed by DRA"},
	{Resource: "pods", Verb: "delete", Why: "delete preemption victims"},
	{Group: "events.k8s.io", Resource: "events", Verb: "create", Why: "Scheduled, FailedScheduling, Preempted events"},
	{Group: "events.k8s.io", Resource: "events", Verb: "patch", Why: "repeated events (event series)"},
	{Group: "coordination.k8s.io", Resource: "leases", Verb: "get", LeaderElection: true, Why: "leader election"},
	{Group: "coordination.k8s.io", Resource: "leases", Verb: "create", LeaderElection: true, Why: "leader election (first replica)"},
	{Group: "coordination.k8s.io", Resource: "leases", Verb: "update", LeaderElection: true, Why: "leader election (acquire, renew, release)"},
}
