package resource

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

func list(kv ...string) v1.ResourceList {
	l := v1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[v1.ResourceName(kv[i])] = apiresource.MustParse(kv[i+1])
	}
	return l
}

func container(req, lim v1.ResourceList) v1.Container {
	return v1.Container{Name: "c", Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}
}

func TestForPod(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	sidecar := container(list("cpu", "300m"), nil)
	sidecar.RestartPolicy = &always
	tests := []struct {
		name          string
		spec          v1.PodSpec
		cpu, mem      int64
		gpu           int64
		nonZeroCPU    int64
		nonZeroMemory int64
	}{
		{
			name: "containers add up",
			spec: v1.PodSpec{Containers: []v1.Container{container(list("cpu", "500m", "memory", "1Gi"), nil), container(list("cpu", "250m"), nil)}},
			cpu:  750, mem: 1 << 30, nonZeroCPU: 750, nonZeroMemory: 1<<30 + DefaultMemoryRequest,
		},
		{
			name: "an init container larger than the containers sets the request",
			spec: v1.PodSpec{InitContainers: []v1.Container{container(list("cpu", "2"), nil)}, Containers: []v1.Container{container(list("cpu", "1"), nil)}},
			cpu:  2000, nonZeroCPU: 2000, nonZeroMemory: DefaultMemoryRequest,
		},
		{
			name: "a sidecar runs alongside the containers",
			spec: v1.PodSpec{InitContainers: []v1.Container{sidecar}, Containers: []v1.Container{container(list("cpu", "1"), nil)}},
			cpu:  1300, nonZeroCPU: 1300, nonZeroMemory: 2 * DefaultMemoryRequest,
		},
		{
			name: "overhead is added",
			spec: v1.PodSpec{Overhead: list("cpu", "100m", "memory", "64Mi"), Containers: []v1.Container{container(list("cpu", "1"), nil)}},
			cpu:  1100, mem: 64 << 20, nonZeroCPU: 1100, nonZeroMemory: DefaultMemoryRequest + 64<<20,
		},
		{
			name: "pod-level resources override the containers",
			spec: v1.PodSpec{Resources: &v1.ResourceRequirements{Requests: list("cpu", "4", "memory", "2Gi")}, Containers: []v1.Container{container(list("cpu", "1"), nil)}},
			cpu:  4000, mem: 2 << 30, nonZeroCPU: 4000, nonZeroMemory: 2 << 30,
		},
		{
			name: "extended resources",
			spec: v1.PodSpec{Containers: []v1.Container{container(list("nvidia.com/gpu", "2"), nil)}},
			gpu:  2, nonZeroCPU: DefaultMilliCPURequest, nonZeroMemory: DefaultMemoryRequest,
		},
		{
			name:       "nothing requested",
			spec:       v1.PodSpec{Containers: []v1.Container{container(nil, nil)}},
			nonZeroCPU: DefaultMilliCPURequest, nonZeroMemory: DefaultMemoryRequest,
		},
	}
	gpu, _ := Index("nvidia.com/gpu")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ForPod(&v1.Pod{Spec: tc.spec})
			if err != nil {
				t.Fatal(err)
			}
			if r.Vector[CPU] != tc.cpu || r.Vector[Memory] != tc.mem || r.Vector[gpu] != tc.gpu || r.Vector[Pods] != 1 {
				t.Errorf("requests %s, want cpu %d memory %d gpu %d pods 1", r.Vector.String(), tc.cpu, tc.mem, tc.gpu)
			}
			if r.NonZeroCPU != tc.nonZeroCPU || r.NonZeroMemory != tc.nonZeroMemory {
				t.Errorf("non-zero %d/%d, want %d/%d", r.NonZeroCPU, r.NonZeroMemory, tc.nonZeroCPU, tc.nonZeroMemory)
			}
		})
	}
}

