package framework

import (
	"slices"
	"testing"
)

func TestDefaultNormalizeScore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reverse bool
		in      []int64
		want    []int64
	}{
		{name: "relative to the highest", in: []int64{0, 1, 3, 6}, want: []int64{0, 16, 50, 100}},
		{name: "reversed", reverse: true, in: []int64{0, 1, 3, 6}, want: []int64{100, 84, 50, 0}},
		{name: "all zero", in: []int64{0, 0}, want: []int64{0, 0}},
		{name: "all zero, reversed", reverse: true, in: []int64{0, 0}, want: []int64{100, 100}},
		{name: "none", in: nil, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(tc.in)
			DefaultNormalizeScore(tc.reverse, got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
