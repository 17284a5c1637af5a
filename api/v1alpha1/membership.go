package v1alpha1

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodGroupNameOf returns the name of the PodGroup the pod belongs to, in the pod's namespace,
// or "" when it belongs to none.
//
// A pod can name its group two ways: the LabelPodGroup label, phalanx's own, and the upstream
// spec.schedulingGroup.podGroupName field (Kubernetes 1.36+). The label wins: it is the one
// written for phalanx, while the field may have been set by a workload controller for an
// upstream scheduler. The field is used only when the label is absent or empty. When both are
// set and differ, the label's name is returned and ValidatePodGroupMembership reports the
// conflict, so that the scheduler can refuse the pod with a message rather than guess.
func PodGroupNameOf(pod *corev1.Pod) string {
	label, upstream := podGroupRefs(pod)
	if label != "" {
		return label
	}
	return upstream
}

// ValidatePodGroupMembership checks how a pod names its group: each reference must be a
// valid PodGroup name, and when the label and the upstream field are both set they must
// agree.
func ValidatePodGroupMembership(pod *corev1.Pod) field.ErrorList {
	label, upstream := podGroupRefs(pod)
	labelPath := field.NewPath("metadata", "labels").Key(LabelPodGroup)
	fieldPath := field.NewPath("spec", "schedulingGroup", "podGroupName")

	var errs field.ErrorList
	if label != "" {
		for _, msg := range validation.IsDNS1123Subdomain(label) {
			errs = append(errs, field.Invalid(labelPath, label, msg))
		}
	}
	if upstream != "" {
		for _, msg := range validation.IsDNS1123Subdomain(upstream) {
			errs = append(errs, field.Invalid(fieldPath, upstream, msg))
		}
	}
	if label != "" && upstream != "" && label != upstream {
		errs = append(errs, field.Invalid(labelPath, label,
			fmt.Sprintf("must match %s (%q) when both are set", fieldPath, upstream)))
	}
	return errs
}

// podGroupRefs returns the group name from the label and from the upstream field, each ""
// when absent.
func podGroupRefs(pod *corev1.Pod) (label, upstream string) {
	if pod == nil {
		return "", ""
	}
	label = pod.Labels[LabelPodGroup]
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		upstream = *sg.PodGroupName
	}
	return label, upstream
}
