package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// A start that cannot finish gives up after the startup timeout, with an error naming the
// server and why, and /readyz says it meanwhile.
func TestStartGivesUpSayingWhy(t *testing.T) {
	refused := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		return "http://" + addr
	}
	unauthorized := func(t *testing.T) string {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
		}))
		t.Cleanup(ts.Close)
		return ts.URL
	}
	for _, tc := range []struct {
		name   string
		server func(*testing.T) string
		want   string
	}{
		{"nothing listens", refused, "connection refused: nothing listens at that address"},
		{"credentials refused", unauthorized, "401 Unauthorized: it refuses phalanx's credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := validOptions()
			host := tc.server(t)
			o.REST = &rest.Config{Host: host}
			o.LeaderElection.Enabled = false
			o.BindAddress = "127.0.0.1:0"
			o.StartupTimeout = 2 * time.Second
			d, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- d.Run(context.Background()) }()
			// Meanwhile /readyz is false and says why.
			var said error
			for said == nil || !strings.Contains(said.Error(), tc.want) {
				select {
				case err = <-done:
					t.Fatalf("Run ended (%v) before /readyz said %q; it said %v", err, tc.want, said)
				case <-time.After(10 * time.Millisecond):
				}
				said = d.ready()
			}
			err = <-done
			if err == nil || !strings.Contains(err.Error(), "gave up after --startup-timeout 2s waiting for the API server: cannot connect to the API server "+host+": "+tc.want) {
				t.Errorf("Run: %v; want it to give up naming %s and %q", err, host, tc.want)
			}
		})
	}
}

// A signal ends the start at once, even while a request to a server that never answers is
// in flight: Run returns nil.
func TestStartStopsOnSignal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	o := validOptions()
	o.REST = &rest.Config{Host: "http://" + ln.Addr().String()}
	o.LeaderElection.Enabled = false
	o.BindAddress = "127.0.0.1:0"
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	c := <-accepted // the probe is waiting for an answer
	defer c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after a signal: %v, want nil", err)
	}
}

func TestDescribeAPIError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, "connection refused"},
		{&net.DNSError{Err: "no such host", Name: "api.example"}, "does not resolve"},
		{context.DeadlineExceeded, "no answer within"},
		{apierrors.NewUnauthorized("x"), "401 Unauthorized"},
		{apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("nope")), "403 Forbidden"},
		{io.EOF, "the connection was closed"},
		{apierrors.NewServiceUnavailable("starting"), "HTTP 503"},
	} {
		if got := describeAPIError(tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("describeAPIError(%v) = %q, want it to say %q", tc.err, got, tc.want)
		}
	}
}
