package clock

import (
	"testing"
	"time"
)

func TestFakeFiresInOrderOnlyWhenDue(t *testing.T) {
	c := NewFake(time.Unix(0, 0))
	a := c.NewTimer(2 * time.Second)
	b := c.NewTimer(time.Second)
	c.Advance(500 * time.Millisecond)
	select {
	case <-b.C():
		t.Fatal("fired early")
	default:
	}
	c.Advance(600 * time.Millisecond)
	<-b.C()
	if c.Pending() != 1 {
		t.Fatalf("pending %d", c.Pending())
	}
	if !a.Stop() {
		t.Fatal("stop of an armed timer should report true")
	}
	c.Advance(time.Hour)
	select {
	case <-a.C():
		t.Fatal("stopped timer fired")
	default:
	}
}
