package whatif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/phalanx-dev/phalanx/pkg/report"
	"github.com/phalanx-dev/phalanx/pkg/report/html"
)

// WriteJSON writes the answer as -o json does (docs/whatif-report.schema.json).
func WriteJSON(w io.Writer, a *Answer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}

// WriteText writes the answer for a person: per workload whether it schedules, where,
// when, whom it preempts and what becomes of them, which pending pods it overtakes.
func WriteText(w io.Writer, a *Answer) error {
	var b strings.Builder
	for _, wl := range a.Workloads {
		writeWorkload(&b, wl)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s (simulated %d nodes and %d pods, %d of them pending, for %s of virtual time)\n",
		verdict(a), a.Cluster.Nodes, a.Cluster.Pods, a.Cluster.Pending, seconds(a.VirtualSeconds))
	for _, v := range a.Violations {
		fmt.Fprintf(&b, "invariant violated: %s\n", v)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func verdict(a *Answer) string {
	if len(a.Workloads) == 0 {
		return "No new workload."
	}
	failing := 0
	for _, wl := range a.Workloads {
		if !wl.Schedules {
			failing++
		}
	}
	if failing == 0 {
		return "Everything new would schedule."
	}
	return fmt.Sprintf("%d of %d new workloads would not schedule.", failing, len(a.Workloads))
}

func writeWorkload(b *strings.Builder, wl Workload) {
	fmt.Fprintf(b, "%s %s/%s", wl.Kind, wl.Namespace, wl.Name)
	if wl.PodGroup != "" && wl.Kind != "PodGroup" {
		fmt.Fprintf(b, " (pod group %s)", wl.PodGroup)
	}
	if wl.Schedules {
		fmt.Fprintf(b, ": schedules, starts at +%s, %d of %d pods bound\n", seconds(*wl.StartsAt), wl.Bound, wl.Pods)
	} else {
		fmt.Fprintf(b, ": does not schedule, %d of %d pods bound\n", wl.Bound, wl.Pods)
	}
	if len(wl.Nodes) > 0 {
		var ns []string
		for _, n := range wl.Nodes {
			ns = append(ns, fmt.Sprintf("%s (%d)", n.Node, n.Pods))
		}
		fmt.Fprintf(b, "  nodes:     %s\n", strings.Join(ns, ", "))
	}
	if len(wl.Domains) > 0 {
		var ds []string
		for _, d := range wl.Domains {
			ds = append(ds, d.Key+"="+strings.Join(d.Values, ","))
		}
		fmt.Fprintf(b, "  domains:   %s\n", strings.Join(ds, "  "))
	}
	if wl.WaitsForVictims != nil {
		fmt.Fprintf(b, "  waits:     %s for its victims to terminate\n", seconds(*wl.WaitsForVictims))
	}
	for i, p := range wl.Waiting {
		if i == 5 {
			fmt.Fprintf(b, "  ... and %d more pods waiting\n", len(wl.Waiting)-5)
			break
		}
		fmt.Fprintf(b, "  waiting:   %s: %s\n", p.Name, p.Message)
	}
	if len(wl.Preempts) > 0 {
		fmt.Fprintf(b, "  preempts %d pods:\n", len(wl.Preempts))
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    NAMESPACE\tPOD\tOWNER\tPRIORITY\tNODE\tAT\tRESTARTS")
		for _, v := range wl.Preempts {
			owner := "-"
			if v.Owner != nil {
				owner = v.Owner.Kind + "/" + v.Owner.Name
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%d\t%s\t+%s\t%s\n", v.Namespace, v.Name, owner, v.Priority, v.Node, seconds(v.PreemptedAt), restart(v))
		}
		tw.Flush()
	}
	for _, p := range wl.Overtakes {
		fmt.Fprintf(b, "  overtakes:    %s/%s (priority %d): bound at %s without the new work, %s with it\n", p.Namespace, p.Name, p.Priority, at(p.BoundAtWithout), at(p.BoundAt))
	}
	for _, p := range wl.OvertakenBy {
		fmt.Fprintf(b, "  overtaken by: %s/%s (priority %d), bound at %s on %s\n", p.Namespace, p.Name, p.Priority, at(p.BoundAt), p.Node)
	}
}

func restart(v Victim) string {
	r := v.Replacement
	switch v.Restart {
	case RestartAtOnce:
		return "at once, on " + r.Node
	case RestartLater:
		return fmt.Sprintf("at +%s, on %s", seconds(*r.BoundAt), r.Node)
	case RestartWaiting:
		return "waits: " + r.Message
	}
	if v.Owner == nil {
		return "no (no controller)"
	}
	return "no (" + v.Owner.Kind + " not modelled)"
}

func at(t *float64) string {
	if t == nil {
		return "never"
	}
	return "+" + seconds(*t)
}

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) + "s" }

// WriteHTML writes the simulator's HTML report of the what-if run with the answer above
// it.
func WriteHTML(w io.Writer, a *Answer, r *report.Report) error {
	var intro bytes.Buffer
	if err := introTemplate.Execute(&intro, struct {
		*Answer
		Verdict string
	}{a, verdict(a)}); err != nil {
		return err
	}
	return html.Write(w, r, html.Header{Title: "phalanx what-if report", Intro: template.HTML(intro.String())}) // introTemplate escapes what it writes
}

var introTemplate = template.Must(template.New("whatif").Funcs(template.FuncMap{
	"at": at, "seconds": seconds, "restart": restart, "deref": func(f *float64) float64 { return *f },
}).Parse(`<section id="answer"><h2>{{.Verdict}}</h2>
<p class="note">The cluster ({{.Cluster.Nodes}} nodes, {{.Cluster.Pods}} pods, {{.Cluster.Pending}} pending) with the new objects arriving at time 0; times are virtual seconds from now. The report below is the run with the new objects.</p>
<table><tr><th>workload</th><th>schedules</th><th>pods bound</th><th>starts</th><th>nodes</th><th>domains</th><th>preempts</th></tr>
{{- range .Workloads}}
<tr><td>{{.Kind}} {{.Namespace}}/{{.Name}}</td><td>{{if .Schedules}}yes{{else}}<b>no</b>{{end}}</td><td>{{.Bound}} of {{.Pods}}</td><td>{{at .StartsAt}}{{if .WaitsForVictims}} (waits {{seconds (deref .WaitsForVictims)}} for its victims){{end}}</td>
<td>{{range $i, $n := .Nodes}}{{if $i}}, {{end}}{{$n.Node}} ({{$n.Pods}}){{end}}</td><td>{{range .Domains}}{{.Key}}={{range $i, $v := .Values}}{{if $i}},{{end}}{{$v}}{{end}} {{end}}</td><td>{{len .Preempts}}</td></tr>
{{- end}}</table>
{{- range .Workloads}}{{if .Preempts}}
<h3>{{.Kind}} {{.Namespace}}/{{.Name}} preempts</h3>
<table><tr><th>pod</th><th>owner</th><th>priority</th><th>node</th><th>at</th><th>restarts</th></tr>
{{- range .Preempts}}<tr><td>{{.Namespace}}/{{.Name}}</td><td>{{with .Owner}}{{.Kind}}/{{.Name}}{{else}}-{{end}}</td><td>{{.Priority}}</td><td>{{.Node}}</td><td>+{{seconds .PreemptedAt}}</td><td>{{restart .}}</td></tr>{{end}}</table>
{{- end}}{{if .Waiting}}
<h3>{{.Kind}} {{.Namespace}}/{{.Name}}: pods waiting</h3><ul>{{range .Waiting}}<li>{{.Name}}: {{.Message}}</li>{{end}}</ul>
{{- end}}{{if or .Overtakes .OvertakenBy}}
<h3>{{.Kind}} {{.Namespace}}/{{.Name}} and the pods already pending</h3><ul>
{{- range .Overtakes}}<li>overtakes {{.Namespace}}/{{.Name}} (priority {{.Priority}}): bound at {{at .BoundAtWithout}} without the new work, {{at .BoundAt}} with it</li>{{end}}
{{- range .OvertakenBy}}<li>overtaken by {{.Namespace}}/{{.Name}} (priority {{.Priority}}), bound at {{at .BoundAt}}</li>{{end}}</ul>
{{- end}}{{end}}
</section>`))
