package framework

// EventResource is the kind of object a cluster event is about.
type EventResource string

// The resources whose changes can make a pending pod schedulable.
const (
	// AssignedPod is a pod bound to a node (its arrival or departure changes what fits).
	AssignedPod EventResource = "AssignedPod"
	// UnscheduledPod is a pending pod (a gang member arriving, say).
	UnscheduledPod      EventResource = "UnscheduledPod"
	Node                EventResource = "Node"
	PodGroup            EventResource = "PodGroup"
	PodDisruptionBudget EventResource = "PodDisruptionBudget"
	PriorityClass       EventResource = "PriorityClass"
	Namespace           EventResource = "Namespace"
	// Storage and Dynamic Resource Allocation objects: volumes and devices a pod may wait for.
	PersistentVolume      EventResource = "PersistentVolume"
	PersistentVolumeClaim EventResource = "PersistentVolumeClaim"
	StorageClass          EventResource = "StorageClass"
	CSINode               EventResource = "CSINode"
	CSIDriver             EventResource = "CSIDriver"
	CSIStorageCapacity    EventResource = "CSIStorageCapacity"
	VolumeAttachment      EventResource = "VolumeAttachment"
	ResourceClaim         EventResource = "ResourceClaim"
	ResourceSlice         EventResource = "ResourceSlice"
	DeviceClass           EventResource = "DeviceClass"
	WildCard              EventResource = "*"
)

// ActionType is what happened, as a bit set so that a registration can cover several.
type ActionType uint32

// Actions. Node updates are split by what changed, so that a heartbeat does not retry every
// unschedulable pod.
const (
	Add ActionType = 1 << iota
	Delete
	UpdateNodeAllocatable
	UpdateNodeLabel
	UpdateNodeTaint
	UpdateNodeCondition
	UpdateNodeSchedulable
	// UpdateNodeDeclaredFeature is a change of the node's status.declaredFeatures.
	UpdateNodeDeclaredFeature
	UpdatePodLabel
	UpdatePodScaleDown
	UpdatePodToleration
	UpdatePodSchedulingGates
	// UpdateOther is any update not named above.
	UpdateOther

	Update = UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition |
		UpdateNodeSchedulable | UpdateNodeDeclaredFeature | UpdatePodLabel | UpdatePodScaleDown | UpdatePodToleration |
		UpdatePodSchedulingGates | UpdateOther
	All ActionType = 1<<iota - 1
)

// ClusterEvent is a change in the cluster.
type ClusterEvent struct {
	Resource EventResource
	Action   ActionType
	// Label is a short name for logs and metrics ("NodeAdd", "AssignedPodDelete").
	Label string
}

// Matches reports whether an event that happened (e) is covered by a registration (r).
func (r ClusterEvent) Matches(e ClusterEvent) bool {
	return (r.Resource == WildCard || r.Resource == e.Resource) && r.Action&e.Action != 0
}

// Events the scheduler raises.
var (
	EventNodeAdd           = ClusterEvent{Resource: Node, Action: Add, Label: "NodeAdd"}
	EventAssignedPodAdd    = ClusterEvent{Resource: AssignedPod, Action: Add, Label: "AssignedPodAdd"}
	EventAssignedPodDelete = ClusterEvent{Resource: AssignedPod, Action: Delete, Label: "AssignedPodDelete"}
	// EventUnschedulableTimeout is the periodic flush of pods left unschedulable too long.
	EventUnschedulableTimeout = ClusterEvent{Resource: WildCard, Action: All, Label: "UnschedulableTimeout"}
)
