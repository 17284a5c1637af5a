package sim

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/controllers/workload"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

// plan puts every object's creation and deletion on the timeline, from its timeline
// annotations (admission.ParseTiming). At the same time, cluster-scoped objects come
// first, then pods in input order.
func (s *Simulator) plan() {
	for _, ns := range s.sc.Namespaces {
		s.planObject(&ns.ObjectMeta, func() { s.sched.SetNamespace(ns) }, func() { s.sched.DeleteNamespace(ns) })
	}
	for _, n := range s.sc.Nodes {
		s.planObject(&n.ObjectMeta, func() { s.addNode(n) }, func() { s.deleteNode(n) })
	}
	for _, pc := range s.sc.PriorityClasses {
		s.planObject(&pc.ObjectMeta, func() { s.sched.AddPriorityClass(pc) }, nil)
	}
	for _, pdb := range s.sc.PDBs {
		s.planObject(&pdb.ObjectMeta, func() { s.budgets.Add(pdb) }, nil)
	}
	for _, c := range s.sc.CompositePodGroups {
		key := c.Namespace + "/" + c.Name
		s.planObject(&c.ObjectMeta, func() { s.groups.createCRDComposite(c) }, func() { s.groups.deleteCRDComposite(key) })
	}
	for _, pg := range s.sc.PodGroups {
		key := pg.Namespace + "/" + pg.Name
		s.planObject(&pg.ObjectMeta, func() { s.groups.createCRD(pg) }, func() {
			if gone := s.groups.deleteCRD(key); gone != nil {
				s.objs.claimController.DeleteOwnedBy(gone.UID)
			}
		})
	}
	s.groups.planNative()
	s.planResources()
	for _, p := range s.sc.Pods {
		t, _ := admission.ParseTiming(&p.ObjectMeta)
		rec := &podRecord{pod: p, timing: t, phase: report.PhasePending}
		s.pods[key(p)] = rec
		s.podOrder = append(s.podOrder, rec)
		s.planObject(&p.ObjectMeta, func() { s.createPod(rec) }, func() {
			if rec.created && !rec.gone {
				s.deletePod(rec, nil)
			}
		})
	}
	s.planWorkloads()
}

// planResources puts the storage and DRA objects on the timeline. Classes, slices and
// templates come first at any time, then volumes, then claims.
func (s *Simulator) planResources() {
	r, o, sched := &s.sc.Resources, s.objs, s.sched.Resources()
	for _, c := range r.StorageClasses {
		s.planObject(&c.ObjectMeta, func() { o.classes[c.Name] = c; sched.UpdateStorageClass(nil, c) },
			func() { delete(o.classes, c.Name); sched.DeleteStorageClass(c) })
	}
	for _, n := range r.CSINodes {
		s.planObject(&n.ObjectMeta, func() { sched.UpdateCSINode(nil, n) }, func() { sched.DeleteCSINode(n) })
	}
	for _, d := range r.CSIDrivers {
		s.planObject(&d.ObjectMeta, func() { sched.UpdateCSIDriver(nil, d) }, func() { sched.DeleteCSIDriver(d) })
	}
	for _, c := range r.Capacities {
		s.planObject(&c.ObjectMeta, func() { sched.UpdateCSIStorageCapacity(nil, c) }, func() { sched.DeleteCSIStorageCapacity(c) })
	}
	for _, a := range r.Attachments {
		s.planObject(&a.ObjectMeta, func() { sched.UpdateVolumeAttachment(nil, a) }, func() { sched.DeleteVolumeAttachment(a) })
	}
	for _, dc := range r.DeviceClasses {
		s.planObject(&dc.ObjectMeta, func() { sched.UpdateDeviceClass(nil, dc) }, func() { sched.DeleteDeviceClass(dc) })
	}
	for _, sl := range r.Slices {
		s.planObject(&sl.ObjectMeta, func() { sched.UpdateResourceSlice(nil, sl) }, func() { sched.DeleteResourceSlice(sl) })
	}
	for _, dtr := range r.TaintRules {
		s.planObject(&dtr.ObjectMeta, func() {
			// The API server sets timeAdded when the rule is created without one.
			if dtr.Spec.Taint.TimeAdded == nil {
				dtr = dtr.DeepCopy()
				dtr.Spec.Taint.TimeAdded = &metav1.Time{Time: s.now}
			}
			sched.UpdateDeviceTaintRule(nil, dtr)
		}, func() { sched.DeleteDeviceTaintRule(dtr) })
	}
	for _, t := range r.Templates {
		s.planObject(&t.ObjectMeta, func() { o.templates[t.Namespace+"/"+t.Name] = t; s.templateAppeared() },
			func() { delete(o.templates, t.Namespace+"/"+t.Name) })
	}
	for _, pv := range r.PVs {
		s.planObject(&pv.ObjectMeta, func() { o.PutPersistentVolume(nil, pv.DeepCopy()); o.volumes.VolumeAppeared() },
			func() { o.deletePV(pv.Name) })
	}
	for _, pvc := range r.PVCs {
		s.planObject(&pvc.ObjectMeta, func() { o.volumes.CreateClaim(pvc.DeepCopy()) }, func() { o.deletePVC(pvc.Namespace + "/" + pvc.Name) })
	}
	for _, c := range r.Claims {
		s.planObject(&c.ObjectMeta, func() { o.PutResourceClaim(nil, c.DeepCopy()) }, func() { o.DeleteResourceClaim(c.Namespace + "/" + c.Name) })
	}
}

// planWorkloads creates each workload at its create-at time (its controller then makes its
// first pods) and deletes it at its delete-at time (its controller stops, and the garbage
// collector deletes its pods). Pods of the input that name a controller not in the input
// are given a model of it.
func (s *Simulator) planWorkloads() {
	for _, w := range s.sc.Controlled {
		_, m, _ := admission.WorkloadOf(w.Object)
		c := w.Controller
		s.planObject(m, func() { s.perform(c, c.Start(), nil) }, func() {
			c.Stop()
			for _, rec := range s.podOrder {
				if rec.ctrl == c && rec.created && !rec.gone {
					s.deletePod(rec, nil)
				}
			}
		})
	}
	owners := map[types.UID]workload.Controller{}
	for _, rec := range s.podOrder {
		ref := metav1.GetControllerOf(rec.pod)
		if ref == nil {
			continue
		}
		c, ok := owners[ref.UID]
		if !ok {
			c = workload.ForOwner(rec.pod)
			owners[ref.UID] = c
		}
		rec.ctrl = c
	}
}

// planObject schedules an object's creation and, if it has one and del is not nil (a
// PriorityClass or a PodDisruptionBudget is never deleted), its deletion.
func (s *Simulator) planObject(meta *metav1.ObjectMeta, create, del func()) {
	t, _ := admission.ParseTiming(meta)
	s.at(Epoch.Add(t.CreateAt), create)
	if t.HasDelete && del != nil {
		s.at(Epoch.Add(t.DeleteAt), del)
	}
}
