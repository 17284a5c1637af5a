package nodedeclaredfeatures

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
	ndftesting "k8s.io/component-helpers/nodedeclaredfeatures/testing"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func mockFeature(t *testing.T, name string, infer bool, maxVersion string) ndf.Feature {
	m := ndftesting.NewMockFeature(t)
	m.SetName(name)
	m.SetInferForScheduling(func(*ndf.PodInfo) bool { return infer })
	if maxVersion != "" {
		m.SetMaxVersion(version.MustParseSemantic(maxVersion))
	} else {
		m.SetMaxVersion(nil)
	}
	return m
}

// TestPreFilterUpstreamTable re-expresses kube-scheduler v1.37.2's TestPreFilter (the
// enabled cases: the feature gate is locked on in v1.37).
func TestPreFilterUpstreamTable(t *testing.T) {
	const feature1, feature2 = "TestFeature1", "TestFeature2"
	mapper := ndf.NewFeatureMapper([]string{feature1, feature2})
	tests := []struct {
		name      string
		version   string
		features  func(t *testing.T) []ndf.Feature
		want      framework.Code
		wantState []string
	}{
		{"Pod with feature requirements", "1.35.0", func(t *testing.T) []ndf.Feature {
			return []ndf.Feature{mockFeature(t, feature1, true, ""), mockFeature(t, feature2, false, "")}
		}, framework.Success, []string{feature1}},
		{"Pod with multiple feature requirements", "1.35.0", func(t *testing.T) []ndf.Feature {
			return []ndf.Feature{mockFeature(t, feature1, true, "1.38.0"), mockFeature(t, feature2, true, "1.38.0")}
		}, framework.Success, []string{feature1, feature2}},
		{"Pod with no requirements", "1.35.0", func(t *testing.T) []ndf.Feature {
			return []ndf.Feature{mockFeature(t, feature1, false, ""), mockFeature(t, feature2, false, "")}
		}, framework.Skip, nil},
		{"Feature not required, version > MaxVersion", "1.34.0", func(t *testing.T) []ndf.Feature {
			return []ndf.Feature{mockFeature(t, feature1, true, "1.33.0"), mockFeature(t, feature2, false, "")}
		}, framework.Skip, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &NodeDeclaredFeatures{features: ndf.New(tt.features(t)), version: version.MustParseSemantic(tt.version)}
			state := framework.NewCycleState()
			res, st := pl.PreFilter(context.Background(), state, testutil.Pod("test-pod").Info())
			if res != nil {
				t.Errorf("PreFilter returned a result: %+v", res)
			}
			if st.Code() != tt.want {
				t.Fatalf("status %v, want %v", st, tt.want)
			}
			s, ok := state.Read(preFilterStateKey).(*preFilterState)
			if tt.wantState == nil {
				if ok {
					t.Errorf("state written: %v", s.reqs)
				}
				return
			}
			if !ok || !s.reqs.Equal(mapper.MustMapSorted(tt.wantState)) {
				t.Errorf("state %v, want %v", s, tt.wantState)
			}
		})
	}
}

// TestFilterUpstreamTable re-expresses kube-scheduler v1.37.2's TestFilter: the node's
// declared features (mapped by the cache with the default framework, here a mock one)
// against the requirements PreFilter stored.
func TestFilterUpstreamTable(t *testing.T) {
	const featureA, featureB, featureC = "FeatureA", "FeatureB", "FeatureC"
	f, _ := ndftesting.NewMockFramework(t, featureA, featureB, featureC)
	ndftesting.SetFrameworkDuringTest(t, f)
	tests := []struct {
		name     string
		reqs     []string
		declared []string
		want     framework.Code
	}{
		{"Node matches requirements", []string{featureA}, []string{featureA, featureB}, framework.Success},
		{"Node does not match requirements", []string{featureA}, []string{featureB}, framework.UnschedulableAndUnresolvable},
		{"Node with multiple features, pod requires subset", []string{featureA, featureC}, []string{featureA, featureB, featureC}, framework.Success},
		{"Node has no declared features", []string{featureA}, nil, framework.UnschedulableAndUnresolvable},
		{"Node with some but not all required features", []string{featureA, featureB}, []string{featureA}, framework.UnschedulableAndUnresolvable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &NodeDeclaredFeatures{features: ndf.DefaultFramework, version: TargetVersion}
			state := framework.NewCycleState()
			state.Write(preFilterStateKey, &preFilterState{reqs: ndf.DefaultFramework.MustMapSorted(tt.reqs)})
			n := testutil.Node("node-1").Obj()
			n.Status.DeclaredFeatures = tt.declared
			st := pl.Filter(context.Background(), state, testutil.Pod("test-pod").Info(), framework.NewNodeInfo(n))
			if st.Code() != tt.want {
				t.Fatalf("status %v, want %v", st, tt.want)
			}
			if tt.want != framework.Success && !slices.Equal(st.Reasons(), []string{ErrReasonUnsatisfiedRequirements}) {
				t.Errorf("reasons %q, want %q", st.Reasons(), ErrReasonUnsatisfiedRequirements)
			}
		})
	}
}

