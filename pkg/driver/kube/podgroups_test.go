package kube

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// fakeGroupServer serves one object's GET and status PUT (a PodGroup or a
// CompositePodGroup: resource, kind), with a resourceVersion check, as the API server does.
type fakeGroupServer struct {
	mu             sync.Mutex
	resource, kind string
	obj            map[string]any
	calls          []string
}

func newFakeGroupServer(t *testing.T, resource string, obj any) *fakeGroupServer {
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeGroupServer{resource: resource}
	if err := json.Unmarshal(b, &s.obj); err != nil {
		t.Fatal(err)
	}
	s.kind, _ = s.obj["kind"].(string)
	return s
}

func resourceVersion(obj map[string]any) string {
	m, _ := obj["metadata"].(map[string]any)
	rv, _ := m["resourceVersion"].(string)
	return rv
}

// into decodes the object served now.
func (s *fakeGroupServer) into(t *testing.T, out any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(s.obj)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

func (s *fakeGroupServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	path := "/apis/scheduling.phalanx.dev/v1alpha1/namespaces/ns/" + s.resource + "/g"
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == path:
		_ = json.NewEncoder(w).Encode(s.obj)
	case r.Method == http.MethodPut && r.URL.Path == path+"/status":
		body, _ := io.ReadAll(r.Body)
		var in map[string]any
		if err := json.Unmarshal(body, &in); err != nil || in["kind"] != s.kind || in["apiVersion"] != v1alpha1.SchemeGroupVersion.String() {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if resourceVersion(in) != resourceVersion(s.obj) {
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(metav1.Status{
				TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Reason: metav1.StatusReasonConflict, Code: http.StatusConflict, Message: "the object has been modified",
			})
			return
		}
		s.obj["status"] = in["status"]
		s.obj["metadata"].(map[string]any)["resourceVersion"] = resourceVersion(s.obj) + "1"
		_ = json.NewEncoder(w).Encode(s.obj)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// clientFor is a Client whose PodGroupClient talks to srv.
func clientFor(t *testing.T, srv http.Handler) *Client {
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	pgs, err := NewPodGroupClient(&rest.Config{Host: ts.URL}, scheme)
	if err != nil {
		t.Fatal(err)
	}
	return NewClient(nil, pgs, nil, klog.Background())
}

func TestUpdateStatusRetriesConflicts(t *testing.T) {
	current := &v1alpha1.PodGroup{
		TypeMeta:   metav1.TypeMeta{Kind: "PodGroup", APIVersion: v1alpha1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", ResourceVersion: "2"},
		Status: v1alpha1.PodGroupStatus{Conditions: []metav1.Condition{
			{Type: "Other", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: metav1.Now()},
		}},
	}
	srv := newFakeGroupServer(t, "podgroups", current)
	c := clientFor(t, srv)

	stale := current.DeepCopy()
	stale.ResourceVersion = "1"
	stale.Status.Conditions = []metav1.Condition{{
		Type: v1alpha1.PodGroupScheduled, Status: metav1.ConditionFalse, Reason: v1alpha1.PodGroupReasonUnschedulable,
		Message: "waiting", LastTransitionTime: metav1.Now(),
	}}
	stale.Status.Phase = v1alpha1.PodGroupPhasePending
	if err := c.UpdateStatus(context.Background(), stale); err != nil {
		t.Fatalf("UpdateStatus: %v (calls %v)", err, srv.calls)
	}
	if len(srv.calls) != 3 || !strings.HasPrefix(srv.calls[0], "PUT") || !strings.HasPrefix(srv.calls[1], "GET") {
		t.Fatalf("calls %v, want a conflicting PUT, a GET, a PUT", srv.calls)
	}
	var got v1alpha1.PodGroup
	srv.into(t, &got)
	if st := got.Status; st.Phase != v1alpha1.PodGroupPhasePending || len(st.Conditions) != 2 {
		t.Errorf("status %+v: want the phase and both conditions", st)
	}
}

// A CRD CompositePodGroup's status goes through its status subresource, merged onto a
// fresh copy on a conflict, as a PodGroup's.
func TestUpdateCompositeStatusRetriesConflicts(t *testing.T) {
	current := &v1alpha1.CompositePodGroup{
		TypeMeta:   metav1.TypeMeta{Kind: "CompositePodGroup", APIVersion: v1alpha1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", ResourceVersion: "2", Generation: 3},
		Status: v1alpha1.CompositePodGroupStatus{Conditions: []metav1.Condition{
			{Type: "Other", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: metav1.Now()},
		}},
	}
	srv := newFakeGroupServer(t, "compositepodgroups", current)
	c := clientFor(t, srv)

	stale := current.DeepCopy()
	stale.ResourceVersion = "1"
	stale.Status = v1alpha1.CompositePodGroupStatus{Phase: v1alpha1.PodGroupPhaseScheduled, ObservedGeneration: 3, Conditions: []metav1.Condition{{
		Type: v1alpha1.PodGroupScheduled, Status: metav1.ConditionTrue, Reason: v1alpha1.PodGroupReasonScheduled, LastTransitionTime: metav1.Now(),
	}}}
	if err := c.UpdateStatus(context.Background(), stale); err != nil {
		t.Fatalf("UpdateStatus: %v (calls %v)", err, srv.calls)
	}
	want := []string{"PUT /apis/scheduling.phalanx.dev/v1alpha1/namespaces/ns/compositepodgroups/g/status",
		"GET /apis/scheduling.phalanx.dev/v1alpha1/namespaces/ns/compositepodgroups/g",
		"PUT /apis/scheduling.phalanx.dev/v1alpha1/namespaces/ns/compositepodgroups/g/status"}
	if strings.Join(srv.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls %v, want %v", srv.calls, want)
	}
	var got v1alpha1.CompositePodGroup
	srv.into(t, &got)
	if st := got.Status; st.Phase != v1alpha1.PodGroupPhaseScheduled || st.ObservedGeneration != 3 || len(st.Conditions) != 2 {
		t.Errorf("status %+v: want the phase, the generation and both conditions", st)
	}
	if err := c.UpdateStatus(context.Background(), &v1.ConfigMap{}); err == nil {
		t.Error("UpdateStatus of a ConfigMap: no error")
	}
}
