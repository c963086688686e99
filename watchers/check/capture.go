package check

import (
	"fmt"
	"unicode/utf8"
)

// MaxOutput is how much of a stream a Result keeps.
const MaxOutput = 100 << 10

// capture is an io.Writer that keeps the first and last half of limit bytes
// of everything written to it and counts the rest, so a check that prints
// gigabytes costs a bounded amount of memory.
type capture struct {
	limit int
	head  []byte
	tail  []byte // ring buffer of the last limit/2 bytes, once head is full
	pos   int    // next write position in tail when it is full
	total int64
}

func newCapture(limit int) *capture { return &capture{limit: limit} }

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	half := c.limit / 2
	if room := half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	tailMax := c.limit - half
	for len(p) > 0 {
		if len(c.tail) < tailMax {
			k := min(tailMax-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= tailMax {
			copy(c.tail, p[len(p)-tailMax:])
			c.pos = 0
			break
		}
		k := copy(c.tail[c.pos:], p)
		p = p[k:]
		c.pos = (c.pos + k) % tailMax
	}
	return n, nil
}

// String returns everything written, or, when more than the limit was
// written, the head, a marker saying how many bytes were cut, and the tail.
func (c *capture) String() string {
	tail := make([]byte, 0, len(c.tail))
	tail = append(tail, c.tail[c.pos:]...)
	tail = append(tail, c.tail[:c.pos]...)
	kept := int64(len(c.head) + len(tail))
	if c.total == kept {
		return string(c.head) + string(tail)
	}
	head := c.head
	// Do not split a UTF-8 character at either edge of the cut.
	for i := 0; i < utf8.UTFMax-1 && len(head) > 0; i++ {
		r, size := utf8.DecodeLastRune(head)
		if r != utf8.RuneError || size != 1 {
			break
		}
		head = head[:len(head)-1]
	}
	for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	cut := c.total - int64(len(head)+len(tail))
	return fmt.Sprintf("%s\n[... %d bytes cut from the middle of the output ...]\n%s", head, cut, tail)
}