// TestRealFeatures runs the library's v1.37 features: what pods require, and nodes that
// declare (or not) those and unknown features.
func TestRealFeatures(t *testing.T) {
	const userNS, restartAll = "UserNamespacesHostNetworkSupport", "RestartAllContainersOnContainerExits"
	hostUsers := false
	hostNetUserNS := func(p *v1.Pod) { p.Spec.HostNetwork = true; p.Spec.HostUsers = &hostUsers }
	restartAllRule := func(p *v1.Pod) {
		p.Spec.Containers[0].RestartPolicyRules = []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers}}
	}
	tests := []struct {
		name     string
		pod      []func(*v1.Pod)
		declared []string
		want     framework.Code
	}{
		{name: "a plain pod skips the filter", declared: nil, want: framework.Skip},
		{name: "host network alone needs nothing", pod: []func(*v1.Pod){func(p *v1.Pod) { p.Spec.HostNetwork = true }}, want: framework.Skip},
		{name: "host network in a user namespace, node silent", pod: []func(*v1.Pod){hostNetUserNS}, want: framework.UnschedulableAndUnresolvable},
		{name: "host network in a user namespace, node declares it", pod: []func(*v1.Pod){hostNetUserNS}, declared: []string{userNS}, want: framework.Success},
		{name: "restart-all rule, node declares another feature", pod: []func(*v1.Pod){restartAllRule}, declared: []string{userNS}, want: framework.UnschedulableAndUnresolvable},
		{name: "both, node declares both and an unknown one", pod: []func(*v1.Pod){restartAllRule, hostNetUserNS}, declared: []string{"FutureFeature", restartAll, userNS}, want: framework.Success},
		{name: "both, node declares one", pod: []func(*v1.Pod){restartAllRule, hostNetUserNS}, declared: []string{restartAll}, want: framework.UnschedulableAndUnresolvable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := testutil.Pod("p").Obj()
			pod.Spec.Containers = []v1.Container{{Name: "c", Image: "app"}}
			for _, f := range tt.pod {
				f(pod)
			}
			n := testutil.Node("n").Obj()
			n.Status.DeclaredFeatures = tt.declared
			pl, _ := New(nil, nil)
			ndfpl := pl.(*NodeDeclaredFeatures)
			p := framework.NewPodInfo(pod)
			state := framework.NewCycleState()
			_, st := ndfpl.PreFilter(context.Background(), state, p)
			if st.IsSkip() {
				if tt.want != framework.Skip {
					t.Fatalf("PreFilter skipped, want %v", tt.want)
				}
				if direct := ndfpl.Filter(context.Background(), framework.NewCycleState(), p, framework.NewNodeInfo(n)); !direct.IsSuccess() {
					t.Errorf("Filter without PreFilter: %v, want success", direct)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			got := ndfpl.Filter(context.Background(), state, p, framework.NewNodeInfo(n))
			if got.Code() != tt.want {
				t.Errorf("Filter: %v, want %v", got, tt.want)
			}
			// Without PreFilter (a caller filtering directly) the verdict is the same.
			if direct := ndfpl.Filter(context.Background(), framework.NewCycleState(), p, framework.NewNodeInfo(n)); direct.Code() != tt.want {
				t.Errorf("Filter without PreFilter: %v, want %v", direct, tt.want)
			}
		})
	}
}

// TestStaticFilterKey: pods with equal requirements share a key, others do not.
func TestStaticFilterKey(t *testing.T) {
	pl, _ := New(nil, nil)
	ndfpl := pl.(*NodeDeclaredFeatures)
	hostUsers := false
	plain := testutil.Pod("a").Info()
	other := testutil.Pod("b").Info()
	userNS := testutil.Pod("c").Obj()
	userNS.Spec.HostNetwork, userNS.Spec.HostUsers = true, &hostUsers
	if ndfpl.StaticFilterKey(plain) != ndfpl.StaticFilterKey(other) {
		t.Error("two plain pods have different keys")
	}
	if ndfpl.StaticFilterKey(plain) == ndfpl.StaticFilterKey(framework.NewPodInfo(userNS)) {
		t.Error("a pod with requirements shares the key of a plain pod")
	}
}

// TestEvents: a node added or whose declared features change may lift the rejection.
func TestEvents(t *testing.T) {
	pl, _ := New(nil, nil)
	events := pl.(*NodeDeclaredFeatures).EventsToRegister()
	for _, ev := range []framework.ClusterEvent{
		{Resource: framework.Node, Action: framework.Add},
		{Resource: framework.Node, Action: framework.UpdateNodeDeclaredFeature},
	} {
		if !slices.ContainsFunc(events, func(r framework.ClusterEvent) bool { return r.Matches(ev) }) {
			t.Errorf("event %+v not registered", ev)
		}
	}
	if slices.ContainsFunc(events, func(r framework.ClusterEvent) bool {
		return r.Matches(framework.ClusterEvent{Resource: framework.Node, Action: framework.UpdateNodeLabel})
	}) {
		t.Error("a label change is registered")
	}
}
