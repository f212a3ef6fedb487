package cel

// The cost limits of upstream's k8s.io/apiserver/pkg/apis/cel/config.go.
// A cost unit is roughly one traversal step of cel-go's interpreter.
const (
	// PerCallLimit bounds the runtime cost of one evaluation of one expression.
	PerCallLimit = 1000000
	// RuntimeCELCostBudget bounds the runtime cost of all the rules
	// evaluated for one object write.
	RuntimeCELCostBudget = 10000000
	// StaticEstimatedCostLimit bounds the estimated cost of one expression,
	// checked when it is compiled.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit bounds the sum of the estimated costs of
	// all the expressions of one CRD version's schema.
	StaticEstimatedCRDCostLimit = 100000000

	// MaxRequestSizeBytes is the largest request body the apiserver
	// accepts; the cost estimator sizes lists and strings without a
	// maxItems/maxLength from it.
	MaxRequestSizeBytes = 3 * 1024 * 1024
)
