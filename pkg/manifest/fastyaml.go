package manifest

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"
)

// fastYAMLToJSON converts the plain block-style YAML that `kubectl get -o yaml` and
// generators write (block mappings and sequences, simple keys, plain and double-quoted
// scalars, empty flow collections) to JSON, several times faster than the general
// converter. It gives up (ok false) on anything else, and on anything it is not certain
// to read exactly as sigs.k8s.io/yaml does: anchors, tags, block and multi-line scalars,
// flow collections, comments after values, and plain scalars that YAML 1.1 could read as
// anything but a string or a decimal integer. The caller then uses the general converter,
// so the result never differs (FuzzFastYAML checks it).
//
// It also gives the document's apiVersion and kind when it is certain they are what
// decoding the JSON into a typeMeta gives (head nil otherwise), which spares the decoder a
// pass over the whole document. Its JSON never has a key twice in an object (it gives up
// on a mapping that does): the strict decoding does not look for duplicates in it.
func fastYAMLToJSON(data []byte) (js []byte, head *typeMeta, ok bool) {
	var c yamlConverter
	return c.toJSON(data)
}

// yamlConverter is fastYAMLToJSON with its buffers kept from one document to the next: a
// decoding worker has one (the lines and the JSON were a tenth of decoding's garbage).
type yamlConverter struct {
	p   yamlLines
	out bytes.Buffer
}

// toJSON is fastYAMLToJSON; the JSON it gives is valid until its next call.
func (c *yamlConverter) toJSON(data []byte) (js []byte, head *typeMeta, ok bool) {
	// ASCII only, and no control characters but newlines: encodings, byte order marks and
	// special characters are the general converter's business.
	for _, ch := range data {
		if ch >= 0x7f || ch < 0x20 && ch != '\n' {
			return nil, nil, false
		}
	}
	p := &c.p
	// The lines are read in place (no copy of the document): nothing of them outlives
	// this call but the JSON written and the head, whose strings are cloned.
	if !p.split(unsafe.String(unsafe.SliceData(data), len(data))) || len(p.lines) == 0 || p.lines[0].indent != 0 {
		return nil, nil, false
	}
	// The head is read before node rewrites the lines of "- key: value" items.
	if head = p.head(); head != nil {
		head.APIVersion, head.Kind = strings.Clone(head.APIVersion), strings.Clone(head.Kind)
	}
	b := &c.out
	b.Reset()
	b.Grow(len(data))
	i, ok := p.node(b, 0, 0)
	if !ok || i != len(p.lines) {
		return nil, nil, false
	}
	return b.Bytes(), head, true
}

// head reads apiVersion and kind from the top-level mapping's entries, as encoding/json
// would read them into a typeMeta: nil when that is not certain. encoding/json matches keys
// without regard to case and takes the last of several, so a key that is one of typeMeta's
// in another case, or items (a List, whose items the caller needs), leaves it to the
// decoder; so does a value that is not written as a string (null leaves the field empty,
// a number is an error there).
func (p *yamlLines) head() *typeMeta {
	if isSeqItem(p.lines[0].text) {
		return nil
	}
	h := &typeMeta{}
	for _, l := range p.lines {
		if l.indent != 0 || isSeqItem(l.text) {
			continue
		}
		key, rest, ok := splitEntry(l.text)
		if !ok {
			return nil // the conversion gives up too
		}
		var field *string
		switch {
		case key == "apiVersion":
			field = &h.APIVersion
		case key == "kind":
			field = &h.Kind
		case strings.EqualFold(key, "apiVersion") || strings.EqualFold(key, "kind") || strings.EqualFold(key, "items"):
			return nil
		default:
			continue
		}
		v, ok := stringScalar(rest)
		if !ok {
			return nil
		}
		*field = v
	}
	return h
}

// stringScalar is the string a value scalar is written as by writeScalar, if it is one.
func stringScalar(s string) (string, bool) {
	switch {
	case s == "" || s == "{}" || s == "[]" || isDecimalInt(s):
		return "", false
	case s[0] == '"':
		return unquote(s)
	case isPlainString(s) || isQuantity(s):
		return s, true
	}
	return "", false
}

type yamlLine struct {
	indent int
	text   string
}

