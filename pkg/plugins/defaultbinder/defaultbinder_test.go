package defaultbinder

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

type recordingBinder struct {
	node string
	err  error
}

func (b *recordingBinder) BindPod(_ context.Context, _ *v1.Pod, node string) error {
	b.node = node
	return b.err
}

type handle struct {
	*testutil.Handle
	b framework.Binder
}

func (h handle) Binder() framework.Binder { return h.b }

func TestBind(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want framework.Code
	}{{"success", nil, framework.Success}, {"API error", errors.New("conflict"), framework.Error}} {
		t.Run(tc.name, func(t *testing.T) {
			rb := &recordingBinder{err: tc.err}
			pl, err := New(nil, handle{Handle: &testutil.Handle{}, b: rb})
			if err != nil {
				t.Fatal(err)
			}
			st := pl.(framework.BindPlugin).Bind(context.Background(), nil, testutil.Pod("p").Info(), "n1")
			if st.Code() != tc.want || rb.node != "n1" {
				t.Errorf("status %v, bound to %q", st, rb.node)
			}
		})
	}
}
