package dynamicresources

import upstream "k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"

// Upstream's names, as its table uses them inside its package.
const specialClaimInMemName = "<extended-resources>" // unexported upstream

// ErrDeviceBindingTimeout is upstream's.
var ErrDeviceBindingTimeout = upstream.ErrDeviceBindingTimeout
