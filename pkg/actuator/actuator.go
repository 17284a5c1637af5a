// Package actuator applies the scheduler's decisions off the scheduling loop: bindings,
// status patches, victim deletions and events. It talks to the cluster through a Client
// (the kube driver's API calls or the simulator's in-memory cluster) and runs the work on
// an Executor (goroutines in a real cluster, virtual-time tasks in the simulator), then
// reports completion back into the loop through a post function.
package actuator

import (
	"context"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Client is what the actuator needs from a cluster.
type Client interface {
	// BindPod binds a pod to a node (pods/binding).
	BindPod(ctx context.Context, pod *v1.Pod, node string) error
	// DeletePod deletes a pod gracefully; a nil grace uses the pod's own
	// terminationGracePeriodSeconds.
	DeletePod(ctx context.Context, pod *v1.Pod, grace *int64) error
	// PatchPodStatus sets a condition and/or the nominated node name (nil leaves it alone;
	// "" clears it).
	PatchPodStatus(ctx context.Context, pod *v1.Pod, cond *v1.PodCondition, nominatedNode *string) error
	// UpdateStatus writes the status of another object (a PodGroup).
	UpdateStatus(ctx context.Context, obj runtime.Object) error
	// Event records an event about an object (with an optional related object).
	Event(regarding, related runtime.Object, eventType, reason, action, note string)
}

// Executor runs work off the scheduling loop.
type Executor interface {
	// Go runs a task off the loop.
	Go(task func())
	// Parallel runs fn(0..n-1), concurrently where the executor can, and returns when all
	// are done. It is called from inside a task.
	Parallel(n int, fn func(i int))
}

// GoExecutor runs each task on its own goroutine, and Parallel on one goroutine per item.
type GoExecutor struct{}

// Go starts the task.
func (GoExecutor) Go(task func()) { go task() }

// Parallel runs fn on n goroutines and waits for them.
func (GoExecutor) Parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}

// Actuator applies decisions.
type Actuator struct {
	Client Client
	Exec   Executor
	// Post delivers a completion to the scheduling loop; it must be safe to call from any
	// goroutine.
	Post func(func())
	// Name is the component name used in messages ("phalanx").
	Name string
}

// Async runs an API call off the loop and delivers its error to done on the loop.
func (a *Actuator) Async(call func(ctx context.Context) error, done func(error)) {
	a.Exec.Go(func() {
		err := call(context.Background())
		if done != nil {
			a.Post(func() { done(err) })
		}
	})
}

// Event records an event without blocking the loop.
func (a *Actuator) Event(regarding, related runtime.Object, eventType, reason, action, note string) {
	a.Client.Event(regarding, related, eventType, reason, action, note)
}
