package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// toYAML writes a JSON document (as encoding/json writes one: no spaces) as block-style
// YAML, the shape `kubectl get -o yaml` has, many times faster than going through a YAML
// library. A string is written plain only when every YAML 1.1 reader takes it for that
// string (a name, a label, a quantity), else double-quoted; numbers, booleans and null as
// JSON has them. The simulator reads the result on its fast path (TestYAMLRoundTrips).
func toYAML(js []byte) ([]byte, error) {
	w := &yamlWriter{js: js, out: make([]byte, 0, len(js)*5/4)}
	if len(js) == 0 || js[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	w.i = 1
	first := true
	// Go writes an object's TypeMeta first, kind before apiVersion; kubectl writes
	// apiVersion first.
	if kind, apiVersion, ok := w.typeMeta(); ok {
		w.out = append(w.out, "apiVersion: "...)
		w.scalar(apiVersion)
		w.out = append(w.out, "\nkind: "...)
		w.scalar(kind)
		w.out = append(w.out, '\n')
		first = false
	}
	if err := w.members(0, false, first); err != nil {
		return nil, err
	}
	return w.out, nil
}

// typeMeta reads the object's first two members when they are kind and apiVersion.
func (w *yamlWriter) typeMeta() (kind, apiVersion string, ok bool) {
	const k, a = `"kind":`, `,"apiVersion":`
	if !bytes.HasPrefix(w.js[w.i:], []byte(k)) {
		return "", "", false
	}
	start := w.i
	w.i += len(k)
	kind, err := w.string()
	if err == nil && bytes.HasPrefix(w.js[w.i:], []byte(a)) {
		w.i += len(a)
		if apiVersion, err = w.string(); err == nil {
			return kind, apiVersion, true
		}
	}
	w.i = start
	return "", "", false
}

// maxSimpleKey is the longest key written as is, within YAML's limit of 1024 characters
// for an implicit key.
const maxSimpleKey = 1000

type yamlWriter struct {
	js  []byte
	i   int
	out []byte
}

func (w *yamlWriter) indent(n int) {
	for range n {
		w.out = append(w.out, ' ')
	}
}

// object writes the mapping at w.i, its keys at indent; the first on the current line
// when inline (after a sequence's "- ").
func (w *yamlWriter) object(indent int, inline bool) error {
	w.i++ // {
	return w.members(indent, inline, true)
}

// members writes the rest of the mapping whose members start at w.i (first: none written
// yet) and reads its closing brace.
func (w *yamlWriter) members(indent int, inline, first bool) error {
	for ; w.js[w.i] != '}'; first = false {
		if !first {
			w.i++ // ,
		}
		if !first || !inline {
			w.indent(indent)
		}
		key, err := w.string()
		if err != nil {
			return err
		}
		start := len(w.out)
		w.scalar(key)
		if len(w.out)-start > maxSimpleKey {
			// YAML's implicit keys end within 1024 characters: a longer one is explicit.
			w.out = append(w.out[:start], "? "...)
			w.scalar(key)
			w.out = append(w.out, '\n')
			w.indent(indent)
		}
		w.out = append(w.out, ':')
		w.i++ // :
		if err := w.member(indent); err != nil {
			return err
		}
	}
	w.i++ // }
	return nil
}

// member writes the value of a mapping key or sequence entry: nested collections on the
// lines below (a mapping's keys further in, a sequence's entries at the key's indent),
// the rest on the line.
func (w *yamlWriter) member(indent int) error {
	switch c := w.js[w.i]; {
	case c == '{' && w.js[w.i+1] != '}':
		w.out = append(w.out, '\n')
		return w.object(indent+2, false)
	case c == '[' && w.js[w.i+1] != ']':
		w.out = append(w.out, '\n')
		return w.array(indent)
	}
	w.out = append(w.out, ' ')
	return w.leaf()
}

func (w *yamlWriter) array(indent int) error {
	w.i++ // [
	for first := true; w.js[w.i] != ']'; first = false {
		if !first {
			w.i++ // ,
		}
		w.indent(indent)
		w.out = append(w.out, '-')
		switch c := w.js[w.i]; {
		case c == '{' && w.js[w.i+1] != '}':
			w.out = append(w.out, ' ')
			if err := w.object(indent+2, true); err != nil {
				return err
			}
		case c == '[' && w.js[w.i+1] != ']':
			w.out = append(w.out, '\n')
			if err := w.array(indent + 2); err != nil {
				return err
			}
		default:
			w.out = append(w.out, ' ')
			if err := w.leaf(); err != nil {
				return err
			}
		}
	}
	w.i++ // ]
	return nil
}

// leaf writes a scalar or an empty collection, and ends the line.
func (w *yamlWriter) leaf() error {
	switch c := w.js[w.i]; c {
	case '{', '[':
		w.out = append(w.out, c, w.js[w.i+1])
		w.i += 2
	case '"':
		s, err := w.string()
		if err != nil {
			return err
		}
		w.scalar(s)
	default: // a number, true, false or null, as JSON writes it
		start := w.i
		for w.i < len(w.js) && !strings.ContainsRune(",}]", rune(w.js[w.i])) {
			w.i++
		}
		w.out = append(w.out, w.js[start:w.i]...)
	}
	w.out = append(w.out, '\n')
	return nil
}

// string reads the JSON string at w.i.
func (w *yamlWriter) string() (string, error) {
	start := w.i
	escaped := false
	for w.i++; w.js[w.i] != '"'; w.i++ {
		if w.js[w.i] == '\\' {
			escaped = true
			w.i++
		}
	}
	w.i++
	raw := w.js[start:w.i]
	if !escaped {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// scalar writes a string plain when that reads back as the same string, else
// double-quoted with YAML's escapes.
func (w *yamlWriter) scalar(s string) {
	if plain(s) {
		w.out = append(w.out, s...)
		return
	}
	w.out = append(w.out, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			w.out = append(w.out, '\\', byte(r))
		case r == '\n':
			w.out = append(w.out, '\\', 'n')
		case r == '\t':
			w.out = append(w.out, '\\', 't')
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff:
			w.out = fmt.Appendf(w.out, "\\u%04x", r)
		default:
			w.out = append(w.out, string(r)...)
		}
	}
	w.out = append(w.out, '"')
}

// plain reports whether a string can be written without quotes: a letter, then letters,
// digits and -._/ only, and no word YAML 1.1 reads as a boolean or null; or a quantity
// (digits, a fraction, a suffix). Everything else is quoted.
func plain(s string) bool {
	if s == "" {
		return false
	}
	if isLetter(s[0]) {
		for i := 1; i < len(s); i++ {
			c := s[i]
			if !isLetter(c) && !isDigit(c) && c != '-' && c != '.' && c != '_' && c != '/' {
				return false
			}
		}
		switch strings.ToLower(s) {
		case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
			return false
		}
		return true
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i+1 {
			return false
		}
		i = j
	}
	switch s[i:] {
	case "m", "k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		return i > 0
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
