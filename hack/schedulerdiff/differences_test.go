package schedulerdiff

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// differencesDoc is the one list of deliberate differences.
const differencesDoc = "../../docs/kube-scheduler-differences.md"

// rowRE matches a row of the document's table: | `id` | scopes | ...
var rowRE = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| ([^|]+) \\|")

// TestDifferencesAreListed holds Differences to the table of
// docs/kube-scheduler-differences.md: the same ids, in the same order, with the same
// scopes, so that the test skips exactly what the document lists.
func TestDifferencesAreListed(t *testing.T) {
	data, err := os.ReadFile(differencesDoc)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id     string
		scopes []string
	}
	var doc []row
	for _, line := range strings.Split(string(data), "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var scopes []string
		for _, s := range strings.Split(m[2], ",") {
			scopes = append(scopes, strings.TrimSpace(s))
		}
		doc = append(doc, row{m[1], scopes})
	}
	var code []row
	for _, d := range Differences {
		code = append(code, row{d.ID, d.Scopes})
	}
	if len(doc) != len(code) {
		t.Fatalf("%s lists %d differences, differences.go %d", filepath.Base(differencesDoc), len(doc), len(code))
	}
	for i := range doc {
		if doc[i].id != code[i].id || !slices.Equal(doc[i].scopes, code[i].scopes) {
			t.Errorf("difference %d: the document says %s %v, differences.go %s %v", i, doc[i].id, doc[i].scopes, code[i].id, code[i].scopes)
		}
	}
	known := append([]string{CycleName, PreemptionName}, ComparedPlugins...)
	for _, d := range Differences {
		for _, s := range d.Scopes {
			if !slices.Contains(known, s) {
				t.Errorf("difference %s: scope %q is neither a compared plugin, %q nor %q", d.ID, s, CycleName, PreemptionName)
			}
		}
	}
}

// TestSkippedBy: a case is skipped by the first listed difference of its scope that
// concerns it, and by none of another scope.
func TestSkippedBy(t *testing.T) {
	c := Generate(1)
	if got := SkippedBy("NodeAffinity", c); got != "" {
		t.Errorf("NodeAffinity: skipped by %q, want none", got)
	}
	if got := SkippedBy(CycleName, c); got != "" {
		t.Errorf("cycle, a pod in no group: skipped by %q, want none", got)
	}
	c.Pod.Labels["scheduling.phalanx.dev/pod-group"] = "g"
	if got := SkippedBy(CycleName, c); got != "pod-groups" {
		t.Errorf("cycle, a pod in a group: skipped by %q, want pod-groups", got)
	}
}

