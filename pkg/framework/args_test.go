package framework

import (
	"strings"
	"testing"
)

func TestDecodeArgs(t *testing.T) {
	type args struct {
		Weight int `json:"weight"`
	}
	for _, tc := range []struct {
		raw, wantErr string
		want         int
	}{
		{"", "", 7},
		{"null", "", 7},
		{`{"weight": 3}`, "", 3},
		{`{"wieght": 3}`, "unknown field", 0},
		{`{"weight": 3} {}`, "unexpected data", 0},
		{`{"weight": "x"}`, "cannot unmarshal", 0},
	} {
		a := args{Weight: 7}
		err := DecodeArgs([]byte(tc.raw), &a)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.raw, err, tc.wantErr)
			}
		case err != nil || a.Weight != tc.want:
			t.Errorf("%q: %v, weight %d; want %d", tc.raw, err, a.Weight, tc.want)
		}
	}
}
