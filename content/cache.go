package content

import (
	"sync"
	"sync/atomic"
)

// Key names one version of a file: a change of size, mtime or inode (a
// replaced file) makes a new key.
type Key struct {
	Path    string
	Size    int64
	MtimeNs int64
	Dev     uint64
	Ino     uint64
}

// maxCacheBytes bounds the text a Cache holds, so a run over a folder of
// large documents does not grow the daemon.
const maxCacheBytes = 16 << 20

// Cache keeps extraction results for the length of a run. The zero value
// is not usable; use NewCache. It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	m     map[Key]Result
	order []Key
	bytes int
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[Key]Result{}} }

// Get returns the cached result for k.
func (c *Cache) Get(k Key) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	return r, ok
}

// Put stores r for k, dropping the oldest results beyond the size bound.
func (c *Cache) Put(k Key, r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	c.m[k] = r
	c.order = append(c.order, k)
	c.bytes += len(r.Text) + 256
	for c.bytes > maxCacheBytes && len(c.order) > 1 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old].Text) + 256
		delete(c.m, old)
	}
}

// Len is the number of results held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// started counts extraction children started by Run, for tests and
// diagnostics.
var started atomic.Int64

// Started is the number of extraction children started so far.
func Started() int64 { return started.Load() }
