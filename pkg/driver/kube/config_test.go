package kube

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/config"
)

// configDir is the repository's config/ folder: CRD, RBAC, Deployment, example config.
// releaseManifest is the release manifest rendered from the Helm chart (charts/phalanx).
const (
	configDir       = "../../../config"
	releaseManifest = "../../../deploy/phalanx.yaml"
	chartDir        = "../../../charts/phalanx"
)

// installs are the two ways to install phalanx, which the tests below hold to the same
// standards: `kubectl apply -k config/` and the release manifest (`helm install` renders
// the same chart).
var installs = []string{configDir, releaseManifest}

// notInstalled is the folder of config/ that is not part of the install: the read-only
// ClusterRole of `phalanx snapshot` and `whatif`, which pkg/snapshot's tests hold to what
// a snapshot reads.
const notInstalled = "snapshot"

// manifests holds every object of an installation, decoded strictly by kind.
type manifests struct {
	clusterRoles        []*rbacv1.ClusterRole
	roles               []*rbacv1.Role
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	roleBindings        []*rbacv1.RoleBinding
	serviceAccounts     []*v1.ServiceAccount
	deployments         []*appsv1.Deployment
	configMaps          []*v1.ConfigMap
	services            []*v1.Service
	namespaces          []*v1.Namespace
	crds                []map[string]any
	kustomization       *kustomization
	files               map[string]bool // every YAML file, relative to the root
}

