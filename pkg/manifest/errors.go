package manifest

import (
	"sort"
	"strconv"
	"strings"
)

// InputErrors are every problem found in an input, in input order. The CLI prints one a
// line and exits with status 2.
type InputErrors []*InputError

// maxReported bounds the errors an InputErrors lists; the rest are counted.
const maxReported = 50

func (e InputErrors) Error() string {
	var b strings.Builder
	for i, err := range e {
		if i == maxReported {
			b.WriteString("\n... and " + strconv.Itoa(len(e)-maxReported) + " more errors")
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// Unwrap gives errors.As the first error, and every other.
func (e InputErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, err := range e {
		out[i] = err
	}
	return out
}

// Sort puts the errors in input order (errors of one document keep their order).
func (e InputErrors) Sort() {
	sort.SliceStable(e, func(i, j int) bool { return e[i].at.seq < e[j].at.seq })
}
