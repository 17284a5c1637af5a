// Package csimigration is phalanx's own port of what kube-scheduler v1.37 uses of
// k8s.io/csi-translation-lib v0.37.2 (decision 43): which in-tree volume sources
// (awsElasticBlockStore, gcePersistentDisk, azureDisk, azureFile, cinder, vsphereVolume,
// portworxVolume) have been migrated to a CSI driver, that driver's name, and a volume
// translated to its CSI form, as far as scheduling reads it: the driver, the volume handle
// (which makes two mounts of one volume count once against a node's attach limit) and the
// volume's node affinity with its zone topology under the driver's own key.
//
// kube-scheduler translates only the five plugins whose migration it treats as on
// (MigrationOn): azureFile and vsphereVolume are recognised (a pod with such an inline
// volume is not skipped by NodeVolumeLimits, a volume of theirs is not counted), never
// translated, so their translation is not ported. The package is pure: it imports only
// API types.
package csimigration

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// The in-tree plugins' names and the CSI drivers that replace them.
const (
	AWSEBSPlugin     = "kubernetes.io/aws-ebs"
	GCEPDPlugin      = "kubernetes.io/gce-pd"
	AzureDiskPlugin  = "kubernetes.io/azure-disk"
	AzureFilePlugin  = "kubernetes.io/azure-file"
	CinderPlugin     = "kubernetes.io/cinder"
	VSpherePlugin    = "kubernetes.io/vsphere-volume"
	PortworxPlugin   = "kubernetes.io/portworx-volume"
	AWSEBSDriver     = "ebs.csi.aws.com"
	GCEPDDriver      = "pd.csi.storage.gke.io"
	AzureDiskDriver  = "disk.csi.azure.com"
	AzureFileDriver  = "file.csi.azure.com"
	CinderDriver     = "cinder.csi.openstack.org"
	VSphereDriver    = "csi.vsphere.vmware.com"
	PortworxDriver   = "pxd.portworx.com"
	AWSEBSTopology   = "topology." + AWSEBSDriver + "/zone"
	GCEPDTopology    = "topology.gke.io/zone"
	CinderTopology   = "topology.cinder.csi.openstack.org/zone"
	zoneDelimiter    = "__"
	unspecified      = "UNSPECIFIED"
	gceZonalHandle   = "projects/%s/zones/%s/disks/%s"
	gceRegionHandle  = "projects/%s/regions/%s/disks/%s"
	azureManagedKind = string(v1.AzureManagedDisk)
)

// drivers maps each in-tree plugin to its CSI driver.
var drivers = map[string]string{
	AWSEBSPlugin:    AWSEBSDriver,
	GCEPDPlugin:     GCEPDDriver,
	AzureDiskPlugin: AzureDiskDriver,
	AzureFilePlugin: AzureFileDriver,
	CinderPlugin:    CinderDriver,
	VSpherePlugin:   VSphereDriver,
	PortworxPlugin:  PortworxDriver,
}

// IsPlugin reports whether a name (a StorageClass's provisioner, say) is one of the seven
// in-tree plugins with a CSI migration.
func IsPlugin(name string) bool {
	_, ok := drivers[name]
	return ok
}

// Driver is the CSI driver that replaces an in-tree plugin, "" for any other name.
func Driver(plugin string) string { return drivers[plugin] }

// MigrationOn reports whether kube-scheduler v1.37 treats a plugin's migration to CSI as
// on (its feature gates are all locked on): every one but azureFile and vsphereVolume.
func MigrationOn(plugin string) bool {
	switch plugin {
	case AWSEBSPlugin, GCEPDPlugin, AzureDiskPlugin, CinderPlugin, PortworxPlugin:
		return true
	}
	return false
}

// MigratedOnNode reports whether a node's CSINode lists the plugin in its
// storage.alpha.kubernetes.io/migrated-plugins annotation (the kubelet sets it for the
// plugins it has migrated); false without a CSINode.
func MigratedOnNode(plugin string, csiNode *storagev1.CSINode) bool {
	if csiNode == nil {
		return false
	}
	a := csiNode.Annotations[v1.MigratedPluginsAnnotationKey]
	if a == "" {
		return false
	}
	return slices.Contains(strings.Split(a, ","), plugin)
}

