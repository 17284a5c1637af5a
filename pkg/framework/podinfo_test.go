package framework

import (
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

func TestNewPodInfoBasics(t *testing.T) {
	never := v1.PreemptNever
	prio := int32(1000)
	now := metav1.NewTime(time.Unix(1000, 0))
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "prod", DeletionTimestamp: &now},
		Spec: v1.PodSpec{
			NodeName:         "n1",
			Priority:         &prio,
			PreemptionPolicy: &never,
			Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("500m"), v1.ResourceMemory: apiresource.MustParse("1Gi")},
				Limits:   v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("500m"), v1.ResourceMemory: apiresource.MustParse("1Gi")},
			}}},
		},
	}
	p := NewPodInfo(pod)
	if p.ParseErr != nil {
		t.Fatal(p.ParseErr)
	}
	if p.Pod != pod || p.Key != "prod/web" || p.NodeName != "n1" || !p.Terminating {
		t.Errorf("key %q node %q terminating %v", p.Key, p.NodeName, p.Terminating)
	}
	if p.Priority != 1000 || p.PreemptionPolicy != v1.PreemptNever || p.QOS != v1.PodQOSGuaranteed {
		t.Errorf("priority %d policy %s qos %s", p.Priority, p.PreemptionPolicy, p.QOS)
	}
	if p.Requests.Vector[resource.CPU] != 500 || p.Requests.Vector[resource.Memory] != 1<<30 || p.Requests.Vector[resource.Pods] != 1 {
		t.Errorf("requests %s", p.Requests.Vector.String())
	}
	if want := []int8{resource.CPU, resource.Memory, resource.Pods}; !slices.Equal(p.RequestIdx, want) {
		t.Errorf("RequestIdx %v, want %v", p.RequestIdx, want)
	}
	if p.HasAffinityTerms() || p.HasInterPodConstraints() {
		t.Error("a pod without terms has affinity terms or inter-pod constraints")
	}

	pending := NewPodInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"}})
	if pending.PreemptionPolicy != v1.PreemptLowerPriority || pending.Priority != 0 || pending.Terminating || pending.NodeName != "" {
		t.Errorf("defaults: policy %s priority %d terminating %v node %q",
			pending.PreemptionPolicy, pending.Priority, pending.Terminating, pending.NodeName)
	}
	if pending.QOS != v1.PodQOSBestEffort {
		t.Errorf("qos %s, want BestEffort", pending.QOS)
	}
}

