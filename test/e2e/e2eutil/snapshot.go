//go:build e2e

package e2eutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SnapshotServiceAccount is who `phalanx snapshot` and `phalanx whatif` run as in the
// tests: bound to config/snapshot's ClusterRole and nothing else.
const SnapshotServiceAccount = "phalanx-snapshot"

var (
	snapshotOnce       sync.Once
	snapshotKubeconfig string
	snapshotErr        error
)

// SnapshotKubeconfig applies config/snapshot/cluster-role.yaml, binds it to a
// ServiceAccount of its own (once per test binary) and returns a kubeconfig with that
// account's token: snapshot and whatif under test have exactly the role's permissions.
func (c *Cluster) SnapshotKubeconfig(t testing.TB) string {
	t.Helper()
	c.PhalanxKubeconfig(t) // the phalanx-system namespace
	snapshotOnce.Do(func() { snapshotKubeconfig, snapshotErr = c.installSnapshotRBAC(t) })
	if snapshotErr != nil {
		t.Fatalf("installing the snapshot's RBAC: %v", snapshotErr)
	}
	return snapshotKubeconfig
}

func (c *Cluster) installSnapshotRBAC(t testing.TB) (string, error) {
	role := filepath.Join(RepoRoot(t), "config", "snapshot", "cluster-role.yaml")
	if out, err := exec.Command(filepath.Join(c.BinDir, "e2ectl"), "apply", os.Getenv(EnvKubeconfig), role).CombinedOutput(); err != nil {
		return "", fmt.Errorf("e2ectl apply: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: PhalanxNamespace, Name: SnapshotServiceAccount}}
	if _, err := c.Client.CoreV1().ServiceAccounts(PhalanxNamespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: SnapshotServiceAccount},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "phalanx-snapshot"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: PhalanxNamespace, Name: SnapshotServiceAccount}}}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	expiry := int64(6 * 3600)
	tr, err := c.Client.CoreV1().ServiceAccounts(PhalanxNamespace).CreateToken(ctx, SnapshotServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, "snapshot-sa.kubeconfig")
	return path, c.writeTokenKubeconfig(path, SnapshotServiceAccount, tr.Status.Token)
}

// PhalanxConfig is the configuration file StartPhalanx runs phalanx with (the test's
// scheduler name), for `phalanx whatif --config`.
func (c *Cluster) PhalanxConfig(t testing.TB) string {
	t.Helper()
	return c.phalanxConfig(t)
}

// RunPhalanx runs a phalanx command to its end (at most 5 minutes) and returns its
// stdout, stderr and exit status.
func RunPhalanx(t testing.TB, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, PhalanxBinary(t), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("phalanx %v: %v", args, err)
	}
	return o.Bytes(), e.Bytes(), code
}
