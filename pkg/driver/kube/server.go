package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

// checks is what /healthz and /readyz answer from.
type checks struct {
	// live reports a reason the process should be restarted, or nil.
	live func(*http.Request) error
	// ready reports a reason the process should not take traffic, or nil.
	ready func() error
}

// newMux serves /healthz, /readyz and /metrics.
func newMux(c checks, gatherer prometheus.Gatherer, logger klog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	probe := func(check func(*http.Request) error) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			if err := check(r); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintf(w, "%v\n", err)
				return
			}
			fmt.Fprintln(w, "ok")
		}
	}
	mux.Handle("/healthz", probe(c.live))
	mux.Handle("/livez", probe(c.live))
	mux.Handle("/readyz", probe(func(*http.Request) error { return c.ready() }))
	mux.Handle("/metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{
		ErrorLog:      promLogger{logger},
		ErrorHandling: promhttp.ContinueOnError,
	}))
	return mux
}

// addProfiling serves Go's profiles (go tool pprof http://HOST/debug/pprof/profile), as
// kube-scheduler does with enableProfiling.
func addProfiling(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

type promLogger struct{ logger klog.Logger }

func (l promLogger) Println(v ...any) {
	l.logger.Error(nil, "Serving metrics", "err", fmt.Sprint(v...))
}

// server is the HTTP listener.
type server struct {
	srv *http.Server
	ln  net.Listener
}

// listen binds addr ("" disables the server).
func listen(addr string, handler http.Handler) (*server, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return &server{
		srv: &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second},
		ln:  ln,
	}, nil
}

func (s *server) serve(logger klog.Logger) {
	if s == nil {
		return
	}
	go func() {
		if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "HTTP server stopped")
		}
	}()
}

func (s *server) shutdown() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
}

// Addr is the address the server listens on (useful with port 0).
func (s *server) Addr() string {
	if s == nil {
		return ""
	}
	return s.ln.Addr().String()
}
