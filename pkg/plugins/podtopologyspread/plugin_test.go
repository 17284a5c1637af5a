package podtopologyspread

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantErr string // substring; "" for valid
		system  bool
	}{
		{name: "empty means System", raw: ``, system: true},
		{name: "explicit System", raw: `{"defaultingType":"System"}`, system: true},
		{name: "List without constraints", raw: `{"defaultingType":"List"}`},
		{name: "List with constraints", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}`},
		{name: "unknown field", raw: `{"defaultConstraint":[]}`, wantErr: "unknown field"},
		{name: "unknown constraint field", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","skew":2}]}`, wantErr: "unknown field"},
		{name: "System with constraints", raw: `{"defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}`, wantErr: "defaultingType"},
		{name: "bad defaulting type", raw: `{"defaultingType":"Some"}`, wantErr: "defaultingType"},
		{name: "maxSkew 0", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":0,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}`, wantErr: "defaultConstraints[0].maxSkew"},
		{name: "no topologyKey", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"}]}`, wantErr: "defaultConstraints[0].topologyKey"},
		{name: "invalid topologyKey", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"a b","whenUnsatisfiable":"DoNotSchedule"}]}`, wantErr: "defaultConstraints[0].topologyKey"},
		{name: "no whenUnsatisfiable", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone"}]}`, wantErr: "whenUnsatisfiable"},
		{name: "bad whenUnsatisfiable", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Maybe"}]}`, wantErr: "whenUnsatisfiable"},
		{name: "selector given", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{}}]}`, wantErr: "labelSelector"},
		{name: "duplicate", raw: `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"},{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}`, wantErr: "Duplicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := New(json.RawMessage(tt.raw), nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := pl.(*PodTopologySpread).systemDefaulted; got != tt.system {
				t.Errorf("systemDefaulted = %v, want %v", got, tt.system)
			}
		})
	}
}

func TestDefaultSelector(t *testing.T) {
	yes, no := true, false
	owner := func(apiVersion, kind string, controller *bool) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: "o", UID: "o-uid", Controller: controller}
	}
	podLabels := map[string]string{
		"app": "web", "pod-template-hash": "abc",
		"controller-revision-hash": "web-1", "statefulset.kubernetes.io/pod-name": "web-0", "apps.kubernetes.io/pod-index": "0",
	}
	tests := []struct {
		name  string
		owner []metav1.OwnerReference
		want  map[string]string // nil: no defaults
	}{
		{name: "ReplicaSet keeps every label, pod-template-hash included", owner: []metav1.OwnerReference{owner("apps/v1", "ReplicaSet", &yes)}, want: podLabels},
		{name: "ReplicationController", owner: []metav1.OwnerReference{owner("v1", "ReplicationController", &yes)}, want: podLabels},
		{name: "StatefulSet drops its per-pod labels", owner: []metav1.OwnerReference{owner("apps/v1", "StatefulSet", &yes)}, want: map[string]string{"app": "web", "pod-template-hash": "abc"}},
		{name: "no owner", want: nil},
		{name: "owner that is not the controller", owner: []metav1.OwnerReference{owner("apps/v1", "ReplicaSet", &no)}, want: nil},
		{name: "unsupported kind", owner: []metav1.OwnerReference{owner("batch/v1", "Job", &yes)}, want: nil},
		{name: "other API version", owner: []metav1.OwnerReference{owner("apps/v1beta2", "ReplicaSet", &yes)}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := ownedPod(podLabels, tt.owner)
			sel := defaultSelector(pod)
			if tt.want == nil {
				if !sel.Empty() {
					t.Errorf("selector %q, want none", sel)
				}
				return
			}
			if want := labels.SelectorFromSet(tt.want); sel.String() != want.String() {
				t.Errorf("selector %q, want %q", sel, want)
			}
		})
	}
	if sel := defaultSelector(ownedPod(nil, []metav1.OwnerReference{owner("apps/v1", "ReplicaSet", &yes)})); !sel.Empty() {
		t.Errorf("unlabelled pod: selector %q, want none", sel)
	}
}

func ownedPod(lbls map[string]string, owners []metav1.OwnerReference) *v1.Pod {
	p := incoming(nil).Obj()
	p.Labels = maps.Clone(lbls)
	p.OwnerReferences = owners
	return p
}