// TestPreemptionSkippedBy: each preemption row concerns the cases its document row
// describes, and a case no row concerns is compared.
func TestPreemptionSkippedBy(t *testing.T) {
	low := func(name, node string, cpu string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: v1.PodSpec{NodeName: node, Priority: ptr(int32(0))}}
		ct := v1.Container{Name: "c"}
		if cpu != "" {
			ct.Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}
		}
		p.Spec.Containers = []v1.Container{ct}
		return p
	}
	preemptor := func() *v1.Pod {
		p := low("incoming", "", "2")
		p.Spec.NodeName, p.Spec.Priority = "", ptr(int32(PreemptorPriority))
		return p
	}
	high := func(name, node string) *v1.Pod {
		p := low(name, node, "1")
		p.Spec.Priority = ptr(int32(PreemptorPriority))
		return p
	}
	withPort := func(p *v1.Pod, ip string, port int32) *v1.Pod {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, v1.ContainerPort{ContainerPort: 8000, HostIP: ip, HostPort: port})
		return p
	}
	withApp := func(p *v1.Pod, app string) *v1.Pod {
		p.Labels = map[string]string{"app": app}
		return p
	}
	withClaim := func(p *v1.Pod, claim string) *v1.Pod {
		p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: claim, VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
		return p
	}
	anti := &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: zoneKey}}}}
	tests := []struct {
		name string
		pods func() []*v1.Pod
		pod  func(*v1.Pod)
		want string
	}{
		{"one victim per node", func() []*v1.Pod { return []*v1.Pod{low("a", "n0", "1"), low("b", "n1", "1")} }, nil, ""},
		{"a higher-priority pod is no victim", func() []*v1.Pod {
			p := low("b", "n0", "1")
			p.Spec.Priority = ptr(int32(PreemptorPriority))
			return []*v1.Pod{low("a", "n0", "1"), p}
		}, nil, ""},
		{"two victims of one priority on a node", func() []*v1.Pod { return []*v1.Pod{low("a", "n0", "1"), low("b", "n0", "1")} }, nil, "victim-order"},
		{"two victims of different priorities on a node", func() []*v1.Pod {
			p := low("b", "n0", "1")
			p.Spec.Priority = ptr(int32(100))
			return []*v1.Pod{low("a", "n0", "1"), p}
		}, nil, ""},
		{"a BestEffort victim", func() []*v1.Pod { return []*v1.Pod{low("a", "n0", ""), low("b", "n0", "1")} }, nil, "best-effort-victims"},
		{"a pod being deleted", func() []*v1.Pod {
			p := low("a", "n0", "1")
			p.DeletionTimestamp = &metav1.Time{}
			return []*v1.Pod{p, low("b", "n0", "")}
		}, nil, "leaving-pods"},
		{"a bound pod's required anti-affinity", func() []*v1.Pod {
			p := low("a", "n0", "1")
			p.Spec.Affinity = anti
			return []*v1.Pod{p}
		}, nil, "cross-node-preemption"},
		{"the pod's required anti-affinity", func() []*v1.Pod { return []*v1.Pod{low("a", "n0", "1")} }, func(p *v1.Pod) { p.Spec.Affinity = anti }, "cross-node-preemption"},
		{"the pod's hard spreading", func() []*v1.Pod { return []*v1.Pod{low("a", "n0", "1")} }, func(p *v1.Pod) {
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: v1.DoNotSchedule}}
		}, "cross-node-preemption"},
		{"a victim's claim, the pod with claims", func() []*v1.Pod {
			p := low("a", "n0", "1")
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr("a-gpu")}}
			return []*v1.Pod{p}
		}, func(p *v1.Pod) {
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr("gpus")}}
		}, "victim-devices"},
		{"a victim's claim, the pod asking for a resource backed by devices", func() []*v1.Pod {
			p := low("a", "n0", "1")
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr("a-gpu")}}
			return []*v1.Pod{p}
		}, func(p *v1.Pod) {
			p.Spec.Containers[0].Resources.Requests[draGPU] = resource.MustParse("1")
		}, "victim-devices"},
		{"a victim's claim, the pod without", func() []*v1.Pod {
			p := low("a", "n0", "1")
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr("a-gpu")}}
			return []*v1.Pod{p}
		}, nil, ""},
		{"a victim holds the pod's host port, another pod too", func() []*v1.Pod {
			return []*v1.Pod{withPort(low("a", "n0", "1"), "", 443), withPort(high("b", "n0"), "", 443)}
		}, func(p *v1.Pod) { withPort(p, "", 443) }, "shared-host-port"},
		{"a victim holds the pod's host port alone", func() []*v1.Pod {
			return []*v1.Pod{withPort(low("a", "n0", "1"), "", 443), withPort(high("b", "n1"), "", 443)}
		}, func(p *v1.Pod) { withPort(p, "", 443) }, ""},
		{"two holders on other IPs", func() []*v1.Pod {
			return []*v1.Pod{withPort(low("a", "n0", "1"), "10.0.0.1", 443), withPort(high("b", "n0"), "10.0.0.2", 443)}
		}, func(p *v1.Pod) { withPort(p, "", 443) }, ""},
		{"two holders of a port the pod does not ask for", func() []*v1.Pod {
			return []*v1.Pod{withPort(low("a", "n0", "1"), "", 443), withPort(high("b", "n0"), "", 443)}
		}, func(p *v1.Pod) { withPort(p, "", 80) }, ""},
		{"a budget allowing one disruption covers two victims on a node", func() []*v1.Pod {
			a, b := withApp(low("a", "n0", "1"), "db"), withApp(low("b", "n0", "1"), "db")
			b.Spec.Priority = ptr(int32(100))
			return []*v1.Pod{a, b}
		}, nil, "budget-order"},
		{"a budget allowing one disruption covers one victim per node", func() []*v1.Pod {
			return []*v1.Pod{withApp(low("a", "n0", "1"), "db"), withApp(low("b", "n1", "1"), "db")}
		}, nil, ""},
		{"a budget allowing none covers two victims on a node", func() []*v1.Pod {
			a, b := withApp(low("a", "n0", "1"), "web"), withApp(low("b", "n0", "1"), "web")
			b.Spec.Priority = ptr(int32(100))
			return []*v1.Pod{a, b}
		}, nil, ""},
		{"a budget allowing none covers a victim, a more important one is uncovered", func() []*v1.Pod {
			a, b := withApp(low("a", "n0", "1"), "web"), withApp(low("b", "n0", "1"), "other")
			b.Spec.Priority = ptr(int32(100))
			return []*v1.Pod{a, b}
		}, nil, "budget-order"},
		{"a budget allowing none covers a victim, a less important one is uncovered", func() []*v1.Pod {
			a, b := withApp(low("a", "n0", "1"), "web"), withApp(low("b", "n0", "1"), "other")
			a.Spec.Priority = ptr(int32(100))
			return []*v1.Pod{a, b}
		}, nil, ""},
		{"a victim and another pod mount the pod's ReadWriteOncePod claim", func() []*v1.Pod {
			return []*v1.Pod{withClaim(low("a", "n0", "1"), "rwop"), withClaim(high("b", "n1"), "rwop")}
		}, func(p *v1.Pod) { withClaim(p, "rwop") }, "shared-once-claim"},
		{"a victim alone mounts the pod's ReadWriteOncePod claim", func() []*v1.Pod {
			return []*v1.Pod{withClaim(low("a", "n0", "1"), "rwop"), withClaim(high("b", "n1"), "bound-z0")}
		}, func(p *v1.Pod) { withClaim(p, "rwop") }, ""},
		{"two pods mount a ReadWriteOnce claim", func() []*v1.Pod {
			return []*v1.Pod{withClaim(low("a", "n0", "1"), "bound-z0"), withClaim(high("b", "n1"), "bound-z0")}
		}, func(p *v1.Pod) { withClaim(p, "bound-z0") }, ""},
		{"the pod's soft spreading", func() []*v1.Pod { return []*v1.Pod{low("a", "n0", "1")} }, func(p *v1.Pod) {
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: zoneKey, WhenUnsatisfiable: v1.ScheduleAnyway}}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Case{Pods: tt.pods(), Pod: preemptor()}
			if tt.pod != nil {
				tt.pod(c.Pod)
			}
			if got := SkippedBy(PreemptionName, c); got != tt.want {
				t.Errorf("skipped by %q, want %q", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
