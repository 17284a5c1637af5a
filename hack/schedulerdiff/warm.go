package schedulerdiff

import (
	_ "github.com/phalanx-dev/phalanx/pkg/plugins"
	_ "k8s.io/kubernetes/pkg/scheduler"
	_ "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	_ "k8s.io/kubernetes/pkg/scheduler/testing/framework"
	_ "k8s.io/client-go/kubernetes/fake"
)