// kustomization is the part of kustomize's Kustomization phalanx uses.
type kustomization struct {
	APIVersion         string               `json:"apiVersion"`
	Kind               string               `json:"kind"`
	Namespace          string               `json:"namespace"`
	Resources          []string             `json:"resources"`
	ConfigMapGenerator []configMapGenerator `json:"configMapGenerator"`
	Images             []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

type configMapGenerator struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// loadManifests parses every YAML file under root (a folder or a file); unknown fields of
// known kinds are errors, so a typo in a manifest fails here rather than in a cluster.
func loadManifests(t *testing.T, root string) *manifests {
	t.Helper()
	m := &manifests{files: map[string]bool{}}
	err := filepath.WalkDir(root, func(path string, de os.DirEntry, err error) error {
		if err == nil && de.IsDir() && path == filepath.Join(configDir, notInstalled) {
			return filepath.SkipDir
		}
		if err != nil || de.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		m.files[filepath.ToSlash(rel)] = true
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, doc := range docSep.Split(string(data), -1) {
			if onlyComments(doc) {
				continue
			}
			if err := m.add(rel, []byte(doc)); err != nil {
				t.Errorf("%s: document %d: %v", rel, i+1, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onlyComments tells a document with no content (Helm puts its comments in their own).
func onlyComments(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

func (m *manifests) add(rel string, doc []byte) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	strict := func(into any) error { return yaml.UnmarshalStrict(doc, into) }
	switch head.APIVersion + " " + head.Kind {
	case "rbac.authorization.k8s.io/v1 ClusterRole":
		return decodeInto(&m.clusterRoles, doc)
	case "rbac.authorization.k8s.io/v1 Role":
		return decodeInto(&m.roles, doc)
	case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
		return decodeInto(&m.clusterRoleBindings, doc)
	case "rbac.authorization.k8s.io/v1 RoleBinding":
		return decodeInto(&m.roleBindings, doc)
	case "v1 ServiceAccount":
		return decodeInto(&m.serviceAccounts, doc)
	case "v1 Namespace":
		return decodeInto(&m.namespaces, doc)
	case "v1 ConfigMap":
		return decodeInto(&m.configMaps, doc)
	case "v1 Service":
		return decodeInto(&m.services, doc)
	case "apps/v1 Deployment":
		return decodeInto(&m.deployments, doc)
	case "policy/v1 PodDisruptionBudget":
		return strict(&policyv1.PodDisruptionBudget{})
	case "kustomize.config.k8s.io/v1beta1 Kustomization":
		m.kustomization = &kustomization{}
		return strict(m.kustomization)
	case config.APIVersion + " " + config.Kind:
		_, err := config.Parse(doc)
		return err
	case "apiextensions.k8s.io/v1 CustomResourceDefinition":
		// Generated by controller-gen (hack/verify.sh checks it); kept whole to compare.
		var o map[string]any
		m.crds = append(m.crds, o)
		return yaml.Unmarshal(doc, &m.crds[len(m.crds)-1])
	}
	return fmt.Errorf("unexpected kind %q %q in %s: teach this test about it", head.APIVersion, head.Kind, rel)
}

// decodeInto decodes a document strictly into a new object of the list.
func decodeInto[T any](list *[]*T, doc []byte) error {
	o := new(T)
	*list = append(*list, o)
	return yaml.UnmarshalStrict(doc, o)
}

// ruleAllows tells whether a policy rule grants verb on group/resource(/subresource).
func ruleAllows(r rbacv1.PolicyRule, group, resource, verb, name string) bool {
	return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) &&
		slices.Contains(r.Verbs, verb) && (len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name))
}

func (c APICall) fullResource() string {
	if c.Subresource != "" {
		return c.Resource + "/" + c.Subresource
	}
	return c.Resource
}

// TestRBACMatchesAPICalls keeps config/rbac and APICalls in step: every call the driver
// makes is granted, and nothing else is.
func TestRBACMatchesAPICalls(t *testing.T) {
	for _, root := range installs {
		t.Run(filepath.Base(root), func(t *testing.T) { testRBACMatchesAPICalls(t, loadManifests(t, root)) })
	}
}

func testRBACMatchesAPICalls(t *testing.T, m *manifests) {
	if len(m.clusterRoles) != 1 || len(m.roles) != 1 {
		t.Fatalf("want one ClusterRole and one Role, got %d and %d", len(m.clusterRoles), len(m.roles))
	}
	cr, role := m.clusterRoles[0], m.roles[0]
	leaseName := DefaultLeaderElection().Name
	for _, call := range APICalls {
		rules := cr.Rules
		if call.LeaderElection {
			rules = role.Rules
		}
		allowed := slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
			return ruleAllows(r, call.Group, call.fullResource(), call.Verb, leaseName)
		})
		if !allowed {
			t.Errorf("%s %q %s (%s) is not granted", call.Verb, call.Group, call.fullResource(), call.Why)
		}
		if call.LeaderElection && call.Verb == "create" {
			// create cannot be restricted by name: the rule must have none.
			if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
				return len(r.ResourceNames) == 0 && ruleAllows(r, call.Group, call.fullResource(), call.Verb, "")
			}) {
				t.Errorf("create %s must be granted without resourceNames", call.fullResource())
			}
		}
	}
	// Nothing more than the calls.
	check := func(kind string, rules []rbacv1.PolicyRule, leaderElection bool) {
		for _, r := range rules {
			if len(r.NonResourceURLs) > 0 {
				t.Errorf("%s grants non-resource URLs %v", kind, r.NonResourceURLs)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						used := slices.ContainsFunc(APICalls, func(c APICall) bool {
							return c.Group == g && c.fullResource() == res && c.Verb == v && c.LeaderElection == leaderElection
						})
						if !used {
							t.Errorf("%s grants %s %q %s, which the driver never does", kind, v, g, res)
						}
					}
				}
			}
		}
	}
	check("ClusterRole "+cr.Name, cr.Rules, false)
	check("Role "+role.Name, role.Rules, true)
}

// TestRBACIsBoundToTheDeployment checks the bindings give the roles to the
// ServiceAccount the Deployment runs as, and the Role sits where the Lease is.
func TestRBACIsBoundToTheDeployment(t *testing.T) {
	for _, root := range installs {
		t.Run(filepath.Base(root), func(t *testing.T) { testRBACIsBoundToTheDeployment(t, loadManifests(t, root)) })
	}
}

