package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// homeKubeconfig is kubectl's default kubeconfig, ~/.kube/config (a variable for tests).
var homeKubeconfig = clientcmd.RecommendedHomeFile

// kubeFlags are kubectl's flags for reaching a cluster, with kubectl's loading rules:
// --kubeconfig, else the files $KUBECONFIG lists (merged), else ~/.kube/config; then
// --context, --cluster, --user, --server, --token, --as ... override what they chose; and
// the in-cluster configuration only when none of these names a cluster. `phalanx
// snapshot` and `phalanx whatif` take them, as kubectl and its plugins do.
type kubeFlags struct {
	kubeconfig string
	overrides  clientcmd.ConfigOverrides
	flags      *pflag.FlagSet
}

// kubeFlagNames are kubectl's names for the override flags phalanx takes. The namespace
// is left out: snapshot's --namespace picks pods, and whatif reads whole clusters.
func kubeFlagNames() clientcmd.ConfigOverrideFlags {
	names := clientcmd.RecommendedConfigOverrideFlags("")
	names.ContextOverrideFlags.Namespace = clientcmd.FlagInfo{}
	return names
}

// bind adds the flags to fs.
func (k *kubeFlags) bind(fs *pflag.FlagSet) {
	k.flags = fs
	fs.StringVar(&k.kubeconfig, clientcmd.RecommendedConfigPathFlag, "",
		"kubeconfig file (default: the files $KUBECONFIG lists, else ~/.kube/config, else the in-cluster configuration)")
	clientcmd.BindOverrideFlags(&k.overrides, fs, kubeFlagNames())
}

// given lists the flags set on the command line.
func (k *kubeFlags) given() []string {
	var set []string
	if k.flags == nil {
		return nil
	}
	k.flags.Visit(func(f *pflag.Flag) {
		if f.Name == clientcmd.RecommendedConfigPathFlag || isOverrideFlag(f.Name) {
			set = append(set, "--"+f.Name)
		}
	})
	return set
}

func isOverrideFlag(name string) bool {
	n := kubeFlagNames()
	for _, fi := range []clientcmd.FlagInfo{
		n.AuthOverrideFlags.ClientCertificate, n.AuthOverrideFlags.ClientKey, n.AuthOverrideFlags.Token,
		n.AuthOverrideFlags.Impersonate, n.AuthOverrideFlags.ImpersonateUID,
		n.AuthOverrideFlags.ImpersonateGroups, n.AuthOverrideFlags.Username, n.AuthOverrideFlags.Password,
		n.ClusterOverrideFlags.APIServer, n.ClusterOverrideFlags.APIVersion, n.ClusterOverrideFlags.CertificateAuthority,
		n.ClusterOverrideFlags.InsecureSkipTLSVerify, n.ClusterOverrideFlags.TLSServerName, n.ClusterOverrideFlags.ProxyURL,
		n.ClusterOverrideFlags.DisableCompression,
		n.ContextOverrideFlags.ClusterName, n.ContextOverrideFlags.AuthInfoName, n.CurrentContext, n.Timeout,
	} {
		if fi.LongName != "" && fi.LongName == name {
			return true
		}
	}
	return false
}

// loadingRules are kubectl's: --kubeconfig, else $KUBECONFIG, else ~/.kube/config.
func (k *kubeFlags) loadingRules() *clientcmd.ClientConfigLoadingRules {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		rules.Precedence = filepath.SplitList(env)
	} else {
		rules.Precedence = []string{homeKubeconfig}
	}
	rules.ExplicitPath = k.kubeconfig
	return rules
}

// restConfig returns the configuration of the cluster the flags, the kubeconfig files
// and the environment name. An error says which source failed and why (an input error:
// exit code 2).
func (k *kubeFlags) restConfig() (*rest.Config, error) {
	rules := k.loadingRules()
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &k.overrides)
	rc, err := cc.ClientConfig()
	if err == nil {
		return rc, nil
	}
	if clientcmd.IsEmptyConfig(err) {
		return nil, fmt.Errorf("no cluster to read: no --kubeconfig or --server given, $%s names no file, %s does not exist, and not running in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)",
			clientcmd.RecommendedConfigPathEnvVar, homeKubeconfig)
	}
	return nil, fmt.Errorf("%s: %w", k.source(rules), err)
}

// source names where the kubeconfig was read from, for errors.
func (k *kubeFlags) source(rules *clientcmd.ClientConfigLoadingRules) string {
	switch {
	case k.kubeconfig != "":
		return "--kubeconfig " + k.kubeconfig
	case os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "":
		return "$" + clientcmd.RecommendedConfigPathEnvVar + " " + strings.Join(rules.Precedence, string(filepath.ListSeparator))
	default:
		return homeKubeconfig
	}
}

// errNoKubeFlags is whatif's complaint when a snapshot and a cluster are both named.
var errNoKubeFlags = errors.New("--snapshot reads a saved cluster; the cluster flags (--kubeconfig, --context, --server ...) name a live one: give one")
