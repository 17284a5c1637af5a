// Package volumerestrictions holds the tables of kube-scheduler v1.37.2's
// pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go (the disk
// conflicts of inline volumes, and TestAccessModeConflicts' ReadWriteOncePod claims, which
// are the case's storage), copied verbatim (tables/extract.py), as tables.Case.
//
// Copyright The Kubernetes Authors; Apache License 2.0 (the tables).
package volumerestrictions

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	upstream "k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumerestrictions"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/phalanx-dev/phalanx/hack/schedulerdiff/tables"
)

// Cases are the transcribed cases.
func Cases() []tables.Case {
	var out []tables.Case
	out = append(out, gce()...)
	out = append(out, aws()...)
	out = append(out, rbd()...)
	out = append(out, iscsi()...)
	out = append(out, accessModes()...)
	return out
}

// conflictCase: PreFilter, then Filter when upstream states PreFilter succeeds (upstream's
// NodeInfos have no node: the harness gives them an empty one).
func conflictCase(from, name string, pod *v1.Pod, ni fwk.NodeInfo, wantPreFilter, want *fwk.Status) tables.Case {
	nodes, pods := tables.NodeInfo(ni, &v1.Node{})
	c := tables.Case{From: from, Name: name, Plugin: "VolumeRestrictions", Nodes: nodes, Pods: pods, Pod: pod,
		WantPreFilter: wantPreFilter, CheckFilter: wantPreFilter.IsSuccess(), WantFilter: tables.FilterOn(nodes[0].Name, want)}
	if c.WantPreFilter == nil {
		c.WantPreFilter = fwk.NewStatus(fwk.Success)
	}
	return c
}

// gce: volume_restrictions_test.go TestGCEDiskConflicts.
func gce() []tables.Case {
	from := "volumerestrictions/volume_restrictions_test.go TestGCEDiskConflicts"
	volState := v1.Volume{
		VolumeSource: v1.VolumeSource{
			GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{
				PDName: "foo",
			},
		},
	}
	volState2 := v1.Volume{
		VolumeSource: v1.VolumeSource{
			GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{
				PDName: "bar",
			},
		},
	}
	volWithNoRestriction := v1.Volume{
		Name:         "volume with no restriction",
		VolumeSource: v1.VolumeSource{},
	}
	errStatus := fwk.NewStatus(fwk.Unschedulable, upstream.ErrReasonDiskConflict)
	tests := []struct {
		pod                 *v1.Pod
		nodeInfo            fwk.NodeInfo
		name                string
		preFilterWantStatus *fwk.Status
		wantStatus          *fwk.Status
	}{
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(),
			name:                "nothing",
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
			wantStatus:          nil,
		},
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "one state",
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
			wantStatus:          nil,
		},
		{
			pod:                 st.MakePod().Volume(volState).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "same state",
			preFilterWantStatus: nil,
			wantStatus:          errStatus,
		},
		{
			pod:                 st.MakePod().Volume(volState2).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "different state",
			preFilterWantStatus: nil,
			wantStatus:          nil,
		},
		{
			pod:                 st.MakePod().Volume(volWithNoRestriction).Obj(),
			nodeInfo:            framework.NewNodeInfo(),
			name:                "pod with a volume that doesn't have restrictions",
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
			wantStatus:          nil,
		},
	}
	var out []tables.Case
	for _, test := range tests {
		out = append(out, conflictCase(from, test.name, test.pod, test.nodeInfo, test.preFilterWantStatus, test.wantStatus))
	}
	return out
}

// aws: volume_restrictions_test.go TestAWSDiskConflicts.
func aws() []tables.Case {
	from := "volumerestrictions/volume_restrictions_test.go TestAWSDiskConflicts"
	volState := v1.Volume{
		VolumeSource: v1.VolumeSource{
			AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{
				VolumeID: "foo",
			},
		},
	}
	volState2 := v1.Volume{
		VolumeSource: v1.VolumeSource{
			AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{
				VolumeID: "bar",
			},
		},
	}
	errStatus := fwk.NewStatus(fwk.Unschedulable, upstream.ErrReasonDiskConflict)
	tests := []struct {
		pod                 *v1.Pod
		nodeInfo            fwk.NodeInfo
		name                string
		wantStatus          *fwk.Status
		preFilterWantStatus *fwk.Status
	}{
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(),
			name:                "nothing",
			wantStatus:          nil,
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "one state",
			wantStatus:          nil,
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod:                 st.MakePod().Volume(volState).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "same state",
			wantStatus:          errStatus,
			preFilterWantStatus: nil,
		},
		{
			pod:                 st.MakePod().Volume(volState2).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "different state",
			wantStatus:          nil,
			preFilterWantStatus: nil,
		},
	}
	var out []tables.Case
	for _, test := range tests {
		out = append(out, conflictCase(from, test.name, test.pod, test.nodeInfo, test.preFilterWantStatus, test.wantStatus))
	}
	return out
}

