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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// fakePodGroupServer serves one PodGroup's GET and status PUT, with a resourceVersion
// check, as the API server does.
type fakePodGroupServer struct {
	mu    sync.Mutex
	pg    *v1alpha1.PodGroup
	calls []string
}

func (s *fakePodGroupServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	const path = "/apis/scheduling.phalanx.dev/v1alpha1/namespaces/ns/podgroups/g"
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == path:
		_ = json.NewEncoder(w).Encode(s.pg)
	case r.Method == http.MethodPut && r.URL.Path == path+"/status":
		body, _ := io.ReadAll(r.Body)
		in := &v1alpha1.PodGroup{}
		if err := json.Unmarshal(body, in); err != nil || in.Kind != "PodGroup" || in.APIVersion != v1alpha1.SchemeGroupVersion.String() {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if in.ResourceVersion != s.pg.ResourceVersion {
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(metav1.Status{
				TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Reason: metav1.StatusReasonConflict, Code: http.StatusConflict, Message: "the object has been modified",
			})
			return
		}
		s.pg.Status = in.Status
		s.pg.ResourceVersion += "1"
		_ = json.NewEncoder(w).Encode(s.pg)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func TestUpdateStatusRetriesConflicts(t *testing.T) {
	current := &v1alpha1.PodGroup{
		TypeMeta:   metav1.TypeMeta{Kind: "PodGroup", APIVersion: v1alpha1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", ResourceVersion: "2"},
		Status: v1alpha1.PodGroupStatus{Conditions: []metav1.Condition{
			{Type: "Other", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: metav1.Now()},
		}},
	}
	srv := &fakePodGroupServer{pg: current}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	pgs, err := NewPodGroupClient(&rest.Config{Host: ts.URL}, scheme)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(nil, pgs, nil, klog.Background())

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
	if got := srv.pg.Status; got.Phase != v1alpha1.PodGroupPhasePending || len(got.Conditions) != 2 {
		t.Errorf("status %+v: want the phase and both conditions", got)
	}
}
