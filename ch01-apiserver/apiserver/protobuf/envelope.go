// Package protobuf reads and writes Kubernetes protobuf bodies
// (Content-Type application/vnd.kubernetes.protobuf).
//
// kubectl 1.32 and later send some request bodies in protobuf: `create
// configmap|secret|deployment|namespace|serviceaccount|token`, `auth can-i`
// and `auth whoami`. Such a body is the 4-byte magic "k8s\x00" followed by a
// runtime.Unknown message that names the object's apiVersion and kind and
// carries the object itself, protobuf-encoded, in its raw field.
//
// Upstream generates a Marshal and an Unmarshal method for every type
// (k8s.io/api/*/generated.pb.go). We have no generated code: Unmarshal and
// Marshal walk our Go types by reflection and read the field numbers from the
// `protobuf:"bytes,3,opt,name=..."` struct tags, which are upstream's.
//
// Upstream: k8s.io/apimachinery/pkg/runtime/serializer/protobuf (the
// envelope) and pkg/runtime/generated.proto (runtime.Unknown).
package protobuf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// ContentType is the media type of Kubernetes protobuf bodies.
const ContentType = "application/vnd.kubernetes.protobuf"

// Magic is the prefix of every Kubernetes protobuf body. It tells a protobuf
// body from JSON or YAML at a glance and leaves room for other encodings.
var Magic = []byte{'k', '8', 's', 0}

// Field numbers of runtime.Unknown and of its runtime.TypeMeta.
const (
	unknownTypeMeta        = 1 // TypeMeta typeMeta
	unknownRaw             = 2 // bytes raw
	unknownContentEncoding = 3 // string contentEncoding
	unknownContentType     = 4 // string contentType

	typeMetaAPIVersion = 1
	typeMetaKind       = 2
)

// DecodeEnvelope checks the magic and unwraps the runtime.Unknown that
// follows it: the object's apiVersion and kind, and its protobuf bytes
// (which alias body).
func DecodeEnvelope(body []byte) (apiVersion, kind string, raw []byte, err error) {
	if !bytes.HasPrefix(body, Magic) {
		return "", "", nil, errors.New(`protobuf body does not start with the magic "k8s\x00"`)
	}
	b := body[len(Magic):]
	var contentEncoding, contentType string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", "", nil, fmt.Errorf("protobuf envelope: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.BytesType {
			// Not one of ours: skip it, as protobuf readers do.
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return "", "", nil, fmt.Errorf("protobuf envelope: field %d: %w", num, protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return "", "", nil, fmt.Errorf("protobuf envelope: field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		switch num {
		case unknownTypeMeta:
			if apiVersion, kind, err = decodeTypeMeta(v); err != nil {
				return "", "", nil, err
			}
		case unknownRaw:
			raw = v
		case unknownContentEncoding:
			contentEncoding = string(v)
		case unknownContentType:
			contentType = string(v)
		}
	}
	if contentEncoding != "" {
		return "", "", nil, fmt.Errorf("protobuf envelope: unsupported content encoding %q", contentEncoding)
	}
	if contentType != "" && contentType != ContentType {
		return "", "", nil, fmt.Errorf("protobuf envelope: unsupported content type %q", contentType)
	}
	if kind == "" {
		return "", "", nil, errors.New("protobuf envelope: the object has no kind")
	}
	return apiVersion, kind, raw, nil
}

// decodeTypeMeta reads runtime.TypeMeta {apiVersion=1, kind=2}.
func decodeTypeMeta(b []byte) (apiVersion, kind string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", "", fmt.Errorf("protobuf envelope: typeMeta: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ == protowire.BytesType && (num == typeMetaAPIVersion || num == typeMetaKind) {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return "", "", fmt.Errorf("protobuf envelope: typeMeta: %w", protowire.ParseError(n))
			}
			b = b[n:]
			if num == typeMetaAPIVersion {
				apiVersion = string(v)
			} else {
				kind = string(v)
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return "", "", fmt.Errorf("protobuf envelope: typeMeta: %w", protowire.ParseError(n))
		}
		b = b[n:]
	}
	return apiVersion, kind, nil
}

// EncodeEnvelope wraps an object's protobuf bytes the way upstream's
// serializer does: magic, then runtime.Unknown with every field written
// (gogo's proto2 encoding writes empty strings too).
func EncodeEnvelope(apiVersion, kind string, raw []byte) []byte {
	if raw == nil {
		b := appendTypeMeta(append([]byte(nil), Magic...), apiVersion, kind)
		return append(b, envelopeTail...)
	}
	b := make([]byte, 0, EnvelopeHeadLen(apiVersion, kind, len(raw))+len(raw)+len(envelopeTail))
	b = AppendEnvelopeHead(b, apiVersion, kind, len(raw))
	b = append(b, raw...)
	return append(b, envelopeTail...)
}

