// Package dashboard reads the Grafana dashboard shipped in config/grafana for tests: its
// queries, the series selectors each PromQL expression reads (metric, label matchers,
// the labels it groups by), and which of them a scrape of /metrics leaves without a
// series (a panel that says "No data").
package dashboard

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// Dashboard is what the tests read of a Grafana dashboard.
type Dashboard struct {
	Title, UID string
	// Queries are the PromQL expressions of its panels and its query variables.
	Queries []Query
	// Empty names the panels (not rows) with no query.
	Empty []string
}

// Query is one expression and where it is ("panel <title>", "variable <name>").
type Query struct {
	Expr, Where string
}

type panel struct {
	Type    string `json:"type"`
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []panel `json:"panels"`
}

// Load reads a dashboard's JSON model.
func Load(path string) (*Dashboard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var dash struct {
		Title      string  `json:"title"`
		UID        string  `json:"uid"`
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &Dashboard{Title: dash.Title, UID: dash.UID}
	var walk func(ps []panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for _, tg := range p.Targets {
				d.Queries = append(d.Queries, Query{Expr: tg.Expr, Where: "panel " + p.Title})
			}
			if p.Type != "row" && len(p.Targets) == 0 {
				d.Empty = append(d.Empty, p.Title)
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			if err := json.Unmarshal(v.Query, &q.Query); err != nil {
				return nil, fmt.Errorf("%s: variable %s: query %s", path, v.Name, v.Query)
			}
		}
		d.Queries = append(d.Queries, Query{Expr: q.Query, Where: "variable " + v.Name})
	}
	return d, nil
}

// Matcher is a label matcher of a selector: Label Op "Value".
type Matcher struct {
	Label, Op, Value string
}

// Selector is a series selector of an expression: the metric, its matchers, and the
// labels the series must carry for the expression to mean something (those of the
// aggregations around it, `by (...)`, and label_values' label).
type Selector struct {
	Metric   string
	Matchers []Matcher
	Labels   []string
}

func (s Selector) String() string {
	var m []string
	for _, x := range s.Matchers {
		m = append(m, fmt.Sprintf("%s%s%q", x.Label, x.Op, x.Value))
	}
	out := s.Metric
	if len(m) > 0 {
		out += "{" + strings.Join(m, ", ") + "}"
	}
	if len(s.Labels) > 0 {
		out += " with " + strings.Join(s.Labels, ", ")
	}
	return out
}

// Words of PromQL that are not metric names.
var (
	aggregations = []string{"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio"}
	keywords     = []string{"bool", "and", "or", "unless", "offset", "atan2", "inf", "nan"}
	ident        = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)
	number       = regexp.MustCompile(`^(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?[a-zA-Z]*)`)
	matcher      = regexp.MustCompile(`^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`" + `)\s*,?`)
)

// Selectors lists the series selectors of a PromQL expression, or of Grafana's
// label_values(selector, label) query, in order. It reads the PromQL a dashboard uses
// (selectors, functions, aggregations with by/without before or after their argument,
// binary operators with on/ignoring/group_*, ranges, offsets, Grafana's $variables), not
// every corner of the language.
func Selectors(expr string) ([]Selector, error) {
	type frame struct {
		by    []string // labels the aggregation keeps
		start int      // its first selector
		label bool     // label_values: the argument after the selector is a label
	}
	var (
		out     []Selector
		stack   []frame
		pending []string // by (...) read before its aggregation's argument
		closed  *frame   // the frame just closed: a by (...) after it applies to it
	)
	apply := func(f frame, labels []string) {
		for i := f.start; i < len(out); i++ {
			for _, l := range labels {
				if !slices.Contains(out[i].Labels, l) {
					out[i].Labels = append(out[i].Labels, l)
				}
			}
		}
	}
	labelList := func(s string) ([]string, string, error) {
		s = strings.TrimLeft(s, " \t\n")
		if !strings.HasPrefix(s, "(") {
			return nil, s, fmt.Errorf("want ( at %q", s)
		}
		end := strings.IndexByte(s, ')')
		if end < 0 {
			return nil, s, fmt.Errorf("unclosed label list at %q", s)
		}
		var labels []string
		for _, l := range strings.Split(s[1:end], ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
		return labels, s[end+1:], nil
	}
	s := expr
	for {
		s = strings.TrimLeft(s, " \t\n")
		if s == "" {
			break
		}
		justClosed := closed
		closed = nil
		switch c := s[0]; {
		case c == '"' || c == '\'' || c == '`':
			end := stringEnd(s)
			if end < 0 {
				return nil, fmt.Errorf("%q: unclosed string", expr)
			}
			s = s[end:]
		case c == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("%q: unclosed range", expr)
			}
			s = s[end+1:]
		case c == '$': // a Grafana variable: $name or ${name}
			s = s[1:]
			if strings.HasPrefix(s, "{") {
				s = s[strings.IndexByte(s, '}')+1:]
			} else {
				s = s[len(ident.FindString(s)):]
			}
		case c == '(':
			stack = append(stack, frame{by: pending, start: len(out)})
			pending = nil
			s = s[1:]
		case c == ')':
			if len(stack) == 0 {
				return nil, fmt.Errorf("%q: unbalanced )", expr)
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			apply(f, f.by)
			closed = &f
			s = s[1:]
		case c == ',':
			if n := len(stack); n > 0 && stack[n-1].label && len(out) > stack[n-1].start {
				s = strings.TrimLeft(s[1:], " \t\n")
				l := ident.FindString(s)
				apply(stack[n-1], []string{l})
				s = s[len(l):]
				continue
			}
			s = s[1:]
		case c == '{': // a selector without a metric name
			sel := Selector{}
			rest, err := readMatchers(s, &sel)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", expr, err)
			}
			out = append(out, sel)
			s = rest
		case number.MatchString(s) && !ident.MatchString(s):
			s = s[len(number.FindString(s)):]
		case ident.MatchString(s):
			name := ident.FindString(s)
			s = s[len(name):]
			rest := strings.TrimLeft(s, " \t\n")
			switch {
			case name == "by" || name == "without":
				labels, r, err := labelList(rest)
				if err != nil {
					return nil, fmt.Errorf("%q: %w", expr, err)
				}
				s = r
				if name == "without" {
					continue
				}
				if justClosed != nil { // sum(x) by (l)
					apply(*justClosed, labels)
				} else { // sum by (l) (x)
					pending = labels
				}
			case name == "on" || name == "ignoring" || name == "group_left" || name == "group_right":
				if strings.HasPrefix(rest, "(") {
					_, r, err := labelList(rest)
					if err != nil {
						return nil, fmt.Errorf("%q: %w", expr, err)
					}
					s = r
				}
			case slices.Contains(keywords, strings.ToLower(name)):
			case slices.Contains(aggregations, name) && (strings.HasPrefix(rest, "(") || ident.FindString(rest) == "by" || ident.FindString(rest) == "without"):
				// an aggregation: its argument's frame takes the by (...) read before it
			case strings.HasPrefix(rest, "("): // a function
				if name == "label_values" {
					stack = append(stack, frame{start: len(out), label: true})
					s = rest[1:]
				} else if !slices.Contains(aggregations, name) {
					pending = nil
				}
			default:
				sel := Selector{Metric: name}
				if strings.HasPrefix(rest, "{") {
					r, err := readMatchers(rest, &sel)
					if err != nil {
						return nil, fmt.Errorf("%q: %w", expr, err)
					}
					s = r
				}
				out = append(out, sel)
			}
		default: // an operator
			s = s[1:]
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("%q: unbalanced (", expr)
	}
	for i := range out {
		if out[i].Metric == "" {
			for _, m := range out[i].Matchers {
				if m.Label == "__name__" && m.Op == "=" {
					out[i].Metric = m.Value
				}
			}
		}
	}
	return out, nil
}

// stringEnd is the index after the string literal s starts with, -1 if unclosed.
func stringEnd(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q != '`':
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return -1
}

// readMatchers reads the {...} s starts with into sel, and returns what follows.
func readMatchers(s string, sel *Selector) (string, error) {
	s = s[1:]
	for {
		s = strings.TrimLeft(s, " \t\n")
		if strings.HasPrefix(s, "}") {
			return s[1:], nil
		}
		m := matcher.FindStringSubmatch(s)
		if m == nil {
			return s, fmt.Errorf("bad label matcher at %q", s)
		}
		v := m[3]
		if v[0] == '`' {
			v = v[1 : len(v)-1]
		} else {
			v = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\'`, `'`).Replace(v[1 : len(v)-1])
		}
		sel.Matchers = append(sel.Matchers, Matcher{Label: m[1], Op: m[2], Value: v})
		s = s[len(m[0]):]
	}
}

// TargetLabels are the labels Prometheus adds to a scrape (the job, the instance, and
// what Kubernetes service discovery relabels): a selector's matchers and labels on them
// say nothing about what phalanx exports.
var TargetLabels = []string{"job", "instance", "pod", "namespace", "service", "endpoint", "container", "node"}

// Missing checks the selectors of every query against the metric families of a scrape
// and describes each selector with no series: none of the metric's series (for a
// histogram, its _bucket, _sum and _count) carries the selector's labels and satisfies its
// matchers. Grafana variables in a matcher's value are replaced by vars (a variable
// missing from vars, like $job, matches anything); matchers and labels on TargetLabels
// are left out.
func Missing(queries []Query, families map[string]*dto.MetricFamily, vars map[string]string) ([]string, error) {
	var missing []string
	seen := map[string]bool{}
	for _, q := range queries {
		sels, err := Selectors(q.Expr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Where, err)
		}
		for _, sel := range sels {
			ok, err := hasSeries(sel, families, vars)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", q.Where, err)
			}
			if msg := fmt.Sprintf("%s: no series of %s", q.Where, sel); !ok && !seen[msg] {
				seen[msg] = true
				missing = append(missing, msg)
			}
		}
	}
	sort.Strings(missing)
	return missing, nil
}

var variable = regexp.MustCompile(`\$\{([a-zA-Z0-9_]+)(?::[a-z]+)?\}|\$([a-zA-Z0-9_]+)`)

func hasSeries(sel Selector, families map[string]*dto.MetricFamily, vars map[string]string) (bool, error) {
	family, suffix := families[sel.Metric], ""
	if family == nil {
		for _, sfx := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(sel.Metric, sfx); ok && families[base] != nil {
				family, suffix = families[base], sfx
			}
		}
	}
	if family == nil {
		return false, nil
	}
	type match struct {
		Matcher
		re *regexp.Regexp
	}
	var matchers []match
	for _, m := range sel.Matchers {
		if slices.Contains(TargetLabels, m.Label) || m.Label == "__name__" {
			continue
		}
		value, unknown := m.Value, false
		value = variable.ReplaceAllStringFunc(value, func(v string) string {
			sub := variable.FindStringSubmatch(v)
			name := sub[1] + sub[2]
			if x, ok := vars[name]; ok {
				return x
			}
			unknown = true
			return v
		})
		if unknown {
			continue
		}
		mm := match{Matcher: Matcher{Label: m.Label, Op: m.Op, Value: value}}
		if m.Op == "=~" || m.Op == "!~" {
			re, err := regexp.Compile("^(?:" + value + ")$")
			if err != nil {
				return false, fmt.Errorf("%s: %w", sel, err)
			}
			mm.re = re
		}
		matchers = append(matchers, mm)
	}
	for _, metric := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range metric.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if family.GetType() == dto.MetricType_HISTOGRAM && (suffix == "_bucket" || suffix == "") {
			labels["le"] = "+Inf"
		}
		ok := true
		for _, l := range sel.Labels {
			if !slices.Contains(TargetLabels, l) && labels[l] == "" {
				ok = false
			}
		}
		for _, m := range matchers {
			v := labels[m.Label]
			switch m.Op {
			case "=":
				ok = ok && v == m.Value
			case "!=":
				ok = ok && v != m.Value
			case "=~":
				ok = ok && m.re.MatchString(v)
			case "!~":
				ok = ok && !m.re.MatchString(v)
			}
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}
