package cel

import (
	"fmt"
	"math"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
)

// SizeEstimator is the cost estimator upstream's compilation uses: the
// size of a string, list or map reached from a variable is the maxLength,
// maxItems or maxProperties of its schema node, or, when that is unset,
// the most a request of MaxRequestSizeBytes could hold. Calls cost what
// cel-go's defaults say. Upstream: library/cost.go and the DeclType's
// MaxElements.
type SizeEstimator struct {
	// Vars maps a variable name (self, oldSelf) to its schema.
	Vars map[string]Schema
}

// EstimateSize walks the node's path (variable, field names, @items,
// @keys, @values) through the schema.
func (e *SizeEstimator) EstimateSize(node checker.AstNode) *checker.SizeEstimate {
	path := node.Path()
	if len(path) == 0 {
		return nil
	}
	s, ok := e.Vars[path[0]]
	if !ok {
		return nil
	}
	for _, step := range path[1:] {
		if s == nil {
			return nil
		}
		switch step {
		case "@items", "@values", "@keys":
			// An index on (or a comprehension over) a dyn value is a list
			// or map step to the checker: the schema says which.
			switch {
			case s.Type() == "array":
				s = s.Items()
			case step == "@keys":
				return &checker.SizeEstimate{Min: 0, Max: MaxRequestSizeBytes - 2}
			default:
				s = s.AdditionalProperties()
			}
		default:
			s = s.Properties()[Unescape(step)]
		}
	}
	if s == nil {
		return nil
	}
	max := maxElements(s)
	return &checker.SizeEstimate{Min: 0, Max: max}
}

// EstimateCallCost leaves every call to cel-go's default estimate.
func (e *SizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// maxElements is the most characters, items or entries a node can have.
func maxElements(s Schema) uint64 {
	switch {
	case s.Type() == "string" && s.MaxLength() != nil:
		return uint64(max(*s.MaxLength(), 0))
	case s.Type() == "array" && s.MaxItems() != nil:
		return uint64(max(*s.MaxItems(), 0))
	case s.Type() == "object" && s.MaxProperties() != nil:
		return uint64(max(*s.MaxProperties(), 0))
	case s.Type() == "array":
		return (MaxRequestSizeBytes - 2) / (minSerializedSize(s.Items()) + 1)
	case s.Type() == "object":
		return (MaxRequestSizeBytes - 2) / (minSerializedSize(s.AdditionalProperties()) + 4)
	case !s.IsXIntOrString() && (s.Type() == "integer" || s.Type() == "number" || s.Type() == "boolean"):
		// Scalars have no size; values typed dyn here are compared as
		// such, so the estimate says they are small.
		return 1
	}
	return MaxRequestSizeBytes - 2
}

// MaxCardinality is how many times a node's rules can run for one object:
// the product of maxElements of the lists and maps above it. parents are
// the nodes from the root down to (not including) the node.
func MaxCardinality(parents []Schema) uint64 {
	card := uint64(1)
	for _, p := range parents {
		if p.Type() != "array" && (p.Type() != "object" || p.AdditionalProperties() == nil) {
			continue
		}
		n := maxElements(p)
		if n != 0 && card > math.MaxUint64/n {
			return math.MaxUint64
		}
		card *= n
	}
	return card
}

// minSerializedSize is the shortest JSON a value of the schema has,
// upstream's estimateMinSizeJSON.
func minSerializedSize(s Schema) uint64 {
	if s == nil {
		return 1
	}
	switch s.Type() {
	case "boolean":
		return 4 // true
	case "string":
		return 2 // ""
	case "array", "object":
		return 2 // [] or {}
	}
	return 1
}

// EstimateCost is the estimated maximum cost of a checked expression.
func EstimateCost(env *cel.Env, checked *cel.Ast, est *SizeEstimator) (uint64, error) {
	c, err := env.EstimateCost(checked, est)
	if err != nil {
		return 0, err
	}
	return c.Max, nil
}

// MultiplyWithOverflowGuard is baseCost × cardinality, or MaxUint64 when
// the product overflows.
func MultiplyWithOverflowGuard(baseCost, cardinality uint64) uint64 {
	if baseCost == 0 {
		return 0
	}
	if math.MaxUint64/baseCost < cardinality {
		return math.MaxUint64
	}
	return baseCost * cardinality
}

// CostErrorMessage is upstream's getCostErrorMessage.
func CostErrorMessage(costName string, expressionCost, costLimit uint64) string {
	exceedFactor := float64(expressionCost) / float64(costLimit)
	var factor string
	switch {
	case exceedFactor > 100.0:
		factor = "more than 100x"
	case exceedFactor < 1.5:
		factor = fmt.Sprintf("%fx", exceedFactor)
	default:
		factor = fmt.Sprintf("%.1fx", exceedFactor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", costName, factor)
}
