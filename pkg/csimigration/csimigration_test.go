package csimigration

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The port is also held to k8s.io/csi-translation-lib itself on generated volumes, in
// hack/schedulerdiff (TestCSIMigrationAgreesWithLibrary); these cases name each rule.

func in(key string, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}
}

func affinity(terms ...[]v1.NodeSelectorRequirement) *v1.VolumeNodeAffinity {
	a := &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{}}
	for _, t := range terms {
		a.Required.NodeSelectorTerms = append(a.Required.NodeSelectorTerms, v1.NodeSelectorTerm{MatchExpressions: t})
	}
	return a
}

func TestPlugins(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    v1.PersistentVolumeSource
		plugin string
		driver string
		on     bool
	}{
		{"EBS", v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{}}, AWSEBSPlugin, AWSEBSDriver, true},
		{"GCE PD", v1.PersistentVolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{}}, GCEPDPlugin, GCEPDDriver, true},
		{"Azure Disk", v1.PersistentVolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{}}, AzureDiskPlugin, AzureDiskDriver, true},
		{"Azure File", v1.PersistentVolumeSource{AzureFile: &v1.AzureFilePersistentVolumeSource{}}, AzureFilePlugin, AzureFileDriver, false},
		{"Cinder", v1.PersistentVolumeSource{Cinder: &v1.CinderPersistentVolumeSource{}}, CinderPlugin, CinderDriver, true},
		{"vSphere", v1.PersistentVolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{}}, VSpherePlugin, VSphereDriver, false},
		{"Portworx", v1.PersistentVolumeSource{PortworxVolume: &v1.PortworxVolumeSource{}}, PortworxPlugin, PortworxDriver, true},
		{"CSI", v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "x"}}, "", "", false},
		{"NFS", v1.PersistentVolumeSource{NFS: &v1.NFSVolumeSource{}}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pv := &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: tc.src}}
			if got := PluginOfPV(pv); got != tc.plugin {
				t.Errorf("PluginOfPV = %q, want %q", got, tc.plugin)
			}
			if got := Driver(tc.plugin); got != tc.driver {
				t.Errorf("Driver = %q, want %q", got, tc.driver)
			}
			if IsPlugin(tc.plugin) != (tc.plugin != "") || MigrationOn(tc.plugin) != tc.on {
				t.Errorf("IsPlugin %v, MigrationOn %v", IsPlugin(tc.plugin), MigrationOn(tc.plugin))
			}
		})
	}
}

