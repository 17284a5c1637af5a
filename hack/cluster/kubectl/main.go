// Command kubectl is kubectl v1.37.2 (k8s.io/kubectl, as k8s.io/kubernetes/cmd/kubectl
// assembles it), built from its Go module in a module of its own so that the control
// plane's stamps do not move with it. The e2e install test (test/e2e/install_doc_test.go)
// runs the commands of docs/install.md with it; hack/lib/e2e-cluster.sh builds it into
// .cache/e2e/bin.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"

	// client auth plugins, as upstream's kubectl.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

func main() {
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) // nolint:errcheck
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
