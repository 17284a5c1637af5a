package html

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// timelineScenario has a node that comes and goes, pods created late, deleted on the
// timeline while bound and while pending, one deleted with its node, one never created, and
// a gang with its own priority.
const timelineScenario = `
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {topology.kubernetes.io/zone: b}
  annotations: {sim.phalanx.dev/create-at: 50s, sim.phalanx.dev/delete-at: 200s}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: doomed
  annotations: {sim.phalanx.dev/delete-at: 100s}
spec:
  terminationGracePeriodSeconds: 20
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: big
  annotations: {sim.phalanx.dev/create-at: 10s}
spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: hopeless
  annotations: {sim.phalanx.dev/create-at: 5s, sim.phalanx.dev/delete-at: 60s}
spec: {containers: [{name: c, resources: {requests: {cpu: "8", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: never
  annotations: {sim.phalanx.dev/create-at: 2h}
spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: scheduling.phalanx.dev/v1alpha1
kind: PodGroup
metadata: {name: gang}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
  priority: 7
`

// registeredConfig is the default configuration without the default plugins this build
// does not register yet, so that the test does not depend on them.
func registeredConfig() *config.Configuration {
	c := config.Default()
	reg := plugins.NewRegistry()
	for _, d := range config.DefaultPlugins {
		if _, ok := reg[d.Name]; !ok {
			c.Profiles[0].Plugins.Disabled = append(c.Profiles[0].Plugins.Disabled, config.Plugin{Name: d.Name})
		}
	}
	return c
}

func runTimelineScenario(t *testing.T) *report.Report {
	t.Helper()
	sc, err := admission.Load([]string{"-"}, strings.NewReader(timelineScenario))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	_, r := simtest.Run(t, sc, sim.Options{Config: registeredConfig(), Until: time.Hour})
	return r
}

func TestReportTimelineFields(t *testing.T) {
	r := runTimelineScenario(t)
	pods := map[string]report.Pod{}
	for _, p := range r.Pods {
		pods[p.Name] = p
	}
	at := func(v *float64) string {
		if v == nil {
			return "nil"
		}
		return fmtSeconds(*v)
	}
	for _, c := range []struct {
		pod, phase, node, created, deleted, cpu string
	}{
		{"doomed", report.PhaseDeleted, "n1", "0s", "1m40s", "1000"},
		{"big", report.PhaseDeleted, "n2", "10s", "3m20s", "2000"}, // bound once n2 came, deleted with it
		{"hopeless", report.PhaseDeleted, "", "5s", "1m", "8000"},  // deleted while pending
		{"never", report.PhasePending, "", "nil", "nil", "500"},    // created after the run's end
	} {
		p := pods[c.pod]
		if p.Phase != c.phase || p.Node != c.node || at(p.CreatedAt) != c.created || at(p.DeletedAt) != c.deleted {
			t.Errorf("%s: phase %s node %q created %s deleted %s, want %s %q %s %s", c.pod, p.Phase, p.Node,
				at(p.CreatedAt), at(p.DeletedAt), c.phase, c.node, c.created, c.deleted)
		}
		if got := p.Requests["cpu"]; fmtQuantity("", got) != c.cpu {
			t.Errorf("%s: requests %v, want cpu %s", c.pod, p.Requests, c.cpu)
		}
	}
	if len(r.Nodes) != 2 {
		t.Fatalf("nodes %v", r.Nodes)
	}
	n1, n2 := r.Nodes[0], r.Nodes[1]
	if n1.CreatedAt != 0 || n1.DeletedAt != nil || n1.Labels["topology.kubernetes.io/zone"] != "a" {
		t.Errorf("n1 = %+v", n1)
	}
	if n2.CreatedAt != 50 || at(n2.DeletedAt) != "3m20s" || n2.Labels["topology.kubernetes.io/zone"] != "b" {
		t.Errorf("n2 = %+v", n2)
	}
	if g := r.PodGroups[0]; g.MinCount != 3 || g.Priority == nil || *g.Priority != 7 {
		t.Errorf("group minCount %d priority %v, want 3 and 7", g.MinCount, g.Priority)
	}
}

// -o json has the fields the README and docs/simulate-report.schema.json document (the
// pods' creation and deletion times since schema version 1); the rest is for the HTML
// report only.
func TestReportTimelineFieldsNotInJSON(t *testing.T) {
	js, err := json.Marshal(runTimelineScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		Pods, PodGroups []map[string]any
	}
	var all map[string]any
	if err := json.Unmarshal(js, &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &all); err != nil {
		t.Fatal(err)
	}
	check := func(what string, obj map[string]any, want ...string) {
		var keys []string
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%s keys %v, want %v", what, keys, want)
		}
	}
	check("report", all, "schemaVersion", "pods", "podGroups", "events", "summary")
	check("pod", top.Pods[0], "namespace", "name", "phase", "node", "nominatedNode", "boundAt", "priority", "podGroup", "preemptedBy", "message", "createdAt", "deletedAt")
	check("group", top.PodGroups[0], "namespace", "name", "phase", "conditions")
}

func TestWriteHTMLTimelineScenario(t *testing.T) {
	r := runTimelineScenario(t)
	page := render(t, r)
	for _, want := range []string{
		// doomed: deleted at 100s, terminating through its 20s grace period
		"default/doomed — Deleted\ncreated at 0s\non n1 from 0s to 2m\nterminating from 1m40s until gone at 2m",
		// big: pending from its creation until n2 came, gone with n2
		"default/big — Deleted\ncreated at 10s\npending from 10s until 50s\non n2 from 50s to 3m20s",
		// hopeless: never bound; requests shown all the same
		"pending from 5s until deleted at 1m", "requests cpu 8 cores, memory 1 GiB",
		// n2 existed from 50s to 200s
		"n2\nnode created at 50s, deleted at 3m20s", `class="g-node"`,
		// capacity varies with n2
		"of up to 4 cores allocatable (nodes came and went; each counts only while it exists)",
		// heatmap grouped by zone
		">zone a · 1 node</text>", ">zone b · 1 node</text>", "Nodes are sorted by zone (topology.kubernetes.io/zone), then input order, under a header per zone.",
		"blank cells are times when no node of the row existed", `class="hnone"`,
		// the group's own priority and minCount
		`<td class="num">7</td><td class="num">3</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
