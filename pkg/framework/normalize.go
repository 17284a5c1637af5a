package framework

// DefaultNormalizeScore scales a plugin's scores onto [0, MaxNodeScore] relative to the
// highest, as kube-scheduler's helper of that name: with reverse, the highest becomes 0
// (fewer is better). All zero stays all zero, or becomes MaxNodeScore everywhere when
// reversed.
func DefaultNormalizeScore(reverse bool, scores []int64) {
	var highest int64
	for i := range scores {
		highest = max(highest, scores[i])
	}
	if highest == 0 {
		if reverse {
			for i := range scores {
				scores[i] = MaxNodeScore
			}
		}
		return
	}
	for i := range scores {
		s := MaxNodeScore * scores[i] / highest
		if reverse {
			s = MaxNodeScore - s
		}
		scores[i] = s
	}
}
