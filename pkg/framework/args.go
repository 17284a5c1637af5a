package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DecodeArgs decodes a plugin's arguments strictly: an unknown field is an error, so a
// typo in a configuration file is not a silent default. Empty or null arguments leave
// into as it is.
func DecodeArgs(raw json.RawMessage, into any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the arguments")
	}
	return nil
}
