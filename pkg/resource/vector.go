package resource

import (
	"strings"

	v1 "k8s.io/api/core/v1"
)

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

// FromList converts a ResourceList. CPU becomes millicores; other amounts are rounded up to
// whole units, as kube-scheduler does. Names are registered on first use; an error means
// the list has more kinds than a Vector holds.
func FromList(list v1.ResourceList) (Vector, error) {
	var v Vector
	for name, q := range list {
		i, err := Index(name)
		if err != nil {
			return v, err
		}
		if i == CPU {
			v[i] = q.MilliValue()
		} else {
			v[i] = q.Value()
		}
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
