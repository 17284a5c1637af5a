package nativegroup

import (
	"time"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// ScheduledCondition is the type of the condition that says whether a native PodGroup of
// a version is scheduled: v1alpha2's PodGroupScheduled, which phalanx's CRD names alike;
// from v1beta1 and v1alpha3 on, PodGroupInitiallyScheduled, which once True stays True
// (upstream: "a terminal state", even if pods are later evicted).
func ScheduledCondition(apiVersion string) string {
	if apiVersion == V1alpha2 {
		return schedulingv1alpha2.PodGroupScheduled
	}
	return schedulingv1beta1.PodGroupInitiallyScheduled
}

// annotationInitiallyScheduled marks, in memory, a group mapped from a native object whose
// PodGroupInitiallyScheduled condition is True: StatusConditions then never writes it back
// to False. It is carried on the mapped group's metadata (not its status) because the
// scheduler builds each status write on its last one and the metadata of the latest copy
// read (pkg/scheduler's updateGroupStatus), so it is current at every write.
const annotationInitiallyScheduled = v1alpha1.GroupName + "/initially-scheduled"

// initiallyScheduled reports whether a native object read as apiVersion has its terminal
// scheduled condition (typ) True: v1alpha2's PodGroupScheduled is not terminal.
func initiallyScheduled(apiVersion string, conditions []metav1.Condition, typ string) bool {
	if apiVersion == V1alpha2 {
		return false
	}
	for _, c := range conditions {
		if c.Type == typ && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

// StatusConditions returns the conditions phalanx writes back to the native PodGroup a
// group was mapped from, in the types and reasons of the version it was read from:
// phalanx's PodGroupScheduled as that version's scheduled condition (ScheduledCondition),
// and DisruptionTarget. The reasons are the same in every version (Scheduled,
// Unschedulable, SchedulerError; PreemptionByScheduler). Where the condition is
// PodGroupInitiallyScheduled, a False is not written over a True. Conditions of other
// writers are left alone, and the phase and observed generation, which the native status
// does not have, stay phalanx's.
func StatusConditions(pg *v1alpha1.PodGroup) []metav1.Condition {
	return statusConditions(pg.Status.Conditions, ScheduledCondition(pg.APIVersion), pg.Annotations[annotationInitiallyScheduled] != "")
}

// CompositeStatusConditions is StatusConditions for a CompositePodGroup mapped from a
// native one: phalanx's PodGroupScheduled is written as CompositePodGroupInitiallyScheduled,
// never False over True.
func CompositeStatusConditions(c *v1alpha1.CompositePodGroup) []metav1.Condition {
	return statusConditions(c.Status.Conditions, CompositeInitiallyScheduled, c.Annotations[annotationInitiallyScheduled] != "")
}

// statusConditions renames phalanx's PodGroupScheduled to scheduled, dropping a False one
// when the object is initially scheduled, and keeps DisruptionTarget.
func statusConditions(conditions []metav1.Condition, scheduled string, initially bool) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range conditions {
		switch c.Type {
		case v1alpha1.PodGroupScheduled:
			c.Type = scheduled
			if c.Status != metav1.ConditionTrue && initially {
				continue
			}
			out = append(out, c)
		case v1alpha1.DisruptionTarget:
			out = append(out, c)
		}
	}
	return out
}

// ClashCondition is the scheduled condition a native PodGroup gets when a CRD PodGroup of
// the same namespace/name holds it back: the scheduler puts the same message on the CRD
// group.
func ClashCondition(native *PodGroup, msg string, now time.Time) metav1.Condition {
	return clashCondition(ScheduledCondition(native.APIVersion), native.Generation, msg, now)
}

// CompositeClashCondition is ClashCondition for a native CompositePodGroup.
func CompositeClashCondition(native *CompositePodGroup, msg string, now time.Time) metav1.Condition {
	return clashCondition(CompositeInitiallyScheduled, native.Generation, msg, now)
}

func clashCondition(typ string, generation int64, msg string, now time.Time) metav1.Condition {
	return metav1.Condition{
		Type: typ, Status: metav1.ConditionFalse, Reason: v1alpha1.PodGroupReasonSchedulerError, Message: msg,
		ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(now),
	}
}