// PluginOfPV is the in-tree plugin of a volume's source, "" when it has none of the seven.
func PluginOfPV(pv *v1.PersistentVolume) string {
	if pv == nil {
		return ""
	}
	s := &pv.Spec.PersistentVolumeSource
	return pluginOf(s.AWSElasticBlockStore != nil, s.GCEPersistentDisk != nil, s.AzureDisk != nil,
		s.AzureFile != nil, s.Cinder != nil, s.VsphereVolume != nil, s.PortworxVolume != nil)
}

// PluginOfVolume is the in-tree plugin of a pod's inline volume, "" when it has none of
// the seven.
func PluginOfVolume(vol *v1.Volume) string {
	if vol == nil {
		return ""
	}
	s := &vol.VolumeSource
	return pluginOf(s.AWSElasticBlockStore != nil, s.GCEPersistentDisk != nil, s.AzureDisk != nil,
		s.AzureFile != nil, s.Cinder != nil, s.VsphereVolume != nil, s.PortworxVolume != nil)
}

func pluginOf(ebs, gce, azureDisk, azureFile, cinder, vsphere, portworx bool) string {
	switch {
	case ebs:
		return AWSEBSPlugin
	case gce:
		return GCEPDPlugin
	case azureDisk:
		return AzureDiskPlugin
	case azureFile:
		return AzureFilePlugin
	case cinder:
		return CinderPlugin
	case vsphere:
		return VSpherePlugin
	case portworx:
		return PortworxPlugin
	}
	return ""
}

// TranslatePV returns a copy of an in-tree volume in its CSI form, as the library's
// TranslateInTreePVToCSI makes it for what the scheduler reads: the CSI source's driver
// and handle, and the node affinity with the zone topology under the driver's key (from
// the affinity's zone terms, else the volume's zone label). The volume is not changed. It
// fails, with the library's message, for a volume it cannot translate, and for the
// plugins kube-scheduler never translates (MigrationOn false).
func TranslatePV(pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	if pv == nil {
		return nil, fmt.Errorf("persistent volume was nil")
	}
	out := pv.DeepCopy()
	s := &out.Spec.PersistentVolumeSource
	var csi *v1.CSIPersistentVolumeSource
	switch PluginOfPV(out) {
	case AWSEBSPlugin:
		handle, err := ebsVolumeID(s.AWSElasticBlockStore.VolumeID)
		if err != nil {
			return nil, fmt.Errorf("failed to translate Kubernetes ID to EBS Volume ID %v", err)
		}
		csi = &v1.CSIPersistentVolumeSource{Driver: AWSEBSDriver, VolumeHandle: handle}
		inTreeTopologyToCSI(out, AWSEBSTopology)
		s.AWSElasticBlockStore = nil
	case GCEPDPlugin:
		handle, err := gceHandle(out)
		if err != nil {
			return nil, err
		}
		csi = &v1.CSIPersistentVolumeSource{Driver: GCEPDDriver, VolumeHandle: handle}
		inTreeTopologyToCSI(out, GCEPDTopology)
		s.GCEPersistentDisk = nil
	case AzureDiskPlugin:
		d := s.AzureDisk
		if err := azureKind(d.Kind); err != nil {
			return nil, err
		}
		csi = &v1.CSIPersistentVolumeSource{Driver: AzureDiskDriver, VolumeHandle: d.DataDiskURI}
		s.AzureDisk = nil
	case CinderPlugin:
		csi = &v1.CSIPersistentVolumeSource{Driver: CinderDriver, VolumeHandle: s.Cinder.VolumeID}
		inTreeTopologyToCSI(out, CinderTopology)
		s.Cinder = nil
	case PortworxPlugin:
		csi = &v1.CSIPersistentVolumeSource{Driver: PortworxDriver, VolumeHandle: s.PortworxVolume.VolumeID}
		s.PortworxVolume = nil
	default:
		return nil, fmt.Errorf("could not find in-tree plugin translation logic for %#v", pv.Name)
	}
	s.CSI = csi
	return out, nil
}

