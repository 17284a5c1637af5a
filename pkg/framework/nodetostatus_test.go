package framework

import (
	"slices"
	"testing"
)

func TestNodeToStatus(t *testing.T) {
	st := func(msg string) *Status { return NewStatus(Unschedulable, msg) }
	absent := NewStatus(UnschedulableAndUnresolvable, "absent")
	a, b, c := &NodeInfo{Name: "a", Index: 0}, &NodeInfo{Name: "b", Index: 1}, &NodeInfo{Name: "c", Index: 5}

	type op func(m *NodeToStatus)
	set := func(n, msg string) op { return func(m *NodeToStatus) { m.Set(n, st(msg)) } }
	setNode := func(n *NodeInfo, msg string) op { return func(m *NodeToStatus) { m.SetNode(n, st(msg)) } }
	get := func(n string) op { return func(m *NodeToStatus) { m.Get(n) } }

	tests := []struct {
		name   string
		absent *Status
		ops    []op
		// order is what ForEach visits (node:message), and so also Len.
		order []string
		// get maps node names to the message Get (and GetNode, for nodes a, b, c) must return;
		// "" means the Absent status.
		get map[string]string
	}{
		{
			name:  "empty",
			get:   map[string]string{"a": ""},
			order: nil,
		},
		{
			name:   "absent status for unrecorded nodes",
			absent: absent,
			ops:    []op{set("a", "1")},
			order:  []string{"a:1"},
			get:    map[string]string{"a": "1", "b": "", "zzz": ""},
		},
		{
			name:  "for each in recording order",
			ops:   []op{set("c", "3"), set("a", "1"), set("b", "2")},
			order: []string{"c:3", "a:1", "b:2"},
			get:   map[string]string{"a": "1", "b": "2", "c": "3"},
		},
		{
			name:  "set after get keeps the index right",
			ops:   []op{set("a", "1"), get("a"), set("b", "2"), set("c", "3")},
			order: []string{"a:1", "b:2", "c:3"},
			get:   map[string]string{"a": "1", "b": "2", "c": "3"},
		},
		{
			name:  "set of an existing node after get replaces",
			ops:   []op{set("a", "1"), set("b", "2"), get("b"), set("a", "1'")},
			order: []string{"a:1'", "b:2"},
			get:   map[string]string{"a": "1'", "b": "2"},
		},
		{
			name:  "set node by index",
			ops:   []op{setNode(c, "3"), setNode(a, "1")},
			order: []string{"c:3", "a:1"},
			get:   map[string]string{"a": "1", "b": "", "c": "3"},
		},
		{
			name:  "set node twice replaces",
			ops:   []op{setNode(a, "1"), setNode(b, "2"), setNode(a, "1'")},
			order: []string{"a:1'", "b:2"},
			get:   map[string]string{"a": "1'", "b": "2"},
		},
		{
			name:  "set node after get",
			ops:   []op{setNode(a, "1"), get("a"), setNode(b, "2"), setNode(b, "2'")},
			order: []string{"a:1", "b:2'"},
			get:   map[string]string{"a": "1", "b": "2'"},
		},
		{
			name:  "set by name and set node mixed, distinct nodes",
			ops:   []op{set("b", "2"), setNode(a, "1"), set("c", "3")},
			order: []string{"b:2", "a:1", "c:3"},
			get:   map[string]string{"a": "1", "b": "2", "c": "3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewNodeToStatus()
			m.Absent = tt.absent
			for _, o := range tt.ops {
				o(m)
			}
			var order []string
			m.ForEach(func(n string, s *Status) { order = append(order, n+":"+s.Message()) })
			if !slices.Equal(order, tt.order) {
				t.Errorf("ForEach visited %q, want %q", order, tt.order)
			}
			if m.Len() != len(tt.order) {
				t.Errorf("Len() = %d, want %d", m.Len(), len(tt.order))
			}
			byName := map[string]*NodeInfo{"a": a, "b": b, "c": c}
			for n, want := range tt.get {
				check := func(how string, got *Status) {
					if want == "" {
						if got != m.Absent {
							t.Errorf("%s(%s) = %v, want the Absent status %v", how, n, got, m.Absent)
						}
						return
					}
					if got.Message() != want {
						t.Errorf("%s(%s) = %v, want %q", how, n, got, want)
					}
				}
				check("Get", m.Get(n))
				if ni := byName[n]; ni != nil {
					check("GetNode", m.GetNode(ni))
				}
			}
		})
	}
}

// A NodeInfo that now sits at an index another node had when its status was recorded
// (the layout changed) must not get that node's status.
func TestNodeToStatusGetNodeStaleIndex(t *testing.T) {
	m := NewNodeToStatus()
	m.Absent = NewStatus(UnschedulableAndUnresolvable, "absent")
	m.SetNode(&NodeInfo{Name: "old", Index: 0}, NewStatus(Unschedulable, "old"))
	m.Set("new", NewStatus(Unschedulable, "new"))
	if got := m.GetNode(&NodeInfo{Name: "new", Index: 0}); got.Message() != "new" {
		t.Errorf("GetNode(new at old's index) = %v, want new's status", got)
	}
	if got := m.GetNode(&NodeInfo{Name: "other", Index: 0}); got != m.Absent {
		t.Errorf("GetNode(unrecorded at old's index) = %v, want Absent", got)
	}
	if got := m.GetNode(&NodeInfo{Name: "old", Index: 7}); got.Message() != "old" {
		t.Errorf("GetNode(old at a new index) = %v, want old's status", got)
	}
}

// Set replaces an earlier status of the same node, and SetNode after Set and Get points at
// the node's own slot, never another node's.
func TestNodeToStatusReplaces(t *testing.T) {
	st := func(m string) *Status { return NewStatus(Unschedulable, m) }
	m := NewNodeToStatus()
	m.Set("a", st("old"))
	m.Set("a", st("new"))
	if m.Len() != 1 || m.Get("a").Message() != "new" {
		t.Errorf("after Set twice: Len() = %d, Get(a) = %q; want 1, \"new\"", m.Len(), m.Get("a").Message())
	}

	a := &NodeInfo{Name: "a", Index: 0}
	m = NewNodeToStatus()
	m.Set("a", st("a1"))
	m.Set("b", st("b1"))
	m.Get("a")
	m.SetNode(a, st("a2"))
	m.SetNode(a, st("a3"))
	if m.Len() != 2 || m.Get("b").Message() != "b1" || m.GetNode(a).Message() != "a3" {
		t.Errorf("Len() = %d, b = %q, a = %q; want 2, \"b1\", \"a3\"", m.Len(), m.Get("b").Message(), m.GetNode(a).Message())
	}
}
