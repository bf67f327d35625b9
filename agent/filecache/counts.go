package filecache

import "github.com/tether-dev/tether/agent"

func (c *Cache[T, R]) countStamp() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stamp
}

func (c *Cache[T, R]) setCountStamp(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s != c.stamp {
		c.stamp, c.dirty = s, true
	}
}

// FillCounts takes from ix the counts of the cached files in missing,
// once per state of the index: the stamp it was asked at is kept in the
// cache, so warm lists do not ask again until the index changes.
func (c *Cache[T, R]) FillCounts(ix agent.CountIndex, missing []string) map[string]agent.MessageCount {
	if c == nil || ix == nil || len(missing) == 0 {
		return nil
	}
	stamp := ix.Stamp()
	if stamp == "" || stamp == c.countStamp() {
		return nil
	}
	look, err := ix.Load()
	if err != nil {
		return nil
	}
	got := map[string]agent.MessageCount{}
	for _, p := range missing {
		if mc, ok := c.withCount(p, look); ok {
			got[p] = mc
		}
	}
	c.setCountStamp(stamp)
	return got
}

// withCount asks look for the count of path's file at the size and mtime
// of its entry and records it there (a new value: the old one may be
// held by a Peek).
func (c *Cache[T, R]) withCount(path string, look agent.CountLookup) (agent.MessageCount, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[path]
	if e == nil || c.codec.SetCount == nil {
		return agent.MessageCount{}, false
	}
	mc, ok := look(path, e.Size, e.MTime)
	if !ok {
		return agent.MessageCount{}, false
	}
	v := *e.V
	c.codec.SetCount(&v, mc)
	e.V = &v
	c.dirty = true
	return mc, true
}
