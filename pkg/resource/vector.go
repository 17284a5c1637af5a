package resource

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
)

// MaxAmount is the most phalanx counts of any resource, in the resource's unit (millicores,
// bytes, items): 2^50, a pebibyte of memory or over a billion cores, more than any machine
// has. A node's larger capacity counts as MaxAmount; a pod asking for more can never be
// shown to fit, so it is not placed (ForPod says why). Because every amount is at most
// MaxAmount, 8,191 of them add up without overflowing an int64: vectors add and subtract
// exactly, and a quantity too large for an int64 (10^30 bytes) never wraps around.
const MaxAmount = 1 << 50

// maxQuantity is MaxAmount as a quantity, in each unit (the CPU's is millicores).
var maxQuantity, maxMilliQuantity = apiresource.NewQuantity(MaxAmount, apiresource.BinarySI),
	apiresource.NewMilliQuantity(MaxAmount, apiresource.DecimalSI)

// Amount converts a quantity of the resource at vector position i: millicores for CPU,
// else base units rounded up, as kube-scheduler does. Amounts beyond ±MaxAmount are
// clamped to it, and over says so.
func Amount(i int, q apiresource.Quantity) (amount int64, over bool) {
	limit := maxQuantity
	if i == CPU {
		limit = maxMilliQuantity
	}
	switch {
	case q.CmpInt64(0) >= 0 && q.Cmp(*limit) > 0:
		return MaxAmount, true
	case q.CmpInt64(0) < 0 && q.Cmp(*negated(limit)) < 0:
		return -MaxAmount, true
	case i == CPU:
		return q.MilliValue(), false
	}
	return q.Value(), false
}

func negated(q *apiresource.Quantity) *apiresource.Quantity {
	n := q.DeepCopy()
	n.Neg()
	return &n
}

// TooLargeError names the amounts of a list beyond MaxAmount.
type TooLargeError struct {
	// Amounts are "<resource> <quantity>", in the list's order by name.
	Amounts []string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("requests %s, more than phalanx counts of any resource (2^50: %s of memory, 2^50 millicores of CPU), so no node can be shown to hold it",
		strings.Join(e.Amounts, ", "), maxQuantity)
}

// Vector is an amount of every resource kind, indexed by Index. CPU is in millicores,
// everything else in its base unit.
type Vector [Max]int64

// Add adds o to v.
func (v *Vector) Add(o *Vector) {
	for i := range Count() {
		v[i] += o[i]
	}
}

// Sub subtracts o from v.
func (v *Vector) Sub(o *Vector) {
	for i := range Count() {
		v[i] -= o[i]
	}
}

// IsZero reports whether every amount is zero.
func (v *Vector) IsZero() bool {
	for i := range Count() {
		if v[i] != 0 {
			return false
		}
	}
	return true
}

// NonZero lists the positions that hold a non-zero amount, so that a fit check only
// looks at what a pod asks for.
func (v *Vector) NonZero() []int8 {
	var idx []int8
	for i := range Count() {
		if v[i] != 0 {
			idx = append(idx, int8(i))
		}
	}
	return idx
}

// String renders the non-zero amounts, for logs and test failures.
func (v *Vector) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, idx := range v.NonZero() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(Name(int(idx))))
		b.WriteByte(':')
		b.WriteString(formatInt(v[idx]))
	}
	b.WriteByte('}')
	return b.String()
}

func formatInt(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// FromList converts a ResourceList (see Amount). Names are registered on first use; an
// error means the list has more kinds than a Vector holds, or a *TooLargeError that some
// amounts were clamped to MaxAmount (the vector is complete then).
func FromList(list v1.ResourceList) (Vector, error) {
	var v Vector
	var tooLarge []string
	for name, q := range list {
		i, err := Index(name)
		if err != nil {
			return v, err
		}
		var over bool
		if v[i], over = Amount(i, q); over {
			tooLarge = append(tooLarge, string(name)+" "+q.String())
		}
	}
	if tooLarge != nil {
		sort.Strings(tooLarge)
		return v, &TooLargeError{Amounts: tooLarge}
	}
	return v, nil
}

// IsScalar reports whether a resource name is one that NodeResourcesFit checks beyond cpu,
// memory, pods and ephemeral storage: extended resources, hugepages, attachable volumes.
func IsScalar(i int) bool { return i >= firstExtended }

// FitCount is how many copies of req fit in v, looking at the positions in idx (those
// req asks for); 0 when some position of v is not positive. A req that asks for nothing
// at idx fits any number of times: the result is then -1.
func (v *Vector) FitCount(req *Vector, idx []int8) int {
	n := -1
	for _, i := range idx {
		r := req[i]
		if r <= 0 {
			continue
		}
		k := 0
		if v[i] > 0 {
			k = int(v[i] / r)
		}
		if n < 0 || k < n {
			n = k
		}
	}
	return n
}
