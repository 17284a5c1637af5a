package sim_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
)

// The pod of testdata/scenarios/dra/device-binding-conditions.yaml is bound at the
// scheduler's first ask (every 5 s) after the simulated driver readied its device
// (DeviceBindingDelay); with a driver slower than bindingTimeout, each wait times out,
// the claim is deallocated and the pod tried again, until a wait sees the device ready.
// The metrics count each wait's outcome.
func TestDeviceBindingConditions(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/scenarios/dra/device-binding-conditions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, manifests := simtest.SplitScenario(t, data)
	for _, tc := range []struct {
		name      string
		delay     time.Duration
		timeout   string // DynamicResources' bindingTimeout, "" for the default
		wantBound float64
		wantOK    float64 // waits ended by success
		wantOut   float64 // waits ended by timeout
	}{
		{name: "the default 2 s", wantBound: 5, wantOK: 1},
		{name: "12 s", delay: 12 * time.Second, wantBound: 15, wantOK: 1},
		{name: "23 s", delay: 23 * time.Second, wantBound: 25, wantOK: 1},
		{name: "slower than bindingTimeout", delay: 60 * time.Second, timeout: "10s", wantOK: 1, wantOut: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := admission.Load([]string{"-"}, strings.NewReader(string(manifests)))
			if err != nil {
				t.Fatal(err)
			}
			var cfg *config.Configuration
			if tc.timeout != "" {
				cfg = config.Default()
				args := json.RawMessage(`{"bindingTimeout": "` + tc.timeout + `"}`)
				for i := range cfg.Profiles {
					cfg.Profiles[i].PluginConfig = append(cfg.Profiles[i].PluginConfig, config.PluginConfig{Name: "DynamicResources", Args: args})
				}
			}
			s, r := simtest.Run(t, sc, sim.Options{Config: cfg, Until: 10 * time.Minute, DeviceBindingDelay: tc.delay})
			p := r.Pods[0]
			if p.BoundAt == nil || (tc.wantBound > 0 && *p.BoundAt != tc.wantBound) {
				t.Errorf("trainer bound at %v, want %v", p.BoundAt, tc.wantBound)
			}
			if tc.wantOut > 0 && (p.BoundAt == nil || *p.BoundAt < 60) {
				t.Errorf("trainer bound at %v, before its device was ready (60 s)", p.BoundAt)
			}
			var timeouts int
			for _, e := range r.Events {
				if e.Object == "Pod/default/trainer" && strings.Contains(e.Message, "device binding timeout") {
					timeouts++
				}
			}
			if (timeouts > 0) != (tc.wantOut > 0) {
				t.Errorf("%d events of a binding timeout, want some: %v", timeouts, tc.wantOut > 0)
			}
			m := s.Metrics().DRABindingConditionsAllocations
			if got := counter(t, m.WithLabelValues("phalanx", "gpu.example.com", "success")); got != tc.wantOK {
				t.Errorf("%v waits ended by success, want %v", got, tc.wantOK)
			}
			if got := counter(t, m.WithLabelValues("phalanx", "gpu.example.com", "timeout")); (got > 0) != (tc.wantOut > 0) {
				t.Errorf("%v waits ended by timeout, want some: %v", got, tc.wantOut > 0)
			}
		})
	}
}

func counter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
