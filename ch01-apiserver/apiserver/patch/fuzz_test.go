package patch

import "testing"

func FuzzStrategicMergePatch(f *testing.F) {
	f.Add([]byte(liveDeployment), []byte(`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"b"}],"containers":[{"name":"a","$patch":"delete"},{"name":[1]}]}}}}`))
	f.Add([]byte(`{"metadata":{"finalizers":["a",{"x":1}]}}`), []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":[{"x":1}],"$retainKeys":[1]}}`))
	f.Fuzz(func(t *testing.T, original, patch []byte) {
		_, _ = StrategicMergePatch(original, patch, deploymentType)
		_, _ = MergePatch(original, patch)
		_, _ = JSONPatch(original, patch)
		_, _ = Apply(original, patch, deploymentType, "m", false, t0)
	})
}
