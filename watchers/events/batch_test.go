package events

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestBatcherCoalescesAndCollapses(t *testing.T) {
	b := newBatcher(5)
	b.add("/r/b")
	b.add("/r/a")
	b.add("/r/b")
	n, ok := b.take()
	if !ok || fmt.Sprint(n.Paths) != "[/r/a /r/b]" || n.Rescan {
		t.Fatalf("got %+v, want two sorted distinct paths", n)
	}
	for i := range 6 {
		b.add(fmt.Sprintf("/r/%d", i))
	}
	n, _ = b.take()
	if !n.Rescan || n.Paths != nil {
		t.Fatalf("got %+v, want a collapsed rescan", n)
	}
	if _, ok := b.take(); ok {
		t.Fatal("empty batcher gave a notice")
	}
	b.setErr(&RootError{Root: "/r", Err: errors.New("gone")})
	b.recovered()
	n, _ = b.take()
	if n.Err != nil || !n.Rescan {
		t.Fatalf("got %+v, want the obsolete error dropped and a rescan", n)
	}
}

func TestBatcherRunClosesOut(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b := newBatcher(10)
	go b.run(ctx)
	b.add("/r/x")
	if n := <-b.out; len(n.Paths) != 1 {
		t.Fatalf("got %+v", n)
	}
	cancel()
	<-b.stopped
	if _, ok := <-b.out; ok {
		t.Fatal("out not closed")
	}
}

func TestRootGone(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("other"), false},
		{&RootError{Root: "/x", Err: errors.New("gone")}, true},
		{fmt.Errorf("wrapped: %w", &RootError{Root: "/x"}), true},
		{checkRoot("/definitely/not/here"), true},
	}
	for i, c := range cases {
		if got := RootGone(c.err); got != c.want {
			t.Errorf("case %d (%v): RootGone = %v, want %v", i, c.err, got, c.want)
		}
	}
}
