package sim

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// examplesDir holds the examples the README points to; each is simulated here.
const examplesDir = "../../../examples"

// simulateExample runs manifests as `phalanx simulate --check-invariants -f` would, and
// checks the report against the JSON Schema and that the HTML report renders.
func simulateExample(t *testing.T, paths ...string) (*Report, string) {
	t.Helper()
	sc, err := Load(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	return simulateScenario(t, sc)
}

func simulateScenario(t *testing.T, sc *Scenario) (*Report, string) {
	t.Helper()
	_, r := runSimulation(t, sc, Options{})
	validateReport(t, r)
	return r, render(t, r)
}

func podsByName(r *Report) map[string]PodReport {
	out := map[string]PodReport{}
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

// The real-cluster examples: each workload's controller would make the pods from its
// templates; the test makes them the same way (JobSet: replicas × parallelism per
// replicated Job; PyTorchJob: replicas per replica type; Indexed Job: parallelism) and
// simulates them on two racks of 8-GPU nodes, where the gang must start whole in one rack.
func TestExamplesOnACluster(t *testing.T) {
	dir := filepath.Join(examplesDir, "on-a-cluster")
	common, err := os.ReadFile(filepath.Join(dir, "00-common.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var nodes strings.Builder
	for _, rack := range []string{"r1", "r2"} {
		for i := range 4 {
			fmt.Fprintf(&nodes, "---\napiVersion: v1\nkind: Node\nmetadata: {name: %s-n%d, labels: {example.com/rack: %s}}\nstatus: {allocatable: {cpu: \"96\", memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"}}\n", rack, i, rack)
		}
	}
	for file, wantPods := range map[string]int{"podgroup-indexed-job.yaml": 4, "jobset.yaml": 9, "pytorchjob.yaml": 4} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			manifests, group := expandWorkloads(t, data)
			if strings.Count(manifests, "\nkind: Pod\n") != wantPods {
				t.Fatalf("the workload makes %d pods, want %d:\n%s", strings.Count(manifests, "\nkind: Pod\n"), wantPods, manifests)
			}
			sc, err := Load([]string{"-"}, strings.NewReader(string(common)+nodes.String()+manifests))
			if err != nil {
				t.Fatal(err)
			}
			r, _ := simulateScenario(t, sc)
			racks := map[string]bool{}
			for _, p := range r.Pods {
				if p.Phase != PhaseRunning || p.PodGroup != group {
					t.Errorf("%s: %s in group %q, want Running in %s: %s", p.Name, p.Phase, p.PodGroup, group, p.Message)
				}
				racks[strings.Split(p.Node, "-")[0]] = true
			}
			if len(racks) != 1 {
				t.Errorf("the gang spans racks %v", racks)
			}
			if len(r.PodGroups) != 1 || r.PodGroups[0].Phase != "Scheduled" {
				t.Errorf("pod groups %+v, want %s Scheduled", r.PodGroups, group)
			}
		})
	}
}

// expandWorkloads turns the Jobs, JobSets and PyTorchJobs of a file into the pods their
// controllers make, keeping the other documents; it checks every pod template names
// phalanx and the file's PodGroup, and returns that group's name.
func expandWorkloads(t *testing.T, data []byte) (string, string) {
	t.Helper()
	var out bytes.Buffer
	group := ""
	type template struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec map[string]any `json:"spec"`
	}
	type jobSpec struct {
		Parallelism int      `json:"parallelism"`
		Template    template `json:"template"`
	}
	emit := func(namespace, name string, tpl template) {
		if tpl.Spec["schedulerName"] != "phalanx" {
			t.Errorf("%s: the pod template's schedulerName is %v, want phalanx", name, tpl.Spec["schedulerName"])
		}
		if g := tpl.Metadata.Labels["scheduling.phalanx.dev/pod-group"]; g != group {
			t.Errorf("%s: the pod template names pod group %q, want %q", name, g, group)
		}
		pod := map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "namespace": namespace, "labels": tpl.Metadata.Labels}, "spec": tpl.Spec}
		y, err := yaml.Marshal(pod)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("---\n")
		out.Write(y)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatal(err)
		}
		ns, name := head.Metadata.Namespace, head.Metadata.Name
		switch head.Kind {
		case "PodGroup":
			group = name
			out.WriteString("---\n" + doc + "\n")
		case "Job":
			var job struct{ Spec jobSpec }
			mustUnmarshal(t, doc, &job)
			for i := range job.Spec.Parallelism {
				emit(ns, fmt.Sprintf("%s-%d", name, i), job.Spec.Template)
			}
		case "JobSet":
			var js struct {
				Spec struct {
					ReplicatedJobs []struct {
						Name     string `json:"name"`
						Replicas int    `json:"replicas"`
						Template struct{ Spec jobSpec }
					} `json:"replicatedJobs"`
				}
			}
			mustUnmarshal(t, doc, &js)
			for _, rj := range js.Spec.ReplicatedJobs {
				for j := range rj.Replicas {
					for i := range rj.Template.Spec.Parallelism {
						emit(ns, fmt.Sprintf("%s-%s-%d-%d", name, rj.Name, j, i), rj.Template.Spec.Template)
					}
				}
			}
		case "PyTorchJob":
			var pj struct {
				Spec struct {
					Replicas map[string]struct {
						Replicas int      `json:"replicas"`
						Template template `json:"template"`
					} `json:"pytorchReplicaSpecs"`
				}
			}
			mustUnmarshal(t, doc, &pj)
			for _, role := range slices.Sorted(maps.Keys(pj.Spec.Replicas)) {
				for i := range pj.Spec.Replicas[role].Replicas {
					emit(ns, fmt.Sprintf("%s-%s-%d", name, strings.ToLower(role), i), pj.Spec.Replicas[role].Template)
				}
			}
		default:
			t.Fatalf("unexpected kind %q in the example", head.Kind)
		}
	}
	if group == "" {
		t.Fatal("the example has no PodGroup")
	}
	return out.String(), group
}

func mustUnmarshal(t *testing.T, doc string, into any) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(doc), into); err != nil {
		t.Fatal(err)
	}
}