func TestQOSClass(t *testing.T) {
	tests := []struct {
		name string
		cs   []v1.Container
		want v1.PodQOSClass
	}{
		{"nothing set", []v1.Container{container(nil, nil)}, v1.PodQOSBestEffort},
		{"requests equal limits", []v1.Container{container(list("cpu", "1", "memory", "1Gi"), list("cpu", "1", "memory", "1Gi"))}, v1.PodQOSGuaranteed},
		{"requests below limits", []v1.Container{container(list("cpu", "500m", "memory", "1Gi"), list("cpu", "1", "memory", "1Gi"))}, v1.PodQOSBurstable},
		{"only requests", []v1.Container{container(list("cpu", "1"), nil)}, v1.PodQOSBurstable},
		{"a memory limit missing", []v1.Container{container(list("cpu", "1"), list("cpu", "1"))}, v1.PodQOSBurstable},
		{"one guaranteed, one best-effort container", []v1.Container{container(list("cpu", "1", "memory", "1Gi"), list("cpu", "1", "memory", "1Gi")), container(nil, nil)}, v1.PodQOSBurstable},
		{"extended resources do not count", []v1.Container{container(list("nvidia.com/gpu", "1"), list("nvidia.com/gpu", "1"))}, v1.PodQOSBestEffort},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := QOSClass(&v1.Pod{Spec: v1.PodSpec{Containers: tc.cs}}); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if got := QOSClass(&v1.Pod{Status: v1.PodStatus{QOSClass: v1.PodQOSGuaranteed}}); got != v1.PodQOSGuaranteed {
		t.Errorf("the status's class must win, got %s", got)
	}
}

func TestRegistryIsStable(t *testing.T) {
	a, err := Index("example.com/foo")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Index("example.com/foo")
	if a != b || Name(a) != "example.com/foo" || a < firstExtended {
		t.Errorf("index %d then %d for the same name (%s)", a, b, Name(a))
	}
}

// ForPod reads the status only when it holds resources; on every kind of pod, with and
// without them, it gives what upstream gives when always told to read the status.
func TestForPodStatusShortcut(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	sidecar := container(list("cpu", "300m"), nil)
	sidecar.Name, sidecar.RestartPolicy = "sidecar", &always
	base := v1.PodSpec{
		InitContainers: []v1.Container{sidecar},
		Containers:     []v1.Container{container(list("cpu", "1", "memory", "1Gi"), nil)},
		Overhead:       list("cpu", "100m"),
	}
	running := v1.PodStatus{Phase: v1.PodRunning, Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}},
		ContainerStatuses: []v1.ContainerStatus{{Name: "c", Ready: true}}, InitContainerStatuses: []v1.ContainerStatus{{Name: "sidecar"}}}
	infeasible := v1.PodCondition{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonInfeasible}
	deferred := v1.PodCondition{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonDeferred}
	tests := []struct {
		name     string
		status   v1.PodStatus
		spec     *v1.PodSpec // nil: base
		wantCPU  int64
		readsAll bool // the status holds resources: ForPod must read it
	}{
		{name: "pending", wantCPU: 1400},
		{name: "running, no status resources", status: running, wantCPU: 1400},
		{name: "allocated above the spec", wantCPU: 2400, readsAll: true, status: v1.PodStatus{
			ContainerStatuses: []v1.ContainerStatus{{Name: "c", AllocatedResources: list("cpu", "2")}}}},
		{name: "actuated above the spec", wantCPU: 3400, readsAll: true, status: v1.PodStatus{
			ContainerStatuses: []v1.ContainerStatus{{Name: "c", Resources: &v1.ResourceRequirements{Requests: list("cpu", "3")}}}}},
		{name: "a sidecar's allocated resources", wantCPU: 1600, readsAll: true, status: v1.PodStatus{
			InitContainerStatuses: []v1.ContainerStatus{{Name: "sidecar", AllocatedResources: list("cpu", "500m")}}}},
		{name: "actuated resources without requests", status: v1.PodStatus{
			ContainerStatuses: []v1.ContainerStatus{{Name: "c", Resources: &v1.ResourceRequirements{Limits: list("cpu", "3")}}}}, wantCPU: 1400},
		{name: "resize infeasible: only the status counts", wantCPU: 100, readsAll: true, status: v1.PodStatus{Conditions: []v1.PodCondition{infeasible}}},
		{name: "resize deferred", status: v1.PodStatus{Conditions: []v1.PodCondition{deferred}}, wantCPU: 1400},
		{name: "pod-level resources, allocated container status", wantCPU: 4100, readsAll: true,
			spec:   &v1.PodSpec{Resources: &v1.ResourceRequirements{Requests: list("cpu", "4")}, Containers: base.Containers, Overhead: base.Overhead},
			status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "c", AllocatedResources: list("cpu", "2")}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: base, Status: tc.status}
			if tc.spec != nil {
				pod.Spec = *tc.spec
			}
			if got := statusResourcesMatter(pod); got != tc.readsAll {
				t.Errorf("statusResourcesMatter = %v, want %v", got, tc.readsAll)
			}
			got, err := ForPod(pod)
			if err != nil {
				t.Fatal(err)
			}
			if got.Vector[CPU] != tc.wantCPU {
				t.Errorf("cpu %d, want %d", got.Vector[CPU], tc.wantCPU)
			}
			if want, err := upstreamForPod(pod); err != nil {
				t.Fatal(err)
			} else if got != want {
				t.Errorf("ForPod = %s %d/%d, upstream reading the status gives %s %d/%d",
					got.Vector.String(), got.NonZeroCPU, got.NonZeroMemory, want.Vector.String(), want.NonZeroCPU, want.NonZeroMemory)
			}
		})
	}
}

