package kube

import (
	"context"
	"net/http"
	"sync/atomic"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Client-side limits when the API server does not enforce Priority and Fairness: kube-
// scheduler's defaults.
const (
	fallbackQPS   = 50
	fallbackBurst = 100
)

// Events have their own budget (kube-scheduler's defaults, or the flags when they are
// set), and at most eventBacklog events wait for it: beyond that, new events are dropped
// rather than piling up behind the budget.
const (
	eventQPS     = 50
	eventBurst   = 100
	eventBacklog = 1000
)

// RateLimits are the client-side limits of `phalanx run`. QPS 0 (the default) trusts the
// API server's Priority and Fairness (APF, on in every supported Kubernetes): no
// client-side limit while the server answers with APF's headers, kube-scheduler's 50/100
// otherwise. QPS < 0 never limits; QPS > 0 is a token bucket of QPS and Burst (0: twice
// QPS). Concurrency bounds the actuator's API calls in flight, and is halved whenever the
// server answers 429 (pkg/driver/kube/dispatch).
type RateLimits struct {
	QPS         float32
	Burst       int
	Concurrency int
}

// limiter returns the client-side limiter of these limits for one client (nil: none).
func (r RateLimits) limiter(apf *apfObserver) flowcontrol.RateLimiter {
	switch {
	case r.QPS < 0:
		return nil
	case r.QPS == 0:
		return &apfAware{apf: apf, fallback: flowcontrol.NewTokenBucketRateLimiter(fallbackQPS, fallbackBurst)}
	default:
		return flowcontrol.NewTokenBucketRateLimiter(r.QPS, r.burst())
	}
}

// eventLimiter is the events' budget: the flags' limit when set, else kube-scheduler's.
func (r RateLimits) eventLimiter() flowcontrol.RateLimiter {
	if r.QPS > 0 {
		return flowcontrol.NewTokenBucketRateLimiter(r.QPS, r.burst())
	}
	return flowcontrol.NewTokenBucketRateLimiter(eventQPS, eventBurst)
}

func (r RateLimits) burst() int {
	if r.Burst > 0 {
		return r.Burst
	}
	return max(1, int(2*r.QPS))
}

// apfObserver watches the API server's answers on every client of the driver: it notes
// whether the server enforces Priority and Fairness (it then names the flow schema and
// priority level of each request in response headers), and reports each 429.
type apfObserver struct {
	seen      atomic.Bool
	throttled atomic.Pointer[func()]
}

func (o *apfObserver) onThrottled(fn func()) { o.throttled.Store(&fn) }

// wrap is a rest.Config WrapTransport.
func (o *apfObserver) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		if resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID) != "" {
			o.seen.Store(true)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			if fn := o.throttled.Load(); fn != nil {
				(*fn)()
			}
		}
		return resp, err
	})
}

// observe makes cfg's clients report to o.
func (o *apfObserver) observe(cfg *rest.Config) {
	cfg.Wrap(o.wrap)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// apfAware is the default client-side limiter: none while the API server enforces
// Priority and Fairness (it protects itself, and tells us to slow down with 429s, which
// client-go retries after the Retry-After it is given), a token bucket otherwise.
type apfAware struct {
	apf      *apfObserver
	fallback flowcontrol.RateLimiter
}

func (l *apfAware) TryAccept() bool { return l.apf.seen.Load() || l.fallback.TryAccept() }

func (l *apfAware) Accept() {
	if !l.apf.seen.Load() {
		l.fallback.Accept()
	}
}

func (l *apfAware) Wait(ctx context.Context) error {
	if l.apf.seen.Load() {
		return nil
	}
	return l.fallback.Wait(ctx)
}

func (l *apfAware) Stop()        { l.fallback.Stop() }
func (l *apfAware) QPS() float32 { return l.fallback.QPS() }
