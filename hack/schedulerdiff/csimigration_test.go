package schedulerdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	csitrans "k8s.io/csi-translation-lib"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/pkg/csimigration"
)

// TestCSIMigrationAgreesWithLibrary holds phalanx's port (pkg/csimigration) to
// k8s.io/csi-translation-lib v0.37.2, the library kube-scheduler v1.37.2 translates with,
// on the universe's in-tree volumes and on generated ones: which plugin a volume is of,
// its CSI driver, and, for the plugins kube-scheduler translates, the translated driver,
// volume handle and node affinity, or the same error.
func TestCSIMigrationAgreesWithLibrary(t *testing.T) {
	tr := csitrans.New()
	logger := klog.Background()
	pvs := inTreePVs()
	r := rand.New(rand.NewPCG(43, 43))
	for i := range casesFromEnv(t, 2000) {
		pvs = append(pvs, randomInTreePV(r, i))
	}
	checked := map[string]int{}
	for _, pv := range pvs {
		plugin := csimigration.PluginOfPV(pv)
		if want := tr.IsPVMigratable(pv); want != (plugin != "") {
			t.Fatalf("%s: migratable %v, library %v", pv.Name, plugin != "", want)
		}
		want, err := tr.GetInTreePluginNameFromSpec(pv, nil)
		if err != nil || want != plugin {
			t.Fatalf("%s: plugin %q, library %q (%v)", pv.Name, plugin, want, err)
		}
		if d, err := tr.GetCSINameFromInTreeName(plugin); err != nil || d != csimigration.Driver(plugin) {
			t.Fatalf("%s: driver %q, library %q (%v)", pv.Name, csimigration.Driver(plugin), d, err)
		}
		if !tr.IsMigratableIntreePluginByName(plugin) || !csimigration.IsPlugin(plugin) {
			t.Fatalf("%s: %s not a plugin", pv.Name, plugin)
		}
		if !csimigration.MigrationOn(plugin) {
			continue
		}
		before := pv.DeepCopy()
		got, gerr := csimigration.TranslatePV(pv)
		lib, lerr := tr.TranslateInTreePVToCSI(logger, pv)
		if !apiequality.Semantic.DeepEqual(pv, before) {
			t.Fatalf("%s: changed by the translation", pv.Name)
		}
		if (gerr == nil) != (lerr == nil) || gerr != nil && gerr.Error() != lerr.Error() {
			t.Fatalf("%s: error %v, library %v", pv.Name, gerr, lerr)
		}
		checked[plugin]++
		if gerr != nil {
			checked["errors"]++
			continue
		}
		if got.Spec.CSI.Driver != lib.Spec.CSI.Driver || got.Spec.CSI.VolumeHandle != lib.Spec.CSI.VolumeHandle {
			t.Fatalf("%s: CSI %s %s, library %s %s", pv.Name, got.Spec.CSI.Driver, got.Spec.CSI.VolumeHandle, lib.Spec.CSI.Driver, lib.Spec.CSI.VolumeHandle)
		}
		if !apiequality.Semantic.DeepEqual(got.Spec.NodeAffinity, lib.Spec.NodeAffinity) {
			t.Fatalf("%s: node affinity %v, library %v", pv.Name, got.Spec.NodeAffinity, lib.Spec.NodeAffinity)
		}
	}
	vols := inlineVolumes()
	for i := range casesFromEnv(t, 2000) {
		vols = append(vols, randomInlineVolume(r, i))
	}
	for _, vol := range vols {
		plugin := csimigration.PluginOfVolume(&vol)
		if want := tr.IsInlineMigratable(&vol); want != (plugin != "") {
			t.Fatalf("%s: migratable %v, library %v", vol.Name, plugin != "", want)
		}
		if want, err := tr.GetInTreePluginNameFromSpec(nil, &vol); err != nil || want != plugin {
			t.Fatalf("%s: plugin %q, library %q (%v)", vol.Name, plugin, want, err)
		}
		if !csimigration.MigrationOn(plugin) {
			continue
		}
		driver, handle, gerr := csimigration.TranslateInline(&vol)
		lib, lerr := tr.TranslateInTreeInlineVolumeToCSI(logger, &vol, "default")
		if (gerr == nil) != (lerr == nil) || gerr != nil && gerr.Error() != lerr.Error() {
			t.Fatalf("%s: error %v, library %v", vol.Name, gerr, lerr)
		}
		checked["inline "+plugin]++
		if gerr != nil {
			checked["inline errors"]++
			continue
		}
		if driver != lib.Spec.CSI.Driver || handle != lib.Spec.CSI.VolumeHandle {
			t.Fatalf("%s: CSI %s %s, library %s %s", vol.Name, driver, handle, lib.Spec.CSI.Driver, lib.Spec.CSI.VolumeHandle)
		}
	}
	t.Logf("translations compared: %v", checked)
}

