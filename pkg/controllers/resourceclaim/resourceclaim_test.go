package resourceclaim

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// fakeAPI holds the objects in maps, as the simulator's store does.
type fakeAPI struct {
	groups    map[string]*v1alpha1.PodGroup
	templates map[string]*resourceapi.ResourceClaimTemplate
	claims    map[string]*resourceapi.ResourceClaim
	names     int
}

func newFake() *fakeAPI {
	return &fakeAPI{groups: map[string]*v1alpha1.PodGroup{}, templates: map[string]*resourceapi.ResourceClaimTemplate{},
		claims: map[string]*resourceapi.ResourceClaim{}}
}

func (f *fakeAPI) PodGroup(key string) *v1alpha1.PodGroup { return f.groups[key] }
func (f *fakeAPI) ResourceClaimTemplate(key string) *resourceapi.ResourceClaimTemplate {
	return f.templates[key]
}
func (f *fakeAPI) ResourceClaim(key string) *resourceapi.ResourceClaim { return f.claims[key] }
func (f *fakeAPI) ResourceClaimKeys() []string                         { return slices.Sorted(maps.Keys(f.claims)) }
func (f *fakeAPI) GenerateName(prefix string) string {
	f.names++
	return fmt.Sprintf("%s%05d", prefix, f.names)
}
func (f *fakeAPI) PutResourceClaim(_, c *resourceapi.ResourceClaim) {
	f.claims[c.Namespace+"/"+c.Name] = c
}
func (f *fakeAPI) DeleteResourceClaim(key string) { delete(f.claims, key) }

func template(name string) *resourceapi.ResourceClaimTemplate {
	return &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}}},
		}}},
	}
}

func podWithClaims(name string, claims ...v1.PodResourceClaim) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name + "-pod")},
		Spec: v1.PodSpec{ResourceClaims: claims}}
}

func fromTemplate(entry, tmpl string) v1.PodResourceClaim {
	return v1.PodResourceClaim{Name: entry, ResourceClaimTemplateName: &tmpl}
}

func TestCreatePodClaims(t *testing.T) {
	byName := "shared"
	tests := []struct {
		name      string
		templates []string
		claims    []v1.PodResourceClaim
		// want are the claims made, by name, each named in the pod's status.
		want []string
	}{
		{"one claim per template entry", []string{"gpus"}, []v1.PodResourceClaim{fromTemplate("a", "gpus"), fromTemplate("b", "gpus")},
			[]string{"train-a-00001", "train-b-00002"}},
		{"a template that does not exist yet: none", nil, []v1.PodResourceClaim{fromTemplate("a", "gpus")}, nil},
		{"a claim by name is not made", []string{"gpus"}, []v1.PodResourceClaim{{Name: "s", ResourceClaimName: &byName}}, nil},
		{"no claims", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFake()
			for _, n := range tt.templates {
				api.templates["default/"+n] = template(n)
			}
			p := podWithClaims("train", tt.claims...)
			made := New(api).CreatePodClaims(p)
			if made != (len(tt.want) > 0) {
				t.Errorf("made %v, want %v", made, len(tt.want) > 0)
			}
			var got, status []string
			for _, k := range api.ResourceClaimKeys() {
				c := api.claims[k]
				got = append(got, c.Name)
				if owner := metav1.GetControllerOf(c); owner == nil || owner.UID != p.UID {
					t.Errorf("%s: owner %v, want the pod", c.Name, owner)
				}
			}
			for _, st := range p.Status.ResourceClaimStatuses {
				status = append(status, *st.ResourceClaimName)
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(status, tt.want) {
				t.Errorf("claims %v, pod status %v, want %v", got, status, tt.want)
			}
		})
	}
}

// When a pod is gone, its own claims are deleted, and a claim it shared is unreserved and,
// when nobody else reserves it, deallocated.
func TestReleasePodClaims(t *testing.T) {
	api := newFake()
	api.templates["default/gpus"] = template("gpus")
	c := New(api)
	p := podWithClaims("train", fromTemplate("a", "gpus"), v1.PodResourceClaim{Name: "s", ResourceClaimName: new("shared")})
	c.CreatePodClaims(p)
	reserved := func(uids ...string) *resourceapi.ResourceClaim {
		claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: "default", Finalizers: []string{resourceapi.Finalizer}},
			Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{}}}
		for _, u := range uids {
			claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: u, UID: types.UID(u)})
		}
		return claim
	}
	api.claims["default/shared"] = reserved(string(p.UID), "someone-else")
	c.ReleasePodClaims(p)
	if len(api.claims) != 1 {
		t.Fatalf("claims %v, want only the shared one left", api.ResourceClaimKeys())
	}
	shared := api.claims["default/shared"]
	if len(shared.Status.ReservedFor) != 1 || shared.Status.Allocation == nil {
		t.Fatalf("shared claim %+v: want still reserved by the other pod and allocated", shared.Status)
	}
	api.claims["default/shared"] = reserved(string(p.UID))
	c.ReleasePodClaims(p)
	if shared := api.claims["default/shared"]; len(shared.Status.ReservedFor) != 0 || shared.Status.Allocation != nil || len(shared.Finalizers) != 0 {
		t.Errorf("shared claim %+v, finalizers %v: want unreserved, deallocated and without the finalizer", shared.Status, shared.Finalizers)
	}
}

// The claims an object owned go with it; others stay.
func TestDeleteOwnedBy(t *testing.T) {
	api := newFake()
	owned := func(name, uid string) *resourceapi.ResourceClaim {
		yes := true
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{Kind: "PodGroup", Name: "g", UID: types.UID(uid), Controller: &yes}}}}
	}
	api.claims["default/a"] = owned("a", "group-1")
	api.claims["default/b"] = owned("b", "group-2")
	api.claims["default/c"] = &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
	New(api).DeleteOwnedBy("group-1")
	if got := api.ResourceClaimKeys(); !slices.Equal(got, []string{"default/b", "default/c"}) {
		t.Errorf("claims left %v, want b and c", got)
	}
}
