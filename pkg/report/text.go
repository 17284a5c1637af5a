package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for a person: the pods, the groups and composites, the pods'
// devices and volumes, the event timeline and the summary.
func WriteText(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tNAME\tPHASE\tNODE\tPRIORITY\tGROUP\tBOUND AT\tPREEMPTED BY\tMESSAGE")
	for _, p := range r.Pods {
		bound := "-"
		if p.BoundAt != nil {
			bound = fmt.Sprintf("%gs", *p.BoundAt)
		}
		by := "-"
		if p.PreemptedBy != nil {
			by = p.PreemptedBy.Kind + "/" + p.PreemptedBy.Namespace + "/" + p.PreemptedBy.Name
		}
		node := dash(p.Node)
		if p.NominatedNode != "" {
			node = "(nominated " + p.NominatedNode + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", p.Namespace, p.Name, p.Phase, node,
			p.Priority, dash(p.PodGroup), bound, by, oneLine(p.Message))
	}
	writeGroups(tw, "POD GROUP", r.PodGroups)
	writeGroups(tw, "COMPOSITE POD GROUP", r.CompositePodGroups)
	writeDevices(tw, r)
	if len(r.Events) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "TIME\tOBJECT\tTYPE\tREASON\tMESSAGE")
		for _, e := range r.Events {
			fmt.Fprintf(tw, "%gs\t%s\t%s\t%s\t%s\n", e.Time, e.Object, e.Type, e.Reason, oneLine(e.Message))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	_, err := fmt.Fprintf(w, "\n%d pods: %d running, %d pending, %d succeeded, %d preempted, %d deleted; %gs of virtual time\n",
		s.Pods, s.Running, s.Pending, s.Succeeded, s.Preempted, s.Deleted, s.VirtualSeconds)
	for _, v := range r.Violations {
		fmt.Fprintln(w, "INVARIANT VIOLATED:", v)
	}
	return err
}

// writeGroups lists groups (or composites: what names the column), when there are any.
func writeGroups(tw io.Writer, what string, groups []Group) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "NAMESPACE\t%s\tPARENT\tPHASE\tCONDITIONS\n", what)
	for _, g := range groups {
		var conds []string
		for _, c := range g.Conditions {
			s := c.Type + "=" + c.Status
			if c.Reason != "" {
				s += " (" + c.Reason + ")"
			}
			if c.Message != "" {
				s += ": " + oneLine(c.Message)
			}
			conds = append(conds, s)
		}
		name := g.Name
		if g.APIVersion != "" {
			name += " (" + g.APIVersion + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.Namespace, name, dash(g.Parent), g.Phase, dash(strings.Join(conds, "; ")))
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// writeDevices lists the pods that got devices or volumes, when any did.
func writeDevices(tw io.Writer, r *Report) {
	header := false
	for _, p := range r.Pods {
		if len(p.Devices) == 0 && len(p.Volumes) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(tw)
			fmt.Fprintln(tw, "NAMESPACE\tPOD\tDEVICES\tVOLUMES")
			header = true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Namespace, p.Name, dash(strings.Join(p.Devices, ", ")), dash(strings.Join(p.Volumes, ", ")))
	}
}
