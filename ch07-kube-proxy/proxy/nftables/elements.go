package nftables

import (
	"context"
	"sort"
	"strings"

	"kubik/ch07-kube-proxy/proxy/nftables/nft"
)

// nftElementStorage mirrors the elements of one set or map, so a sync
// adds only new or changed elements and deletes only the leftover ones.
type nftElementStorage struct {
	elements      map[string]string // key → value, both " . "-joined
	leftoverKeys  map[string]bool   // keys this sync has not ensured (yet)
	containerType string            // "set" or "map"
	containerName string
}

func newNFTElementStorage(containerType, containerName string) *nftElementStorage {
	return &nftElementStorage{elements: map[string]string{}, leftoverKeys: map[string]bool{},
		containerType: containerType, containerName: containerName}
}

func joinNFTSlice(k []string) string  { return strings.Join(k, " . ") }
func splitNFTSlice(k string) []string { return strings.Split(k, " . ") }

// readOrReset reads the container's elements; if that fails, it flushes it.
func (s *nftElementStorage) readOrReset(tx *nft.Transaction, nftables nft.Interface, p *Proxier) {
	clear(s.elements)
	defer s.resetLeftoverKeys()
	elems, err := nftables.ListElements(context.TODO(), s.containerType, s.containerName)
	if err != nil && !nft.IsNotFound(err) {
		if s.containerType == "set" {
			tx.Flush(&nft.Set{Name: s.containerName})
		} else {
			tx.Flush(&nft.Map{Name: s.containerName})
		}
		p.log.Error("Failed to list nftables elements", "containerName", s.containerName, "containerType", s.containerType, "err", err)
		return
	}
	for _, e := range elems {
		s.elements[joinNFTSlice(e.Key)] = joinNFTSlice(e.Value)
	}
}

func (s *nftElementStorage) resetLeftoverKeys() {
	clear(s.leftoverKeys)
	for k := range s.elements {
		s.leftoverKeys[k] = true
	}
}

// ensureElem adds elem unless it is there with the same value.
func (s *nftElementStorage) ensureElem(tx *nft.Transaction, elem *nft.Element) {
	key, value := joinNFTSlice(elem.Key), joinNFTSlice(elem.Value)
	if existing, ok := s.elements[key]; ok {
		if existing != value {
			// A map element's value can't be changed in place.
			tx.Delete(elem)
			tx.Add(elem)
			s.elements[key] = value
		}
		delete(s.leftoverKeys, key)
	} else {
		tx.Add(elem)
		s.elements[key] = value
	}
}

// cleanupLeftoverKeys deletes the elements this sync did not ensure.
func (s *nftElementStorage) cleanupLeftoverKeys(tx *nft.Transaction) {
	keys := make([]string, 0, len(s.leftoverKeys))
	for k := range s.leftoverKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := &nft.Element{Key: splitNFTSlice(k)}
		if s.containerType == "set" {
			e.Set = s.containerName
		} else {
			e.Map = s.containerName
		}
		tx.Delete(e)
		delete(s.elements, k)
	}
	s.resetLeftoverKeys()
}
