package kube

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// The scheduler's handlers are given every object the caches hold before the loop starts,
// and the wait for that is on the registrations' done channels, not a poll: in a synctest
// bubble, whose clock moves only when every goroutine waits for a timer, it ends without
// the clock moving (cache.WaitForCacheSync would sleep its 100 ms poll period).
func TestRegisterHandlersWaitsWithoutPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pods = 200
		objs := make([]runtime.Object, pods)
		for i := range objs {
			objs[i] = &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p-%03d", i)}}
		}
		factory := informers.NewSharedInformerFactory(fake.NewClientset(objs...), 0)
		podInformer := factory.Core().V1().Pods().Informer()
		nodeInformer := factory.Core().V1().Nodes().Informer()
		ctx, cancel := context.WithCancel(t.Context())
		defer func() {
			cancel()
			factory.Shutdown()
		}()
		factory.Start(ctx.Done())
		if !cache.WaitFor(ctx, "", podInformer.HasSyncedChecker(), nodeInformer.HasSyncedChecker()) {
			t.Fatal("the caches did not sync")
		}
		var added atomic.Int64
		count := cache.ResourceEventHandlerFuncs{AddFunc: func(any) { added.Add(1) }}
		infs := []namedInformer{{"pods", podInformer}, {"nodes", nodeInformer}}
		start := time.Now()
		if !registerHandlers(ctx, infs, []cache.ResourceEventHandler{count, count}, klog.Background()) {
			t.Fatal("registerHandlers returned false")
		}
		if got := added.Load(); got != pods {
			t.Errorf("the handlers were given %d objects before registerHandlers returned, want %d", got, pods)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("registerHandlers waited %v of the bubble's clock: it polled rather than waited on the registrations", waited)
		}
	})
}
