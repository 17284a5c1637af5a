package nativegroup

import (
	"time"

	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// StatusConditions returns the conditions phalanx writes back to the native PodGroup a
// group was mapped from: PodGroupScheduled and DisruptionTarget, the types and reasons
// upstream defines (k8s.io/api/scheduling/v1alpha2, which phalanx's api/v1alpha1 names
// alike). Conditions of other writers are left alone, and the phase and observed
// generation, which the native status does not have, stay phalanx's.
func StatusConditions(pg *v1alpha1.PodGroup) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range pg.Status.Conditions {
		if c.Type == schedulingv1alpha2.PodGroupScheduled || c.Type == schedulingv1alpha2.DisruptionTarget {
			out = append(out, c)
		}
	}
	return out
}

// ClashCondition is the PodGroupScheduled condition a native PodGroup gets when a CRD
// PodGroup of the same namespace/name holds it back: the scheduler puts the same message on
// the CRD group.
func ClashCondition(native *schedulingv1alpha2.PodGroup, msg string, now time.Time) metav1.Condition {
	return metav1.Condition{
		Type: schedulingv1alpha2.PodGroupScheduled, Status: metav1.ConditionFalse,
		Reason: schedulingv1alpha2.PodGroupReasonSchedulerError, Message: msg,
		ObservedGeneration: native.Generation, LastTransitionTime: metav1.NewTime(now),
	}
}