type yamlLines struct {
	lines []yamlLine
	// keys are the keys of the mappings being written, innermost last: a duplicate key
	// is found among its mapping's own (a map per mapping was a tenth of the conversion).
	keys []string
}

// split keeps the lines with content and their indentation; directives, document end
// markers and a second document make it give up. The lines are parts of data (one string
// for the document, not one a line: the allocations were a fifth of the conversion).
func (p *yamlLines) split(data string) bool {
	p.lines, p.keys = p.lines[:0], p.keys[:0]
	for len(data) > 0 {
		end := strings.IndexByte(data, '\n')
		var line string
		if end < 0 {
			line, data = data, ""
		} else {
			line, data = data[:end], data[end+1:]
		}
		text := strings.TrimRight(line, " ")
		indent := len(text) - len(strings.TrimLeft(text, " "))
		text = text[indent:]
		switch {
		case len(text) == 0 || text[0] == '#':
			continue
		case text == "---" && indent == 0:
			if len(p.lines) > 0 {
				return false // a second document, which the general converter drops
			}
			continue
		case text[0] == '%' || strings.HasPrefix(text, "..."):
			return false
		}
		p.lines = append(p.lines, yamlLine{indent: indent, text: text})
	}
	return true
}

// node writes the block node starting at line i, whose lines are indented by indent.
func (p *yamlLines) node(b *bytes.Buffer, i, indent int) (int, bool) {
	if isSeqItem(p.lines[i].text) {
		return p.sequence(b, i, indent)
	}
	return p.mapping(b, i, indent)
}

func isSeqItem(t string) bool { return t == "-" || strings.HasPrefix(t, "- ") }

// mapping writes the block mapping whose entries start at line i, at indent.
func (p *yamlLines) mapping(b *bytes.Buffer, i, indent int) (int, bool) {
	b.WriteByte('{')
	from := len(p.keys)
	defer func() { p.keys = p.keys[:from] }()
	var seen map[string]bool
	for first := true; i < len(p.lines) && p.lines[i].indent == indent && !isSeqItem(p.lines[i].text); first = false {
		key, rest, ok := splitEntry(p.lines[i].text)
		if !ok || p.seen(from, key, &seen) {
			return 0, false
		}
		if !first {
			b.WriteByte(',')
		}
		writeJSONString(b, key)
		b.WriteByte(':')
		i++
		if rest != "" {
			if !writeScalar(b, rest) {
				return 0, false
			}
			if i < len(p.lines) && p.lines[i].indent > indent {
				return 0, false // a continuation line or a misplaced block
			}
			continue
		}
		switch {
		case i < len(p.lines) && p.lines[i].indent > indent:
			var ok bool
			if i, ok = p.node(b, i, p.lines[i].indent); !ok {
				return 0, false
			}
		case i < len(p.lines) && p.lines[i].indent == indent && isSeqItem(p.lines[i].text):
			// A sequence may sit at its key's indentation.
			var ok bool
			if i, ok = p.sequence(b, i, indent); !ok {
				return 0, false
			}
		default:
			b.WriteString("null")
		}
	}
	if i < len(p.lines) && p.lines[i].indent > indent {
		return 0, false
	}
	b.WriteByte('}')
	return i, true
}

// maxScannedKeys is how many keys of a mapping are compared one by one for a duplicate;
// a larger mapping (a long list of labels) gets a set.
const maxScannedKeys = 16

// seen reports whether key is already one of the current mapping's keys (p.keys[from:]),
// and records it.
func (p *yamlLines) seen(from int, key string, set *map[string]bool) bool {
	if *set != nil {
		if (*set)[key] {
			return true
		}
		(*set)[key] = true
		return false
	}
	for _, k := range p.keys[from:] {
		if k == key {
			return true
		}
	}
	if p.keys = append(p.keys, key); len(p.keys)-from > maxScannedKeys {
		*set = make(map[string]bool, 2*maxScannedKeys)
		for _, k := range p.keys[from:] {
			(*set)[k] = true
		}
	}
	return false
}

