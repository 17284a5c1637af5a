package framework

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

func ptr(s string) *string { return &s }

// A pod's claims are named as resourceclaim.Name does, and an entry equal to one of its
// group's (name and source) is the group's claim.
func TestResolvePodClaims(t *testing.T) {
	pg := &v1alpha1.PodGroup{}
	pg.Name, pg.UID = "g", "g-uid"
	pg.Spec.ResourceClaims = []v1alpha1.PodGroupResourceClaim{
		{Name: "fabric", ResourceClaimName: ptr("fabric-0")},
		{Name: "scratch", ResourceClaimTemplateName: ptr("scratch")},
	}
	pod := &v1.Pod{}
	pod.Name, pod.UID = "p", "p-uid"
	pod.Spec.ResourceClaims = []v1.PodResourceClaim{
		{Name: "fabric", ResourceClaimName: ptr("fabric-0")},         // the group's
		{Name: "gpus", ResourceClaimTemplateName: ptr("gpus")},       // made by the controller
		{Name: "scratch", ResourceClaimTemplateName: ptr("scratch")}, // the group's, not made yet
		{Name: "own", ResourceClaimName: ptr("own-0")},
		{Name: "skipped", ResourceClaimTemplateName: ptr("t")},
	}
	pod.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpus", ResourceClaimName: ptr("p-gpus-x")}, {Name: "skipped"}}
	got := ResolvePodClaims(pod, pg)
	want := []struct {
		name  string
		group bool
		owner bool
		err   string
	}{
		{"fabric-0", true, false, ""},
		{"p-gpus-x", false, true, ""},
		{"", true, false, `pod group "g": waiting for the ResourceClaim of "scratch" to be created from template "scratch"`},
		{"own-0", false, false, ""},
		{"", false, false, ""},
	}
	for i, w := range want {
		pc := got[i]
		errMsg := ""
		if pc.Err != nil {
			errMsg = pc.Err.Error()
		}
		if pc.Name != w.name || (pc.Group != nil) != w.group || pc.OwnerCheck != w.owner || !strings.Contains(errMsg, w.err) || (w.err == "") != (pc.Err == nil) {
			t.Errorf("entry %d: %+v (err %q), want %+v", i, pc, errMsg, w)
		}
	}
	if c := got[0].Consumer(pod); c.Resource != ConsumerGroupResource || c.UID != "g-uid" || c.APIGroup != v1alpha1.GroupName {
		t.Errorf("group claim consumer %+v", c)
	}
	if c := got[3].Consumer(pod); c.Resource != "pods" || c.UID != "p-uid" {
		t.Errorf("pod claim consumer %+v", c)
	}
	// Without the group, the same entries are the pod's own.
	if alone := ResolvePodClaims(pod, nil); alone[0].Group != nil || alone[2].Err == nil || !strings.Contains(alone[2].Err.Error(), `pod "p"`) {
		t.Errorf("without the group: %+v", alone[:3])
	}
}
