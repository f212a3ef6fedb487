package cel

import (
	"sync"

	"github.com/google/cel-go/cel"
)

var (
	admissionOnce sync.Once
	admissionEnv  *cel.Env
	admissionErr  error
)

// AdmissionEnvironment is the base environment with the variables every
// admission expression sees — object, oldObject (null on create and
// delete, respectively) and request, the AdmissionRequest — as upstream's
// admission CEL (k8s.io/apiserver/pkg/admission/plugin/cel). They are
// typed dyn here: upstream types object and oldObject from the resource's
// OpenAPI schema and request from AdmissionRequest's. A webhook's
// matchConditions compile in it as they are.
func AdmissionEnvironment() (*cel.Env, error) {
	admissionOnce.Do(func() {
		base, err := BaseEnvironment()
		if err != nil {
			admissionErr = err
			return
		}
		admissionEnv, admissionErr = base.Extend(
			cel.Variable("object", cel.DynType),
			cel.Variable("oldObject", cel.DynType),
			cel.Variable("request", cel.DynType),
		)
	})
	return admissionEnv, admissionErr
}
