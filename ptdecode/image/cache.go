package image

import (
	"fmt"
	"os"
	"sync"
)

// MaxFileSize caps the size of a file loaded as a section.
const MaxFileSize = 1 << 32

// Cache shares file sections between images and goroutines, like libipt's
// image section cache: a file is read once however many images map it.
// It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	files map[string]*Section
	size  uint64 // bytes of the files read
	// Limited caps the bytes the cache holds at Limit (libipt's
	// pt_iscache_set_limit, ptxed's --iscache-limit). libipt unmaps the
	// least recently used sections to stay below it; this cache keeps
	// every file whole in memory for the decoders, so a file that would
	// take it past the limit is an error instead.
	Limited bool
	Limit   uint64
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{files: map[string]*Section{}} }

// File returns the whole content of the file at path as a section.
func (c *Cache) File(path string) (*Section, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.files[path]; ok {
		return s, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("image: %s: file too big (%d bytes)", path, fi.Size())
	}
	if c.Limited && c.size+uint64(fi.Size()) > c.Limit {
		return nil, fmt.Errorf("image: %s: %d bytes would take the image section cache to %d bytes, over --iscache-limit %d: perfpt keeps each image file whole in memory and cannot unmap sections to stay below a limit as libipt does", path, fi.Size(), c.size+uint64(fi.Size()), c.Limit)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &Section{Name: path, Data: data}
	c.files[path] = s
	c.size += uint64(len(data))
	return s, nil
}

// Len returns the number of cached files.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.files)
}

// AddFile maps size bytes (0: to the end) of the file at path from offset at
// vaddr, reading the file through cache (nil: no sharing).
func (im *Image) AddFile(cache *Cache, path string, offset, size, vaddr uint64) error {
	if cache == nil {
		cache = NewCache()
	}
	sec, err := cache.File(path)
	if err != nil {
		return err
	}
	return im.Add(sec, offset, size, vaddr)
}
