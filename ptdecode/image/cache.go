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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &Section{Name: path, Data: data}
	c.files[path] = s
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