// List defaulting: the defaults apply, hard ones in Filter, to controlled pods without
// constraints of their own, with the selector derived from the pod.
func TestListDefaults(t *testing.T) {
	args := json.RawMessage(`{"defaultingType":"List","defaultConstraints":[
		{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}`)
	pods := []*v1.Pod{
		bound("w-1", "node-a", "app", "web"), bound("w-2", "node-b", "app", "web"),
		bound("o-1", "node-x", "app", "other"),
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		want map[string]framework.Code
	}{
		{
			// zone1 has 2 web pods, zone2 none (the other app does not count): only zone2.
			name: "controlled pod gets the hard default",
			pod:  ownedByReplicaSet(incoming([]string{"app", "web"}).Obj()),
			want: map[string]framework.Code{"node-a": un, "node-b": un, "node-x": ok, "node-y": ok},
		},
		{
			name: "pod with its own constraints gets no defaults",
			pod:  ownedByReplicaSet(incoming([]string{"app", "web"}, spread(1, "node", soft, fooSelector)).Obj()),
			want: map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
		{
			name: "uncontrolled pod gets no defaults",
			pod:  incoming([]string{"app", "web"}).Obj(),
			want: map[string]framework.Code{"node-a": ok, "node-b": ok, "node-x": ok, "node-y": ok},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, c := setup(t, args, fourNodes(), pods)
			got := filterAll(t, pl, c, tt.pod)
			for n, want := range tt.want {
				if got[n].Code() != want {
					t.Errorf("%s: %v, want %v", n, got[n], want)
				}
			}
		})
	}
}

// System defaults do not require the zone label: a node without it is scored by hostname
// only, while the zone constraint counts it in a "" domain that enters the zone weight,
// as upstream.
func TestSystemDefaultsScoreNodesWithoutZone(t *testing.T) {
	nodes := []*v1.Node{
		node("node-a", v1.LabelTopologyZone, "zone1", hostname, "node-a"),
		node("node-b", v1.LabelTopologyZone, "zone1", hostname, "node-b"),
		node("node-c", hostname, "node-c"),
	}
	pods := podsOn(map[string]int{"node-a": 2, "node-c": 1}, "app", "web")
	pl, c := setup(t, nil, nodes, pods)
	// weights: zone log(2+2), hostname log(3+2). Raw: a 2*1.61+2 + 2*1.39+4 = 12,
	// b 2 + 6.77 = 9, c 1.61+2 = 4; normalised 100*(16-s)/12.
	got := scoreAll(t, pl, c, ownedByReplicaSet(incoming([]string{"app", "web"}).Obj()), nil)
	want := map[string]int64{"node-a": 33, "node-b": 58, "node-c": 100}
	if !maps.Equal(got, want) {
		t.Errorf("scores %v, want %v", got, want)
	}
}

func TestEventsToRegister(t *testing.T) {
	evs := (&PodTopologySpread{}).EventsToRegister()
	interested := func(e framework.ClusterEvent) bool {
		for _, r := range evs {
			if r.Matches(e) {
				return true
			}
		}
		return false
	}
	for _, e := range []framework.ClusterEvent{
		framework.EventAssignedPodAdd, framework.EventAssignedPodDelete, framework.EventNodeAdd,
		{Resource: framework.AssignedPod, Action: framework.UpdatePodLabel},
		{Resource: framework.Node, Action: framework.UpdateNodeLabel},
		{Resource: framework.Node, Action: framework.UpdateNodeTaint},
		{Resource: framework.Node, Action: framework.Delete},
		{Resource: framework.UnscheduledPod, Action: framework.UpdatePodToleration},
	} {
		if !interested(e) {
			t.Errorf("not registered for %+v", e)
		}
	}
	for _, e := range []framework.ClusterEvent{
		{Resource: framework.Node, Action: framework.UpdateNodeAllocatable},
		{Resource: framework.Node, Action: framework.UpdateNodeCondition},
		{Resource: framework.AssignedPod, Action: framework.UpdatePodScaleDown},
		{Resource: framework.UnscheduledPod, Action: framework.Add},
		{Resource: framework.PodGroup, Action: framework.Add},
	} {
		if interested(e) {
			t.Errorf("registered for irrelevant %+v", e)
		}
	}
}
