package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
)

// JSON logs: one object a line, info messages up to -v with their verbosity, errors with
// their error, and the message's keys and values.
func TestJSONLogs(t *testing.T) {
	var buf bytes.Buffer
	logger := logr.FromSlogHandler(newJSONHandler(&buf, 2))
	logger.Info("Starting", "version", "v0.1.0")
	logger.V(2).Info("Bound", "pod", "ml/train-0", "node", "n1")
	logger.V(3).Info("Too verbose")
	logger.Error(errors.New("boom"), "Binding failed", "pod", "ml/train-1")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3 (V(3) is above -v=2):\n%s", len(lines), buf.String())
	}
	want := []map[string]any{
		{"msg": "Starting", "v": 0.0, "version": "v0.1.0"},
		{"msg": "Bound", "v": 2.0, "pod": "ml/train-0", "node": "n1"},
		{"msg": "Binding failed", "level": "error", "err": "boom", "pod": "ml/train-1"},
	}
	for i, line := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line %d %q: %v", i, line, err)
		}
		if _, ok := got["ts"]; !ok {
			t.Errorf("line %d has no ts: %s", i, line)
		}
		for k, v := range want[i] {
			if got[k] != v {
				t.Errorf("line %d: %s = %v, want %v (%s)", i, k, got[k], v, line)
			}
		}
	}
}

func TestSetLogFormat(t *testing.T) {
	flags := pflag.NewFlagSet("x", pflag.ContinueOnError)
	if err := setLogFormat("yaml", flags); err == nil || !strings.Contains(err.Error(), "--logging-format") {
		t.Errorf("error %v, want one naming --logging-format", err)
	}
	if err := setLogFormat(logFormatText, flags); err != nil {
		t.Error(err)
	}
}
