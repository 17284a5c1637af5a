package resource

import (
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
			opts := resourcehelper.PodResourcesOptions{UseStatusResources: true}
			want, err := FromList(resourcehelper.PodRequests(pod, opts))
			if err != nil {
				t.Fatal(err)
			}
			want[Pods] = 1
			opts.NonMissingContainerRequests = nonZeroDefaults
			nz := resourcehelper.PodRequests(pod, opts)
			nzCPU, _ := Amount(CPU, *nz.Cpu())
			nzMem, _ := Amount(Memory, *nz.Memory())
			if wantAll := (PodRequests{Vector: want, NonZeroCPU: nzCPU, NonZeroMemory: nzMem}); got != wantAll {
				t.Errorf("ForPod = %s %d/%d, upstream reading the status gives %s %d/%d",
					got.Vector.String(), got.NonZeroCPU, got.NonZeroMemory, wantAll.Vector.String(), wantAll.NonZeroCPU, wantAll.NonZeroMemory)
			}
		})
	}
}
