package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig whose contexts (name -> server) each have their own
// cluster and user; current is its current context.
func writeKubeconfig(t *testing.T, dir, name, current string, contexts map[string]string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	for ctx, server := range contexts {
		cfg.Clusters[ctx] = &clientcmdapi.Cluster{Server: server}
		cfg.AuthInfos[ctx] = &clientcmdapi.AuthInfo{Token: "token-" + ctx}
		cfg.Contexts[ctx] = &clientcmdapi.Context{Cluster: ctx, AuthInfo: ctx}
	}
	cfg.CurrentContext = current
	path := filepath.Join(dir, name)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// kubectl's loading rules and flags pick the cluster: --kubeconfig, else $KUBECONFIG
// (files merged, the first to set a value winning), else ~/.kube/config; --context,
// --cluster, --user and --server override; the in-cluster configuration only when none of
// these names a cluster (issue 29; the in-cluster configuration itself needs a pod's
// token, so only that a kubeconfig beats it is checked here).
func TestKubeFlagsLoadingRules(t *testing.T) {
	dir := t.TempDir()
	home := writeKubeconfig(t, dir, "home", "home", map[string]string{"home": "https://home:6443"})
	env1 := writeKubeconfig(t, dir, "env1", "e1", map[string]string{"e1": "https://env-1:6443"})
	env2 := writeKubeconfig(t, dir, "env2", "e2", map[string]string{"e2": "https://env-2:6443", "other": "https://other:6443"})
	explicit := writeKubeconfig(t, dir, "explicit", "x", map[string]string{"x": "https://explicit:6443", "y": "https://why:6443"})
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name      string
		home      string // ~/.kube/config
		env       string // $KUBECONFIG
		args      []string
		inCluster bool
		want      string // the server, or the error's text
		wantToken string
		wantErr   bool
	}{
		{name: "~/.kube/config", home: home, want: "https://home:6443", wantToken: "token-home"},
		{name: "$KUBECONFIG over ~/.kube/config", home: home, env: env1, want: "https://env-1:6443"},
		{name: "$KUBECONFIG lists files, the first's current context wins", home: home,
			env: env1 + string(filepath.ListSeparator) + env2, want: "https://env-1:6443"},
		{name: "--context picks a context of a later file", home: home,
			env: env1 + string(filepath.ListSeparator) + env2, args: []string{"--context=other"}, want: "https://other:6443", wantToken: "token-other"},
		{name: "--kubeconfig over $KUBECONFIG", home: home, env: env1, args: []string{"--kubeconfig", explicit}, want: "https://explicit:6443"},
		{name: "--kubeconfig with --context", args: []string{"--kubeconfig", explicit, "--context", "y"}, want: "https://why:6443", wantToken: "token-y"},
		{name: "--cluster and --user override the context's", args: []string{"--kubeconfig", explicit, "--cluster", "y", "--user", "y"},
			want: "https://why:6443", wantToken: "token-y"},
		{name: "--server and --token", home: home, args: []string{"--server", "https://flag:6443", "--token", "t"}, want: "https://flag:6443", wantToken: "t"},
		{name: "a kubeconfig wins over in-cluster", home: home, inCluster: true, want: "https://home:6443"},
		{name: "nothing at all", home: missing, wantErr: true, want: "no cluster to read: no --kubeconfig or --server given"},
		{name: "--kubeconfig missing", home: home, args: []string{"--kubeconfig", missing}, wantErr: true, want: "--kubeconfig " + missing + ": "},
		{name: "unknown --context", home: home, args: []string{"--context", "nope"}, wantErr: true, want: `home: context "nope" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := homeKubeconfig
			homeKubeconfig = tt.home
			t.Cleanup(func() { homeKubeconfig = saved })
			t.Setenv(clientcmd.RecommendedConfigPathEnvVar, tt.env)
			t.Setenv("KUBERNETES_SERVICE_HOST", "")
			t.Setenv("KUBERNETES_SERVICE_PORT", "")
			if tt.inCluster {
				t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
				t.Setenv("KUBERNETES_SERVICE_PORT", "443")
			}
			var k kubeFlags
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			k.bind(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			rc, err := k.restConfig()
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rc.Host != tt.want {
				t.Errorf("server %s, want %s", rc.Host, tt.want)
			}
			if tt.wantToken != "" && rc.BearerToken != tt.wantToken {
				t.Errorf("token %q, want %q", rc.BearerToken, tt.wantToken)
			}
		})
	}
}

// The flags kubectl users type are there, and --namespace keeps snapshot's meaning.
func TestKubeFlagsNames(t *testing.T) {
	for _, cmd := range [][]string{{"snapshot"}, {"whatif"}} {
		c, _, err := newRootCommand().Find(cmd)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"kubeconfig", "context", "cluster", "user", "server", "token", "as", "certificate-authority", "insecure-skip-tls-verify", "request-timeout"} {
			if c.Flags().Lookup(name) == nil {
				t.Errorf("phalanx %s has no --%s", cmd[0], name)
			}
		}
	}
	c, _, _ := newRootCommand().Find([]string{"snapshot"})
	if f := c.Flags().Lookup("namespace"); f == nil || !strings.Contains(f.Usage, "only the pods of this namespace") {
		t.Errorf("snapshot --namespace: %+v", f)
	}
}
