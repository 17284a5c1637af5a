package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/driver/kube"
)

// `phalanx run` refuses bad input with status 2 and a message naming it, before it
// talks to any cluster.
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badConfig, []byte("apiVersion: config.phalanx.dev/v1alpha1\nkind: SchedulerConfiguration\npodMaxBackof: 1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:1}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: x}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	kscExtenders := filepath.Join(dir, "ksc.yaml")
	if err := os.WriteFile(kscExtenders, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders: [{urlPrefix: 'http://x'}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"missing kubeconfig", []string{"run", "--kubeconfig", "no/such/kubeconfig"}, "no/such/kubeconfig"},
		{"bad config", []string{"run", "--kubeconfig", kubeconfig, "--config", badConfig}, "podMaxBackof"},
		{"missing config", []string{"run", "--kubeconfig", kubeconfig, "--config", "no/such/config.yaml"}, "no/such/config.yaml"},
		{"bad lease durations", []string{"run", "--kubeconfig", kubeconfig, "--leader-elect-renew-deadline=20s"}, "--leader-elect-lease-duration"},
		{"bad podgroup source", []string{"run", "--kubeconfig", kubeconfig, "--podgroup-source=both"}, `--podgroup-source "both": must be one of ["auto" "crd" "native"]`},
		{"bad burst", []string{"run", "--kubeconfig", kubeconfig, "--kube-api-burst=-1"}, "--kube-api-burst"},
		{"bad concurrency", []string{"run", "--kubeconfig", kubeconfig, "--kube-api-concurrency=0"}, "--kube-api-concurrency"},
		{"unknown flag", []string{"run", "--frobnicate"}, "unknown flag"},
		{"bad log format", []string{"run", "--kubeconfig", kubeconfig, "--logging-format=yaml"}, "--logging-format"},
		{"kube-scheduler configuration phalanx cannot honour", []string{"run", "--kubeconfig", kubeconfig, "--config", kscExtenders}, "extenders: Forbidden"},
		{"arguments", []string{"run", "extra"}, "unexpected arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, "", tc.args...)
			if code != exitBadInput {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitBadInput, stderr)
			}
			if !strings.Contains(stderr, tc.inStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.inStderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on stderr: %s", stderr)
			}
		})
	}
}

// Without --kubeconfig outside a cluster there is nothing to connect to.
func TestRunOutsideACluster(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	_, stderr, code := run(t, "", "run")
	if code != exitBadInput || !strings.Contains(stderr, "not running in a cluster") {
		t.Errorf("exit %d, stderr %q: want 2 and a message saying there is no cluster", code, stderr)
	}
}

// The Deployment's arguments are flags `phalanx run` knows, in config/ and in the release
// manifest rendered from the chart.
func TestDeploymentArgsParse(t *testing.T) {
	for _, file := range []string{"../../config/deploy/deployment.yaml", "../../deploy/phalanx.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var dep *appsv1.Deployment
		for _, doc := range strings.Split(string(data), "\n---\n") {
			d := &appsv1.Deployment{}
			if err := yaml.Unmarshal([]byte(doc), d); err == nil && d.Kind == "Deployment" {
				dep = d
			}
		}
		if dep == nil {
			t.Fatalf("%s: no Deployment", file)
		}
		args := dep.Spec.Template.Spec.Containers[0].Args
		if len(args) == 0 || args[0] != "run" {
			t.Fatalf("%s: args %v: want run first", file, args)
		}
		cmd := newRunCommand()
		if err := cmd.ParseFlags(args[1:]); err != nil {
			t.Errorf("%s: phalanx run %v: %v", file, args[1:], err)
		}
		for _, f := range []string{"config", "leader-elect", "leader-elect-resource-namespace", "bind-address", "v"} {
			if !cmd.Flags().Changed(f) {
				t.Errorf("%s: the Deployment does not set --%s", file, f)
			}
		}
	}
}

// A KubeSchedulerConfiguration's leader election, client connection and profiling apply
// where no flag says otherwise; flags win.
func TestRunTakesKubeSchedulerSettings(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:7}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: x}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ksc := filepath.Join(dir, "ksc.yaml")
	if err := os.WriteFile(ksc, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
enableProfiling: true
leaderElection: {leaderElect: true, leaseDuration: 30s, renewDeadline: 20s, retryPeriod: 4s, resourceName: ml, resourceNamespace: scheduling}
clientConnection: {kubeconfig: `+kubeconfig+`, qps: 70, burst: 90}
profiles: [{schedulerName: ml}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	options := func(args ...string) kube.Options {
		t.Helper()
		cmd, ro := runCommand()
		if err := cmd.ParseFlags(append([]string{"--config", ksc}, args...)); err != nil {
			t.Fatal(err)
		}
		opts, err := ro.driverOptions(cmd.Flags())
		if err != nil {
			t.Fatal(err)
		}
		return opts
	}
	opts := options()
	le := opts.LeaderElection
	if !le.Enabled || le.Name != "ml" || le.Namespace != "scheduling" || le.LeaseDuration != 30*time.Second ||
		le.RenewDeadline != 20*time.Second || le.RetryPeriod != 4*time.Second {
		t.Errorf("leader election %+v, want the file's", le)
	}
	if opts.QPS != 70 || opts.Burst != 90 || !opts.Profiling || opts.REST.Host != "https://127.0.0.1:7" {
		t.Errorf("qps %v burst %v profiling %v host %s, want the file's", opts.QPS, opts.Burst, opts.Profiling, opts.REST.Host)
	}
	if opts.Config.Profiles[0].SchedulerName != "ml" {
		t.Errorf("profiles %+v", opts.Config.Profiles)
	}
	opts = options("--leader-elect=false", "--leader-elect-resource-name=other", "--kube-api-qps=5", "--profiling=false")
	if opts.LeaderElection.Enabled || opts.LeaderElection.Name != "other" || opts.QPS != 5 || opts.Burst != 90 || opts.Profiling {
		t.Errorf("flags did not win: leader election %+v, qps %v, burst %v, profiling %v", opts.LeaderElection, opts.QPS, opts.Burst, opts.Profiling)
	}
}