func TestMigratedOnNode(t *testing.T) {
	node := func(a *string) *storagev1.CSINode {
		n := &storagev1.CSINode{}
		if a != nil {
			n.Annotations = map[string]string{v1.MigratedPluginsAnnotationKey: *a}
		}
		return n
	}
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name string
		node *storagev1.CSINode
		want bool
	}{
		{"no CSINode", nil, false},
		{"no annotation", node(nil), false},
		{"empty", node(s("")), false},
		{"listed", node(s("kubernetes.io/aws-ebs,kubernetes.io/gce-pd")), true},
		{"not listed", node(s("kubernetes.io/aws-ebs")), false},
		{"listed with a space is another name", node(s("kubernetes.io/aws-ebs, kubernetes.io/gce-pd")), false},
	} {
		if got := MigratedOnNode(GCEPDPlugin, tc.node); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTranslatePV(t *testing.T) {
	gce := func(labels map[string]string) *v1.PersistentVolume {
		return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", Labels: labels},
			Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "d"}}}}
	}
	ebs := func(id string, a *v1.VolumeNodeAffinity) *v1.PersistentVolume {
		return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"},
			Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id}}, NodeAffinity: a}}
	}
	shared := v1.AzureSharedBlobDisk
	managed := v1.AzureDataDiskKind("managed")
	azure := func(kind *v1.AzureDataDiskKind) *v1.PersistentVolume {
		return &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DataDiskURI: "uri", Kind: kind}}}}
	}
	cinder := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{v1.LabelTopologyZone: "z1"}},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{Cinder: &v1.CinderPersistentVolumeSource{VolumeID: "c"}},
			NodeAffinity: affinity([]v1.NodeSelectorRequirement{in(v1.LabelHostname, "a")}, []v1.NodeSelectorRequirement{in(v1.LabelHostname, "b")})}}
	files := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "files"},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{AzureFile: &v1.AzureFilePersistentVolumeSource{}}}}
	for _, tc := range []struct {
		name     string
		pv       *v1.PersistentVolume
		driver   string
		handle   string
		affinity *v1.VolumeNodeAffinity
		err      string
	}{
		{name: "GCE PD zonal by its GA label", pv: gce(map[string]string{v1.LabelTopologyZone: "us-east1-b"}), driver: GCEPDDriver,
			handle: "projects/UNSPECIFIED/zones/us-east1-b/disks/d", affinity: affinity([]v1.NodeSelectorRequirement{in(GCEPDTopology, "us-east1-b")})},
		{name: "GCE PD: the beta label first", pv: gce(map[string]string{v1.LabelFailureDomainBetaZone: "z1", v1.LabelTopologyZone: "z2"}), driver: GCEPDDriver,
			handle: "projects/UNSPECIFIED/zones/z1/disks/d", affinity: affinity([]v1.NodeSelectorRequirement{in(GCEPDTopology, "z2")})},
		{name: "GCE PD without a zone", pv: gce(nil), driver: GCEPDDriver, handle: "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"},
		{name: "GCE PD regional", pv: gce(map[string]string{v1.LabelTopologyZone: "us-east1-c__us-east1-b"}), driver: GCEPDDriver,
			handle: "projects/UNSPECIFIED/regions/us-east1/disks/d", affinity: affinity([]v1.NodeSelectorRequirement{in(GCEPDTopology, "us-east1-b", "us-east1-c")})},
		{name: "GCE PD in zones not {locale}-{region}-{zone}", pv: gce(map[string]string{v1.LabelTopologyZone: "z0__z1"}),
			err: "failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, got: z0"},
		{name: "GCE PD in two regions", pv: gce(map[string]string{v1.LabelTopologyZone: "us-west1-a__us-east1-b"}),
			err: "failed to get region from zones: multiple or no regions gotten from zones, got: map[us-east1:{} us-west1:{}]"},
		{name: "EBS by URL, its zone term renamed", pv: ebs("aws://us-east-1a/vol-1", affinity([]v1.NodeSelectorRequirement{in(v1.LabelTopologyZone, "us-east-1a")})),
			driver: AWSEBSDriver, handle: "vol-1", affinity: affinity([]v1.NodeSelectorRequirement{in(AWSEBSTopology, "us-east-1a")})},
		{name: "EBS, beta zone and region terms", pv: ebs("vol-1", affinity([]v1.NodeSelectorRequirement{in(v1.LabelFailureDomainBetaZone, "a"), in(v1.LabelFailureDomainBetaRegion, "r")})),
			driver: AWSEBSDriver, handle: "vol-1", affinity: affinity([]v1.NodeSelectorRequirement{in(AWSEBSTopology, "a"), in(v1.LabelTopologyRegion, "r")})},
		{name: "EBS URL refused", pv: ebs("aws://z/x/y", nil),
			err: "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://z/x/y)"},
		{name: "Azure managed disk", pv: azure(&managed), driver: AzureDiskDriver, handle: "uri"},
		{name: "Azure shared disk refused", pv: azure(&shared), err: "kind(Shared) is not supported in csi migration"},
		{name: "Cinder: the zone label added to every term", pv: cinder, driver: CinderDriver, handle: "c",
			affinity: affinity([]v1.NodeSelectorRequirement{in(v1.LabelHostname, "a"), in(CinderTopology, "z1")}, []v1.NodeSelectorRequirement{in(v1.LabelHostname, "b"), in(CinderTopology, "z1")})},
		{name: "Azure File is not translated", pv: files, err: `could not find in-tree plugin translation logic for "files"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pv.DeepCopy()
			got, err := TranslatePV(tc.pv)
			if !apiequality.Semantic.DeepEqual(before, tc.pv) {
				t.Error("the volume was changed")
			}
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Spec.CSI == nil || got.Spec.CSI.Driver != tc.driver || got.Spec.CSI.VolumeHandle != tc.handle {
				t.Errorf("CSI %+v, want %s %s", got.Spec.CSI, tc.driver, tc.handle)
			}
			if PluginOfPV(got) != "" {
				t.Error("the in-tree source was kept")
			}
			if !apiequality.Semantic.DeepEqual(got.Spec.NodeAffinity, tc.affinity) {
				t.Errorf("node affinity %v, want %v", got.Spec.NodeAffinity, tc.affinity)
			}
		})
	}
}

func TestTranslateInline(t *testing.T) {
	shared := v1.AzureSharedBlobDisk
	for _, tc := range []struct {
		name           string
		src            v1.VolumeSource
		driver, handle string
		err            string
	}{
		{"EBS", v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://z/vol-1"}}, AWSEBSDriver, "vol-1", ""},
		{"EBS refused", v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://%zz/vol-1"}}, "", "",
			`failed to translate Kubernetes ID to EBS Volume ID Invalid disk name (aws://%zz/vol-1): parse "aws://%zz/vol-1": invalid URL escape "%zz"`},
		{"GCE PD names no zone", v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "d"}}, GCEPDDriver, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d", ""},
		{"Azure disk", v1.VolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DataDiskURI: "uri"}}, AzureDiskDriver, "uri", ""},
		{"Azure shared disk refused", v1.VolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DataDiskURI: "uri", Kind: &shared}}, "", "", "kind(Shared) is not supported in csi migration"},
		{"Cinder", v1.VolumeSource{Cinder: &v1.CinderVolumeSource{VolumeID: "c"}}, CinderDriver, "c", ""},
		{"Portworx", v1.VolumeSource{PortworxVolume: &v1.PortworxVolumeSource{VolumeID: "p"}}, PortworxDriver, "p", ""},
		{"vSphere is not translated", v1.VolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{}}, "", "", `could not find in-tree plugin translation logic for "v"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vol := &v1.Volume{Name: "v", VolumeSource: tc.src}
			driver, handle, err := TranslateInline(vol)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || driver != tc.driver || handle != tc.handle {
				t.Errorf("%s %s %v, want %s %s", driver, handle, err, tc.driver, tc.handle)
			}
		})
	}
}