// rbd: volume_restrictions_test.go TestRBDDiskConflicts.
func rbd() []tables.Case {
	from := "volumerestrictions/volume_restrictions_test.go TestRBDDiskConflicts"
	volState := v1.Volume{
		VolumeSource: v1.VolumeSource{
			RBD: &v1.RBDVolumeSource{
				CephMonitors: []string{"a", "b"},
				RBDPool:      "foo",
				RBDImage:     "bar",
				FSType:       "ext4",
			},
		},
	}
	volState2 := v1.Volume{
		VolumeSource: v1.VolumeSource{
			RBD: &v1.RBDVolumeSource{
				CephMonitors: []string{"c", "d"},
				RBDPool:      "foo",
				RBDImage:     "bar",
				FSType:       "ext4",
			},
		},
	}
	errStatus := fwk.NewStatus(fwk.Unschedulable, upstream.ErrReasonDiskConflict)
	tests := []struct {
		pod                 *v1.Pod
		nodeInfo            fwk.NodeInfo
		name                string
		wantStatus          *fwk.Status
		preFilterWantStatus *fwk.Status
	}{
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(),
			name:                "nothing",
			wantStatus:          nil,
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "one state",
			wantStatus:          nil,
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod:                 st.MakePod().Volume(volState).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "same state",
			wantStatus:          errStatus,
			preFilterWantStatus: nil,
		},
		{
			pod:                 st.MakePod().Volume(volState2).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "different state",
			wantStatus:          nil,
			preFilterWantStatus: nil,
		},
	}
	var out []tables.Case
	for _, test := range tests {
		out = append(out, conflictCase(from, test.name, test.pod, test.nodeInfo, test.preFilterWantStatus, test.wantStatus))
	}
	return out
}

// iscsi: volume_restrictions_test.go TestISCSIDiskConflicts.
func iscsi() []tables.Case {
	from := "volumerestrictions/volume_restrictions_test.go TestISCSIDiskConflicts"
	volState := v1.Volume{
		VolumeSource: v1.VolumeSource{
			ISCSI: &v1.ISCSIVolumeSource{
				TargetPortal: "127.0.0.1:3260",
				IQN:          "iqn.2016-12.server:storage.target01",
				FSType:       "ext4",
				Lun:          0,
			},
		},
	}
	volState2 := v1.Volume{
		VolumeSource: v1.VolumeSource{
			ISCSI: &v1.ISCSIVolumeSource{
				TargetPortal: "127.0.0.1:3260",
				IQN:          "iqn.2017-12.server:storage.target01",
				FSType:       "ext4",
				Lun:          0,
			},
		},
	}
	errStatus := fwk.NewStatus(fwk.Unschedulable, upstream.ErrReasonDiskConflict)
	tests := []struct {
		pod                 *v1.Pod
		nodeInfo            fwk.NodeInfo
		name                string
		wantStatus          *fwk.Status
		preFilterWantStatus *fwk.Status
	}{
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(),
			name:                "nothing",
			wantStatus:          nil,
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "one state",
			wantStatus:          nil,
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
		},
		{
			pod:                 st.MakePod().Volume(volState).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "same state",
			wantStatus:          errStatus,
			preFilterWantStatus: nil,
		},
		{
			pod:                 st.MakePod().Volume(volState2).Obj(),
			nodeInfo:            framework.NewNodeInfo(st.MakePod().Volume(volState).Obj()),
			name:                "different state",
			wantStatus:          nil,
			preFilterWantStatus: nil,
		},
	}
	var out []tables.Case
	for _, test := range tests {
		out = append(out, conflictCase(from, test.name, test.pod, test.nodeInfo, test.preFilterWantStatus, test.wantStatus))
	}
	return out
}

