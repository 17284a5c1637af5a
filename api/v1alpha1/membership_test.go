package v1alpha1

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// member builds a pod that names its group by label, by the upstream field, both or neither
// ("" leaves a reference out).
func member(label, upstream string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ml", Labels: map[string]string{"app": "x"}}}
	if label != "" {
		pod.Labels[LabelPodGroup] = label
	}
	if upstream != "" {
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &upstream}
	}
	return pod
}

func TestPodGroupNameOf(t *testing.T) {
	emptyLabel := member("", "upstream")
	emptyLabel.Labels[LabelPodGroup] = ""
	cases := []struct {
		name    string
		pod     *corev1.Pod
		want    string
		wantErr string // prefix of the single error ValidatePodGroupMembership reports, if any
	}{
		{name: "nil pod", pod: nil},
		{name: "no group", pod: member("", "")},
		{name: "label only", pod: member("trainer", ""), want: "trainer"},
		{name: "upstream field only", pod: member("", "trainer"), want: "trainer"},
		{name: "both, same name", pod: member("trainer", "trainer"), want: "trainer"},
		{name: "both, different names: the label wins and validation objects", pod: member("trainer", "other"), want: "trainer",
			wantErr: `metadata.labels[scheduling.phalanx.dev/pod-group]: Invalid value: "trainer": must match spec.schedulingGroup.podGroupName ("other") when both are set`},
		{name: "empty label falls back to the field", pod: emptyLabel, want: "upstream"},
		{name: "upstream field set to empty", pod: &corev1.Pod{Spec: corev1.PodSpec{SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: new("")}}}},
		{name: "upstream group without a name", pod: &corev1.Pod{Spec: corev1.PodSpec{SchedulingGroup: &corev1.PodSchedulingGroup{}}}},
		{name: "label not a group name", pod: member("Trainer", ""), want: "Trainer",
			wantErr: `metadata.labels[scheduling.phalanx.dev/pod-group]: Invalid value: "Trainer": a lowercase RFC 1123 subdomain`},
		{name: "upstream field not a group name", pod: member("", "a_b"), want: "a_b",
			wantErr: `spec.schedulingGroup.podGroupName: Invalid value: "a_b": a lowercase RFC 1123 subdomain`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PodGroupNameOf(tc.pod); got != tc.want {
				t.Errorf("PodGroupNameOf() = %q, want %q", got, tc.want)
			}
			errs := ValidatePodGroupMembership(tc.pod)
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("ValidatePodGroupMembership() = %v, want no error", errs)
			case tc.wantErr != "" && (len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.wantErr)):
				t.Errorf("ValidatePodGroupMembership() = %v, want one error starting %q", errs, tc.wantErr)
			}
		})
	}
}
