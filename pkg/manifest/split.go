package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// readYAMLDocs splits YAML documents as kubectl's reader (utilyaml.YAMLReader) does. The
// reader copies every line into a buffer, and every document into another: at 20,000
// documents that was the largest share of the loading's allocations, on the one
// goroutine the parallel decoding waits for. So the input is read whole and, when it is
// plain (no carriage return, every line that starts with "---" exactly "---"), its
// documents are slices of it, as the reader would give them; anything else, and a read
// error, goes through the reader itself, for its exact output and errors.
func readYAMLDocs(name string, r io.Reader, sizeHint int64) ([]rawDoc, *InputError) {
	var buf bytes.Buffer
	buf.Grow(int(min(max(sizeHint, 0), maxInputHint)) + bytes.MinRead)
	_, err := buf.ReadFrom(r)
	data := buf.Bytes()
	if err == nil {
		if docs, ok := splitPlainYAML(data); ok {
			return rawDocs(name, docs), nil
		}
	}
	var rest io.Reader = bytes.NewReader(data)
	if err != nil {
		rest = io.MultiReader(rest, failingReader{err})
	}
	return streamYAMLDocs(name, rest)
}

// maxInputHint bounds the buffer reserved ahead from a file's size.
const maxInputHint = 1 << 30

// failingReader replays a read error after the data read before it.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// splitPlainYAML gives the documents utilyaml.YAMLReader gives for data, when data has no
// carriage return and every line starting with "---" is exactly "---"; ok is false
// otherwise. What the reader does, line by line: a separator line ends a document that
// has lines (and is dropped), but is kept as the first line of one that has none; every
// line is given with a newline, the last one too.
func splitPlainYAML(data []byte) (docs [][]byte, ok bool) {
	if bytes.IndexByte(data, '\r') >= 0 {
		return nil, false
	}
	start, empty := 0, true
	for pos := 0; pos < len(data); {
		next := len(data)
		line := data[pos:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], pos+i+1
		}
		if bytes.HasPrefix(line, []byte("---")) {
			if len(line) != 3 {
				return nil, false
			}
			if !empty {
				docs = append(docs, data[start:pos:pos])
				empty, pos = true, next
				continue
			}
		}
		if empty {
			start, empty = pos, false
		}
		pos = next
	}
	if !empty {
		last := data[start:len(data):len(data)]
		if last[len(last)-1] != '\n' {
			last = append(last, '\n') // a copy: the slice is full
		}
		docs = append(docs, last)
	}
	return docs, true
}

// rawDocs numbers the documents that have content, as streamYAMLDocs does.
func rawDocs(name string, datas [][]byte) []rawDoc {
	var docs []rawDoc
	for _, data := range datas {
		if hasContent(data) {
			docs = append(docs, rawDoc{where: Origin{File: name, Doc: len(docs) + 1, Item: -1}, data: data})
		}
	}
	return docs
}

// streamYAMLDocs reads documents with utilyaml.YAMLReader.
func streamYAMLDocs(name string, r io.Reader) ([]rawDoc, *InputError) {
	reader := utilyaml.NewYAMLReader(bufio.NewReaderSize(r, 1<<16))
	var docs []rawDoc
	for n := 1; ; {
		data, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, &InputError{Where: fmt.Sprintf("%s: document %d", name, n), Msg: err.Error()}
		}
		if !hasContent(data) {
			continue
		}
		docs = append(docs, rawDoc{where: Origin{File: name, Doc: n, Item: -1}, data: data})
		n++
	}
}
