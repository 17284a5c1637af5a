package kube

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// The informers' watches and lists reach the API server on a connection of their own,
// not on the HTTP/2 connection that the actuator's calls and the events share
// (docs/decisions/0073). The server is HTTP/2 over TLS, as the API server is, and records
// the connection (the client's address) of every request.
func TestInformersHaveAConnectionOfTheirOwn(t *testing.T) {
	var mu sync.Mutex
	conns := map[string]string{} // request kind -> client address
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			t.Errorf("%s %s over %s, want HTTP/2", r.Method, r.URL.Path, r.Proto)
		}
		kind := r.Method + " " + r.URL.Path
		if r.URL.Query().Get("watch") == "true" {
			kind = "WATCH " + r.URL.Path
		}
		mu.Lock()
		conns[kind] = r.RemoteAddr
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodGet:
			if r.URL.Query().Get("watch") == "true" {
				w.WriteHeader(http.StatusOK) // a watch that ends at once, with no event
				return
			}
			if r.URL.Path == "/api/v1/pods" {
				_ = json.NewEncoder(w).Encode(&v1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}})
				return
			}
			_ = json.NewEncoder(w).Encode(&v1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}})
		default:
			_ = json.NewEncoder(w).Encode(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess})
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := newClientSet(Options{REST: &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}, QPS: -1}, scheme)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// One after the other, so that a client sharing a connection reuses it.
	if _, err := cs.actuator.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.informers.CoreV1().Pods("").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := cs.informers.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range w.ResultChan() {
	}
	if err := cs.actuator.CoreV1().Pods("ns").Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	calls := conns["GET /api/v1/namespaces/ns/pods/p"]
	if calls == "" || conns["DELETE /api/v1/namespaces/ns/pods/p"] != calls {
		t.Errorf("the actuator's calls came on %q and %q, want one connection", calls, conns["DELETE /api/v1/namespaces/ns/pods/p"])
	}
	list, watch := conns["GET /api/v1/pods"], conns["WATCH /api/v1/pods"]
	if list == "" || watch != list {
		t.Errorf("the informers' list came on %q and their watch on %q, want one connection", list, watch)
	}
	if list == calls {
		t.Errorf("the informers' requests came on the actuator's connection %s, want one of their own", calls)
	}
}
