package manifest

import (
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Origin locates an object in the input: a file, a document of it and, for a List, an
// item; messages name it ("cluster.yaml: document 3, items[2]").
type Origin struct {
	File string
	Doc  int // 1-based, counting non-empty documents
	Item int // index in a List's items, or -1
	// seq orders documents across files, for reporting errors in input order.
	seq int
}

// Before orders origins in input order.
func (o Origin) Before(p Origin) bool {
	if o.seq != p.seq {
		return o.seq < p.seq
	}
	return o.Item < p.Item
}

func (o Origin) String() string {
	s := o.File + ": document " + strconv.Itoa(o.Doc)
	if o.Item >= 0 {
		s += ", items[" + strconv.Itoa(o.Item) + "]"
	}
	return s
}

// InputError is a problem with the input, located by file, document and field. The CLI
// prints it and exits with status 2.
type InputError struct {
	Where  string // "file.yaml: document 3" (and ", items[2]" for Lists)
	Object string // "Pod default/web", when known
	Field  string // "spec.containers[0].resources.requests[cpu]", when known
	Msg    string
	// at orders errors in input order.
	at Origin
}

func (e *InputError) Error() string {
	s := e.Where
	if e.Object != "" {
		s += " (" + e.Object + ")"
	}
	s += ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// ErrorAt is an error of the object at o (object describes it, fld names the field).
func ErrorAt(o Origin, object, fld, msg string) *InputError {
	return &InputError{Where: o.String(), Object: object, Field: fld, Msg: msg, at: o}
}

// FieldErrors are an object's validation errors as input errors, ordered by field (those
// about no field last): validation walks maps (labels, resources), and the output must
// repeat.
func FieldErrors(o Origin, object string, errs field.ErrorList) []*InputError {
	key := func(e *field.Error) string {
		if e.Field == "<nil>" || e.Field == "" {
			return "\xff"
		}
		return e.Field
	}
	sort.SliceStable(errs, func(i, j int) bool { return key(errs[i]) < key(errs[j]) })
	out := make([]*InputError, 0, len(errs))
	for _, e := range errs {
		fld := e.Field
		if fld == "<nil>" {
			fld = ""
		}
		out = append(out, ErrorAt(o, object, fld, e.ErrorBody()))
	}
	return out
}

// Describe names an object for messages: "Pod default/web", or just the kind when the
// object has no name.
func Describe(kind, namespace, name string) string {
	switch {
	case name == "":
		return kind
	case namespace == "":
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}
