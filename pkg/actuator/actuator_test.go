package actuator

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestGoExecutorParallelRunsEveryItem(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		visits := make([]atomic.Int32, n)
		GoExecutor{}.Parallel(n, func(i int) { visits[i].Add(1) })
		// Parallel returns only when every item is done, so the counts are final here.
		for i := range visits {
			if v := visits[i].Load(); v != 1 {
				t.Fatalf("n=%d: item %d ran %d times", n, i, v)
			}
		}
	}
}

func TestGoExecutorGoRunsTask(t *testing.T) {
	done := make(chan int)
	GoExecutor{}.Go(func() { done <- 42 })
	if got := <-done; got != 42 {
		t.Errorf("task sent %d", got)
	}
}

// queuedExecutor holds tasks until the test runs them, so the order of events is explicit.
type queuedExecutor struct{ tasks []func() }

func (e *queuedExecutor) Go(task func())                 { e.tasks = append(e.tasks, task) }
func (e *queuedExecutor) Parallel(n int, fn func(i int)) { GoExecutor{}.Parallel(n, fn) }

func TestAsyncDeliversErrorThroughPost(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		err  error
	}{
		{"success", nil},
		{"failure", boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exec := &queuedExecutor{}
			var posted []func()
			a := &Actuator{Exec: exec, Post: func(f func()) { posted = append(posted, f) }}
			var gotCtx context.Context
			delivered := 0
			var got error
			a.Async(func(ctx context.Context) error {
				gotCtx = ctx
				return tt.err
			}, func(err error) {
				delivered++
				got = err
			})
			if len(exec.tasks) != 1 || len(posted) != 0 {
				t.Fatalf("before the task runs: %d tasks, %d posted", len(exec.tasks), len(posted))
			}
			exec.tasks[0]()
			if gotCtx == nil {
				t.Error("call got a nil context")
			}
			// The completion waits for the loop: it runs only when the posted function does.
			if delivered != 0 || len(posted) != 1 {
				t.Fatalf("after the task: delivered %d times, %d posted", delivered, len(posted))
			}
			posted[0]()
			if delivered != 1 || !errors.Is(got, tt.err) || (tt.err == nil) != (got == nil) {
				t.Errorf("delivered %d times with %v, want once with %v", delivered, got, tt.err)
			}
		})
	}
}

func TestAsyncWithoutDone(t *testing.T) {
	exec := &queuedExecutor{}
	posts := 0
	a := &Actuator{Exec: exec, Post: func(func()) { posts++ }}
	called := false
	a.Async(func(context.Context) error { called = true; return errors.New("ignored") }, nil)
	exec.tasks[0]()
	if !called || posts != 0 {
		t.Errorf("called %v, posted %d times; want the call and nothing posted", called, posts)
	}
}

// With the goroutine executor, the error reaches the loop through Post.
func TestAsyncWithGoExecutor(t *testing.T) {
	loop := make(chan func())
	a := &Actuator{Exec: GoExecutor{}, Post: func(f func()) { loop <- f }}
	boom := errors.New("boom")
	delivered := make(chan error, 1)
	a.Async(func(context.Context) error { return boom }, func(err error) { delivered <- err })
	select {
	case f := <-loop:
		f()
		if got := <-delivered; !errors.Is(got, boom) {
			t.Errorf("delivered %v, want %v", got, boom)
		}
	case <-delivered:
		t.Fatal("the completion ran off the loop, without Post")
	}
}

type eventClient struct {
	Client
	got []any
}

func (c *eventClient) Event(regarding, related runtime.Object, eventType, reason, action, note string) {
	c.got = []any{regarding, related, eventType, reason, action, note}
}

func TestEventGoesToClient(t *testing.T) {
	c := &eventClient{}
	a := &Actuator{Client: c, Exec: GoExecutor{}, Post: func(f func()) { f() }, Name: "phalanx"}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	a.Event(pod, node, v1.EventTypeNormal, "Scheduled", "Binding", "assigned")
	want := []any{pod, node, v1.EventTypeNormal, "Scheduled", "Binding", "assigned"}
	if len(c.got) != len(want) {
		t.Fatalf("event %v", c.got)
	}
	for i := range want {
		if c.got[i] != want[i] {
			t.Errorf("argument %d = %v, want %v", i, c.got[i], want[i])
		}
	}
}
