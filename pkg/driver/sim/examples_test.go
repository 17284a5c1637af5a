package sim_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
	"github.com/phalanx-dev/phalanx/pkg/report"
	"github.com/phalanx-dev/phalanx/pkg/report/html"
	"sigs.k8s.io/yaml"
)

// examplesDir holds the examples the README points to; each is simulated here.
const examplesDir = "../../../examples"

// simulateExample runs manifests as `phalanx simulate --check-invariants -f` would, and
// checks the report against the JSON Schema and that the HTML report renders.
func simulateExample(t *testing.T, paths ...string) (*report.Report, string) {
	t.Helper()
	sc, err := admission.Load(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	return simulateScenario(t, sc)
}

func simulateScenario(t *testing.T, sc *admission.Scenario) (*report.Report, string) {
	t.Helper()
	_, r := simtest.Run(t, sc, sim.Options{})
	validateReport(t, r)
	var page strings.Builder
	if err := html.Write(&page, r, html.Header{}); err != nil {
		t.Fatalf("HTML report: %v", err)
	}
	return r, page.String()
}

func podsByName(r *report.Report) map[string]report.Pod {
	out := map[string]report.Pod{}
	for _, p := range r.Pods {
		out[p.Name] = p
	}
	return out
}

func TestExampleSmallCluster(t *testing.T) {
	r, _ := simulateExample(t, filepath.Join(examplesDir, "small-cluster"))
	if r.Summary.Pods == 0 || r.Summary.Pending != 1 {
		t.Errorf("summary %+v: want one pod too big for any node", r.Summary)
	}
}

// The training gang takes one rack by preempting the batch jobs there, only those, and the
// HTML report shows where and when.
func TestExampleTrainingGangPreemptsBatch(t *testing.T) {
	r, page := simulateExample(t, filepath.Join(examplesDir, "training-gang-preempts-batch"))
	pods := podsByName(r)
	racks := map[string]bool{}
	for i := range 4 {
		p := pods[fmt.Sprintf("llm-%d", i)]
		if p.BoundAt == nil || *p.BoundAt != 330 {
			t.Errorf("%s bound at %v, want 330s (5m, then the victims' 30s grace period)", p.Name, p.BoundAt)
		}
		rack, _, _ := strings.Cut(p.Node, "-n")
		racks[rack] = true
	}
	if len(racks) != 1 || !racks["rack-1"] {
		t.Errorf("the gang ran in racks %v, want rack-1 alone", racks)
	}
	victims := 0
	for _, p := range r.Pods {
		if p.PreemptedBy == nil {
			continue
		}
		victims++
		if !strings.HasPrefix(p.Name, "batch-") || !strings.HasPrefix(p.Node, "rack-1-") || p.PreemptedBy.Kind != "PodGroup" || p.PreemptedBy.Name != "llm" {
			t.Errorf("%s on %s preempted by %+v: want only rack 1's batch jobs, by the gang", p.Name, p.Node, p.PreemptedBy)
		}
	}
	if victims != 8 {
		t.Errorf("%d victims, want the 8 batch jobs of rack 1", victims)
	}
	for _, want := range []string{"default/batch-01 preempted on rack-1-n1 at 5m by PodGroup default/llm", ">nvidia.com/gpu</button>"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	if n := strings.Count(page, `r="4"><title>default/batch-`); n != 8*3 { // on each resource's heatmap
		t.Errorf("%d preemption marks, want 8 on each of the heatmaps of cpu, memory and nvidia.com/gpu", n)
	}
}

// The gang's sixteen GPUs come from one NVLink clique, the one the inference server left
// whole, and the report charts the GPUs by device class.
func TestExampleGPUsDRAInterconnect(t *testing.T) {
	r, page := simulateExample(t, filepath.Join(examplesDir, "gpus-dra-interconnect"))
	clique := map[string]string{"gpu-1": "nvl-a", "gpu-2": "nvl-a", "gpu-3": "nvl-b", "gpu-4": "nvl-b"}
	pods := podsByName(r)
	used := map[string]bool{}
	for i := range 4 {
		p := pods[fmt.Sprintf("train-%d", i)]
		if len(p.Devices) != 4 {
			t.Fatalf("%s has devices %v, want 4", p.Name, p.Devices)
		}
		for _, d := range p.Devices {
			node := strings.Split(d, "/")[1] // gpu.example.com/<pool = node>/gpu-k
			used[clique[node]] = true
		}
	}
	server := clique[pods["inference"].Node]
	if len(used) != 1 || used[server] {
		t.Errorf("the gang used cliques %v, the server %s: want one clique, not the server's", used, server)
	}
	// At the end the gang has finished: the server's two GPUs are the ones in use.
	for _, want := range []string{">devices of class gpu.example.com</button>", "Devices at the end, by class",
		`<td>devices of class gpu.example.com</td><td class="num">32</td><td class="num">2</td><td class="num">30</td><td class="num">4</td><td>8 free: 3 nodes · 6 free: 1 node</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}

// The real-cluster examples on two racks of 8-GPU nodes, where the gang must start whole
// in one rack. The simulator makes the pods of the Indexed Job and of the JobSet as their
// controllers would; the PyTorchJob's, which the simulator does not model, the test makes
// as the training operator would (replicas per replica type).
func TestExamplesOnACluster(t *testing.T) {
	dir := filepath.Join(examplesDir, "on-a-cluster")
	var nodes strings.Builder
	for _, rack := range []string{"r1", "r2"} {
		for i := range 4 {
			fmt.Fprintf(&nodes, "---\napiVersion: v1\nkind: Node\nmetadata: {name: %s-n%d, labels: {example.com/rack: %s}}\nstatus: {allocatable: {cpu: \"96\", memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"}}\n", rack, i, rack)
		}
	}
	for _, tc := range []struct {
		file, group string
		pods        []string // name prefixes of the pods, in the order they are made
	}{
		{"podgroup-indexed-job.yaml", "train", []string{"train-0-", "train-1-", "train-2-", "train-3-"}},
		{"jobset.yaml", "llm", []string{"llm-driver-0-0-", "llm-workers-0-0-", "llm-workers-0-1-", "llm-workers-0-2-", "llm-workers-0-3-",
			"llm-workers-1-0-", "llm-workers-1-1-", "llm-workers-1-2-", "llm-workers-1-3-"}},
		{"pytorchjob.yaml", "resnet", []string{"resnet-master-0", "resnet-worker-0", "resnet-worker-1", "resnet-worker-2"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			workload := filepath.Join(dir, tc.file)
			if tc.file == "pytorchjob.yaml" {
				workload = filepath.Join(t.TempDir(), tc.file)
				if err := os.WriteFile(workload, pytorchJobPods(t, filepath.Join(dir, tc.file)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sc, err := admission.Load([]string{filepath.Join(dir, "00-common.yaml"), "-", workload}, strings.NewReader(nodes.String()))
			if err != nil {
				t.Fatal(err)
			}
			r, _ := simulateScenario(t, sc)
			if len(r.Pods) != len(tc.pods) {
				t.Fatalf("%d pods, want %d", len(r.Pods), len(tc.pods))
			}
			racks := map[string]bool{}
			for i, p := range r.Pods {
				if !strings.HasPrefix(p.Name, tc.pods[i]) || p.Phase != report.PhaseRunning || p.PodGroup != tc.group {
					t.Errorf("pod %d: %s %s in group %q, want %s* Running in %s: %s", i, p.Name, p.Phase, p.PodGroup, tc.pods[i], tc.group, p.Message)
				}
				racks[strings.Split(p.Node, "-")[0]] = true
			}
			if len(racks) != 1 {
				t.Errorf("the gang spans racks %v", racks)
			}
			if len(r.PodGroups) != 1 || r.PodGroups[0].Phase != "Scheduled" {
				t.Errorf("pod groups %+v, want %s Scheduled", r.PodGroups, tc.group)
			}
		})
	}
}

// pytorchJobPods is the example with its PyTorchJob replaced by the pods the training
// operator makes: replicas pods per replica type, named <job>-<type>-<index>.
func pytorchJobPods(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var pj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
			Spec struct {
				Replicas map[string]struct {
					Replicas int `json:"replicas"`
					Template struct {
						Metadata struct {
							Labels map[string]string `json:"labels"`
						} `json:"metadata"`
						Spec map[string]any `json:"spec"`
					} `json:"template"`
				} `json:"pytorchReplicaSpecs"`
			} `json:"spec"`
		}
		mustUnmarshal(t, doc, &pj)
		if pj.Kind != "PyTorchJob" {
			out.WriteString("---\n" + doc + "\n")
			continue
		}
		for _, role := range slices.Sorted(maps.Keys(pj.Spec.Replicas)) {
			rs := pj.Spec.Replicas[role]
			for i := range rs.Replicas {
				pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": rs.Template.Spec, "metadata": map[string]any{
					"name": fmt.Sprintf("%s-%s-%d", pj.Metadata.Name, strings.ToLower(role), i), "namespace": pj.Metadata.Namespace, "labels": rs.Template.Metadata.Labels}}
				y, err := yaml.Marshal(pod)
				if err != nil {
					t.Fatal(err)
				}
				out.WriteString("---\n")
				out.Write(y)
			}
		}
	}
	return out.Bytes()
}

func mustUnmarshal(t *testing.T, doc string, into any) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(doc), into); err != nil {
		t.Fatal(err)
	}
}

// examples/kueue on two racks of two 8-GPU nodes: as applied, the Job waits suspended in
// Kueue's queue (the simulator skips Kueue's kinds, saying so, and makes no pods for a
// suspended Job); once admitted (unsuspended, as Kueue does), phalanx places its two
// workers together in one rack.
func TestExampleKueue(t *testing.T) {
	dir := filepath.Join(examplesDir, "kueue")
	var nodes strings.Builder
	for _, rack := range []string{"r1", "r2"} {
		for i := range 2 {
			fmt.Fprintf(&nodes, "---\napiVersion: v1\nkind: Node\nmetadata: {name: %s-n%d, labels: {example.com/rack: %s}}\nstatus: {allocatable: {cpu: \"64\", memory: 512Gi, pods: \"110\", nvidia.com/gpu: \"8\"}}\n", rack, i, rack)
		}
	}
	// One rack's first node half taken: the gang must take the other rack whole.
	nodes.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: default}\nspec: {nodeName: r1-n0, containers: [{name: c, image: c, resources: {requests: {nvidia.com/gpu: \"4\"}, limits: {nvidia.com/gpu: \"4\"}}}]}\n")
	job, err := os.ReadFile(filepath.Join(dir, "02-training-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, admitted := range []bool{false, true} {
		t.Run(fmt.Sprintf("admitted=%v", admitted), func(t *testing.T) {
			y := string(job)
			if admitted {
				y = strings.Replace(y, "  suspend: true ", "  suspend: false ", 1)
				if y == string(job) {
					t.Fatal("02-training-job.yaml has no `suspend: true` to admit")
				}
			}
			workload := filepath.Join(t.TempDir(), "job.yaml")
			if err := os.WriteFile(workload, []byte(y), 0o644); err != nil {
				t.Fatal(err)
			}
			sc, err := admission.Load([]string{filepath.Join(dir, "00-common.yaml"), filepath.Join(dir, "01-queues.yaml"), "-", workload}, strings.NewReader(nodes.String()))
			if err != nil {
				t.Fatal(err)
			}
			skipped := 0
			for _, w := range sc.Warnings {
				if strings.Contains(w, "skipping kueue.x-k8s.io/v1beta2") {
					skipped++
				}
			}
			if skipped != 3 {
				t.Errorf("warnings %v: want Kueue's three kinds skipped", sc.Warnings)
			}
			r, _ := simulateScenario(t, sc)
			var workers []report.Pod
			for _, p := range r.Pods {
				if strings.HasPrefix(p.Name, "llm-train-") {
					workers = append(workers, p)
				}
			}
			if !admitted {
				if len(workers) != 0 || len(r.PodGroups) != 1 || r.PodGroups[0].Phase == "Scheduled" {
					t.Errorf("queued: workers %v, groups %+v: want none made, the group not scheduled", workers, r.PodGroups)
				}
				return
			}
			if len(workers) != 2 {
				t.Fatalf("admitted: %d workers, want 2", len(workers))
			}
			for _, p := range workers {
				if p.Phase != report.PhaseRunning || !strings.HasPrefix(p.Node, "r2-") || p.PodGroup != "llm-train" {
					t.Errorf("worker %s: %s on %s in %q, want Running in rack r2 (r1 has one free node) in llm-train: %s", p.Name, p.Phase, p.Node, p.PodGroup, p.Message)
				}
			}
			if len(r.PodGroups) != 1 || r.PodGroups[0].Phase != "Scheduled" {
				t.Errorf("pod groups %+v, want llm-train Scheduled", r.PodGroups)
			}
		})
	}
}
