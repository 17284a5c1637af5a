// Command e2ectl does the small jobs hack/e2e.sh would otherwise need openssl,
// curl and kubectl for, none of which a fresh CI machine is sure to have:
//
//	e2ectl ports N                         print N free TCP ports on 127.0.0.1
//	e2ectl certs DIR                       CA, serving cert, service-account key, admin token
//	e2ectl wait-ready KUBECONFIG TIMEOUT   /readyz ok and the default ServiceAccount exists
//	e2ectl wait-readyz KUBECONFIG TIMEOUT  /readyz ok
//	e2ectl apply KUBECONFIG FILE...        server-side apply YAML; wait for CRDs to be Established
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "e2ectl:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: e2ectl ports|certs|wait-ready|wait-readyz|apply ARGS")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "ports":
		if len(args) != 1 {
			return fmt.Errorf("usage: e2ectl ports N")
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return err
		}
		return printFreePorts(n)
	case "certs":
		if len(args) != 1 {
			return fmt.Errorf("usage: e2ectl certs DIR")
		}
		return writeCerts(args[0])
	case "wait-ready", "wait-readyz":
		if len(args) != 2 {
			return fmt.Errorf("usage: e2ectl %s KUBECONFIG TIMEOUT", cmd)
		}
		timeout, err := time.ParseDuration(args[1])
		if err != nil {
			return err
		}
		return waitReady(args[0], timeout, cmd == "wait-ready")
	case "apply":
		if len(args) < 1 {
			return fmt.Errorf("usage: e2ectl apply KUBECONFIG FILE [FILE]")
		}
		return apply(args[0], args[1:])
	default:
		return fmt.Errorf("unknown command %q", cmd)
	}
}
