package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var binary string

// TestMain builds the phalanx binary once, so the tests check the real process: exit
// codes, stdout and stderr.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "phalanx-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "phalanx")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../.."
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		inStderr string
	}{
		{"example runs", []string{"simulate", "-f", "examples/small-cluster"}, "", 0, ""},
		{"bad manifest", []string{"simulate", "-f", "testdata/badinput/bad-quantity.yaml"}, "", 2,
			"bad-quantity.yaml: document 2 (Pod): spec.containers[0].resources.requests[cpu]"},
		{"missing file", []string{"simulate", "-f", "no/such/file.yaml"}, "", 2, "no/such/file.yaml"},
		{"no -f", []string{"simulate"}, "", 2, "needs at least one -f"},
		{"unknown flag", []string{"simulate", "--frobnicate"}, "", 2, "unknown flag"},
		{"bad output format", []string{"simulate", "-f", "-", "-o", "xml"}, "", 2, "must be text, json or html"},
		{"stdin", []string{"simulate", "-f", "-"}, "apiVersion: v1\nkind: Node\nmetadata: {name: node1}\n", 0, ""},
		{"bad yaml on stdin", []string{"simulate", "-f", "-"}, "kind: [", 2, "<stdin>: document 1"},
		{"whatif: everything schedules", []string{"whatif", "--snapshot", "testdata/whatif/cluster.yaml", "-f", "testdata/whatif/gpu-pod.yaml"}, "", 0, ""},
		{"whatif: something would not", []string{"whatif", "--snapshot", "testdata/whatif/cluster.yaml", "-f", "testdata/whatif/small-pod.yaml"}, "", 3,
			"not everything new would schedule"},
		{"whatif: a kind phalanx cannot expand", []string{"whatif", "--snapshot", "testdata/whatif/cluster.yaml", "-f", "-"},
			"apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: r}\n", 2, "skipping kubeflow.org/v1 PyTorchJob"},
		{"whatif: bad new object", []string{"whatif", "--snapshot", "testdata/whatif/cluster.yaml", "-f", "testdata/badinput/job-restart-always.yaml"}, "", 2,
			"job-restart-always.yaml: document 1 (Job default/train): spec.template.spec.restartPolicy"},
		{"whatif: a snapshot and a cluster", []string{"whatif", "--snapshot", "testdata/whatif/cluster.yaml", "--context", "prod", "-f", "testdata/whatif/gpu-pod.yaml"}, "", 2,
			"--snapshot reads a saved cluster; the cluster flags (--kubeconfig, --context, --server ...) name a live one: give one (--context given)"},
		{"whatif: --kubeconfig missing", []string{"whatif", "--kubeconfig", "no/such/kubeconfig", "-f", "testdata/whatif/gpu-pod.yaml"}, "", 2,
			"--kubeconfig no/such/kubeconfig: "},
		{"snapshot: unknown --context", []string{"snapshot", "--kubeconfig", "testdata/whatif/cluster.yaml", "--context", "nope"}, "", 2, "--kubeconfig testdata/whatif/cluster.yaml: "},
		{"whatif: no -f", []string{"whatif", "--snapshot", "testdata/whatif/cluster.yaml"}, "", 2, "needs the new objects"},
		{"whatif: a queued Job admitted", []string{"whatif", "--snapshot", "examples/kueue/snapshot/cluster.yaml", "--admit", "ml/llm-train"}, "", 0, ""},
		{"whatif: --admit of no Job", []string{"whatif", "--snapshot", "examples/kueue/snapshot/cluster.yaml", "--admit", "ml/nope"}, "", 2,
			"--admit (Job ml/nope): no such Job in the cluster"},
		{"whatif: --admit of a Job not queued", []string{"whatif", "--snapshot", "testdata/whatif/cluster.yaml", "-f", "testdata/whatif/gpu-pod.yaml", "--admit", "ml/x/y"}, "", 2,
			`--admit: "ml/x/y": want NAMESPACE/NAME or NAME of a queued Job`},
		{"whatif: two clusters", []string{"whatif", "--snapshot", "x", "--kubeconfig", "y", "-f", "-"}, "", 2, "give one"},
		{"snapshot: cluster unreachable", []string{"snapshot", "--kubeconfig", "testdata/kubeconfig-unreachable.yaml"}, "", 1, "https://127.0.0.1:1"},
		{"empty input", []string{"simulate", "-f", "-"}, "", 2, "<stdin>: no objects: the input has no documents"},
		{"comments only", []string{"simulate", "-f", "-"}, "# nothing\n---\n# here\n", 2, "no objects"},
		{"only kinds the simulator skips", []string{"simulate", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n", 2,
			"no objects the simulator uses in its 1 document(s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
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

// Bad input lists every error it has, one a line, each naming file, document and field.
func TestEveryErrorOfTheInput(t *testing.T) {
	_, stderr, code := run(t, "apiVersion: v1\nkind: Node\nmetadata: {name: Bad_Name}\nstatus: {allocatable: {cpu: '-1'}}\n---\n"+
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containerz: []}\n", "simulate", "-f", "-")
	if code != 2 {
		t.Fatalf("exit %d, want 2; stderr: %s", code, stderr)
	}
	for _, want := range []string{
		`phalanx: <stdin>: document 1 (Node Bad_Name): metadata.name: Invalid value: "Bad_Name"`,
		`phalanx: <stdin>: document 1 (Node Bad_Name): status.allocatable[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
		`phalanx: <stdin>: document 2 (Pod default/p): spec.containerz: Unknown field`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// A configuration's errors name its file, and a file of another kind is refused as such.
func TestConfigurationErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ name, content, want string }{
		{"pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
			`pod.yaml: kind: Unsupported value: "Pod" (v1): not a scheduler configuration; --config takes a SchedulerConfiguration`},
		{"plugin.yaml", "apiVersion: config.phalanx.dev/v1alpha1\nkind: SchedulerConfiguration\nprofiles:\n- schedulerName: phalanx\n  plugins: {disabled: [{name: NodeResourceFit}]}\n",
			`plugin.yaml: profiles[0].plugins.disabled[0].name: Unsupported value: "NodeResourceFit"`},
		{"typo.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: phalanx\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy: {type: MostAllocated}\n      scoreStrategyy: x\n",
			`typo.yaml: line 9: unknown field "scoreStrategyy" in profiles[0].pluginConfig[0].args (NodeResourcesFitArgs)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(tc.name, tc.content)
			for _, args := range [][]string{
				{"simulate", "-f", "examples/small-cluster", "--config", path},
				{"run", "--config", path, "--kubeconfig", write("kubeconfig", "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\ncontexts: [{name: c, context: {cluster: c}}]\ncurrent-context: c\n")},
			} {
				_, stderr, code := run(t, "", args...)
				if code != 2 || !strings.Contains(stderr, tc.want) {
					t.Errorf("%s: exit %d, stderr %q; want 2 and %q", args[0], code, stderr, tc.want)
				}
			}
		})
	}
}

// The same input and seed give the same output, byte for byte.
func TestSimulateIsDeterministic(t *testing.T) {
	for _, format := range []string{"json", "text", "html"} {
		a, _, c1 := run(t, "", "simulate", "-f", "examples/small-cluster", "-o", format, "--seed", "7")
		b, _, c2 := run(t, "", "simulate", "-f", "examples/small-cluster", "-o", format, "--seed", "7")
		if c1 != 0 || c2 != 0 {
			t.Fatalf("%s: exit %d/%d", format, c1, c2)
		}
		if a != b {
			t.Errorf("%s output differs between two runs with the same seed", format)
		}
	}
}

func TestJSONFollowsTheContract(t *testing.T) {
	out, _, code := run(t, "", "simulate", "-f", "examples/small-cluster", "-o", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var report map[string]any
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pods", "podGroups", "events", "summary"} {
		if _, ok := report[k]; !ok {
			t.Errorf("missing %q", k)
		}
	}
	pod := report["pods"].([]any)[0].(map[string]any)
	for _, k := range []string{"namespace", "name", "phase", "node", "nominatedNode", "boundAt", "priority", "podGroup", "preemptedBy", "message"} {
		if _, ok := pod[k]; !ok {
			t.Errorf("pod lacks %q", k)
		}
	}
	sum := report["summary"].(map[string]any)
	for _, k := range []string{"pods", "running", "pending", "succeeded", "preempted", "deleted", "virtualSeconds", "wallSeconds"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
}

func TestHTMLToFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	_, stderr, code := run(t, "", "simulate", "-f", "examples/small-cluster", "-o", "html", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("<html")) || !bytes.Contains(data, []byte("web-1")) {
		t.Error("report lacks the page or the pods")
	}
	if !strings.Contains(stderr, "wrote "+out) {
		t.Errorf("stderr %q", stderr)
	}
}

// `phalanx version` and `phalanx --version` print the same line, with the stamp the
// Makefile and the Dockerfile set.
func TestVersion(t *testing.T) {
	out, _, code := run(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "phalanx ") {
		t.Errorf("version: %q (exit %d)", out, code)
	}
	flag, _, code := run(t, "", "--version")
	if code != 0 || flag != out {
		t.Errorf("--version: %q (exit %d), want %q", flag, code, out)
	}
	stamped := filepath.Join(t.TempDir(), "phalanx")
	build := exec.Command("go", "build", "-o", stamped, "-ldflags",
		"-X github.com/phalanx-dev/phalanx/pkg/version.gitVersion=v9.8.7 -X github.com/phalanx-dev/phalanx/pkg/version.gitCommit=feedface", ".")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	got, err := exec.Command(stamped, "--version").Output()
	if err != nil || !strings.HasPrefix(string(got), "phalanx v9.8.7 (commit feedface, ") {
		t.Errorf("stamped --version: %q, %v", got, err)
	}
}

// Installed as kubectl-phalanx on the PATH, the binary is kubectl's plugin: `kubectl
// phalanx whatif -f job.yaml` runs it with "whatif -f job.yaml", and its help says
// `kubectl phalanx` (issue 29).
func TestKubectlPlugin(t *testing.T) {
	plugin := filepath.Join(t.TempDir(), "kubectl-phalanx")
	if err := os.Symlink(binary, plugin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(plugin, "whatif", "--snapshot", "testdata/whatif/cluster.yaml", "-f", "testdata/whatif/gpu-pod.yaml")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl-phalanx whatif: %v\n%s", err, out)
	}
	direct, _, _ := run(t, "", "whatif", "--snapshot", "testdata/whatif/cluster.yaml", "-f", "testdata/whatif/gpu-pod.yaml")
	if string(out) != direct {
		t.Errorf("kubectl-phalanx whatif says\n%s\nphalanx whatif says\n%s", out, direct)
	}
	help, err := exec.Command(plugin, "whatif", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(help), "kubectl phalanx whatif -f NEW") {
		t.Errorf("kubectl-phalanx whatif --help does not say kubectl phalanx:\n%s", help)
	}
	if help, _ := exec.Command(binary, "whatif", "--help").Output(); !strings.Contains(string(help), "phalanx whatif -f NEW") || strings.Contains(string(help), "kubectl phalanx") {
		t.Errorf("phalanx whatif --help:\n%s", help)
	}
}
