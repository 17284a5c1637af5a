package config

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	yaml3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// unknownField finds the first field of a YAML document that the Go type t (as
// encoding/json decodes it) does not have, and describes it with its line and path:
// `line 12: unknown field "scoreStrategyy" in profiles[0].pluginConfig[0].args
// (NodeResourcesFitArgs)`. argsType gives the type of a plugin's arguments by the
// plugin's name (nil: not known, the arguments are not looked into). It returns "" when
// every field is known, or the document is not YAML a strict decoder would get that far
// in.
func unknownField(data []byte, t reflect.Type, argsType func(plugin string) reflect.Type) string {
	var doc yaml3.Node
	if yaml3.Unmarshal(data, &doc) != nil || doc.Kind != yaml3.DocumentNode || len(doc.Content) == 0 {
		return ""
	}
	w := &walker{argsType: argsType, budget: maxNodes}
	return w.walk(doc.Content[0], t, nil, "", 0)
}

type walker struct {
	argsType func(string) reflect.Type
	// budget is how many more nodes the walk may visit: aliases can make a small
	// document visit a node many times.
	budget int
}

// maxNodes bounds the nodes a walk visits.
const maxNodes = 1 << 20

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessage      = reflect.TypeFor[json.RawMessage]()
)

// maxDepth bounds the walk (YAML aliases can make a small document deep).
const maxDepth = 100

// walk checks node against t. path is where node is; in names the type of the plugin
// arguments node is part of ("" outside arguments).
func (w *walker) walk(n *yaml3.Node, t reflect.Type, path *field.Path, in string, depth int) string {
	if depth > maxDepth || w.budget <= 0 {
		return ""
	}
	w.budget--
	for n.Kind == yaml3.AliasNode {
		if n.Alias == nil {
			return ""
		}
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessage || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "" // decoded its own way
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml3.MappingNode {
			return ""
		}
		fields := jsonFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if key.Kind != yaml3.ScalarNode || key.Value == "<<" {
				continue
			}
			f, ok := fields[key.Value]
			if !ok {
				for name, g := range fields { // encoding/json matches names case-insensitively
					if strings.EqualFold(name, key.Value) {
						f, ok = g, true
						break
					}
				}
			}
			if !ok {
				return unknownMessage(key, path, in)
			}
			child := childPath(path, key.Value)
			if f.Type == rawMessage || isRawExtension(f.Type) {
				if key.Value == "args" && w.argsType != nil {
					if at := w.argsType(scalarAt(n, "name")); at != nil {
						if msg := w.walk(value, at, child, at.Name(), depth+1); msg != "" {
							return msg
						}
					}
				}
				continue
			}
			if msg := w.walk(value, f.Type, child, in, depth+1); msg != "" {
				return msg
			}
		}
	case reflect.Map:
		if n.Kind != yaml3.MappingNode {
			return ""
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if msg := w.walk(n.Content[i+1], t.Elem(), childKey(path, n.Content[i].Value), in, depth+1); msg != "" {
				return msg
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml3.SequenceNode || t.Elem().Kind() == reflect.Uint8 {
			return ""
		}
		for i, e := range n.Content {
			if msg := w.walk(e, t.Elem(), childIndex(path, i), in, depth+1); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func unknownMessage(key *yaml3.Node, path *field.Path, in string) string {
	msg := fmt.Sprintf("line %d: unknown field %q", key.Line, key.Value)
	if path != nil {
		msg += " in " + path.String()
	}
	if in != "" {
		msg += " (" + in + ")"
	}
	return msg
}

func childPath(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

func childKey(p *field.Path, key string) *field.Path {
	if p == nil {
		return field.NewPath("").Key(key)
	}
	return p.Key(key)
}

func childIndex(p *field.Path, i int) *field.Path {
	if p == nil {
		return field.NewPath("").Index(i)
	}
	return p.Index(i)
}

// scalarAt is the value of a mapping's scalar key ("" when absent).
func scalarAt(n *yaml3.Node, key string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yaml3.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

func isRawExtension(t reflect.Type) bool {
	return t.Name() == "RawExtension" && t.PkgPath() == "k8s.io/apimachinery/pkg/runtime"
}

// jsonFields are the fields encoding/json decodes a struct's keys into, by name, with
// the fields of embedded structs without a name of their own (and ",inline" ones).
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,")) && ft.Kind() == reflect.Struct {
			for k, v := range jsonFields(ft) {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// decodeError makes a strict decoder's error readable: the unknown field with its line
// and path when unknownField finds it, else the decoder's message without the
// "error unmarshaling JSON: while decoding JSON:" it is wrapped in.
func decodeError(err error, data []byte, t reflect.Type, argsType func(string) reflect.Type) error {
	if msg := unknownField(data, t, argsType); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error unmarshaling JSON: ")
	msg = strings.TrimPrefix(msg, "while decoding JSON: ")
	return fmt.Errorf("%s", msg)
}