// sequence writes the block sequence whose items start at line i, at indent.
func (p *yamlLines) sequence(b *bytes.Buffer, i, indent int) (int, bool) {
	b.WriteByte('[')
	for first := true; i < len(p.lines) && p.lines[i].indent == indent && isSeqItem(p.lines[i].text); first = false {
		if !first {
			b.WriteByte(',')
		}
		text := p.lines[i].text
		if text == "-" {
			i++
			if i < len(p.lines) && p.lines[i].indent > indent {
				var ok bool
				if i, ok = p.node(b, i, p.lines[i].indent); !ok {
					return 0, false
				}
			} else {
				b.WriteString("null")
			}
			continue
		}
		item := strings.TrimLeft(text[1:], " ")
		col := indent + len(text) - len(item)
		if isSeqItem(item) || isEntry(item) {
			// "- key: value" or "- - x": a block node whose first line is this one,
			// indented at the item's column.
			p.lines[i] = yamlLine{indent: col, text: item}
			var ok bool
			if i, ok = p.node(b, i, col); !ok {
				return 0, false
			}
			continue
		}
		if !writeScalar(b, item) {
			return 0, false
		}
		i++
		if i < len(p.lines) && p.lines[i].indent > indent {
			return 0, false
		}
	}
	if i < len(p.lines) && p.lines[i].indent > indent {
		return 0, false
	}
	b.WriteByte(']')
	return i, true
}

// isEntry reports whether a line is a mapping entry ("key:" or "key: value") with a key
// this converter accepts.
func isEntry(t string) bool {
	_, _, ok := splitEntry(t)
	return ok
}

// maxImplicitKey is the longest implicit key YAML allows (1024 characters, YAML 1.2
// section 7.4.2); the general converter refuses a longer one.
const maxImplicitKey = 1024

// splitEntry splits "key: value" or "key:"; the key must be a plain string of safe
// characters, no longer than YAML allows.
func splitEntry(t string) (key, rest string, ok bool) {
	k := strings.Index(t, ":")
	if k <= 0 || k > maxImplicitKey {
		return "", "", false
	}
	key = t[:k]
	switch {
	case k == len(t)-1:
	case t[k+1] == ' ':
		rest = strings.TrimLeft(t[k+1:], " ")
	default:
		return "", "", false
	}
	if !isPlainString(key) {
		return "", "", false
	}
	return key, rest, true
}

// writeScalar writes a value scalar: double-quoted, an empty flow collection, a decimal
// integer, or a plain string.
func writeScalar(b *bytes.Buffer, s string) bool {
	switch {
	case s == "{}":
		b.WriteString("{}")
	case s == "[]":
		b.WriteString("[]")
	case s[0] == '"':
		v, ok := unquote(s)
		if !ok {
			return false
		}
		writeJSONString(b, v)
	case isDecimalInt(s):
		b.WriteString(s)
	case isPlainString(s) || isQuantity(s):
		writeJSONString(b, s)
	default:
		return false
	}
	return true
}

// unquote reads a whole double-quoted scalar with the common escapes only. Not "\/":
// YAML 1.2 has it, but the general converter (a YAML 1.1 reader) refuses it.
func unquote(s string) (string, bool) {
	var out strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return out.String(), i == len(s)-1
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			switch s[i] {
			case '"', '\\':
				out.WriteByte(s[i])
			case 'n':
				out.WriteByte('\n')
			case 't':
				out.WriteByte('\t')
			default:
				return "", false
			}
		default:
			if c < 0x20 || c >= 0x7f {
				return "", false
			}
			out.WriteByte(c)
		}
	}
	return "", false
}

// isPlainString reports whether a plain scalar is certainly a string: it starts with a
// letter, has only letters, digits and - . _ / (and single inner spaces), and is none of
// YAML 1.1's booleans or nulls in any case.
func isPlainString(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/':
		case c == ' ' && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '#':
		default:
			return false
		}
	}
	return len(s) > len("false") || !isBoolOrNull(s)
}

// isBoolOrNull reports whether s is one of YAML 1.1's booleans or nulls in any case.
func isBoolOrNull(s string) bool {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isDecimalInt reports whether s is a decimal integer without leading zeros that fits in
// 64 bits, which YAML reads as that number.
func isDecimalInt(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 1 && d[0] == '0' {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// isQuantity reports whether s is a Kubernetes quantity with a unit suffix ("500m",
// "128Gi", "1.5k"), which YAML reads as a string: no number or timestamp ends in a letter.
func isQuantity(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return false
		}
		i = j
	}
	switch s[i:] {
	case "m", "k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		return true
	}
	return false
}

// writeJSONString writes s as a JSON string.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
