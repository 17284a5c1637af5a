package volume

import (
	"maps"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	volumehelpers "k8s.io/component-helpers/storage/volume"
)

// fakeAPI holds the objects in maps, as the simulator's store does.
type fakeAPI struct {
	pvs     map[string]*v1.PersistentVolume
	pvcs    map[string]*v1.PersistentVolumeClaim
	classes map[string]*storagev1.StorageClass
	nodes   map[string]*v1.Node
	writes  int
}

func newFake() *fakeAPI {
	return &fakeAPI{pvs: map[string]*v1.PersistentVolume{}, pvcs: map[string]*v1.PersistentVolumeClaim{},
		classes: map[string]*storagev1.StorageClass{}, nodes: map[string]*v1.Node{}}
}

func (f *fakeAPI) PersistentVolume(name string) *v1.PersistentVolume { return f.pvs[name] }
func (f *fakeAPI) PersistentVolumes() []*v1.PersistentVolume {
	var out []*v1.PersistentVolume
	for _, k := range slices.Sorted(maps.Keys(f.pvs)) {
		out = append(out, f.pvs[k])
	}
	return out
}
func (f *fakeAPI) PersistentVolumeClaim(key string) *v1.PersistentVolumeClaim { return f.pvcs[key] }
func (f *fakeAPI) PersistentVolumeClaimKeys() []string                        { return slices.Sorted(maps.Keys(f.pvcs)) }
func (f *fakeAPI) StorageClass(name string) *storagev1.StorageClass           { return f.classes[name] }
func (f *fakeAPI) Node(name string) *v1.Node                                  { return f.nodes[name] }
func (f *fakeAPI) PutPersistentVolume(_, pv *v1.PersistentVolume)             { f.pvs[pv.Name] = pv; f.writes++ }
func (f *fakeAPI) PutPersistentVolumeClaim(_, pvc *v1.PersistentVolumeClaim) {
	f.pvcs[pvc.Namespace+"/"+pvc.Name] = pvc
	f.writes++
}

func claim(name, class, size string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}},
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
}

func volume(name, class, size string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PersistentVolumeSpec{
			StorageClassName: class,
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity:         v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
}

func class(name, provisioner string, mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
}

func TestSyncClaim(t *testing.T) {
	immediate := class("fast", "csi.example.com", storagev1.VolumeBindingImmediate)
	late := class("local", "csi.example.com", storagev1.VolumeBindingWaitForFirstConsumer)
	static := class("static", volumehelpers.NotSupportedProvisioner, storagev1.VolumeBindingImmediate)
	zoned := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{ProvisionedZoneLabel: "a"}}}
	tests := []struct {
		name     string
		classes  []*storagev1.StorageClass
		volumes  []*v1.PersistentVolume
		claim    *v1.PersistentVolumeClaim
		selected string // the node the scheduler named
		// wantVolume is the volume the claim is bound to ("" when it stays pending);
		// wantReach the provisioned volume's node affinity value.
		wantVolume, wantReach string
	}{
		{"the smallest matching volume", []*storagev1.StorageClass{immediate},
			[]*v1.PersistentVolume{volume("big", "fast", "10Gi"), volume("small", "fast", "2Gi"), volume("tiny", "fast", "512Mi")},
			claim("data", "fast", "1Gi"), "", "small", ""},
		{"provisioned at once with Immediate binding", []*storagev1.StorageClass{immediate}, nil,
			claim("data", "fast", "1Gi"), "", "pvc-uid-data", ""},
		{"WaitForFirstConsumer waits for the scheduler", []*storagev1.StorageClass{late}, nil,
			claim("data", "local", "1Gi"), "", "", ""},
		{"provisioned in the selected node's zone", []*storagev1.StorageClass{late}, nil,
			claim("data", "local", "1Gi"), "n1", "pvc-uid-data", "a"},
		{"nothing to provision with: pending", []*storagev1.StorageClass{static}, nil,
			claim("data", "static", "1Gi"), "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFake()
			api.nodes["n1"] = zoned
			for _, c := range tt.classes {
				api.classes[c.Name] = c
			}
			for _, pv := range tt.volumes {
				api.pvs[pv.Name] = pv
			}
			pvc := tt.claim.DeepCopy()
			pvc.UID = "uid-data"
			if tt.selected != "" {
				metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, volumehelpers.AnnSelectedNode, tt.selected)
			}
			New(api).CreateClaim(pvc)
			got := api.pvcs["default/data"]
			if got.Spec.VolumeName != tt.wantVolume {
				t.Fatalf("bound to %q, want %q", got.Spec.VolumeName, tt.wantVolume)
			}
			if tt.wantVolume == "" {
				if got.Status.Phase != v1.ClaimPending {
					t.Errorf("phase %s, want Pending", got.Status.Phase)
				}
				return
			}
			pv := api.pvs[tt.wantVolume]
			if got.Status.Phase != v1.ClaimBound || pv.Status.Phase != v1.VolumeBound || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Name != "data" {
				t.Errorf("claim %s and volume %s (claimRef %v), want both Bound to each other", got.Status.Phase, pv.Status.Phase, pv.Spec.ClaimRef)
			}
			reach := ""
			if a := pv.Spec.NodeAffinity; a != nil {
				reach = a.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0]
			}
			if reach != tt.wantReach {
				t.Errorf("provisioned volume reaches %q, want %q", reach, tt.wantReach)
			}
		})
	}
}

// A volume that appears later binds the claim that waited for it; a volume the scheduler
// points at a claim is bound by the controller.
func TestVolumeAppearedAndPointedAt(t *testing.T) {
	api := newFake()
	api.classes["static"] = class("static", volumehelpers.NotSupportedProvisioner, storagev1.VolumeBindingImmediate)
	c := New(api)
	c.CreateClaim(claim("data", "static", "1Gi"))
	api.pvs["v1"] = volume("v1", "static", "1Gi")
	c.VolumeAppeared()
	if got := api.pvcs["default/data"].Spec.VolumeName; got != "v1" {
		t.Fatalf("after the volume appeared: bound to %q, want v1", got)
	}
	c.CreateClaim(claim("logs", "static", "1Gi"))
	pv := volume("v2", "static", "1Gi")
	pv.Spec.ClaimRef = &v1.ObjectReference{Namespace: "default", Name: "logs"}
	api.pvs["v2"] = pv
	c.VolumePointedAtClaim(pv)
	if got := api.pvcs["default/logs"]; got.Spec.VolumeName != "v2" || got.Status.Phase != v1.ClaimBound {
		t.Fatalf("claim pointed at: volume %q phase %s, want v2 Bound", got.Spec.VolumeName, got.Status.Phase)
	}
}

// A pod's generic ephemeral volume gets a claim owned by the pod, made once.
func TestCreateEphemeralClaims(t *testing.T) {
	api := newFake()
	c := New(api)
	className := "fast"
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "pod-uid"}, Spec: v1.PodSpec{Volumes: []v1.Volume{
		{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{
			Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &className}}}}},
		{Name: "cache", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
	}}}
	c.CreateEphemeralClaims(p)
	c.CreateEphemeralClaims(p)
	pvc := api.pvcs["default/web-scratch"]
	if len(api.pvcs) != 1 || pvc == nil {
		t.Fatalf("claims %v, want web-scratch only", api.pvcs)
	}
	if owner := metav1.GetControllerOf(pvc); owner == nil || owner.UID != "pod-uid" || owner.Kind != "Pod" {
		t.Errorf("owner %v, want the pod", owner)
	}
	if api.writes != 1 {
		t.Errorf("%d writes, want the claim made once", api.writes)
	}
}
