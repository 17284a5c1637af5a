package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The schedulers a run can start.
const (
	kindPhalanx       = "phalanx"
	kindKubeScheduler = "kube-scheduler"
	kindBinder        = "binder"
)

// launcher starts the scheduler under test, one process per workload.
type launcher struct {
	kind       string
	kubeconfig string
	dir        string
	// qps and burst are the client limits of the "equal limits" runs (0: the
	// scheduler's defaults).
	qps   float32
	burst int
	// binaries
	phalanx, kubeScheduler, self string
	phalanxArgs                  []string
	seq                          int
}

// process is a running scheduler.
type process struct {
	name string
	cmd  *exec.Cmd
	// base is its /readyz and /metrics listener.
	base   string
	client *http.Client
	done   chan struct{}
	log    string
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (l *launcher) start(workload string) (*process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	l.seq++
	name := fmt.Sprintf("%02d-%s-%s", l.seq, l.kind, workload)
	p := &process{name: name, log: filepath.Join(l.dir, name+".log"), done: make(chan struct{}), client: &http.Client{Timeout: 5 * time.Second}}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var args []string
	var bin string
	switch l.kind {
	case kindPhalanx:
		bin = l.phalanx
		cfg := filepath.Join(l.dir, "phalanx-config.yaml")
		if err := os.WriteFile(cfg, []byte("apiVersion: config.phalanx.dev/v1alpha1\nkind: SchedulerConfiguration\nprofiles:\n- schedulerName: "+schedulerName+"\n"), 0o644); err != nil {
			return nil, err
		}
		args = []string{"run", "--kubeconfig=" + l.kubeconfig, "--config=" + cfg, "--leader-elect=false", "--bind-address=" + addr, "--v=1"}
		if l.qps > 0 {
			args = append(args, fmt.Sprintf("--kube-api-qps=%g", l.qps), fmt.Sprintf("--kube-api-burst=%d", l.burst))
		}
		args = append(args, l.phalanxArgs...)
		p.base = "http://" + addr
	case kindKubeScheduler:
		bin = l.kubeScheduler
		cfg := filepath.Join(l.dir, "kube-scheduler-config.yaml")
		limits := ""
		if l.qps > 0 {
			limits = fmt.Sprintf("  qps: %g\n  burst: %d\n", l.qps, l.burst)
		}
		conf := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: " + l.kubeconfig + "\n" + limits +
			"leaderElection:\n  leaderElect: false\nprofiles:\n- schedulerName: " + schedulerName + "\n"
		if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
			return nil, err
		}
		args = []string{"--config=" + cfg, "--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
			"--cert-dir=" + filepath.Join(l.dir, "kube-scheduler-certs"),
			"--authentication-kubeconfig=" + l.kubeconfig, "--authorization-kubeconfig=" + l.kubeconfig,
			"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
			"--feature-gates=" + upstreamFeatureGates, "--v=1"}
		p.base = "https://" + addr
		p.client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // its own self-signed serving cert, on loopback
	case kindBinder:
		bin = l.self
		args = []string{"binder", "--kubeconfig=" + l.kubeconfig, "--bind-address=" + addr}
		p.base = "http://" + addr
	default:
		return nil, fmt.Errorf("unknown scheduler %q", l.kind)
	}
	logf, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() {
		_ = p.cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// upstreamFeatureGates turn on kube-scheduler v1.37's workload scheduling: GenericWorkload
// (beta, off by default: the PodGroup API, gang scheduling and workload-aware
// preemption, which had gates of their own in v1.36), topology-aware placement and
// PodGroup preemption policies; the control plane serves the API (e2e::up).
const upstreamFeatureGates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,PodGroupPreemptionPolicy=true"

func (p *process) get(ctx context.Context, path string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// waitReady waits for /readyz.
func (p *process) waitReady(ctx context.Context) error {
	return poll(ctx, 2*time.Minute, func(ctx context.Context) (bool, error) {
		select {
		case <-p.done:
			return false, fmt.Errorf("%s exited (log %s)", p.name, p.log)
		default:
		}
		code, _, err := p.get(ctx, "/readyz")
		return err == nil && code == http.StatusOK, nil
	})
}

// failedAttempts sums the scheduling attempts that ended in an error (kube-scheduler's
// scheduler_schedule_attempts_total{result="error"}, which counts failed bindings; the
// same for phalanx's pods and pod groups).
func (p *process) failedAttempts(ctx context.Context) (int, error) {
	code, body, err := p.get(ctx, "/metrics")
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("%s/metrics: HTTP %d", p.base, code)
	}
	// Kept beside the log, to see where the time went.
	_ = os.WriteFile(strings.TrimSuffix(p.log, ".log")+".metrics", []byte(body), 0o644)
	total := 0.0
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "scheduler_schedule_attempts_total{") && !strings.HasPrefix(line, "scheduler_podgroup_schedule_attempts_total{") {
			continue
		}
		if !strings.Contains(line, `result="error"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, err
		}
		total += v
	}
	return int(total), sc.Err()
}

// stop ends the process (SIGTERM, then SIGKILL after 30 s) and returns the CPU time it
// used.
func (p *process) stop() time.Duration {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	st := p.cmd.ProcessState
	return st.UserTime() + st.SystemTime()
}