// TranslateInline returns the CSI driver and volume handle of a pod's inline in-tree
// volume, as the library's TranslateInTreeInlineVolumeToCSI makes them, or its error.
// As TranslatePV, only the plugins kube-scheduler translates (MigrationOn).
func TranslateInline(vol *v1.Volume) (driver, handle string, err error) {
	if vol == nil {
		return "", "", fmt.Errorf("persistent volume was nil")
	}
	s := &vol.VolumeSource
	switch PluginOfVolume(vol) {
	case AWSEBSPlugin:
		handle, err := ebsVolumeID(s.AWSElasticBlockStore.VolumeID)
		if err != nil {
			return "", "", fmt.Errorf("failed to translate Kubernetes ID to EBS Volume ID %v", err)
		}
		return AWSEBSDriver, handle, nil
	case GCEPDPlugin:
		// An inline disk names no zone.
		return GCEPDDriver, fmt.Sprintf(gceZonalHandle, unspecified, unspecified, s.GCEPersistentDisk.PDName), nil
	case AzureDiskPlugin:
		if err := azureKind(s.AzureDisk.Kind); err != nil {
			return "", "", err
		}
		return AzureDiskDriver, s.AzureDisk.DataDiskURI, nil
	case CinderPlugin:
		return CinderDriver, s.Cinder.VolumeID, nil
	case PortworxPlugin:
		return PortworxDriver, s.PortworxVolume.VolumeID, nil
	}
	return "", "", fmt.Errorf("could not find in-tree plugin translation logic for %#v", vol.Name)
}

// azureKind: only managed disks (the default) migrate.
func azureKind(kind *v1.AzureDataDiskKind) error {
	if kind != nil && !strings.EqualFold(string(*kind), azureManagedKind) {
		return fmt.Errorf("kind(%v) is not supported in csi migration", *kind)
	}
	return nil
}

var awsVolumeRE = regexp.MustCompile("^vol-[^/]*$")

// ebsVolumeID is the EBS volume ID of a Kubernetes volume ID: the ID itself, or the
// last part of an aws://<zone>/<id> URL.
func ebsVolumeID(id string) (string, error) {
	if !strings.HasPrefix(id, "aws://") {
		return id, nil
	}
	u, err := url.Parse(id)
	if err != nil {
		//lint:ignore ST1005 the library's message, word for word
		return "", fmt.Errorf("Invalid disk name (%s): %v", id, err)
	}
	if u.Scheme != "aws" {
		//lint:ignore ST1005 the library's message, word for word
		return "", fmt.Errorf("Invalid scheme for AWS volume (%s)", id)
	}
	awsID := strings.Trim(u.Path, "/")
	if !awsVolumeRE.MatchString(awsID) {
		//lint:ignore ST1005 the library's message, word for word
		return "", fmt.Errorf("Invalid format for AWS volume (%s)", id)
	}
	return awsID, nil
}

// gceHandle is a GCE PD's CSI handle: zonal in the zone of its zone label (beta, else
// GA; none: unspecified), regional in the one region of its zones when the label names
// several (joined by "__").
func gceHandle(pv *v1.PersistentVolume) (string, error) {
	label := pv.Labels[v1.LabelFailureDomainBetaZone]
	if label == "" {
		label = pv.Labels[v1.LabelTopologyZone]
	}
	disk := pv.Spec.GCEPersistentDisk.PDName
	zones := strings.Split(label, zoneDelimiter)
	switch {
	case len(zones) == 1 && zones[0] != "":
		return fmt.Sprintf(gceZonalHandle, unspecified, zones[0], disk), nil
	case len(zones) > 1:
		region, err := gceRegion(zones)
		if err != nil {
			return "", fmt.Errorf("failed to get region from zones: %v", err)
		}
		return fmt.Sprintf(gceRegionHandle, unspecified, region, disk), nil
	}
	return fmt.Sprintf(gceZonalHandle, unspecified, unspecified, disk), nil
}

// gceRegion is the one region of GCE zones ({locale}-{region}-{zone}).
func gceRegion(zones []string) (string, error) {
	regions := map[string]struct{}{}
	for _, z := range zones {
		parts := strings.Split(z, "-")
		if len(parts) != 3 {
			return "", fmt.Errorf("zone in unexpected format, expected: {locale}-{region}-{zone}, got: %v", z)
		}
		regions[parts[0]+"-"+parts[1]] = struct{}{}
	}
	if len(regions) != 1 {
		// The library prints its set (a map, so in key order) as this does.
		return "", fmt.Errorf("multiple or no regions gotten from zones, got: %v", regions)
	}
	for r := range regions {
		return r, nil
	}
	return "", nil
}

