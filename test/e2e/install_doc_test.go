//go:build e2e

package e2e

// docs/install.md run as written: its command blocks marked `<!-- install-test: NAME -->`
// are extracted from the page and run with bash, kubectl v1.37.2 (built from its Go module
// into .cache/e2e/bin) and helm (from its Go module, hack/tools), on the control plane.
// The flows are the ones a new user takes and the issue found broken: the chart on a
// fresh cluster and over CRDs that exist, kustomize then the release manifest over it
// (server-side, and after a client-side apply), then the chart taking that install over.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

var installCRDs = []string{"podgroups.scheduling.phalanx.dev", "compositepodgroups.scheduling.phalanx.dev"}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installBlocks returns the marked sh blocks of the page by name.
func installBlocks(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	blocks := map[string]string{}
	sc := bufio.NewScanner(f)
	name, in := "", false
	var body strings.Builder
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		switch {
		case in && strings.HasPrefix(l, "```"):
			blocks[name] = body.String()
			name, in = "", false
			body.Reset()
		case in:
			body.WriteString(l + "\n")
		case strings.HasPrefix(l, "<!-- install-test: "):
			name = strings.TrimSuffix(strings.TrimPrefix(l, "<!-- install-test: "), " -->")
			if _, dup := blocks[name]; dup {
				t.Fatalf("%s:%d: block %q marked twice", path, line, name)
			}
		case name != "" && l == "```sh":
			in = true
		case name != "":
			t.Fatalf("%s:%d: the mark of block %q is not followed by a ```sh fence", path, line, name)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

func TestInstallDocAsWritten(t *testing.T) {
	c := e2eutil.Connect(t)
	root := e2eutil.RepoRoot(t)
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	blocks := installBlocks(t, filepath.Join(root, "docs", "install.md"))
	for _, want := range []string{"manifest", "helm", "helm-existing-crds", "helm-take-over", "helm-uninstall", "kustomize"} {
		if blocks[want] == "" {
			t.Fatalf("docs/install.md has no block marked install-test: %s", want)
		}
	}

	// kubectl and helm on PATH, as a user has them.
	bin, home := t.TempDir(), t.TempDir()
	kubectl := filepath.Join(c.BinDir, "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("kubectl: %v (hack/e2e.sh builds it from hack/cluster/kubectl)", err)
	}
	if err := os.Symlink(kubectl, filepath.Join(bin, "kubectl")); err != nil {
		t.Fatal(err)
	}
	helm := fmt.Sprintf("#!/bin/sh\nexec go tool -modfile=%q helm \"$@\"\n", filepath.Join(root, "hack", "tools", "go.mod"))
	if err := os.WriteFile(filepath.Join(bin, "helm"), []byte(helm), 0o755); err != nil {
		t.Fatal(err)
	}
	// (HOME stays: go tool finds its build and module caches there.)
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	sh := func(what, script string) {
		t.Helper()
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s failed: %v\n$ %s%s", what, err, script, out)
		}
		t.Logf("%s:\n$ %s%s", what, script, out)
	}
	doc := func(name string) { t.Helper(); sh("docs/install.md block "+name, blocks[name]) }

	// A cluster phalanx was never installed on: no phalanx-system, no RBAC, no CRDs. The
	// cluster is the harness's again at the end.
	uninstallAll(t, c, dyn)
	t.Cleanup(func() {
		uninstallAll(t, c, dyn)
		var files []string
		for _, f := range []string{"scheduling.phalanx.dev_podgroups.yaml", "scheduling.phalanx.dev_compositepodgroups.yaml"} {
			files = append(files, filepath.Join(root, "config", "crd", f))
		}
		if out, err := exec.Command(filepath.Join(c.BinDir, "e2ectl"), append([]string{"apply", os.Getenv(e2eutil.EnvKubeconfig)}, files...)...).CombinedOutput(); err != nil {
			t.Errorf("reinstalling the CRDs: %v\n%s", err, out)
		}
		e2eutil.ForgetPhalanxRBAC()
	})

	// 1. The chart on a fresh cluster, as the page gives it; uninstalled, it keeps the CRDs.
	doc("helm")
	checkInstall(t, c, dyn, "Helm")
	doc("helm-uninstall")
	waitGone(t, c)
	for _, crd := range installCRDs {
		if _, err := dyn.Resource(crdGVR).Get(e2eutil.Context(t), crd, metav1.GetOptions{}); err != nil {
			t.Errorf("CRD %s after helm uninstall: %v (crds.keep)", crd, err)
		}
	}

	// 2. The chart where the CRDs exist (here: kept by the release before).
	doc("helm-existing-crds")
	checkInstall(t, c, dyn, "Helm")
	doc("helm-uninstall")
	waitGone(t, c)

	// 3. kustomize, the release manifest over it, the chart taking the whole over.
	doc("kustomize")
	checkInstall(t, c, dyn, "")
	doc("manifest")
	dep := checkInstall(t, c, dyn, "")
	if !slices.Contains(dep, "--kube-api-concurrency=256") {
		t.Errorf("after the release manifest, the Deployment's args %q are not the chart's", dep)
	}
	doc("helm-take-over")
	checkInstall(t, c, dyn, "Helm")
	doc("helm-uninstall")
	waitGone(t, c)

	// 4. The release manifest after a client-side `kubectl apply -k config/` (the former
	// command of the page): no conflict on the Deployment's fields.
	sh("a client-side kustomize install", "kubectl apply -k config/\n")
	checkInstall(t, c, dyn, "")
	doc("manifest")
	checkInstall(t, c, dyn, "")
}

// checkInstall waits for what every install makes (the CRDs, the RBAC, the Deployment of
// the release's image, the metrics Service, the PodDisruptionBudget) and returns the
// Deployment's args. managedBy "Helm": the objects are the release's.
func checkInstall(t *testing.T, c *e2eutil.Cluster, dyn dynamic.Interface, managedBy string) []string {
	t.Helper()
	ns := e2eutil.PhalanxNamespace
	var args []string
	var last error
	err := e2eutil.Poll(context.Background(), time.Minute, func(ctx context.Context) (bool, error) {
		for _, crd := range installCRDs {
			if _, last = dyn.Resource(crdGVR).Get(ctx, crd, metav1.GetOptions{}); last != nil {
				return false, nil
			}
		}
		if _, last = c.Client.RbacV1().ClusterRoles().Get(ctx, "phalanx", metav1.GetOptions{}); last != nil {
			return false, nil
		}
		if _, last = c.Client.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "phalanx", metav1.GetOptions{}); last != nil {
			return false, nil
		}
		svc, err := c.Client.CoreV1().Services(ns).Get(ctx, "phalanx-metrics", metav1.GetOptions{})
		if last = err; err != nil {
			return false, nil
		}
		if p := svc.Spec.Ports; len(p) != 1 || p[0].Port != 10251 || p[0].Name != "http-metrics" {
			last = fmt.Errorf("Service phalanx-metrics ports %+v", p)
			return false, nil
		}
		dep, err := c.Client.AppsV1().Deployments(ns).Get(ctx, "phalanx", metav1.GetOptions{})
		if last = err; err != nil {
			return false, nil
		}
		if got := dep.Labels["app.kubernetes.io/managed-by"]; managedBy != "" && got != managedBy {
			last = fmt.Errorf("Deployment managed by %q, want %q", got, managedBy)
			return false, nil
		}
		ctr := dep.Spec.Template.Spec.Containers[0]
		if !strings.HasPrefix(ctr.Image, "ghcr.io/phalanx-dev/phalanx:v") {
			last = fmt.Errorf("Deployment image %s", ctr.Image)
			return false, nil
		}
		args = ctr.Args
		return true, nil
	})
	if err != nil {
		t.Fatalf("the install is not all there: %v", last)
	}
	return args
}

