package kube

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/pkg/scheduler"
)

func validOptions() Options {
	return Options{
		REST: &rest.Config{Host: "https://127.0.0.1:1"}, QPS: 50, Burst: 100, Concurrency: DefaultAPIConcurrency,
		LeaderElection: DefaultLeaderElection(), AsyncPreemption: true, Logger: klog.Background(),
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"defaults", func(*Options) {}, ""},
		{"qps from Priority and Fairness", func(o *Options) { o.QPS, o.Burst = 0, 0 }, ""},
		{"no qps limit", func(o *Options) { o.QPS = -1 }, ""},
		{"negative burst", func(o *Options) { o.Burst = -1 }, "--kube-api-burst"},
		{"no concurrency", func(o *Options) { o.Concurrency = 0 }, "--kube-api-concurrency"},
		{"renew >= lease", func(o *Options) { o.LeaderElection.RenewDeadline = 15 * time.Second }, "--leader-elect-lease-duration"},
		{"retry too long", func(o *Options) { o.LeaderElection.RetryPeriod = 9 * time.Second }, "--leader-elect-renew-deadline"},
		{"no lease name", func(o *Options) { o.LeaderElection.Name = "" }, "--leader-elect-resource-name"},
		{"podgroup source", func(o *Options) { o.PodGroupSource = GroupSourceNative }, ""},
		{"unknown podgroup source", func(o *Options) { o.PodGroupSource = "both" }, "--podgroup-source"},
		{"negative startup timeout", func(o *Options) { o.StartupTimeout = -time.Second }, "--startup-timeout"},
		{"leader election off ignores its settings", func(o *Options) {
			o.LeaderElection = LeaderElection{}
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := validOptions()
			tc.change(&o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// New builds everything without talking to the API server, and refuses a
// configuration the scheduler cannot run.
func TestNew(t *testing.T) {
	d, err := New(validOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d.Scheduler() == nil || d.Identity() == "" {
		t.Fatal("no scheduler or identity")
	}
	if len(d.informers) != len(d.handlers) || d.informers[len(d.informers)-1].name != "pods" {
		t.Errorf("informers %v: pods must come last, one handler each", d.informers)
	}

	bad := validOptions()
	cfg, err := config.Parse([]byte("apiVersion: config.phalanx.dev/v1alpha1\nkind: SchedulerConfiguration\nprofiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    disabled: [{name: PrioritySort}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	bad.Config = cfg
	if _, err := New(bad); err == nil {
		t.Errorf("New accepted profiles with different QueueSort plugins")
	}
}

// TestGroupInformers: the informers of the group APIs read come before the pods', one
// handler each: Workloads before the native objects that refer to them, a composite API
// only when it is read; phalanx's CRDs and v1alpha2 are run by the driver, not the factory.
func TestGroupInformers(t *testing.T) {
	for _, tc := range []struct {
		apis groupAPIs
		want []string
	}{
		{groupAPIs{crd: true}, []string{"podgroups", "pods"}},
		{groupAPIs{crd: true, crdComposites: true}, []string{"compositepodgroups", "podgroups", "pods"}},
		{groupAPIs{native: nativegroup.V1alpha2}, []string{"workloads.scheduling.k8s.io", "podgroups.scheduling.k8s.io", "pods"}},
		{groupAPIs{crd: true, native: nativegroup.V1beta1, crdComposites: true, nativeComposites: true}, []string{"compositepodgroups", "podgroups",
			"workloads.scheduling.k8s.io", "compositepodgroups.scheduling.k8s.io", "podgroups.scheduling.k8s.io", "pods"}},
	} {
		t.Run(tc.apis.String()+" composites "+tc.apis.composites(), func(t *testing.T) {
			d, err := New(validOptions())
			if err != nil {
				t.Fatal(err)
			}
			before := len(d.informers)
			if err := d.addGroupInformers(tc.apis); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, inf := range d.informers[before-1:] {
				got = append(got, inf.name)
			}
			if !slices.Equal(got, tc.want) || len(d.handlers) != len(d.informers) {
				t.Errorf("informers %v (%d handlers for %d), want %v last", got, len(d.handlers), len(d.informers), tc.want)
			}
			for _, name := range []string{"compositepodgroups", "podgroups"} {
				if !d.standalone(name) {
					t.Errorf("%s is not run by the driver", name)
				}
			}
			if d.standalone("compositepodgroups.scheduling.k8s.io") || d.standalone("pods") {
				t.Error("a factory informer is run by the driver")
			}
		})
	}
}

// /readyz follows the caches (and shutdown), /healthz the leader's lease, /metrics the
// scheduler's and the client's collectors.
func TestEndpoints(t *testing.T) {
	d, err := New(validOptions())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(newMux(checks{live: d.live, ready: d.ready}, d.gatherer, klog.Background()))
	defer ts.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not synced") {
		t.Errorf("/readyz before sync: %d %q", code, body)
	}
	d.synced.Store(true)
	if code, _ := get("/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after sync: %d", code)
	}
	d.stopping.Store(true)
	if code, _ := get("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while stopping: %d", code)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d", code)
	}
	code, body := get("/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, name := range []string{"scheduler_preemption_attempts_total", "go_goroutines", "process_start_time_seconds",
		"phalanx_api_calls_inflight", "phalanx_events_dropped_total", "phalanx_build_info{git_commit="} {
		if !strings.Contains(body, name) {
			t.Errorf("/metrics has no %s", name)
		}
	}
}

// /debug/cache-comparison answers from the loop, and only while this replica schedules.
func TestComparisonEndpoint(t *testing.T) {
	d, err := New(validOptions())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(d.comparisonHandler())
	defer ts.Close()
	get := func() (int, string) {
		resp, err := http.Get(ts.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, "not scheduling") {
		t.Errorf("standby: %d %q", code, body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.sched.Run(ctx)
	d.scheduling.Store(true)
	code, body := get()
	var c scheduler.Comparison
	if err := json.Unmarshal([]byte(body), &c); code != http.StatusOK || err != nil || !c.Consistent() {
		t.Errorf("scheduling: %d %q (%v)", code, body, err)
	}
}

func TestListenError(t *testing.T) {
	s, err := listen("127.0.0.1:0", http.NewServeMux())
	if err != nil {
		t.Fatal(err)
	}
	defer s.ln.Close()
	if _, err := listen(s.Addr(), http.NewServeMux()); err == nil {
		t.Errorf("listening twice on %s: %v, want an error", s.Addr(), err)
	}
	if s, err := listen("", nil); s != nil || err != nil {
		t.Errorf(`listen(""): %v %v, want no server`, s, err)
	}
}

// Go's profiles are on the listener only when asked for (it has no authentication).
func TestProfilingEndpoint(t *testing.T) {
	for _, on := range []bool{false, true} {
		mux := http.NewServeMux()
		if on {
			addProfiling(mux)
		}
		ts := httptest.NewServer(mux)
		resp, err := http.Get(ts.URL + "/debug/pprof/goroutine?debug=1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ts.Close()
		if served := resp.StatusCode == http.StatusOK && strings.Contains(string(body), "goroutine"); served != on {
			t.Errorf("profiling %v: /debug/pprof/goroutine answered %d", on, resp.StatusCode)
		}
	}
}