func testRBACIsBoundToTheDeployment(t *testing.T, m *manifests) {
	if len(m.serviceAccounts) != 1 || len(m.deployments) != 1 || len(m.clusterRoleBindings) != 1 || len(m.roleBindings) != 1 {
		t.Fatalf("want one ServiceAccount, Deployment, ClusterRoleBinding and RoleBinding, got %d, %d, %d, %d",
			len(m.serviceAccounts), len(m.deployments), len(m.clusterRoleBindings), len(m.roleBindings))
	}
	sa, dep := m.serviceAccounts[0], m.deployments[0]
	crb, rb := m.clusterRoleBindings[0], m.roleBindings[0]
	cr, role := m.clusterRoles[0], m.roles[0]
	if dep.Spec.Template.Spec.ServiceAccountName != sa.Name || dep.Namespace != sa.Namespace {
		t.Errorf("Deployment runs as %s/%s, want the ServiceAccount %s/%s", dep.Namespace, dep.Spec.Template.Spec.ServiceAccountName, sa.Namespace, sa.Name)
	}
	bound := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == sa.Name && s.Namespace == sa.Namespace
		})
	}
	if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != cr.Name || !bound(crb.Subjects) {
		t.Errorf("ClusterRoleBinding %s does not bind ClusterRole %s to %s/%s", crb.Name, cr.Name, sa.Namespace, sa.Name)
	}
	if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != role.Name || rb.Namespace != role.Namespace || !bound(rb.Subjects) {
		t.Errorf("RoleBinding %s/%s does not bind Role %s/%s to %s/%s", rb.Namespace, rb.Name, role.Namespace, role.Name, sa.Namespace, sa.Name)
	}
	args := dep.Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--leader-elect-resource-namespace=$(POD_NAMESPACE)") || role.Namespace != dep.Namespace {
		t.Errorf("the Lease must be in the Deployment's namespace %s, where the Role (%s) is: args %v", dep.Namespace, role.Namespace, args)
	}
	for _, r := range role.Rules {
		for _, name := range r.ResourceNames {
			if !slices.Contains(args, "--leader-elect-resource-name="+name) {
				t.Errorf("Role grants the Lease %q but the Deployment does not pass --leader-elect-resource-name=%s", name, name)
			}
		}
	}
}

// TestDeployment checks what the issue asks of the Deployment.
func TestDeployment(t *testing.T) {
	for _, root := range installs {
		t.Run(filepath.Base(root), func(t *testing.T) { testDeployment(t, loadManifests(t, root)) })
	}
}

func testDeployment(t *testing.T, m *manifests) {
	if len(m.deployments) != 1 {
		t.Fatalf("want one Deployment, got %d", len(m.deployments))
	}
	dep := m.deployments[0]
	spec := dep.Spec.Template.Spec
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", dep.Spec.Replicas)
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(spec.Containers))
	}
	c := spec.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "run" || !slices.Contains(c.Args, "--leader-elect=true") {
		t.Errorf("args %v: want run with --leader-elect=true", c.Args)
	}
	probe := func(name string, p *v1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path {
			t.Errorf("%s probe: want HTTP GET %s, got %+v", name, path, p)
			return
		}
		if p.HTTPGet.Port.StrVal != "http" || len(c.Ports) == 0 || c.Ports[0].Name != "http" {
			t.Errorf("%s probe port %v: want the container's http port", name, p.HTTPGet.Port)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")
	if len(c.Ports) > 0 && !slices.Contains(c.Args, "--bind-address=0.0.0.0:"+strconv.Itoa(int(c.Ports[0].ContainerPort))) {
		t.Errorf("args %v do not serve on the container port %d", c.Args, c.Ports[0].ContainerPort)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("resource requests %v: want cpu and memory", c.Resources.Requests)
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container securityContext %+v: want a read-only root filesystem and no privilege escalation", sc)
	}
	if psc := spec.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Errorf("pod securityContext %+v: want runAsNonRoot", psc)
	}
	if spec.SchedulerName != "" && spec.SchedulerName != v1.DefaultSchedulerName {
		t.Errorf("phalanx itself must be scheduled by the default scheduler, not %q", spec.SchedulerName)
	}
}

