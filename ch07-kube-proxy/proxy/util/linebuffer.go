package util

import (
	"bytes"
	"fmt"
)

// LineBuffer collects lines of space-separated words: the iptables proxier
// writes its iptables-restore input into LineBuffers.
type LineBuffer interface {
	// Write writes one line of args (strings or []strings) joined by spaces.
	Write(args ...any)
	Reset()
	Bytes() []byte
	String() string
	Lines() int
}

type realLineBuffer struct {
	b     bytes.Buffer
	lines int
}

// NewLineBuffer returns a LineBuffer that keeps what is written.
func NewLineBuffer() LineBuffer { return &realLineBuffer{} }

func (buf *realLineBuffer) Write(args ...any) {
	for i, arg := range args {
		if i > 0 {
			buf.b.WriteByte(' ')
		}
		switch x := arg.(type) {
		case string:
			buf.b.WriteString(x)
		case []string:
			for j, s := range x {
				if j > 0 {
					buf.b.WriteByte(' ')
				}
				buf.b.WriteString(s)
			}
		default:
			panic(fmt.Sprintf("unknown argument type: %T", x))
		}
	}
	buf.b.WriteByte('\n')
	buf.lines++
}

func (buf *realLineBuffer) Reset()         { buf.b.Reset(); buf.lines = 0 }
func (buf *realLineBuffer) Bytes() []byte  { return buf.b.Bytes() }
func (buf *realLineBuffer) String() string { return buf.b.String() }
func (buf *realLineBuffer) Lines() int     { return buf.lines }

type discardLineBuffer struct{ lines int }

// NewDiscardLineBuffer returns a LineBuffer that only counts lines: where a
// partial sync "writes" the chains of Services that did not change.
func NewDiscardLineBuffer() LineBuffer { return &discardLineBuffer{} }

func (buf *discardLineBuffer) Write(args ...any) { buf.lines++ }
func (buf *discardLineBuffer) Reset()            { buf.lines = 0 }
func (buf *discardLineBuffer) Bytes() []byte     { return nil }
func (buf *discardLineBuffer) String() string    { return "" }
func (buf *discardLineBuffer) Lines() int        { return buf.lines }