// randomInTreePV is a volume of one of the seven in-tree kinds, with IDs, zone labels
// (GA or beta, one zone or several joined by "__", well or badly formed) and node affinity
// terms drawn from small sets, so that every path of the translation is taken.
func randomInTreePV(r *rand.Rand, i int) *v1.PersistentVolume {
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	zoneValues := []string{"z0", "us-east1-b", "us-east1-c", "us-west1-a", "us-east-1a", "a-b-c-d", " us-east1-b", ""}
	zonesLabel := func() string {
		n := 1 + r.IntN(3)
		var zs []string
		for range n {
			zs = append(zs, zoneValues[r.IntN(len(zoneValues))])
		}
		return strings.Join(zs, "__")
	}
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pv-%d", i), Labels: map[string]string{}}}
	for _, key := range []string{v1.LabelTopologyZone, v1.LabelFailureDomainBetaZone} {
		if r.Float64() < 0.4 {
			pv.Labels[key] = zonesLabel()
		}
	}
	if r.Float64() < 0.5 {
		var terms []v1.NodeSelectorTerm
		for range 1 + r.IntN(2) {
			var reqs []v1.NodeSelectorRequirement
			for range r.IntN(4) {
				key := pick(v1.LabelTopologyZone, v1.LabelFailureDomainBetaZone, v1.LabelTopologyRegion, v1.LabelFailureDomainBetaRegion, v1.LabelHostname)
				reqs = append(reqs, in(key, pick(zoneValues...), pick("r0", "z1")))
			}
			terms = append(terms, v1.NodeSelectorTerm{MatchExpressions: reqs})
		}
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: terms}}
		if r.Float64() < 0.1 {
			pv.Spec.NodeAffinity.Required.NodeSelectorTerms = nil
		}
	}
	kind := func() *v1.AzureDataDiskKind {
		k := v1.AzureDataDiskKind(pick("Managed", "managed", "Shared", "Dedicated"))
		if r.Float64() < 0.3 {
			return nil
		}
		return &k
	}
	s := &pv.Spec.PersistentVolumeSource
	switch r.IntN(7) {
	case 0:
		s.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: pick("vol-1", "aws://us-east-1a/vol-1", "aws:///vol-2", "aws://z/x/vol-3", "aws://%zz/vol-4", "aws://z/notvol", "aws://")}
	case 1:
		s.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: pick("disk-a", "disk-b")}
	case 2:
		s.AzureDisk = &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: pick("uri-1", "uri-2"), Kind: kind()}
	case 3:
		s.Cinder = &v1.CinderPersistentVolumeSource{VolumeID: pick("c-1", "c-2")}
	case 4:
		s.PortworxVolume = &v1.PortworxVolumeSource{VolumeID: pick("px-1", "px-2")}
	case 5:
		s.AzureFile = &v1.AzureFilePersistentVolumeSource{SecretName: "s", ShareName: "share"}
	case 6:
		s.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] v.vmdk"}
	}
	return pv
}

// randomInlineVolume is an inline volume of one of the seven in-tree kinds.
func randomInlineVolume(r *rand.Rand, i int) v1.Volume {
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	vol := v1.Volume{Name: fmt.Sprintf("vol-%d", i)}
	s := &vol.VolumeSource
	switch r.IntN(7) {
	case 0:
		s.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: pick("vol-1", "aws://us-east-1a/vol-1", "aws://z/x/vol-3", "aws://%zz/vol-4", "aws://z/notvol")}
	case 1:
		s.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: pick("disk-a", "disk-b")}
	case 2:
		var k *v1.AzureDataDiskKind
		if r.Float64() < 0.6 {
			kk := v1.AzureDataDiskKind(pick("Managed", "Shared", "Dedicated"))
			k = &kk
		}
		s.AzureDisk = &v1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: pick("uri-1", "uri-2"), Kind: k}
	case 3:
		s.Cinder = &v1.CinderVolumeSource{VolumeID: pick("c-1", "c-2")}
	case 4:
		s.PortworxVolume = &v1.PortworxVolumeSource{VolumeID: pick("px-1", "px-2")}
	case 5:
		s.AzureFile = &v1.AzureFileVolumeSource{SecretName: "s", ShareName: "share"}
	case 6:
		s.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] v.vmdk"}
	}
	return vol
}