// accessModes: volume_restrictions_test.go TestAccessModeConflicts. Upstream's loop puts
// existingPods and existingNodes in the snapshot and existingPVCs in the informers, and
// filters the nodeInfo (without a node: the case's node is existingNodes' node-1, or, when
// there is none, the empty node tables.NodeInfo gives).
func accessModes() []tables.Case {
	from := "volumerestrictions/volume_restrictions_test.go TestAccessModeConflicts"
	ErrReasonReadWriteOncePodConflict := upstream.ErrReasonReadWriteOncePodConflict
	// Required for querying lister for PVCs in the same namespace.
	podWithOnePVC := st.MakePod().Name("pod-with-one-pvc").Namespace(metav1.NamespaceDefault).PVC("claim-with-rwop-1").Node("node-1").Obj()
	podWithTwoPVCs := st.MakePod().Name("pod-with-two-pvcs").Namespace(metav1.NamespaceDefault).PVC("claim-with-rwop-1").PVC("claim-with-rwop-2").Node("node-1").Obj()
	podWithOneConflict := st.MakePod().Name("pod-with-one-conflict").Namespace(metav1.NamespaceDefault).PVC("claim-with-rwop-1").Node("node-1").Obj()
	podWithTwoConflicts := st.MakePod().Name("pod-with-two-conflicts").Namespace(metav1.NamespaceDefault).PVC("claim-with-rwop-1").PVC("claim-with-rwop-2").Node("node-1").Obj()
	// Required for querying lister for PVCs in the same namespace.
	podWithReadWriteManyPVC := st.MakePod().Name("pod-with-rwx").Namespace(metav1.NamespaceDefault).PVC("claim-with-rwx").Node("node-1").Obj()

	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default",
			Name:      "node-1",
		},
	}

	readWriteOncePodPVC1 := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default",
			Name:      "claim-with-rwop-1",
		},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod},
		},
	}
	readWriteOncePodPVC2 := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default",
			Name:      "claim-with-rwop-2",
		},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod},
		},
	}
	readWriteManyPVC := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default",
			Name:      "claim-with-rwx",
		},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteMany},
		},
	}

	tests := []struct {
		name                string
		pod                 *v1.Pod
		nodeInfo            fwk.NodeInfo
		existingPods        []*v1.Pod
		existingNodes       []*v1.Node
		existingPVCs        []*v1.PersistentVolumeClaim
		preFilterWantStatus *fwk.Status
		wantStatus          *fwk.Status
	}{
		{
			name:                "nothing",
			pod:                 &v1.Pod{},
			nodeInfo:            framework.NewNodeInfo(),
			existingPods:        []*v1.Pod{},
			existingNodes:       []*v1.Node{},
			existingPVCs:        []*v1.PersistentVolumeClaim{},
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
			wantStatus:          nil,
		},
		{
			name:                "failed to get PVC",
			pod:                 podWithOnePVC,
			nodeInfo:            framework.NewNodeInfo(),
			existingPods:        []*v1.Pod{},
			existingNodes:       []*v1.Node{},
			existingPVCs:        []*v1.PersistentVolumeClaim{},
			preFilterWantStatus: fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "persistentvolumeclaim \"claim-with-rwop-1\" not found"),
			wantStatus:          nil,
		},
		{
			name:                "no access mode conflict",
			pod:                 podWithOnePVC,
			nodeInfo:            framework.NewNodeInfo(podWithReadWriteManyPVC),
			existingPods:        []*v1.Pod{podWithReadWriteManyPVC},
			existingNodes:       []*v1.Node{node},
			existingPVCs:        []*v1.PersistentVolumeClaim{readWriteOncePodPVC1, readWriteManyPVC},
			preFilterWantStatus: fwk.NewStatus(fwk.Skip),
			wantStatus:          nil,
		},
		{
			name:                "access mode conflict, unschedulable",
			pod:                 podWithOneConflict,
			nodeInfo:            framework.NewNodeInfo(podWithOnePVC, podWithReadWriteManyPVC),
			existingPods:        []*v1.Pod{podWithOnePVC, podWithReadWriteManyPVC},
			existingNodes:       []*v1.Node{node},
			existingPVCs:        []*v1.PersistentVolumeClaim{readWriteOncePodPVC1, readWriteManyPVC},
			preFilterWantStatus: nil,
			wantStatus:          fwk.NewStatus(fwk.Unschedulable, ErrReasonReadWriteOncePodConflict),
		},
		{
			name:                "two conflicts, unschedulable",
			pod:                 podWithTwoConflicts,
			nodeInfo:            framework.NewNodeInfo(podWithTwoPVCs, podWithReadWriteManyPVC),
			existingPods:        []*v1.Pod{podWithTwoPVCs, podWithReadWriteManyPVC},
			existingNodes:       []*v1.Node{node},
			existingPVCs:        []*v1.PersistentVolumeClaim{readWriteOncePodPVC1, readWriteOncePodPVC2, readWriteManyPVC},
			preFilterWantStatus: nil,
			wantStatus:          fwk.NewStatus(fwk.Unschedulable, ErrReasonReadWriteOncePodConflict),
		},
	}
	var out []tables.Case
	for _, test := range tests {
		nodes, _ := tables.NodeInfo(test.nodeInfo, &v1.Node{})
		if len(test.existingNodes) > 0 {
			nodes = test.existingNodes
		}
		c := tables.Case{From: from, Name: test.name, Plugin: "VolumeRestrictions", Nodes: nodes, Pods: test.existingPods,
			Pod: test.pod, Storage: []runtime.Object{}, WantPreFilter: test.preFilterWantStatus,
			CheckFilter: test.preFilterWantStatus.IsSuccess(), WantFilter: tables.FilterOn(nodes[0].Name, test.wantStatus)}
		for _, pvc := range test.existingPVCs {
			c.Storage = append(c.Storage, pvc)
		}
		if c.WantPreFilter == nil {
			c.WantPreFilter = fwk.NewStatus(fwk.Success)
		}
		out = append(out, c)
	}
	return out
}
