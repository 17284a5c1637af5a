package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// runBinder is the trivial binder, the benchmark's ceiling: it binds every pending pod
// of the benchmark's scheduler name to the next node in turn, with no scheduling, no
// client-side rate limit and concurrency workers, until SIGTERM. It serves /readyz and
// its failed bindings as scheduler_schedule_attempts_total{result="error"} on /metrics.
func runBinder(args []string) error {
	fs := flag.NewFlagSet("binder", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	addr := fs.String("bind-address", "127.0.0.1:0", "address of /readyz and /metrics")
	workers := fs.Int("concurrency", 512, "bindings in flight at most")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := connect(*kubeconfig)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	factory := informers.NewSharedInformerFactory(c.client, 0)
	nodes := factory.Core().V1().Nodes()
	nodes.Informer() // registered before the factory starts
	pending := informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.AndSelectors(fields.OneTermEqualSelector("spec.nodeName", ""),
			fields.OneTermEqualSelector("spec.schedulerName", schedulerName)).String()
	})).Core().V1().Pods()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
	defer queue.ShutDown()
	enqueue := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.NodeName == "" {
			queue.Add(cache.MetaObjectToName(pod))
		}
	}
	if _, err := pending.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go pending.Informer().RunWithContext(ctx)
	var ready atomic.Bool
	var failed atomic.Int64
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "scheduler_schedule_attempts_total{result=\"error\"} %d\n", failed.Load())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if !cache.WaitForCacheSync(ctx.Done(), nodes.Informer().HasSynced, pending.Informer().HasSynced) {
		return nil
	}
	nodeList, err := nodes.Lister().List(labels.Everything())
	if err != nil || len(nodeList) == 0 {
		return fmt.Errorf("no nodes to bind to (%v)", err)
	}
	ready.Store(true)
	var next atomic.Int64
	for range *workers {
		go func() {
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				pod, err := pending.Lister().Pods(key.Namespace).Get(key.Name)
				if err == nil && pod.Spec.NodeName == "" {
					node := nodeList[int(next.Add(1))%len(nodeList)].Name
					binding := &corev1.Binding{
						ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
						Target:     corev1.ObjectReference{Kind: "Node", Name: node},
					}
					callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
					err = c.client.CoreV1().Pods(pod.Namespace).Bind(callCtx, binding, metav1.CreateOptions{})
					cancel()
					if err != nil {
						failed.Add(1)
						queue.AddRateLimited(key)
						queue.Done(key)
						continue
					}
				}
				queue.Forget(key)
				queue.Done(key)
			}
		}()
	}
	<-ctx.Done()
	return nil
}
