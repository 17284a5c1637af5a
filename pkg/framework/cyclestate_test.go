package framework

import (
	"testing"
)

// counter is mutable state data whose Clone copies it, counting the calls.
type counter struct {
	n      int
	clones *int
}

func (c *counter) Clone() StateData {
	*c.clones++
	return &counter{n: c.n, clones: c.clones}
}

func TestCycleStateReadWriteDelete(t *testing.T) {
	clones := 0
	a, b, c := &counter{n: 1, clones: &clones}, &counter{n: 2, clones: &clones}, &counter{n: 3, clones: &clones}
	type op struct {
		write, del StateKey
		val        StateData
	}
	tests := []struct {
		name string
		ops  []op
		want map[StateKey]StateData
	}{
		{"empty", nil, map[StateKey]StateData{"a": nil}},
		{"write then read", []op{{write: "a", val: a}}, map[StateKey]StateData{"a": a, "b": nil}},
		{"overwrite", []op{{write: "a", val: a}, {write: "a", val: b}}, map[StateKey]StateData{"a": b}},
		{"delete", []op{{write: "a", val: a}, {del: "a"}}, map[StateKey]StateData{"a": nil}},
		{"delete missing is a no-op", []op{{write: "a", val: a}, {del: "x"}}, map[StateKey]StateData{"a": a, "x": nil}},
		{"delete in the middle keeps the rest", []op{{write: "a", val: a}, {write: "b", val: b}, {write: "c", val: c}, {del: "b"}},
			map[StateKey]StateData{"a": a, "b": nil, "c": c}},
		{"write after delete", []op{{write: "a", val: a}, {write: "b", val: b}, {del: "a"}, {write: "a", val: c}},
			map[StateKey]StateData{"a": c, "b": b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewCycleState()
			for _, o := range tt.ops {
				if o.write != "" {
					s.Write(o.write, o.val)
				} else {
					s.Delete(o.del)
				}
			}
			for k, want := range tt.want {
				if got := s.Read(k); got != want {
					t.Errorf("Read(%q) = %v, want %v", k, got, want)
				}
			}
		})
	}
}

func TestCycleStateCloneDeepClonesEntries(t *testing.T) {
	clones := 0
	s := NewCycleState()
	s.Write("a", &counter{n: 1, clones: &clones})
	s.Write("b", &counter{n: 2, clones: &clones})
	s.SkipFilterPlugins = map[string]bool{"F": true}
	s.SkipScorePlugins = map[string]bool{"S": true}

	c := s.Clone()
	if clones != 2 {
		t.Errorf("Clone called StateData.Clone %d times, want 2", clones)
	}
	for _, k := range []StateKey{"a", "b"} {
		orig, cl := s.Read(k).(*counter), c.Read(k).(*counter)
		if orig == cl {
			t.Errorf("entry %q shared between the state and its clone", k)
		}
		if orig.n != cl.n {
			t.Errorf("entry %q: clone has %d, want %d", k, cl.n, orig.n)
		}
	}

	// Mutating the clone leaves the original alone, and the other way round.
	c.Read("a").(*counter).n = 100
	c.Write("c", &counter{clones: &clones})
	c.Delete("b")
	c.SkipFilterPlugins["G"] = true
	delete(c.SkipScorePlugins, "S")
	if s.Read("a").(*counter).n != 1 || s.Read("b") == nil || s.Read("c") != nil {
		t.Errorf("mutating the clone changed the original")
	}
	if len(s.SkipFilterPlugins) != 1 || !s.SkipScorePlugins["S"] {
		t.Errorf("mutating the clone's skip sets changed the original: %v %v", s.SkipFilterPlugins, s.SkipScorePlugins)
	}
	s.Write("d", &counter{clones: &clones})
	if c.Read("d") != nil {
		t.Errorf("writing the original changed the clone")
	}
}

func TestCycleStateCloneNilAndEmpty(t *testing.T) {
	var nilState *CycleState
	if nilState.Clone() != nil {
		t.Error("nil.Clone() is not nil")
	}
	c := NewCycleState().Clone()
	if c == nil || c.Read("x") != nil {
		t.Fatalf("empty clone: %v", c)
	}
	if c.SkipFilterPlugins != nil || c.SkipScorePlugins != nil {
		t.Errorf("unset skip sets became %v, %v", c.SkipFilterPlugins, c.SkipScorePlugins)
	}
	c.Write("x", &counter{clones: new(int)})
	if c.Read("x") == nil {
		t.Error("cannot write to a clone")
	}
}
