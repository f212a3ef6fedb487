package metav1

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// DeepCopy returns a copy of an API object, or of any part of one, that
// shares nothing with it: objects from an informer's cache, or read once and
// changed twice, must be copied before they are changed. Upstream generates
// a DeepCopy method for every type (zz_generated.deepcopy.go); Kubik copies
// through the JSON form every one of its types has, which is slower but
// obviously complete. Our types always marshal and unmarshal, so a failure
// is a bug in a type, reported by a panic.
func DeepCopy[T any](in *T) *T {
	if in == nil {
		return nil
	}
	out := new(T)
	copyJSON(in, out)
	return out
}

// DeepCopyObject is DeepCopy for an object known only as an Object.
func DeepCopyObject(obj Object) Object {
	out := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(Object)
	copyJSON(obj, out)
	return out
}

func copyJSON(in, out any) {
	data, err := json.Marshal(in)
	if err != nil {
		panic(fmt.Sprintf("DeepCopy of %T: %v", in, err))
	}
	if err := json.Unmarshal(data, out); err != nil {
		panic(fmt.Sprintf("DeepCopy of %T: %v", in, err))
	}
}
