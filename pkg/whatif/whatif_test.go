package whatif

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/testutil/jsonschema"
)

const testdata = "../../testdata/whatif"

func ask(t *testing.T, news ...string) (*Answer, *Runs) {
	t.Helper()
	cluster, err := manifest.Decode([]string{filepath.Join(testdata, "cluster.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range news {
		paths = append(paths, filepath.Join(testdata, n))
	}
	in, err := manifest.Decode(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, runs, err := Ask(context.Background(), cluster, in, Options{Sim: sim.Options{CheckInvariants: true}})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Load("../../docs/whatif-report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, a); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(out.Bytes()); err != nil {
		t.Errorf("-o json: %v", err)
	}
	if len(a.Violations) > 0 {
		t.Errorf("invariants broken: %v", a.Violations)
	}
	return a, runs
}

func findWorkload(t *testing.T, a *Answer, kind, name string) Workload {
	t.Helper()
	for _, w := range a.Workloads {
		if w.Kind == kind && w.Name == name {
			return w
		}
	}
	t.Fatalf("no %s %s in %+v", kind, name, a.Workloads)
	return Workload{}
}

// A gang Job takes the rack whose pods it may preempt; its victims' ReplicaSet makes them
// again, two at once on the spare node; a pod takes the room a pending pod would have had;
// a pod that fits nowhere waits while a pending pod of higher priority takes its node.
func TestAnswer(t *testing.T) {
	a, runs := ask(t, "gang-job.yaml", "gpu-pod.yaml", "small-pod.yaml")
	if a.AllSchedule || len(a.Workloads) != 3 {
		t.Fatalf("answer %+v: want three workloads, one not scheduling", a)
	}
	train := findWorkload(t, a, "Job", "train")
	if !train.Schedules || train.Bound != 2 || train.PodGroup != "train" || *train.StartsAt != 30 || *train.WaitsForVictims != 30 ||
		len(train.Domains) == 0 || train.Domains[0].Key != "example.com/rack" || strings.Join(train.Domains[0].Values, ",") != "r1" {
		t.Errorf("train: %+v", train)
	}
	restarts := map[string]int{}
	for _, v := range train.Preempts {
		restarts[v.Restart]++
		if v.Owner == nil || v.Owner.Kind != "ReplicaSet" || v.Priority != 100 || !strings.HasPrefix(v.Node, "r1-") {
			t.Errorf("victim %+v", v)
		}
		if v.Restart == RestartAtOnce && v.Replacement.Node != "spare" {
			t.Errorf("victim %s restarts on %s, want the spare node", v.Name, v.Replacement.Node)
		}
	}
	if restarts[RestartAtOnce] != 2 || restarts[RestartWaiting] != 2 {
		t.Errorf("restarts %v, want 2 at once and 2 waiting", restarts)
	}
	inference := findWorkload(t, a, "Pod", "inference")
	if !inference.Schedules || len(inference.Overtakes) != 1 || inference.Overtakes[0].Name != "backfill" ||
		inference.Overtakes[0].BoundAtWithout == nil || inference.Overtakes[0].BoundAt != nil {
		t.Errorf("inference: %+v", inference)
	}
	if len(train.Overtakes) != 0 {
		t.Errorf("train overtakes %+v, want none: it took rack r1, not the backfill pod's node", train.Overtakes)
	}
	tool := findWorkload(t, a, "Pod", "tool")
	if tool.Schedules || tool.StartsAt != nil || len(tool.Waiting) != 1 || !strings.Contains(tool.Waiting[0].Message, "0/6 nodes are available") ||
		len(tool.OvertakenBy) != 1 || tool.OvertakenBy[0].Name != "urgent" {
		t.Errorf("tool: %+v", tool)
	}
	if a.Cluster.Nodes != 6 || a.Cluster.Pods != 8 || a.Cluster.Pending != 2 {
		t.Errorf("cluster %+v", a.Cluster)
	}
	var text, page bytes.Buffer
	if err := WriteText(&text, a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Job ml/train (pod group train): schedules, starts at +30s, 2 of 2 pods bound",
		"domains:   example.com/rack=r1", "at once, on spare", "overtakes:    ml/backfill", "overtaken by: ml/urgent",
		"1 of 3 new workloads would not schedule."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := WriteHTML(&page, a, runs.WhatIf); err != nil {
		t.Fatal(err)
	}
	// The answer is a section of its own, above the simulation's, and the footer names
	// the command.
	for _, want := range []string{"<h1>phalanx what-if report</h1>", `<section id="answer"><h2>1 of 3 new workloads would not schedule.</h2>`, "Job ml/train preempts", "at once, on spare", "Written by phalanx whatif."} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

func TestEverythingSchedules(t *testing.T) {
	a, _ := ask(t, "gpu-pod.yaml")
	if !a.AllSchedule || len(a.Workloads) != 1 {
		t.Errorf("answer %+v", a)
	}
	data, _ := json.Marshal(a)
	if !strings.Contains(string(data), `"allSchedule":true`) {
		t.Errorf("json %s", data)
	}
}

// A new object of a kind phalanx does not know would be left out of the answer: that is a
// bad input, not a "yes".
func TestUnknownKindsAreRefused(t *testing.T) {
	const unknown = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: resnet}\n"
	// Nothing else: the input itself is refused, naming the kind.
	_, err := manifest.Decode([]string{"-"}, strings.NewReader(unknown))
	var ie *manifest.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "kubeflow.org/v1 PyTorchJob") {
		t.Errorf("decoding only an unknown kind: error %v, want an input error naming the kind", err)
	}
	// With a pod: the question is refused, naming the kind.
	cluster, _ := manifest.Decode([]string{filepath.Join(testdata, "cluster.yaml")}, nil)
	news, err := manifest.Decode([]string{"-"}, strings.NewReader(unknown+"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Ask(context.Background(), cluster, news, Options{})
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "kubeflow.org/v1 PyTorchJob") {
		t.Errorf("error %v, want an input error naming the kind", err)
	}
}