func TestPodInfoStartTime(t *testing.T) {
	created, started := time.Unix(100, 0), time.Unix(200, 0)
	tests := []struct {
		name string
		pod  *v1.Pod
		want time.Time
	}{
		{"started", &v1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)},
			Status: v1.PodStatus{StartTime: &metav1.Time{Time: started}}}, started},
		{"created only", &v1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}, created},
		{"neither", &v1.Pod{}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewPodInfo(tt.pod).StartTime(); !got.Equal(tt.want) {
				t.Errorf("StartTime() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPodInfoHostPorts(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	tests := []struct {
		name  string
		init  []v1.Container
		main  []v1.Container
		ports []HostPort
	}{
		{"none", nil, []v1.Container{{Ports: []v1.ContainerPort{{ContainerPort: 80}}}}, nil},
		{"defaults to 0.0.0.0 and TCP", nil, []v1.Container{{Ports: []v1.ContainerPort{{ContainerPort: 80, HostPort: 8080}}}},
			[]HostPort{{"0.0.0.0", v1.ProtocolTCP, 8080}}},
		{"ip and protocol kept", nil, []v1.Container{{Ports: []v1.ContainerPort{
			{HostPort: 53, HostIP: "10.0.0.1", Protocol: v1.ProtocolUDP},
			{HostPort: 9, Protocol: v1.ProtocolSCTP},
		}}}, []HostPort{{"10.0.0.1", v1.ProtocolUDP, 53}, {"0.0.0.0", v1.ProtocolSCTP, 9}}},
		{"every container", nil, []v1.Container{
			{Ports: []v1.ContainerPort{{HostPort: 1}}},
			{Ports: []v1.ContainerPort{{HostPort: 2}, {ContainerPort: 3}}},
		}, []HostPort{{"0.0.0.0", v1.ProtocolTCP, 1}, {"0.0.0.0", v1.ProtocolTCP, 2}}},
		{"restartable init containers only, before the main ones", []v1.Container{
			{Name: "init", Ports: []v1.ContainerPort{{HostPort: 10}}},
			{Name: "sidecar", RestartPolicy: &always, Ports: []v1.ContainerPort{{HostPort: 11}}},
		}, []v1.Container{{Ports: []v1.ContainerPort{{HostPort: 12}}}},
			[]HostPort{{"0.0.0.0", v1.ProtocolTCP, 11}, {"0.0.0.0", v1.ProtocolTCP, 12}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPodInfo(&v1.Pod{Spec: v1.PodSpec{InitContainers: tt.init, Containers: tt.main}})
			if !slices.Equal(p.HostPorts, tt.ports) {
				t.Errorf("HostPorts %v, want %v", p.HostPorts, tt.ports)
			}
		})
	}
}

func TestPodInfoAffinityTerms(t *testing.T) {
	sel := func(kv ...string) *metav1.LabelSelector {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return &metav1.LabelSelector{MatchLabels: m}
	}
	podLabels := map[string]string{"app": "web", "tier": "fe"}
	// A candidate pod is described by namespace, namespace labels and pod labels.
	type cand struct {
		ns       string
		nsLabels labels.Set
		labels   labels.Set
		match    bool
	}
	tests := []struct {
		name string
		term v1.PodAffinityTerm
		// namespaces is the expected Namespaces set.
		namespaces []string
		cands      []cand
	}{
		{
			name:       "namespaces default to the pod's",
			term:       v1.PodAffinityTerm{LabelSelector: sel("app", "db"), TopologyKey: "zone"},
			namespaces: []string{"prod"},
			cands: []cand{
				{"prod", nil, labels.Set{"app": "db"}, true},
				{"dev", labels.Set{"team": "x"}, labels.Set{"app": "db"}, false},
				{"prod", nil, labels.Set{"app": "web"}, false},
			},
		},
		{
			name:       "named namespaces replace the pod's",
			term:       v1.PodAffinityTerm{LabelSelector: sel("app", "db"), Namespaces: []string{"a", "b"}},
			namespaces: []string{"a", "b"},
			cands: []cand{
				{"a", nil, labels.Set{"app": "db"}, true},
				{"b", nil, labels.Set{"app": "db"}, true},
				{"prod", nil, labels.Set{"app": "db"}, false},
			},
		},
		{
			name:       "empty namespace selector selects every namespace",
			term:       v1.PodAffinityTerm{LabelSelector: sel("app", "db"), NamespaceSelector: &metav1.LabelSelector{}},
			namespaces: []string{},
			cands: []cand{
				{"prod", nil, labels.Set{"app": "db"}, true},
				{"other", labels.Set{"x": "y"}, labels.Set{"app": "db"}, true},
			},
		},
		{
			name:       "namespace selector adds to named namespaces",
			term:       v1.PodAffinityTerm{LabelSelector: sel("app", "db"), Namespaces: []string{"a"}, NamespaceSelector: sel("team", "x")},
			namespaces: []string{"a"},
			cands: []cand{
				{"a", nil, labels.Set{"app": "db"}, true},
				{"b", labels.Set{"team": "x"}, labels.Set{"app": "db"}, true},
				{"c", labels.Set{"team": "y"}, labels.Set{"app": "db"}, false},
				{"prod", nil, labels.Set{"app": "db"}, false},
			},
		},
		{
			name:       "nil label selector matches nothing",
			term:       v1.PodAffinityTerm{MatchLabelKeys: []string{"app"}},
			namespaces: []string{"prod"},
			cands:      []cand{{"prod", nil, labels.Set{"app": "web"}, false}, {"prod", nil, labels.Set{}, false}},
		},
		{
			name:       "empty label selector matches every pod",
			term:       v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{}},
			namespaces: []string{"prod"},
			cands:      []cand{{"prod", nil, labels.Set{"anything": "x"}, true}, {"prod", nil, nil, true}},
		},
		{
			name:       "matchLabelKeys merged with the pod's values",
			term:       v1.PodAffinityTerm{LabelSelector: sel("role", "cache"), MatchLabelKeys: []string{"app", "absent"}},
			namespaces: []string{"prod"},
			cands: []cand{
				{"prod", nil, labels.Set{"role": "cache", "app": "web"}, true},
				{"prod", nil, labels.Set{"role": "cache", "app": "api"}, false},
				{"prod", nil, labels.Set{"role": "cache"}, false},
			},
		},
		{
			name:       "mismatchLabelKeys merged with the pod's values",
			term:       v1.PodAffinityTerm{LabelSelector: sel("role", "cache"), MismatchLabelKeys: []string{"tier"}},
			namespaces: []string{"prod"},
			cands: []cand{
				{"prod", nil, labels.Set{"role": "cache", "tier": "be"}, true},
				{"prod", nil, labels.Set{"role": "cache"}, true},
				{"prod", nil, labels.Set{"role": "cache", "tier": "fe"}, false},
			},
		},
		{
			name: "both kinds of keys",
			term: v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{}, MatchLabelKeys: []string{"app"},
				MismatchLabelKeys: []string{"tier"}},
			namespaces: []string{"prod"},
			cands: []cand{
				{"prod", nil, labels.Set{"app": "web", "tier": "be"}, true},
				{"prod", nil, labels.Set{"app": "web", "tier": "fe"}, false},
				{"prod", nil, labels.Set{"app": "api", "tier": "be"}, false},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "me", Namespace: "prod", Labels: podLabels},
				Spec: v1.PodSpec{Affinity: &v1.Affinity{
					PodAffinity: &v1.PodAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution:  []v1.PodAffinityTerm{tt.term},
						PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 7, PodAffinityTerm: tt.term}},
					},
					PodAntiAffinity: &v1.PodAntiAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution:  []v1.PodAffinityTerm{tt.term},
						PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 3, PodAffinityTerm: tt.term}},
					},
				}},
			}
			p := NewPodInfo(pod)
			if p.ParseErr != nil {
				t.Fatal(p.ParseErr)
			}
			if len(p.RequiredAffinity) != 1 || len(p.RequiredAntiAffinity) != 1 || len(p.PreferredAffinity) != 1 || len(p.PreferredAntiAffinity) != 1 {
				t.Fatalf("terms: %d %d %d %d, want one of each", len(p.RequiredAffinity), len(p.RequiredAntiAffinity),
					len(p.PreferredAffinity), len(p.PreferredAntiAffinity))
			}
			if p.PreferredAffinity[0].Weight != 7 || p.PreferredAntiAffinity[0].Weight != 3 {
				t.Errorf("weights %d, %d, want 7, 3", p.PreferredAffinity[0].Weight, p.PreferredAntiAffinity[0].Weight)
			}
			if !p.HasAffinityTerms() || !p.HasInterPodConstraints() {
				t.Error("HasAffinityTerms or HasInterPodConstraints false")
			}
			terms := map[string]*AffinityTerm{
				"required affinity":       &p.RequiredAffinity[0],
				"required anti-affinity":  &p.RequiredAntiAffinity[0],
				"preferred affinity":      &p.PreferredAffinity[0].AffinityTerm,
				"preferred anti-affinity": &p.PreferredAntiAffinity[0].AffinityTerm,
			}
			for kind, term := range terms {
				if !term.Namespaces.Equal(sets.New(tt.namespaces...)) {
					t.Errorf("%s: namespaces %v, want %v", kind, sets.List(term.Namespaces), tt.namespaces)
				}
				if term.TopologyKey != tt.term.TopologyKey {
					t.Errorf("%s: topology key %q, want %q", kind, term.TopologyKey, tt.term.TopologyKey)
				}
				for _, c := range tt.cands {
					other := NewPodInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "o", Namespace: c.ns, Labels: c.labels}})
					if got := term.Matches(other, c.nsLabels); got != c.match {
						t.Errorf("%s: Matches(pod in %s %v, labels %v) = %v, want %v", kind, c.ns, c.nsLabels, c.labels, got, c.match)
					}
				}
			}
		})
	}
}

