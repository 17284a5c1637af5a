// Package framework defines the scheduling framework: the extension points plugins implement,
// the per-cycle state they share, the Status they return, and the PodInfo and NodeInfo they
// read. It is modelled on kube-scheduler's framework so that its users recognise it, and it
// is pure: no API calls, no client-go.
package framework

import (
	"errors"
	"strings"
)

// Code is the outcome of a plugin call.
type Code int

// Status codes, with kube-scheduler's meanings.
const (
	// Success: the plugin ran and the pod may proceed.
	Success Code = iota
	// Error: an internal error; the pod is retried with backoff.
	Error
	// Unschedulable: the pod does not fit now, but preemption or a cluster change might help.
	Unschedulable
	// UnschedulableAndUnresolvable: the pod does not fit and preemption cannot help on this
	// node (a node selector mismatch, say).
	UnschedulableAndUnresolvable
	// Wait: a Permit plugin holds the pod before binding.
	Wait
	// Skip: a PreFilter or PreScore plugin has nothing to do for this pod, so its Filter or
	// Score is not called.
	Skip
	// Pending: the pod waits for something outside the scheduler (a PreEnqueue gate).
	Pending
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Unknown"
}

// Status is the result of a plugin call. A nil *Status means Success, so that the common
// path allocates nothing.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus makes a Status with a code and the reasons a user will read.
func NewStatus(code Code, reasons ...string) *Status {
	if code == Skip && len(reasons) == 0 {
		return skipped
	}
	return &Status{code: code, reasons: reasons}
}

// skipped is every Skip without reasons: most plugins' PreFilter and PreScore skip for
// most pods, and a group cycle runs them for each member in each placement it evaluates,
// so one shared status saves an allocation a plugin a member. WithPlugin copies it.
var skipped = &Status{code: Skip}

// AsStatus wraps an error as an Error status; nil gives nil.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether the status is Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsSkip reports whether the plugin asked to be skipped for this pod.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether the pod was found not to fit (either unschedulable code).
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// Reasons returns the user-facing reasons.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	if s.err != nil && len(s.reasons) == 0 {
		return []string{s.err.Error()}
	}
	return s.reasons
}

// Message joins the reasons.
func (s *Status) Message() string {
	return strings.Join(s.Reasons(), ", ")
}

// AsError returns the status as an error, nil when it is not an Error.
func (s *Status) AsError() error {
	if s.Code() != Error {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// Plugin names the plugin that produced a failure, for diagnosis and queueing.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records the plugin that produced the status and returns it. A status that
// already names its plugin is left alone, so plugins may return shared, pre-built statuses
// from concurrent Filter calls without a data race.
func (s *Status) WithPlugin(name string) *Status {
	if s == skipped {
		if name == "" {
			return s
		}
		return &Status{code: Skip, plugin: name}
	}
	if s != nil && s.plugin == "" {
		s.plugin = name
	}
	return s
}

func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	if msg := s.Message(); msg != "" {
		return s.code.String() + ": " + msg
	}
	return s.code.String()
}
