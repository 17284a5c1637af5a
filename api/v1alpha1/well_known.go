package v1alpha1

// LabelPodGroup is the pod label that makes a pod a member of the PodGroup it names, in the
// pod's namespace. It works on clusters without the upstream spec.schedulingGroup field.
const LabelPodGroup = GroupName + "/pod-group"

// AnnotationInvalidReason marks a PodGroup that phalanx derived from another object (a
// native scheduling.k8s.io PodGroup, or a namespace/name claimed by both APIs) and that
// cannot be scheduled as it stands: the scheduler treats the group as invalid, with this
// message on its PodGroupScheduled condition. phalanx sets it in memory only; it is never
// written to an API object, and is dropped from the PodGroups it reads.
const AnnotationInvalidReason = GroupName + "/invalid-reason"

// Condition types of a PodGroup, named as KEP-5710 names them.
const (
	// PodGroupScheduled is True once the group's scheduling requirement is met (for a gang,
	// minCount members placed) and False with a reason while it is not.
	PodGroupScheduled = "PodGroupScheduled"
	// DisruptionTarget is True when the group is about to be terminated by a disruption such
	// as preemption.
	DisruptionTarget = "DisruptionTarget"
)

// Condition reasons of a PodGroup, named as KEP-5710 names them.
const (
	// PodGroupReasonScheduled goes with PodGroupScheduled=True.
	PodGroupReasonScheduled = "Scheduled"
	// PodGroupReasonUnschedulable goes with PodGroupScheduled=False when the group does not
	// fit: resources, affinity, topology, or waiting for its preemption victims to leave.
	PodGroupReasonUnschedulable = "Unschedulable"
	// PodGroupReasonSchedulerError goes with PodGroupScheduled=False when the group can never
	// be scheduled as written (an invalid spec, an unknown priority class, or members whose
	// priority or preemptionPolicy differ from the group's), or when the API server refused
	// a member's binding and left the group below its minCount bound.
	PodGroupReasonSchedulerError = "SchedulerError"
	// PodGroupReasonPreemptionByScheduler goes with DisruptionTarget=True when the scheduler
	// preempts the group for a higher-priority pod or group.
	PodGroupReasonPreemptionByScheduler = "PreemptionByScheduler"
)
