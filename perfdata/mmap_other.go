//go:build !unix

package perfdata

import (
	"errors"
	"os"
)

func mmapFile(*os.File, int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("mmap not supported")
}

func dropMapped([]byte) {}