// inTreeTopologyToCSI moves a volume's zone topology under the driver's key: the zone
// terms of its node affinity (the GA key if any term uses it, else the beta key) are
// renamed; without such terms, the zones of its zone label (joined by "__") are added to
// every term, as an In requirement. Beta region terms become GA region terms.
func inTreeTopologyToCSI(pv *v1.PersistentVolume, key string) {
	zoneLabel, regionLabel := topologyLabels(pv)
	if len(topologyValues(pv, zoneLabel)) > 0 {
		renameTopology(pv, zoneLabel, key)
	} else if label, ok := pv.Labels[zoneLabel]; ok {
		addTopology(pv, key, strings.Split(label, zoneDelimiter))
	}
	if regionLabel == v1.LabelFailureDomainBetaRegion && len(topologyValues(pv, regionLabel)) > 0 {
		renameTopology(pv, regionLabel, v1.LabelTopologyRegion)
	}
}

// topologyLabels are the zone and region keys a volume uses: GA when its node affinity
// has a GA zone term, else beta when it has a beta one, else GA when it has a GA zone
// label, else beta when it has a beta one, else GA.
func topologyLabels(pv *v1.PersistentVolume) (zone, region string) {
	switch {
	case hasTopologyKey(pv, v1.LabelTopologyZone):
		return v1.LabelTopologyZone, v1.LabelTopologyRegion
	case hasTopologyKey(pv, v1.LabelFailureDomainBetaZone):
		return v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion
	}
	if _, ok := pv.Labels[v1.LabelTopologyZone]; ok {
		return v1.LabelTopologyZone, v1.LabelTopologyRegion
	}
	if _, ok := pv.Labels[v1.LabelFailureDomainBetaZone]; ok {
		return v1.LabelFailureDomainBetaZone, v1.LabelFailureDomainBetaRegion
	}
	return v1.LabelTopologyZone, v1.LabelTopologyRegion
}

func requiredTerms(pv *v1.PersistentVolume) []v1.NodeSelectorTerm {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	return pv.Spec.NodeAffinity.Required.NodeSelectorTerms
}

func hasTopologyKey(pv *v1.PersistentVolume, key string) bool {
	for _, t := range requiredTerms(pv) {
		for _, r := range t.MatchExpressions {
			if r.Key == key {
				return true
			}
		}
	}
	return false
}

// topologyValues are the values of a key's requirements in the node affinity's terms.
func topologyValues(pv *v1.PersistentVolume, key string) []string {
	var out []string
	for _, t := range requiredTerms(pv) {
		for _, r := range t.MatchExpressions {
			if r.Key == key {
				out = append(out, r.Values...)
			}
		}
	}
	return out
}

func renameTopology(pv *v1.PersistentVolume, from, to string) {
	terms := requiredTerms(pv)
	for i := range terms {
		for j := range terms[i].MatchExpressions {
			if terms[i].MatchExpressions[j].Key == from {
				terms[i].MatchExpressions[j].Key = to
			}
		}
	}
}

// addTopology requires one of the zones (trimmed, empty ones dropped, sorted, distinct)
// in every term of the volume's node affinity, making one term when it has none; with no
// zone left it changes nothing.
func addTopology(pv *v1.PersistentVolume, key string, zones []string) {
	var values []string
	for _, z := range zones {
		if z = strings.TrimSpace(z); z != "" {
			values = append(values, z)
		}
	}
	slices.Sort(values)
	values = slices.Compact(values)
	if len(values) == 0 {
		return
	}
	if pv.Spec.NodeAffinity == nil {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{}
	}
	if pv.Spec.NodeAffinity.Required == nil {
		pv.Spec.NodeAffinity.Required = &v1.NodeSelector{}
	}
	req := pv.Spec.NodeAffinity.Required
	if len(req.NodeSelectorTerms) == 0 {
		req.NodeSelectorTerms = make([]v1.NodeSelectorTerm, 1)
	}
	for i := range req.NodeSelectorTerms {
		req.NodeSelectorTerms[i].MatchExpressions = append(req.NodeSelectorTerms[i].MatchExpressions,
			v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: slices.Clone(values)})
	}
}