// TestKustomization checks `kubectl apply -k config/` takes every manifest, the CRD
// included, and that the example configuration answers to "phalanx".
func TestKustomization(t *testing.T) {
	m := loadManifests(t, configDir)
	k := m.kustomization
	if k == nil {
		t.Fatal("no config/kustomization.yaml")
	}
	for _, r := range k.Resources {
		if !m.files[r] {
			t.Errorf("kustomization resource %s does not exist", r)
		}
	}
	var generated []string
	for _, g := range k.ConfigMapGenerator {
		for _, f := range g.Files {
			_, path, _ := strings.Cut(f, "=")
			if path == "" {
				path = f
			}
			generated = append(generated, path)
			data, err := os.ReadFile(filepath.Join(configDir, path))
			if err != nil {
				t.Errorf("configMapGenerator %s: %v", g.Name, err)
				continue
			}
			cfg, err := config.Parse(data)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			for _, p := range cfg.Profiles {
				if p.SchedulerName == v1.DefaultSchedulerName {
					t.Errorf("%s: a profile named %q would fight kube-scheduler", path, p.SchedulerName)
				}
			}
			if cfg.Profiles[0].SchedulerName != config.DefaultSchedulerName {
				t.Errorf("%s: first profile %q, want %q as the README documents", path, cfg.Profiles[0].SchedulerName, config.DefaultSchedulerName)
			}
		}
	}
	for f := range m.files {
		if f == "kustomization.yaml" || slices.Contains(k.Resources, f) || slices.Contains(generated, f) {
			continue
		}
		t.Errorf("config/%s is in neither the kustomization's resources nor its generators", f)
	}
	if app := chartAppVersion(t); len(k.Images) != 1 || k.Images[0].NewTag != app {
		t.Errorf("kustomization images %+v: want the release %s, as the chart's", k.Images, app)
	}
	crds, err := filepath.Glob(filepath.Join(configDir, "crd", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs in config/crd (%v)", err)
	}
	for _, f := range crds {
		if r := "crd/" + filepath.Base(f); !slices.Contains(k.Resources, r) {
			t.Errorf("the kustomization does not install the CRD %s", r)
		}
	}
	for _, d := range m.deployments {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.ConfigMap != nil && !slices.ContainsFunc(k.ConfigMapGenerator, func(g configMapGenerator) bool {
				return g.Name == v.ConfigMap.Name
			}) {
				t.Errorf("volume %s mounts ConfigMap %s, which the kustomization does not generate", v.Name, v.ConfigMap.Name)
			}
		}
	}
}

// The release manifest installs a versioned phalanx into its own namespace: the image of
// the chart's appVersion, the CRD of config/crd, a configuration phalanx reads, and a
// metrics Service in front of the Deployment's port.
func TestReleaseManifest(t *testing.T) {
	m := loadManifests(t, releaseManifest)
	meta := chartMeta(t)
	if !strings.HasPrefix(meta.AppVersion, "v") || strings.TrimPrefix(meta.AppVersion, "v") != meta.Version {
		t.Errorf("chart version %q, appVersion %q: the chart and phalanx release together", meta.Version, meta.AppVersion)
	}
	own := loadManifests(t, filepath.Join(configDir, "crd"))
	if len(m.deployments) != 1 || len(m.namespaces) != 1 || len(m.configMaps) != 1 || len(m.services) != 1 || len(m.crds) != len(own.crds) {
		t.Fatalf("want one Deployment, Namespace, ConfigMap and Service and the %d CRDs of config/crd, got %d, %d, %d, %d, %d",
			len(own.crds), len(m.deployments), len(m.namespaces), len(m.configMaps), len(m.services), len(m.crds))
	}
	dep, ns := m.deployments[0], m.namespaces[0].Name
	if img := dep.Spec.Template.Spec.Containers[0].Image; img != "ghcr.io/phalanx-dev/phalanx:"+meta.AppVersion {
		t.Errorf("image %s, want the release %s", img, meta.AppVersion)
	}
	for _, o := range []metav1.Object{dep, m.configMaps[0], m.services[0], m.serviceAccounts[0], m.roles[0], m.roleBindings[0]} {
		if o.GetNamespace() != ns {
			t.Errorf("%s is in namespace %q, not the manifest's %q", o.GetName(), o.GetNamespace(), ns)
		}
	}

	// The CRDs are config/crd's (in the same order), with Helm's keep annotation.
	for i, crd := range m.crds {
		meta := crd["metadata"].(map[string]any)
		annotations := meta["annotations"].(map[string]any)
		if annotations["helm.sh/resource-policy"] != "keep" {
			t.Errorf("CRD %v annotations %v: uninstalling the chart must not delete every object of the kind", meta["name"], annotations)
		}
		delete(annotations, "helm.sh/resource-policy")
		if !reflect.DeepEqual(crd, own.crds[i]) {
			t.Errorf("the release manifest's CRD %v differs from config/crd's: run make generate", meta["name"])
		}
	}

	cm := m.configMaps[0]
	cfg, err := config.Parse([]byte(cm.Data["config.yaml"]))
	if err != nil {
		t.Fatalf("ConfigMap %s: %v", cm.Name, err)
	}
	if cfg.Profiles[0].SchedulerName != config.DefaultSchedulerName {
		t.Errorf("profile %q, want %q", cfg.Profiles[0].SchedulerName, config.DefaultSchedulerName)
	}
	if v := dep.Spec.Template.Spec.Volumes; len(v) != 1 || v[0].ConfigMap == nil || v[0].ConfigMap.Name != cm.Name {
		t.Errorf("volumes %+v: want the ConfigMap %s", v, cm.Name)
	}

	svc := m.services[0]
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("Service %s selects %s=%s, which the Deployment's pods do not have", svc.Name, k, v)
		}
	}
	if p := svc.Spec.Ports; len(p) != 1 || p[0].TargetPort.StrVal != "http" || p[0].Name != "http-metrics" {
		t.Errorf("Service ports %+v: want http-metrics to the pods' http port", p)
	}
}

