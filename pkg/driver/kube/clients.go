package kube

import (
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
)

// clientSet is every client the driver makes of the API server, each with its own
// budget: the informers and the actuator's calls share the flags' limits (the actuator's
// through its dispatcher, which takes a token only when a call's turn comes), events and
// leader election have their own. The informers' watches also have a connection of their
// own (ownConnection); the other clients share one.
type clientSet struct {
	informers kubernetes.Interface
	actuator  kubernetes.Interface
	podGroups *PodGroupClient
	// v1alpha2 reads Kubernetes 1.36's native PodGroups and Workloads (nativev1alpha2.go).
	v1alpha2       rest.Interface
	leaderElection kubernetes.Interface
	events         *eventRecorder
	calls          *dispatch.Dispatcher
	metrics        *callMetrics
	// registry holds the dispatcher's, the bindings' and the events' metrics.
	registry *prometheus.Registry
}

func newClientSet(o Options, scheme *runtime.Scheme) (*clientSet, error) {
	limits := RateLimits{QPS: o.QPS, Burst: o.Burst, Concurrency: o.Concurrency}
	apf := &apfObserver{}
	base := rest.CopyConfig(o.REST)
	apf.observe(base)
	// config is base for one client: client-go's own limiter is replaced by limiter (nil:
	// none).
	config := func(agent string, limiter flowcontrol.RateLimiter, protobuf bool) *rest.Config {
		c := rest.CopyConfig(base)
		c.UserAgent = "phalanx/" + agent
		c.QPS, c.Burst, c.RateLimiter = -1, 0, limiter
		if protobuf {
			c.ContentType = runtime.ContentTypeProtobuf
			c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
		}
		return c
	}
	shared := limits.limiter(apf)
	cs := &clientSet{registry: prometheus.NewRegistry()}
	cs.metrics = newCallMetrics(cs.registry)
	timeout := o.RequestTimeout
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}
	cs.calls = dispatch.New(limits.Concurrency, shared, timeout, dispatch.NewMetrics(cs.registry))
	apf.onThrottled(cs.calls.Throttled)

	var err error
	if cs.informers, err = kubernetes.NewForConfig(ownConnection(config("scheduler", shared, true))); err != nil {
		return nil, err
	}
	if cs.actuator, err = kubernetes.NewForConfig(config("scheduler", nil, true)); err != nil {
		return nil, err
	}
	if cs.podGroups, err = NewPodGroupClient(config("scheduler", nil, false), scheme); err != nil {
		return nil, err
	}
	if cs.v1alpha2, err = NewV1alpha2Client(config("scheduler", shared, false)); err != nil {
		return nil, err
	}
	if cs.leaderElection, err = kubernetes.NewForConfig(config("leader-election", limits.limiter(apf), true)); err != nil {
		return nil, err
	}
	eventClient, err := kubernetes.NewForConfig(config("events", nil, true))
	if err != nil {
		return nil, err
	}
	cs.events = newEventRecorder(eventClient, scheme, cs.calls, limits.eventLimiter(), cs.metrics.eventsDropped)
	return cs, nil
}

// ownConnection gives a client a TCP connection of its own. client-go otherwise shares one
// HTTP/2 connection among every client of the same server and credentials, and the API
// server serves each connection's streams (at most 100) through one loop: with hundreds of
// the actuator's calls on it (a preemption wave's evictions and reports), the informers'
// watch events wait behind their responses. In the wave phalanx saw new pods seconds
// after they were created, and the API server closed its pod watch as unresponsive more
// often than with a connection of its own (docs/decisions/0073). A dialer of its own is
// what keeps client-go from reusing the shared transport; it dials as client-go's default
// does.
func ownConnection(c *rest.Config) *rest.Config {
	c.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return c
}