func TestPodInfoInvalidSelectors(t *testing.T) {
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
	inWithoutValues := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn}}}
	good := &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	tests := []struct {
		name      string
		podLabels map[string]string
		affinity  *v1.Affinity
		want      string
	}{
		{"bad operator in required affinity", nil, &v1.Affinity{PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: bad}},
		}}, "labelSelector"},
		{"In without values in preferred anti-affinity", nil, &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: inWithoutValues}}},
		}}, "labelSelector"},
		{"bad namespace selector", nil, &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: good, NamespaceSelector: bad}},
		}}, "namespaceSelector"},
		{"matchLabelKeys with a value that is not a label value", map[string]string{"k": "not a value!"}, &v1.Affinity{PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: good, MatchLabelKeys: []string{"k"}}}},
		}}, "matchLabelKeys"},
		{"mismatchLabelKeys with a key that is not a label key", map[string]string{"bad key": "v"}, &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{LabelSelector: good, MismatchLabelKeys: []string{"bad key"}}},
		}}, "mismatchLabelKeys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPodInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: tt.podLabels},
				Spec: v1.PodSpec{Affinity: tt.affinity}})
			if p.ParseErr == nil {
				t.Fatal("ParseErr = nil, want an error")
			}
			if !strings.Contains(p.ParseErr.Error(), tt.want) {
				t.Errorf("ParseErr %q does not mention %q", p.ParseErr, tt.want)
			}
		})
	}
}

