package nft

import (
	"fmt"
	"time"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// sendBatch encodes a batch with github.com/google/nftables (build
// queues the operations on conn), gives the anonymous verdict maps nft's
// set metadata, and sends the batch to the kernel in the calling
// thread's network namespace: one transaction, applied whole or not at
// all.
//
// google/nftables marks the key of every anonymous set as big-endian in
// the set's userdata; nft marks the 32-bit numgen key as host byte order
// (and adds the data type), and it prints the keys by that mark — 1 would
// be listed as 16777216. The batch is therefore taken from
// google/nftables' encoder (its test-dial hook sees the messages Flush
// would send), the userdata of each anonymous map replaced with nft's, and
// sent on a netlink socket of our own (google/nftables' own netlink
// library).
func sendBatch(build func(conn *nftables.Conn) error) error {
	var batch []netlink.Message
	ack := []netlink.Message{{Header: netlink.Header{Type: netlink.Error}, Data: make([]byte, 4)}}
	enc, err := nftables.New(nftables.WithTestDial(func(req []netlink.Message) ([]netlink.Message, error) {
		batch = append(batch, req...)
		return ack, nil
	}))
	if err != nil {
		return err
	}
	if err := build(enc); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return fmt.Errorf("encoding the batch: %w", err)
	}
	if len(batch) == 0 {
		return nil // nothing to do
	}
	for i := range batch {
		if err := patchAnonymousMap(&batch[i]); err != nil {
			return err
		}
		// The real socket numbers the messages itself.
		batch[i].Header.Length, batch[i].Header.Sequence, batch[i].Header.PID = 0, 0, 0
	}

	conn, err := netlink.Dial(unix.NETLINK_NETFILTER, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	sent, err := conn.SendMessages(batch)
	if err != nil {
		return fmt.Errorf("sending the batch: %w", err)
	}
	// Every message but the batch's begin and end asks for an answer: an
	// acknowledgement, or the error that aborted the transaction.
	pending := map[uint32]bool{}
	for _, m := range sent {
		if m.Header.Flags&netlink.Acknowledge != 0 {
			pending[m.Header.Sequence] = true
		}
	}
	if err := conn.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		return err
	}
	for len(pending) > 0 {
		replies, err := conn.Receive()
		if err != nil {
			return err
		}
		for _, r := range replies {
			if r.Header.Type == netlink.Error {
				delete(pending, r.Header.Sequence)
			}
		}
	}
	return nil
}

const newSetMessage = netlink.HeaderType(unix.NFNL_SUBSYS_NFTABLES<<8 | unix.NFT_MSG_NEWSET)

// nftNumgenMapUserdata is what nft 1.0.6 stores with the anonymous map of
// "numgen ... vmap { ... }": key byte order host, data byte order
// unspecified, data type verdict, no interval data.
func nftNumgenMapUserdata() []byte {
	tlv := func(typ byte, data []byte) []byte { return append([]byte{typ, byte(len(data))}, data...) }
	u32 := binaryutil.NativeEndian.PutUint32
	var b []byte
	b = append(b, tlv(0, u32(1))...)                                 // NFTNL_UDATA_SET_KEYBYTEORDER
	b = append(b, tlv(1, u32(0))...)                                 // NFTNL_UDATA_SET_DATABYTEORDER
	b = append(b, tlv(4, append(tlv(0, u32(1)), tlv(1, nil)...))...) // NFTNL_UDATA_SET_DATA_TYPEOF
	b = append(b, tlv(6, u32(0))...)                                 // NFTNL_UDATA_SET_DATA_INTERVAL
	return b
}

// patchAnonymousMap replaces the userdata of an anonymous map keyed by
// integers (the only anonymous sets netlink.go creates).
func patchAnonymousMap(m *netlink.Message) error {
	if m.Header.Type != newSetMessage || len(m.Data) < 4 {
		return nil
	}
	attrs, err := netlink.UnmarshalAttributes(m.Data[4:])
	if err != nil {
		return err
	}
	var flags, keyType uint32
	for _, a := range attrs {
		switch a.Type {
		case unix.NFTA_SET_FLAGS:
			flags = binaryutil.BigEndian.Uint32(a.Data)
		case unix.NFTA_SET_KEY_TYPE:
			keyType = binaryutil.BigEndian.Uint32(a.Data)
		}
	}
	const anonymousMap = unix.NFT_SET_ANONYMOUS | unix.NFT_SET_CONSTANT | unix.NFT_SET_MAP
	if flags&anonymousMap != anonymousMap || keyType != 4 /* integer */ {
		return nil
	}
	for i := range attrs {
		if attrs[i].Type == unix.NFTA_SET_USERDATA {
			attrs[i].Data = nftNumgenMapUserdata()
			attrs[i].Length = 0 // computed again
		}
	}
	data, err := netlink.MarshalAttributes(attrs)
	if err != nil {
		return err
	}
	m.Data = append(m.Data[:4:4], data...)
	return nil
}
