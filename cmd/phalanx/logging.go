package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
)

// Log formats of --logging-format, kube-scheduler's names.
const (
	logFormatText = "text"
	logFormatJSON = "json"
)

// setLogFormat routes klog through the chosen format. JSON logs go to stderr at the
// verbosity of -v.
func setLogFormat(format string, flags *pflag.FlagSet) error {
	switch format {
	case logFormatText:
		return nil
	case logFormatJSON:
	default:
		return fmt.Errorf("--logging-format %q: must be %s or %s", format, logFormatText, logFormatJSON)
	}
	verbosity := 0
	if f := flags.Lookup("v"); f != nil {
		verbosity, _ = strconv.Atoi(f.Value.String())
	}
	klog.SetSlogLogger(slog.New(newJSONHandler(os.Stderr, verbosity)))
	return nil
}

// newJSONHandler writes one JSON object a line, shaped as kube-scheduler's JSON logs:
// "ts", "msg", "v" (the verbosity of an info message) or "level": "error" with "err",
// then the message's keys and values. logr's V(n) is slog's level -n.
func newJSONHandler(w io.Writer, verbosity int) slog.Handler {
	return slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: slog.Level(-verbosity),
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.TimeKey:
				a.Key = "ts"
			case slog.LevelKey:
				level, _ := a.Value.Any().(slog.Level)
				if level >= slog.LevelError {
					return slog.String("level", "error")
				}
				return slog.Int("v", max(0, -int(level)))
			}
			return a
		},
	})
}
