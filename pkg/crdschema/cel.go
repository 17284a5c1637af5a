package crdschema

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// rule is one entry of x-kubernetes-validations.
type rule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message"`
	MessageExpression string  `json:"messageExpression"`
	FieldPath         string  `json:"fieldPath"`
	Reason            *string `json:"reason"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf"`
}

// compiledRule is a rule ready to run, or the reason it cannot.
type compiledRule struct {
	rule
	program, message cel.Program
	usesOldSelf      bool
	err              string
	// path is the rule's fieldPath as a path below the node ("" for the node itself).
	path string
}

// ruleNode holds the rules of one schema node and of the nodes below it that have any.
type ruleNode struct {
	schema     *spec.Schema
	root       bool
	rules      []compiledRule
	properties map[string]*ruleNode
	items      *ruleNode
	additional *ruleNode
}

// ruleErrors runs the CEL rules on obj, as the API server does on create: rules about
// oldSelf do not run (there is no old object), unless optionalOldSelf lets them see none.
func (s *Schema) ruleErrors(obj map[string]any) field.ErrorList {
	s.rulesOnce.Do(func() {
		s.rules, s.rulesErr = compileNode(s.root, true)
	})
	if s.rulesErr != nil {
		return field.ErrorList{field.InternalError(nil, s.rulesErr)}
	}
	budget := int64(celconfig.RuntimeCELCostBudget)
	errs, _ := s.rules.validate(nil, obj, budget)
	return errs
}

// selfTypes numbers the types of self, which CEL needs named apart.
var selfTypes atomic.Int64

// compileNode compiles the rules of a schema node and of every node below it; nil when
// none has any.
func compileNode(s *spec.Schema, root bool) (*ruleNode, error) {
	if s == nil {
		return nil, nil
	}
	n := &ruleNode{schema: s, root: root}
	var rules []rule
	if err := s.Extensions.GetObject("x-kubernetes-validations", &rules); err != nil {
		return nil, fmt.Errorf("x-kubernetes-validations: %w", err)
	}
	if len(rules) > 0 {
		env, err := ruleEnv(s, root)
		if err != nil {
			return nil, err
		}
		for _, r := range rules {
			n.rules = append(n.rules, compileRule(env, r))
		}
	}
	for name, p := range s.Properties {
		child, err := compileNode(&p, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if child != nil {
			if n.properties == nil {
				n.properties = map[string]*ruleNode{}
			}
			n.properties[name] = child
		}
	}
	var err error
	if s.Items != nil {
		if n.items, err = compileNode(s.Items.Schema, false); err != nil {
			return nil, err
		}
	}
	if s.AdditionalProperties != nil {
		if n.additional, err = compileNode(s.AdditionalProperties.Schema, false); err != nil {
			return nil, err
		}
	}
	if len(n.rules) == 0 && n.properties == nil && n.items == nil && n.additional == nil {
		return nil, nil
	}
	return n, nil
}

// ruleEnv is the environment the API server compiles a node's stored rules in: its
// base environment and libraries, self typed by the node's schema, and oldSelf.
func ruleEnv(s *spec.Schema, root bool) (*cel.Env, error) {
	declType := openapi.SchemaDeclType(s, root)
	if declType == nil {
		return nil, fmt.Errorf("the schema has no CEL type for its rules")
	}
	declType = declType.MaybeAssignTypeName(fmt.Sprintf("selfType%d", selfTypes.Add(1)))
	envSet, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(
		environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 0),
			EnvOptions:        []cel.EnvOption{cel.Variable("self", declType.CelType())},
			DeclTypes:         []*apiservercel.DeclType{declType},
		},
		environment.VersionedOptions{
			IntroducedVersion: version.MajorMinor(1, 24),
			EnvOptions:        []cel.EnvOption{cel.Variable("oldSelf", declType.CelType())},
		},
	)
	if err != nil {
		return nil, err
	}
	return envSet.StoredExpressionsEnv(), nil
}

func compileRule(env *cel.Env, r rule) compiledRule {
	c := compiledRule{rule: r}
	if strings.TrimSpace(r.Rule) == "" {
		return c
	}
	ast, issues := env.Compile(r.Rule)
	if issues != nil {
		c.err = "compilation failed: " + issues.String()
		return c
	}
	if ast.OutputType() != cel.BoolType {
		c.err = "cel expression must evaluate to a bool"
		return c
	}
	checked, err := cel.AstToCheckedExpr(ast)
	if err != nil {
		c.err = "unexpected compilation error: " + err.Error()
		return c
	}
	for _, ref := range checked.ReferenceMap {
		if ref.Name == "oldSelf" {
			c.usesOldSelf = true
		}
	}
	if c.program, err = program(env, ast); err != nil {
		c.err = "program instantiation failed: " + err.Error()
		return c
	}
	if r.MessageExpression != "" {
		ast, issues := env.Compile(r.MessageExpression)
		if issues == nil && ast.OutputType() == cel.StringType {
			c.message, _ = program(env, ast)
		}
	}
	c.path = strings.TrimPrefix(r.FieldPath, ".")
	return c
}

