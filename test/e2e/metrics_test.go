//go:build e2e

package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/testutil/dashboard"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestDashboardSeries (issue 29): a healthy scheduler (it leads, and has bound a pod)
// exports a series for every selector of every query of the Grafana dashboard in
// config/grafana (the metric, the labels the query groups by, its matchers with $profile
// the test's profile): no panel says "No data" on a healthy cluster until its first rare
// event (a binding whose outcome had to be read back, a superseded call, a preemption).
func TestDashboardSeries(t *testing.T) {
	c := e2eutil.Connect(t)
	ns := c.CreateNamespace(t)
	c.CreateReadyNode(t, e2eutil.Node{CPU: "2", Memory: "4Gi"})
	p := c.StartPhalanx(t, "dashboard")
	p.WaitReady(t)
	e2eutil.WaitFor(t, time.Minute, "phalanx to lead", func(ctx context.Context) (bool, error) {
		return p.IsLeader(ctx), nil
	})
	c.CreatePod(t, e2eutil.Pod{Namespace: ns, Name: "healthy", SchedulerName: e2eutil.SchedulerName(t), CPU: "100m", Memory: "100Mi"}.Build())
	c.WaitPodsBound(t, ns, []string{"healthy"}, 2*time.Minute)
	dash, err := dashboard.Load(filepath.Join(e2eutil.RepoRoot(t), "config", "grafana", "phalanx-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	families, err := p.MetricFamilies(e2eutil.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	missing, err := dashboard.Missing(dash.Queries, families, map[string]string{"profile": e2eutil.SchedulerName(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("/metrics of a scheduler just started leaves %d selectors of the dashboard without a series:\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
}
