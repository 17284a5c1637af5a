package v1alpha1

// The helpers read a group as the scheduler needs it. They do not validate: a group that
// ValidatePodGroup rejects is never scheduled, so they only have to be safe on it, not
// meaningful. A nil *PodGroup reads as a basic group of one, which is how a pod without a
// group is treated.

// IsGang reports whether the group is placed all or nothing.
func (pg *PodGroup) IsGang() bool {
	return pg != nil && pg.Spec.SchedulingPolicy.Gang != nil
}

// MinCount is how many members must fit at once before any is bound: the gang's minCount,
// and 1 for a basic group, whose members go one by one.
func (pg *PodGroup) MinCount() int32 {
	if !pg.IsGang() {
		return 1
	}
	return pg.Spec.SchedulingPolicy.Gang.MinCount
}

// DisruptAll reports whether preemption must take the whole group at once (disruption mode
// all). An unset mode is single, the default.
func (pg *PodGroup) DisruptAll() bool {
	return pg != nil && pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil
}

// IsRequired reports whether the level must hold the whole group; an empty mode is Required,
// the CRD's default, so that manifests that never reach an API server read the same.
func (c TopologyConstraint) IsRequired() bool {
	return c.Mode != TopologyModePreferred
}
