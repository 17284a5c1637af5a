package testutil

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DeviceClass returns a class selecting the devices of a driver.
func DeviceClass(name, driver string) *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", driver)},
		}}},
	}
}

// Slice returns a node's ResourceSlice of a driver, one pool named after the node, with
// devices <prefix>-0..n-1 that each have the string attributes attrs (name, value pairs).
func Slice(node, driver, prefix string, n int, attrs ...string) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-" + driver},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: driver, NodeName: &node,
			Pool: resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for i := range n {
		d := resourceapi.Device{Name: fmt.Sprintf("%s-%d", prefix, i), Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}}
		for j := 0; j+1 < len(attrs); j += 2 {
			v := attrs[j+1]
			d.Attributes[resourceapi.QualifiedName(attrs[j])] = resourceapi.DeviceAttribute{StringValue: &v}
		}
		s.Spec.Devices = append(s.Spec.Devices, d)
	}
	return s
}

// Claim returns a claim in namespace default for count devices of a class, with CEL
// selectors.
func Claim(name, class string, count int64, selectors ...string) *resourceapi.ResourceClaim {
	req := resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}
	for _, s := range selectors {
		req.Selectors = append(req.Selectors, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: s}})
	}
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec:       resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{Name: "devices", Exactly: &req}}}},
	}
}

// Claims makes a pod use claims by name (entries named after the claims).
func (b *PodBuilder) Claims(names ...string) *PodBuilder {
	for _, n := range names {
		name := n
		b.p.Spec.ResourceClaims = append(b.p.Spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimName: &name})
	}
	return b
}

// PVC makes a pod mount persistent volume claims by name.
func (b *PodBuilder) PVC(names ...string) *PodBuilder {
	for _, n := range names {
		b.p.Spec.Volumes = append(b.p.Spec.Volumes, v1.Volume{Name: n, VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: n},
		}})
	}
	return b
}

// PVC returns a claim in namespace default of 1Gi, ReadWriteOnce, bound to volume ("" for
// none) of class "standard".
func PVC(name, volume string) *v1.PersistentVolumeClaim {
	class := "standard"
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &class,
			VolumeName:       volume,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if volume != "" {
		// Bound, as the PV controller leaves a claim it bound (a claim that only names its
		// volume is pre-bound, and waits for the controller).
		pvc.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
		pvc.Status.Phase = v1.ClaimBound
	}
	return pvc
}

// Shared makes every device of a slice allow multiple allocations with a capacity
// (name, quantity pairs), for consumable capacity (DRAConsumableCapacity).
func Shared(s *resourceapi.ResourceSlice, capacity ...string) *resourceapi.ResourceSlice {
	yes := true
	for i := range s.Spec.Devices {
		d := &s.Spec.Devices[i]
		d.AllowMultipleAllocations = &yes
		d.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{}
		for j := 0; j+1 < len(capacity); j += 2 {
			d.Capacity[resourceapi.QualifiedName(capacity[j])] = resourceapi.DeviceCapacity{Value: resource.MustParse(capacity[j+1])}
		}
	}
	return s
}

// Consumes makes a claim's requests ask for capacity of their devices (name, quantity
// pairs), for consumable capacity.
func Consumes(c *resourceapi.ResourceClaim, capacity ...string) *resourceapi.ResourceClaim {
	for i := range c.Spec.Devices.Requests {
		r := c.Spec.Devices.Requests[i].Exactly
		r.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{}}
		for j := 0; j+1 < len(capacity); j += 2 {
			r.Capacity.Requests[resourceapi.QualifiedName(capacity[j])] = resource.MustParse(capacity[j+1])
		}
	}
	return c
}
