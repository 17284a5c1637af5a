package framework

import (
	"errors"
	"slices"
	"testing"
)

func TestNilStatusIsSuccess(t *testing.T) {
	var s *Status
	if s.Code() != Success || !s.IsSuccess() || s.IsSkip() || s.IsRejected() {
		t.Errorf("nil status: code %v, success %v, skip %v, rejected %v", s.Code(), s.IsSuccess(), s.IsSkip(), s.IsRejected())
	}
	if s.Reasons() != nil || s.Message() != "" || s.Plugin() != "" || s.AsError() != nil {
		t.Errorf("nil status: reasons %v, message %q, plugin %q, error %v", s.Reasons(), s.Message(), s.Plugin(), s.AsError())
	}
	if got := s.String(); got != "Success" {
		t.Errorf("nil status String() = %q, want Success", got)
	}
	if got := s.WithPlugin("P"); got != nil {
		t.Errorf("nil.WithPlugin = %v, want nil", got)
	}
	if AsStatus(nil) != nil {
		t.Error("AsStatus(nil) is not nil")
	}
}

func TestStatusCodes(t *testing.T) {
	tests := []struct {
		code     Code
		name     string
		success  bool
		skip     bool
		rejected bool
	}{
		{Success, "Success", true, false, false},
		{Error, "Error", false, false, false},
		{Unschedulable, "Unschedulable", false, false, true},
		{UnschedulableAndUnresolvable, "UnschedulableAndUnresolvable", false, false, true},
		{Wait, "Wait", false, false, false},
		{Skip, "Skip", false, true, false},
		{Pending, "Pending", false, false, false},
		{Code(99), "Unknown", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStatus(tt.code)
			if got := tt.code.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			if s.Code() != tt.code {
				t.Errorf("Code() = %v, want %v", s.Code(), tt.code)
			}
			if s.IsSuccess() != tt.success || s.IsSkip() != tt.skip || s.IsRejected() != tt.rejected {
				t.Errorf("success %v skip %v rejected %v, want %v %v %v",
					s.IsSuccess(), s.IsSkip(), s.IsRejected(), tt.success, tt.skip, tt.rejected)
			}
		})
	}
}

func TestStatusMessageAndString(t *testing.T) {
	wrapped := errors.New("boom")
	tests := []struct {
		name    string
		s       *Status
		reasons []string
		message string
		str     string
	}{
		{"no reasons", NewStatus(Unschedulable), nil, "", "Unschedulable"},
		{"one reason", NewStatus(Unschedulable, "a"), []string{"a"}, "a", "Unschedulable: a"},
		{"reasons joined", NewStatus(UnschedulableAndUnresolvable, "a", "b", "c"), []string{"a", "b", "c"}, "a, b, c", "UnschedulableAndUnresolvable: a, b, c"},
		{"from error", AsStatus(wrapped), []string{"boom"}, "boom", "Error: boom"},
		{"success with reason", NewStatus(Success, "fine"), []string{"fine"}, "fine", "Success: fine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Reasons(); !slices.Equal(got, tt.reasons) {
				t.Errorf("Reasons() = %q, want %q", got, tt.reasons)
			}
			if got := tt.s.Message(); got != tt.message {
				t.Errorf("Message() = %q, want %q", got, tt.message)
			}
			if got := tt.s.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
		})
	}
}

func TestStatusAsError(t *testing.T) {
	base := errors.New("disk on fire")
	tests := []struct {
		name    string
		s       *Status
		wantNil bool
		msg     string
		is      error
	}{
		{"nil", nil, true, "", nil},
		{"unschedulable", NewStatus(Unschedulable, "x"), true, "", nil},
		{"skip", NewStatus(Skip), true, "", nil},
		{"wait", NewStatus(Wait, "x"), true, "", nil},
		{"wrapped error keeps identity", AsStatus(base), false, "disk on fire", base},
		{"error from reasons", NewStatus(Error, "a", "b"), false, "a, b", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.AsError()
			if tt.wantNil {
				if err != nil {
					t.Fatalf("AsError() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("AsError() = nil, want an error")
			}
			if err.Error() != tt.msg {
				t.Errorf("AsError() = %q, want %q", err.Error(), tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("AsError() = %v, not the wrapped error", err)
			}
		})
	}
}

func TestStatusWithPlugin(t *testing.T) {
	s := NewStatus(Unschedulable, "x")
	if got := s.WithPlugin("First"); got != s {
		t.Fatal("WithPlugin returned another status")
	}
	if s.Plugin() != "First" {
		t.Fatalf("Plugin() = %q, want First", s.Plugin())
	}
	// A shared, pre-built status already names its plugin; later callers must not rename it.
	s.WithPlugin("Second")
	if s.Plugin() != "First" {
		t.Errorf("WithPlugin overwrote the plugin: %q", s.Plugin())
	}
	// An empty name does not count as set.
	e := NewStatus(Error).WithPlugin("")
	if e.WithPlugin("P").Plugin() != "P" {
		t.Errorf("plugin after empty name = %q, want P", e.Plugin())
	}
}

// TestSkipShared: every Skip without reasons is one shared status, and naming its plugin
// gives a status of its own, so the next plugin's Skip names no plugin.
func TestSkipShared(t *testing.T) {
	a, b := NewStatus(Skip), NewStatus(Skip)
	if a != b {
		t.Errorf("two Skips without reasons are two statuses")
	}
	named := a.WithPlugin("First")
	if named.Code() != Skip || named.Plugin() != "First" {
		t.Errorf("named Skip: %v of %q, want Skip of First", named.Code(), named.Plugin())
	}
	if got := NewStatus(Skip).Plugin(); got != "" {
		t.Errorf("a later Skip names %q, want no plugin", got)
	}
	if got := NewStatus(Skip).WithPlugin("").Plugin(); got != "" {
		t.Errorf("a Skip named with an empty name names %q", got)
	}
	if r := NewStatus(Skip, "why"); r == a || r.Message() != "why" {
		t.Errorf("a Skip with reasons: %v", r)
	}
}
