// Package simtest runs simulations for tests: a scenario with its invariants checked (a
// broken one fails the test), manifests from a string, and the scenario files of
// testdata/scenarios, whose Expectation document the scenario tests check.
package simtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// Run runs a scenario with its invariants checked, a broken one failing the test, and
// returns the simulator too.
func Run(t testing.TB, sc *admission.Scenario, opts sim.Options) (*sim.Simulator, *report.Report) {
	t.Helper()
	opts.CheckInvariants = true
	s, err := sim.New(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Violations {
		t.Errorf("invariant violated: %s", v)
	}
	return s, r
}

// Simulate loads manifests and runs them for up to ten minutes of virtual time with a
// scheduler configuration (nil: the defaults) and seed, invariants checked.
func Simulate(t testing.TB, manifests string, seed int64, cfg *config.Configuration) *report.Report {
	t.Helper()
	sc, err := admission.Load([]string{"-"}, strings.NewReader(manifests))
	if err != nil {
		t.Fatalf("load: %v\n%s", err, manifests)
	}
	_, r := Run(t, sc, sim.Options{Config: cfg, Seed: seed, Until: 10 * time.Minute})
	if t.Failed() {
		t.Logf("manifests:\n%s", manifests)
	}
	return r
}

// SplitScenario separates a scenario file's Expectation document from its manifests.
func SplitScenario(t testing.TB, data []byte) (expectation, manifests []byte) {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var rest bytes.Buffer
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(doc, []byte("kind: Expectation")) {
			expectation = doc
			continue
		}
		rest.WriteString("---\n")
		rest.Write(doc)
	}
	if expectation == nil {
		t.Fatal("no Expectation document")
	}
	return expectation, rest.Bytes()
}
