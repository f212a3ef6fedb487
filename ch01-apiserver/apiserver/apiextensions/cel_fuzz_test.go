package apiextensions

import (
	"testing"
)

// FuzzCELRules evaluates the rules of a schema over arbitrary objects:
// any input gets errors or none, never a panic, and the runtime cost
// budget bounds the work.
func FuzzCELRules(f *testing.F) {
	crd := decodeCRD(f, celCRD(`        type: object
        x-kubernetes-validations:
        - rule: "!has(self.spec) || !has(self.spec.min) || self.spec.min <= self.spec.max"
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "!has(self.s) || self.s.size() < 10"
              messageExpression: "'spec keys must be short: ' + self.s"
            properties:
              min: {type: integer}
              max: {type: integer}
              s: {type: string, maxLength: 64, x-kubernetes-validations: [{rule: "self.find('[0-9]+') != ''"}]}
              any: {x-kubernetes-int-or-string: true, x-kubernetes-validations: [{rule: "self == oldSelf"}]}
              list:
                type: array
                maxItems: 20
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [k]
                items:
                  type: object
                  required: [k]
                  properties:
                    k: {type: string, maxLength: 8}
                    v: {type: integer}
                  x-kubernetes-validations:
                  - {rule: "!has(self.v) || !has(oldSelf.v) || self.v >= oldSelf.v"}
`))
	if errs := ValidateCustomResourceDefinition(crd); len(errs) > 0 {
		f.Fatal(errs)
	}
	served := BuildServed(crd)[0]
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"a"},"spec":{"min":1,"max":0,"s":"x1","list":[{"k":"a","v":1}]}}`),
		[]byte(`{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"a"},"spec":{"list":[{"k":"a","v":2}],"any":1}}`))
	f.Add([]byte(`{"spec":{"any":"x","s":5}}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, obj, old []byte) {
		if len(obj) > 1<<16 || len(old) > 1<<16 {
			return
		}
		u := &Unstructured{}
		if err := u.UnmarshalJSON(obj); err != nil {
			return
		}
		var o *Unstructured
		if len(old) > 0 {
			o = &Unstructured{}
			if err := o.UnmarshalJSON(old); err != nil {
				o = nil
			}
		}
		errs := ValidateValues(u.Object, served.Schema)
		_ = served.CEL.ValidateObject(errs, u, o)
	})
}
