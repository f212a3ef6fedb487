package apiserver

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// storageKey is where an object lives in storage, upstream's layout:
//
//	/registry/pods/default/web
//	/registry/minions/node-1        (cluster-scoped: no namespace segment)
func storageKey(res *scheme.Resource, namespace, name string) string {
	if res.Namespaced {
		return "/registry/" + res.StoragePrefix + "/" + namespace + "/" + name
	}
	return "/registry/" + res.StoragePrefix + "/" + name
}

// storagePrefix is the key prefix of a list: all namespaces, or one.
func storagePrefix(res *scheme.Resource, namespace string) string {
	if res.Namespaced && namespace != "" {
		return "/registry/" + res.StoragePrefix + "/" + namespace + "/"
	}
	return "/registry/" + res.StoragePrefix + "/"
}

// encodeForStorage is the stored form: JSON with kind and apiVersion, without
// resourceVersion (storage keeps that as the key's revision, as etcd does).
func encodeForStorage(res *scheme.Resource, obj metav1.Object) ([]byte, error) {
	setTypeMeta(res, obj)
	if sc := res.Storage; sc != nil {
		obj = sc.ToStorage(obj)
		*obj.GetTypeMeta() = metav1.TypeMeta{APIVersion: sc.APIVersion, Kind: sc.Kind}
	}
	meta := obj.GetObjectMeta()
	rv := meta.ResourceVersion
	meta.ResourceVersion = ""
	b, err := json.Marshal(obj)
	meta.ResourceVersion = rv
	return b, err
}

// decodeFromStorage turns stored bytes back into a typed object with its resourceVersion.
func decodeFromStorage(res *scheme.Resource, kv storage.KeyValue) (metav1.Object, error) {
	obj := res.New()
	if res.Storage != nil {
		obj = res.Storage.New()
	}
	if err := json.Unmarshal(kv.Value, obj); err != nil {
		return nil, fmt.Errorf("decoding %s from storage: %w", kv.Key, err)
	}
	if res.Storage != nil {
		obj = res.Storage.FromStorage(obj)
	}
	setTypeMeta(res, obj)
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// servedForm is the object a write answers with. For a kind stored in
// another version (autoscaling/v1 HorizontalPodAutoscalers) it is the stored
// bytes converted back, so the client sees the defaults and round-trip
// annotations a later read shows, as upstream answers with the stored
// internal object converted to the request's version. rev 0 (a dry run)
// keeps obj's resourceVersion. A custom object written in its storage
// version is served as written when reading it would change nothing
// (apiextensions.Served.StoredServable).
func servedForm(q *request, obj metav1.Object, data []byte, rev int64) metav1.Object {
	res := q.res
	if res.Storage == nil || q.custom != nil && q.custom.StoredServable(data) {
		return obj
	}
	out, err := decodeFromStorage(res, storage.KeyValue{Value: data, ModRevision: rev})
	if err != nil {
		return obj
	}
	if rev == 0 {
		out.GetObjectMeta().ResourceVersion = obj.GetObjectMeta().ResourceVersion
	}
	return out
}

func setTypeMeta(res *scheme.Resource, obj metav1.Object) {
	tm := obj.GetTypeMeta()
	tm.Kind = res.Kind
	tm.APIVersion = res.GroupVersion()
}

// parseRV reads a resourceVersion parameter; a malformed one is described
// as upstream's APIObjectVersioner describes it. (Upstream answers a get or
// watch with such a version with 500; here it is the client's 400.)
func parseRV(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err == nil && v > math.MaxInt64 {
		err = &strconv.NumError{Func: "ParseUint", Num: s, Err: strconv.ErrRange}
	}
	if err != nil {
		return 0, fmt.Errorf("resourceVersion: Invalid value: %q: %v", s, err)
	}
	return int64(v), nil
}