func program(env *cel.Env, ast *cel.Ast) (cel.Program, error) {
	return env.Program(ast,
		cel.CostLimit(celconfig.PerCallLimit),
		cel.CostTracking(&library.CostEstimator{}),
		cel.InterruptCheckFrequency(celconfig.CheckFrequency),
	)
}

// validate runs the node's rules on x, then its children's; budget is what remains of the
// object's cost budget (negative: spent, nothing more runs).
func (n *ruleNode) validate(path *field.Path, x any, budget int64) (field.ErrorList, int64) {
	if n == nil || x == nil || budget < 0 {
		return nil, budget
	}
	errs, budget := n.validateRules(path, x, budget)
	if budget < 0 {
		return errs, budget
	}
	var more field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			child := n.properties[k]
			p := path.Child(k)
			if _, known := n.schema.Properties[k]; !known {
				child, p = n.additional, path.Key(k)
			}
			more, budget = child.validate(p, x[k], budget)
			errs = append(errs, more...)
			if budget < 0 {
				return errs, budget
			}
		}
	case []any:
		for i, item := range x {
			more, budget = n.items.validate(path.Index(i), item, budget)
			errs = append(errs, more...)
			if budget < 0 {
				return errs, budget
			}
		}
	}
	return errs, budget
}

func (n *ruleNode) validateRules(path *field.Path, x any, budget int64) (field.ErrorList, int64) {
	if len(n.rules) == 0 {
		return nil, budget
	}
	var errs field.ErrorList
	typ := typeOf(n.schema)
	if budget <= 0 {
		return field.ErrorList{field.Invalid(path, typ, "validation failed due to running out of cost budget, no further validation rules will be run")}, -1
	}
	valSchema := n.schema
	if n.root {
		valSchema = withTypeAndObjectMeta(n.schema)
	}
	self := openapi.UnstructuredToVal(x, valSchema)
	activation := map[string]any{"self": self}
	for _, c := range n.rules {
		if c.err != "" {
			errs = append(errs, field.Invalid(path, typ, "rule compile error: "+c.err))
			continue
		}
		if c.program == nil {
			continue
		}
		optionalOld := c.OptionalOldSelf != nil && *c.OptionalOldSelf
		if c.usesOldSelf && !optionalOld {
			continue // a transition rule: nothing to compare with on create
		}
		act := activation
		if optionalOld {
			act = map[string]any{"self": self, "oldSelf": types.OptionalNone}
		}
		result, details, err := c.program.ContextEval(context.Background(), act)
		if details == nil || details.ActualCost() == nil {
			return append(errs, field.InternalError(path, fmt.Errorf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", c.errorString()))), -1
		}
		if cost := *details.ActualCost(); cost > math.MaxInt64 || int64(cost) > budget {
			return append(errs, field.Invalid(path, typ, "validation failed due to running out of cost budget, no further validation rules will be run")), -1
		} else {
			budget -= int64(cost)
		}
		if err != nil {
			switch {
			case strings.HasPrefix(err.Error(), "no such overload"):
				errs = append(errs, field.Invalid(path, typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, c.errorString())))
			case strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded"):
				return append(errs, field.Invalid(path, typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, c.errorString()))), -1
			default:
				errs = append(errs, field.Invalid(path, typ, fmt.Sprintf("%v evaluating rule: %v", err, c.errorString())))
			}
			continue
		}
		if result == types.True {
			continue
		}
		at := path
		if c.path != "" {
			at = at.Child(c.path)
		}
		var value any = x
		if typ == "object" || typ == "array" {
			value = field.OmitValueType{}
		}
		errs = append(errs, c.fieldError(at, value, c.detail(act)))
	}
	return errs, budget
}

// detail is the message of a failed rule: its messageExpression's, else its message, else
// the rule itself.
func (c *compiledRule) detail(act map[string]any) string {
	if c.message != nil {
		if v, _, err := c.message.Eval(act); err == nil {
			if s, ok := v.Value().(string); ok && strings.TrimSpace(s) != "" && !strings.ContainsAny(s, "\n") {
				return strings.TrimSpace(s)
			}
		}
	}
	if c.Message == "" {
		return "failed rule: " + c.errorString()
	}
	return strings.TrimSpace(c.Message)
}

func (c *compiledRule) errorString() string {
	if c.Message != "" {
		return strings.TrimSpace(c.Message)
	}
	return strings.TrimSpace(c.Rule)
}

// fieldError is the error of the rule's reason (FieldValueInvalid when it gives none).
func (c *compiledRule) fieldError(path *field.Path, value any, detail string) *field.Error {
	if c.Reason == nil {
		return field.Invalid(path, value, detail)
	}
	switch *c.Reason {
	case "FieldValueForbidden":
		return field.Forbidden(path, detail)
	case "FieldValueRequired":
		return field.Required(path, detail)
	case "FieldValueDuplicate":
		return field.Duplicate(path, value)
	}
	return field.Invalid(path, value, detail)
}

func typeOf(s *spec.Schema) string {
	if len(s.Type) == 0 {
		return ""
	}
	return s.Type[0]
}

// withTypeAndObjectMeta gives a resource's root schema the fields every resource has,
// which its rules may read (apiVersion, kind, metadata.name, metadata.generateName).
func withTypeAndObjectMeta(s *spec.Schema) *spec.Schema { return common.WithTypeAndObjectMeta(s) }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
