package controller

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"kubik/ch01-apiserver/api/corev1"
)

// ComputeHash is the pod-template-hash of a Deployment's ReplicaSet (and a
// DaemonSet's controller-revision-hash): FNV-1a (32 bits) over the template,
// then over collisionCount (little-endian, 8 bytes) when set, the number
// rendered in decimal and the digits mapped to SafeEncodeString's alphabet.
//
// Upstream hashes a spew dump of the Go struct; we hash the template's JSON
// encoding (fields in struct order, map keys sorted by encoding/json):
// equally deterministic, so the same template always gives the same hash,
// but the values differ from upstream's.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	data, err := json.Marshal(template)
	if err != nil {
		panic(fmt.Sprintf("ComputeHash: %v", err)) // our API types always encode
	}
	h.Write(data)
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// alphanums are the characters of generated names (apimachinery's
// rand.String): no vowels, so no words; no 0, 1, 3 (look like o, l, e).
const alphanums = "bcdfghjklmnpqrstvwxz2456789"

// SafeEncodeString maps each byte of s to alphanums. Upstream:
// k8s.io/apimachinery/pkg/util/rand.SafeEncodeString.
func SafeEncodeString(s string) string {
	r := make([]byte, len(s))
	for i, b := range []byte(s) {
		r[i] = alphanums[int(b)%len(alphanums)]
	}
	return string(r)
}