func TestPodInfoInterPodConstraints(t *testing.T) {
	term := v1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{}, TopologyKey: "zone"}
	tests := []struct {
		name                  string
		spec                  v1.PodSpec
		affinity, constraints bool
	}{
		{"nothing", v1.PodSpec{}, false, false},
		{"preferred affinity only", v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term}}}}}, true, false},
		{"required anti-affinity", v1.PodSpec{Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{term}}}}, true, true},
		{"hard spreading", v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{
			{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule}}}, false, true},
		{"soft spreading", v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{
			{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.ScheduleAnyway}}}, false, false},
		{"node affinity is not inter-pod", v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{}}}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPodInfo(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: tt.spec})
			if p.HasAffinityTerms() != tt.affinity || p.HasInterPodConstraints() != tt.constraints {
				t.Errorf("HasAffinityTerms %v HasInterPodConstraints %v, want %v %v",
					p.HasAffinityTerms(), p.HasInterPodConstraints(), tt.affinity, tt.constraints)
			}
		})
	}
}

func TestPodInfoGroup(t *testing.T) {
	name := func(s string) *v1.PodSchedulingGroup { return &v1.PodSchedulingGroup{PodGroupName: &s} }
	tests := []struct {
		name  string
		label string
		field *v1.PodSchedulingGroup
		want  string
	}{
		{"none", "", nil, ""},
		{"label", "g1", nil, "g1"},
		{"upstream field", "", name("g2"), "g2"},
		{"label wins over the field", "g1", name("g2"), "g1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: v1.PodSpec{SchedulingGroup: tt.field}}
			if tt.label != "" {
				pod.Labels = map[string]string{v1alpha1.LabelPodGroup: tt.label}
			}
			p := NewPodInfo(pod)
			if p.Group != tt.want {
				t.Errorf("Group = %q, want %q", p.Group, tt.want)
			}
			wantKey := ""
			if tt.want != "" {
				wantKey = "ns/" + tt.want
			}
			if got := GroupKey(p); got != wantKey {
				t.Errorf("GroupKey = %q, want %q", got, wantKey)
			}
		})
	}
}
