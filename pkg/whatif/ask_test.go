package whatif

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

func decode(t *testing.T, files ...string) *manifest.Input {
	t.Helper()
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join(testdata, f))
	}
	in, err := manifest.Decode(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func reportJSON(t *testing.T, r *report.Report) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Ask admits the cluster's nodes and pods once and shares them between its runs, the
// second taking them over: each run's report is the one of a run of its own, separately
// admitted copy of the input, so neither run sees the other's changes.
func TestAskRunsAsIfAdmittedApart(t *testing.T) {
	for _, news := range [][]string{{"gang-job.yaml"}, {"gpu-pod.yaml"}, {"small-pod.yaml"}, {"gang-job.yaml", "gpu-pod.yaml", "small-pod.yaml"}} {
		t.Run(news[0], func(t *testing.T) {
			opts := sim.Options{CheckInvariants: true}
			runOf := func(inputs ...*manifest.Input) *report.Report {
				t.Helper()
				sc, err := admission.Admit(admission.ControlPlane{}, inputs...)
				if err != nil {
					t.Fatal(err)
				}
				s, err := sim.New(sc, opts)
				if err != nil {
					t.Fatal(err)
				}
				r, err := s.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			wantBase := reportJSON(t, runOf(decode(t, "cluster.yaml")))
			wantWith := reportJSON(t, runOf(decode(t, "cluster.yaml"), decode(t, news...)))
			_, runs, err := Ask(context.Background(), decode(t, "cluster.yaml"), decode(t, news...), Options{Sim: opts})
			if err != nil {
				t.Fatal(err)
			}
			if got := reportJSON(t, runs.Baseline); got != wantBase {
				t.Errorf("the baseline differs from a run of the cluster alone:\n got %s\nwant %s", got, wantBase)
			}
			if got := reportJSON(t, runs.WhatIf); got != wantWith {
				t.Errorf("the what-if run differs from a run of the cluster and the new objects:\n got %s\nwant %s", got, wantWith)
			}
			if len(runs.Baseline.Pods) == len(runs.WhatIf.Pods) {
				t.Errorf("the runs have as many pods (%d): the new ones are missing from one or in both", len(runs.Baseline.Pods))
			}
		})
	}
}
