package kube

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
)

// bindReactor makes the fake API server bind (or not) and then answer err.
func bindReactor(cs *fake.Clientset, bind bool, boundTo string, err error) {
	cs.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := a.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		if bind || boundTo != "" {
			obj, getErr := cs.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), b.Namespace, b.Name)
			if getErr != nil {
				return true, nil, getErr
			}
			pod := obj.(*v1.Pod).DeepCopy()
			pod.Spec.NodeName = b.Target.Name
			if boundTo != "" {
				pod.Spec.NodeName = boundTo
			}
			if upErr := cs.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), pod, b.Namespace); upErr != nil {
				return true, nil, upErr
			}
		}
		return true, nil, err
	})
}

// A binding whose call fails without saying whether the server acted is resolved by
// reading the pod back.
func TestBindOutcomeResolved(t *testing.T) {
	timeout := context.DeadlineExceeded
	tests := []struct {
		name    string
		bind    bool
		boundTo string
		delete  bool
		err     error
		// want: "" for success, else a substring of the error; notFound for NotFound.
		want     string
		notFound bool
		// reads is the number of GETs the resolution should make.
		reads int
	}{
		{name: "timeout after the server bound it", bind: true, err: timeout, reads: 1},
		// Still pending after each of the bindAttempts: the failure it looked like.
		{name: "timeout, not bound", err: timeout, want: "context deadline exceeded", reads: bindAttempts},
		{name: "conflict: our own earlier binding", bind: true, err: apierrors.NewConflict(v1.Resource("pods/binding"), "p", errors.New("pod p is already assigned to node \"n1\"")), reads: 1},
		{name: "bound elsewhere", boundTo: "n2", err: apierrors.NewConflict(v1.Resource("pods/binding"), "p", errors.New("already assigned")), want: "is bound to node n2", reads: 1},
		{name: "deleted meanwhile", delete: true, err: errors.New("http2: client connection lost"), notFound: true, reads: 1},
		{name: "refused outright", err: apierrors.NewForbidden(v1.Resource("pods/binding"), "p", errors.New("no")), want: "forbidden", reads: 0},
		{name: "throttled", err: apierrors.NewTooManyRequests("slow down", 1), want: "slow down", reads: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset(pendingPod())
			bindReactor(cs, tc.bind, tc.boundTo, tc.err)
			if tc.delete {
				cs.PrependReactor("get", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewNotFound(v1.Resource("pods"), "p")
				})
			}
			err := NewClient(cs, nil, nil, klog.Background()).BindPod(context.Background(), pendingPod(), "n1")
			switch {
			case tc.notFound:
				if !apierrors.IsNotFound(err) {
					t.Errorf("got %v, want NotFound", err)
				}
			case tc.want == "":
				if err != nil {
					t.Errorf("got %v, want success", err)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
			reads := 0
			for _, a := range cs.Actions() {
				if a.GetVerb() == "get" {
					reads++
				}
			}
			if reads != tc.reads {
				t.Errorf("%d reads, want %d", reads, tc.reads)
			}
		})
	}
}

// A binding that timed out and left the pod pending is sent again: the second lands (as a
// request still on its way to etcd would), and the binding succeeds (issue 19's flaky
// TestBindingOutcomeUnknown: a read-back that came before the late write).
func TestBindAgainWhenStillPending(t *testing.T) {
	cs := fake.NewClientset(pendingPod())
	bindReactor(cs, true, "", nil)
	var binds atomic.Int32
	cs.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "binding" || binds.Add(1) > 1 {
			return false, nil, nil
		}
		return true, nil, context.DeadlineExceeded
	})
	if err := NewClient(cs, nil, nil, klog.Background()).BindPod(context.Background(), pendingPod(), "n1"); err != nil {
		t.Fatalf("got %v, want success on the second binding", err)
	}
	if n := binds.Load(); n != 2 {
		t.Errorf("%d bindings sent, want 2", n)
	}
}

// While the server does not answer, the pod is read again until it does.
func TestBindOutcomeReadUntilAnswered(t *testing.T) {
	cs := fake.NewClientset(pendingPod())
	bindReactor(cs, true, "", errors.New("connection reset by peer"))
	var fails atomic.Int32
	cs.PrependReactor("get", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if fails.Add(1) <= 2 {
			return true, nil, errors.New("connection refused")
		}
		return false, nil, nil
	})
	if err := NewClient(cs, nil, nil, klog.Background()).BindPod(context.Background(), pendingPod(), "n1"); err != nil {
		t.Errorf("got %v, want success on the third read", err)
	}
	if n := fails.Load(); n != 3 {
		t.Errorf("%d reads, want 3", n)
	}
}

// A pod recreated under the same name is not the pod we bound.
func TestBindOutcomeOfAReplacedPod(t *testing.T) {
	other := pendingPod()
	other.UID = types.UID("uid-2")
	other.Spec.NodeName = "n1"
	cs := fake.NewClientset(other)
	bindReactor(cs, false, "", context.DeadlineExceeded)
	err := NewClient(cs, nil, nil, klog.Background()).BindPod(context.Background(), pendingPod(), "n1")
	if !apierrors.IsNotFound(err) {
		t.Errorf("got %v, want NotFound (the pod we meant is gone)", err)
	}
}

// When the client stops before the server answers, the outcome is reported unknown.
func TestBindOutcomeUnknownAtShutdown(t *testing.T) {
	cs := fake.NewClientset(pendingPod())
	bindReactor(cs, false, "", context.DeadlineExceeded)
	c := NewClient(cs, nil, nil, klog.Background())
	cs.PrependReactor("get", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		c.calls.Stop()
		return true, nil, errors.New("connection refused")
	})
	err := c.BindPod(context.Background(), pendingPod(), "n1")
	if !errors.Is(err, errOutcomeUnknown) {
		t.Errorf("got %v, want errOutcomeUnknown", err)
	}
}
