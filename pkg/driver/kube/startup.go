package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
)

// DefaultStartupTimeout bounds how long `phalanx run` waits at start for the API server to
// answer and for the informer caches to fill, before it gives up with an error naming the
// server and the cause (exit status 1): long enough to ride out a control plane that is
// itself starting, short enough that a wrong address or credentials show as a failed pod.
const DefaultStartupTimeout = 2 * time.Minute

// shutdownGrace bounds what a stop does after a signal (the Lease released, the informers
// stopped, pending events written): with the API server unreachable, none of it can
// finish, and the process must still end promptly.
const shutdownGrace = 3 * time.Second

// probeTimeout bounds one request of the start's probe: a server that accepts connections
// and never answers must not hold the start forever.
const probeTimeout = 5 * time.Second

// startProblems is what keeps the start from finishing, for /readyz, the logs and the
// error the start ends with when it gives up.
type startProblems struct {
	mu sync.Mutex
	// server is why the API server does not answer ("" when it does).
	server string
	// informers are each informer's last list or watch error.
	informers map[string]string
}

func (p *startProblems) setServer(problem string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.server = problem
}

// setInformer records an informer's error and reports whether it is new for it.
func (p *startProblems) setInformer(name, problem string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.informers == nil {
		p.informers = map[string]string{}
	}
	changed := p.informers[name] != problem
	p.informers[name] = problem
	return changed
}

// String says what is wrong: the server's problem, else the failing informers'.
func (p *startProblems) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.server != "" {
		return p.server
	}
	var out []string
	for name, problem := range p.informers {
		out = append(out, name+": "+problem)
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// waitForAPIServer asks the API server for its version until it answers: an error names
// the server and the cause at once, and it is asked again with backoff (1 s doubling to
// 30 s). It returns ctx's error when ctx ends first.
func (d *Driver) waitForAPIServer(ctx context.Context) error {
	d.problems.setServer(fmt.Sprintf("waiting for the API server %s to answer", d.opts.REST.Host))
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: math.MaxInt32, Cap: 30 * time.Second}
	for attempt := 1; ; attempt++ {
		err := d.probe(ctx)
		if err == nil {
			if attempt > 1 {
				d.logger.Info("The API server answers", "server", d.opts.REST.Host, "attempts", attempt)
			}
			d.problems.setServer("")
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		cause := describeAPIError(err)
		d.problems.setServer(fmt.Sprintf("cannot connect to the API server %s: %s", d.opts.REST.Host, cause))
		next := backoff.Step()
		d.logger.Error(err, "Cannot connect to the API server; retrying", "server", d.opts.REST.Host, "cause", cause,
			"attempt", attempt, "retryIn", next.Round(100*time.Millisecond).String())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(next):
		}
	}
}

// probe asks the API server for its version (which any user may read), within
// probeTimeout.
func (d *Driver) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	return d.discovery.RESTClient().Get().AbsPath("/version").Do(ctx).Error()
}

// describeAPIError says in a few words why a request to the API server failed.
func describeAPIError(err error) string {
	var dnsErr *net.DNSError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordHeader tls.RecordHeaderError
	var netErr net.Error
	switch {
	case apierrors.IsUnauthorized(err):
		return "401 Unauthorized: it refuses phalanx's credentials (the token or client certificate of --kubeconfig, or the pod's ServiceAccount token)"
	case apierrors.IsForbidden(err):
		return "403 Forbidden: " + err.Error()
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens at that address"
	case errors.As(err, &dnsErr):
		return "the host name does not resolve: " + dnsErr.Error()
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid):
		return "its TLS certificate is not trusted: " + err.Error()
	case errors.As(err, &recordHeader):
		return "it does not speak TLS (is the address an API server's?)"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout(),
		strings.Contains(err.Error(), "TLS handshake timeout"):
		return fmt.Sprintf("no answer within %s (a firewall, or a server that accepts connections and does not respond)", probeTimeout)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return "the connection was closed: " + err.Error()
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return fmt.Sprintf("HTTP %d: %s", status.Status().Code, err.Error())
	}
	return err.Error()
}

// watchErrors makes every informer log its list and watch errors at once, as errors that
// name the resource and the server (client-go only logs them at a high verbosity), and
// records them for /readyz and for the start's error.
func (d *Driver) watchErrors() error {
	for _, inf := range d.informers {
		name := inf.name
		err := inf.informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				return // a watch that ends: the reflector lists again
			}
			problem := err.Error()
			if hint := informerHint(name, err); hint != "" {
				problem += " (" + hint + ")"
			}
			if d.problems.setInformer(name, problem) {
				d.logger.Error(err, "Cannot list or watch; retrying", "informer", name, "server", d.opts.REST.Host, "hint", informerHint(name, err))
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// informerHint says what usually causes an informer's error.
func informerHint(name string, err error) string {
	switch {
	case apierrors.IsNotFound(err) && name == informerCRDGroups:
		return "is phalanx's PodGroup CRD installed? kubectl apply -f config/crd/"
	case apierrors.IsNotFound(err):
		return "does the API server serve this API?"
	case apierrors.IsForbidden(err):
		return "does phalanx's ServiceAccount have the permissions of config/rbac?"
	case apierrors.IsUnauthorized(err):
		return "the API server refuses phalanx's credentials"
	}
	return ""
}

// unsynced names the informers whose caches are not full yet.
func (d *Driver) unsynced() []string {
	var out []string
	for _, inf := range d.informers {
		if !inf.informer.HasSynced() {
			out = append(out, inf.name)
		}
	}
	return out
}

// gaveUp is the start's error once --startup-timeout has passed: what was still missing,
// and why.
func (d *Driver) gaveUp(ctx context.Context, phase string) error {
	problem := d.problems.String()
	if problem == "" || phase == "informer caches" {
		// Connection errors reach no watch error handler: ask the server once more.
		if err := d.probe(context.WithoutCancel(ctx)); err != nil {
			problem = fmt.Sprintf("cannot connect to the API server %s: %s", d.opts.REST.Host, describeAPIError(err))
		}
	}
	if phase == "informer caches" {
		phase = "informer caches (" + strings.Join(d.unsynced(), ", ") + ")"
	}
	if problem == "" {
		problem = "no error reported; the API server answers slowly"
	}
	return fmt.Errorf("gave up after --startup-timeout %s waiting for the %s: %s", d.opts.StartupTimeout, phase, problem)
}

// within runs fn, and returns early, with ctx's error, if ctx ends first: fn goes on in
// the background (a request to a server that does not answer, say) and its result is
// dropped.
func within(ctx context.Context, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitAtMost waits for fn to return, at most until deadline.
func waitAtMost(deadline time.Time, fn func()) {
	done := make(chan struct{})
	go func() {
		fn()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
	}
}