// upstreamForPod is what ForPod computed before its shortcuts: component-helpers told to
// read the status resources, for the requests and again with the non-zero defaults.
func upstreamForPod(pod *v1.Pod) (PodRequests, error) {
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: true}
	vec, err := FromList(resourcehelper.PodRequests(pod, opts))
	var tooLarge *TooLargeError
	if err != nil && !errors.As(err, &tooLarge) {
		return PodRequests{}, err
	}
	vec[Pods] = 1
	opts.NonMissingContainerRequests = nonZeroDefaults
	nz := resourcehelper.PodRequests(pod, opts)
	nzCPU, _ := Amount(CPU, *nz.Cpu())
	nzMem, _ := Amount(Memory, *nz.Memory())
	return PodRequests{Vector: vec, NonZeroCPU: nzCPU, NonZeroMemory: nzMem}, err
}

// ForPod gives upstream's requests, non-zero requests and error on generated pods: any
// number of containers asking for any of several resources in amounts of every form
// (fractions of a millicore, zero, beyond what phalanx counts), with and without
// overhead, init and sidecar containers, pod-level requests and status resources.
func TestForPodMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	names := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage, "nvidia.com/gpu", "hugepages-2Mi"}
	amounts := []string{"0", "1", "250m", "1500u", "3n", "1.5", "2Gi", "1G", "100Mi", "7", "1e30", "0.0001"}
	randomList := func(p float64) v1.ResourceList {
		if rng.Float64() > p {
			return nil
		}
		l := v1.ResourceList{}
		for _, n := range names {
			if rng.IntN(2) == 0 {
				l[n] = apiresource.MustParse(amounts[rng.IntN(len(amounts))])
			}
		}
		return l
	}
	always := v1.ContainerRestartPolicyAlways
	cases := 5000
	if testing.Short() {
		cases = 1000
	}
	shortcuts := 0
	for c := range cases {
		pod := &v1.Pod{}
		for i := range rng.IntN(4) {
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: fmt.Sprint("c", i), Resources: v1.ResourceRequirements{Requests: randomList(0.9)}})
		}
		pod.Spec.Overhead = randomList(0.3)
		if rng.IntN(5) == 0 {
			init := v1.Container{Name: "init", Resources: v1.ResourceRequirements{Requests: randomList(0.9)}}
			if rng.IntN(2) == 0 {
				init.RestartPolicy = &always
			}
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, init)
		}
		if rng.IntN(8) == 0 {
			pod.Spec.Resources = &v1.ResourceRequirements{Requests: randomList(0.8)}
		}
		if rng.IntN(6) == 0 && len(pod.Spec.Containers) > 0 {
			cs := v1.ContainerStatus{Name: "c0"}
			switch rng.IntN(3) {
			case 0:
				cs.AllocatedResources = randomList(1)
			case 1:
				cs.Resources = &v1.ResourceRequirements{Requests: randomList(1)}
			default:
				pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}}
			}
			pod.Status.ContainerStatuses = []v1.ContainerStatus{cs}
		}
		if !statusResourcesMatter(pod) && len(pod.Spec.InitContainers) == 0 && !resourcehelper.IsPodLevelRequestsSet(pod) {
			shortcuts++
		}
		got, gotErr := ForPod(pod)
		want, wantErr := upstreamForPod(pod)
		if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("case %d, pod %v:\nForPod   %s %d/%d %v\nupstream %s %d/%d %v", c, pod.Spec,
				got.Vector.String(), got.NonZeroCPU, got.NonZeroMemory, gotErr, want.Vector.String(), want.NonZeroCPU, want.NonZeroMemory, wantErr)
		}
	}
	if shortcuts < cases/3 {
		t.Errorf("only %d of %d generated pods took the shortcut", shortcuts, cases)
	}
}