// waitGone waits until helm uninstall has removed the Deployment.
func waitGone(t *testing.T, c *e2eutil.Cluster) {
	t.Helper()
	e2eutil.WaitFor(t, time.Minute, "the Deployment gone", func(ctx context.Context) (bool, error) {
		_, err := c.Client.AppsV1().Deployments(e2eutil.PhalanxNamespace).Get(ctx, "phalanx", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// uninstallAll deletes what any install (or the harness) made: the namespace, the
// cluster-wide RBAC and the CRDs, and waits until they are gone.
func uninstallAll(t *testing.T, c *e2eutil.Cluster, dyn dynamic.Interface) {
	t.Helper()
	ctx := context.Background()
	del := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("deleting %s: %v", what, err)
		}
	}
	del("namespace", c.Client.CoreV1().Namespaces().Delete(ctx, e2eutil.PhalanxNamespace, metav1.DeleteOptions{}))
	del("ClusterRole", c.Client.RbacV1().ClusterRoles().Delete(ctx, "phalanx", metav1.DeleteOptions{}))
	del("ClusterRoleBinding", c.Client.RbacV1().ClusterRoleBindings().Delete(ctx, "phalanx", metav1.DeleteOptions{}))
	for _, crd := range installCRDs {
		del(crd, dyn.Resource(crdGVR).Delete(ctx, crd, metav1.DeleteOptions{}))
	}
	e2eutil.WaitFor(t, 2*time.Minute, "phalanx uninstalled", func(ctx context.Context) (bool, error) {
		if _, err := c.Client.CoreV1().Namespaces().Get(ctx, e2eutil.PhalanxNamespace, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, nil
		}
		for _, crd := range installCRDs {
			if _, err := dyn.Resource(crdGVR).Get(ctx, crd, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}