// AppendEnvelopeHead appends the start of an envelope whose raw field is
// rawLen bytes long: the caller writes those bytes, then EnvelopeTail. A
// list answer is written this way, its items one after the other, without
// first copying them into one buffer.
func AppendEnvelopeHead(b []byte, apiVersion, kind string, rawLen int) []byte {
	b = append(b, Magic...)
	b = appendTypeMeta(b, apiVersion, kind)
	b = protowire.AppendTag(b, unknownRaw, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(rawLen))
}

// EnvelopeHeadLen is the length of what AppendEnvelopeHead appends.
func EnvelopeHeadLen(apiVersion, kind string, rawLen int) int {
	return len(Magic) + typeMetaLen(apiVersion, kind) + protowire.SizeTag(unknownRaw) + protowire.SizeVarint(uint64(rawLen))
}

// EnvelopeTail ends an envelope after its raw bytes: the empty
// contentEncoding and contentType.
func EnvelopeTail() []byte { return envelopeTail }

var envelopeTail = func() []byte {
	b := protowire.AppendTag(nil, unknownContentEncoding, protowire.BytesType)
	b = protowire.AppendString(b, "")
	b = protowire.AppendTag(b, unknownContentType, protowire.BytesType)
	return protowire.AppendString(b, "")
}()

// appendTypeMeta appends field 1 of runtime.Unknown, its runtime.TypeMeta.
func appendTypeMeta(b []byte, apiVersion, kind string) []byte {
	b = protowire.AppendTag(b, unknownTypeMeta, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(typeMetaBodyLen(apiVersion, kind)))
	b = protowire.AppendTag(b, typeMetaAPIVersion, protowire.BytesType)
	b = protowire.AppendString(b, apiVersion)
	b = protowire.AppendTag(b, typeMetaKind, protowire.BytesType)
	return protowire.AppendString(b, kind)
}

func typeMetaBodyLen(apiVersion, kind string) int {
	return protowire.SizeTag(typeMetaAPIVersion) + protowire.SizeBytes(len(apiVersion)) +
		protowire.SizeTag(typeMetaKind) + protowire.SizeBytes(len(kind))
}

func typeMetaLen(apiVersion, kind string) int {
	return protowire.SizeTag(unknownTypeMeta) + protowire.SizeBytes(typeMetaBodyLen(apiVersion, kind))
}

// Field numbers of metav1.WatchEvent and of runtime.RawExtension.
const (
	watchEventType   = 1 // string type
	watchEventObject = 2 // RawExtension object
	rawExtensionRaw  = 1 // bytes raw
)

// AppendWatchEvent appends one event of a protobuf watch stream as upstream
// frames it (LengthDelimitedFramer): a 4-byte big-endian length, then a
// metav1.WatchEvent (not enveloped) whose object is a RawExtension holding
// the enveloped object.
func AppendWatchEvent(b []byte, eventType string, object []byte) []byte {
	ext := protowire.SizeTag(rawExtensionRaw) + protowire.SizeBytes(len(object))
	size := protowire.SizeTag(watchEventType) + protowire.SizeBytes(len(eventType)) +
		protowire.SizeTag(watchEventObject) + protowire.SizeBytes(ext)
	b = binary.BigEndian.AppendUint32(b, uint32(size))
	b = protowire.AppendTag(b, watchEventType, protowire.BytesType)
	b = protowire.AppendString(b, eventType)
	b = protowire.AppendTag(b, watchEventObject, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(ext))
	b = protowire.AppendTag(b, rawExtensionRaw, protowire.BytesType)
	return protowire.AppendBytes(b, object)
}

// DecodeWatchEvent reads a metav1.WatchEvent (one frame of a protobuf watch
// stream, without its length): the type and the enveloped object.
func DecodeWatchEvent(b []byte) (eventType string, object []byte, err error) {
	err = eachField(b, func(num protowire.Number, typ protowire.Type, val []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case watchEventType:
			eventType = string(val)
		case watchEventObject:
			return eachField(val, func(num protowire.Number, typ protowire.Type, val []byte, _ uint64) error {
				if num == rawExtensionRaw && typ == protowire.BytesType {
					object = val
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("protobuf watch event: %w", err)
	}
	return eventType, object, nil
}

// Field numbers of every List kind (PodList, ConfigMapList, ...).
const (
	listMetadata = 1 // ListMeta metadata
	listItems    = 2 // repeated <Kind> items
)

// AppendListMeta appends field 1 of a List message, its ListMeta.
func AppendListMeta(b []byte, meta any) ([]byte, error) {
	m, err := Marshal(meta)
	if err != nil {
		return nil, err
	}
	b = protowire.AppendTag(b, listMetadata, protowire.BytesType)
	return protowire.AppendBytes(b, m), nil
}

// AppendListItemHead appends the tag and length of one item of a List
// message (field 2); the item's size bytes follow.
func AppendListItemHead(b []byte, size int) []byte {
	b = protowire.AppendTag(b, listItems, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(size))
}