type chartMetadata struct {
	Version    string `json:"version"`
	AppVersion string `json:"appVersion"`
}

func chartMeta(t *testing.T) chartMetadata {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta chartMetadata
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	return meta
}

// chartAppVersion is phalanx's release, as the chart names it.
func chartAppVersion(t *testing.T) string { return chartMeta(t).AppVersion }

// The install from a checkout and the release manifest can replace each other
// (docs/install.md, "Move between installs"): the same Deployment selector (immutable
// once created), and each has a metrics Service that selects the Deployment's pods on
// their http port, named alike.
func TestKustomizeAndReleaseAgree(t *testing.T) {
	own, release := loadManifests(t, configDir), loadManifests(t, releaseManifest)
	for _, tc := range []struct {
		name string
		m    *manifests
	}{{"config/", own}, {"deploy/phalanx.yaml", release}} {
		if len(tc.m.deployments) != 1 || len(tc.m.services) != 1 {
			t.Fatalf("%s: %d Deployments and %d Services, want one of each", tc.name, len(tc.m.deployments), len(tc.m.services))
		}
		dep, svc := tc.m.deployments[0], tc.m.services[0]
		if svc.Name != "phalanx-metrics" || len(svc.Spec.Selector) == 0 {
			t.Errorf("%s: Service %s selector %v: want phalanx-metrics, selecting the pods", tc.name, svc.Name, svc.Spec.Selector)
		}
		for k, v := range svc.Spec.Selector {
			if dep.Spec.Template.Labels[k] != v {
				t.Errorf("%s: Service %s selects %s=%s, which the Deployment's pods do not have", tc.name, svc.Name, k, v)
			}
		}
		if p := svc.Spec.Ports; len(p) != 1 || p[0].TargetPort.StrVal != "http" || p[0].Name != "http-metrics" || p[0].Port != 10251 {
			t.Errorf("%s: Service ports %+v: want http-metrics (10251) to the pods' http port", tc.name, p)
		}
	}
	a, b := own.deployments[0], release.deployments[0]
	if a.Name != b.Name || a.Namespace != b.Namespace || !reflect.DeepEqual(a.Spec.Selector, b.Spec.Selector) {
		t.Errorf("config/ installs Deployment %s/%s selecting %v, the release manifest %s/%s selecting %v: one cannot replace the other",
			a.Namespace, a.Name, a.Spec.Selector, b.Namespace, b.Name, b.Spec.Selector)
	}
}
