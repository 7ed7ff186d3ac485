package discover

import (
	"context"
	"path/filepath"
	"testing"
	"unsafe"
)

var testdataLogs = filepath.Join("..", "testdata", "logs")

// Every file lands in exactly one shard, and a plan's files in the same one.
func TestShardsCoverOnce(t *testing.T) {
	opt := Options{Roots: []string{testdataLogs}}
	seen := map[string]int{}
	const n = 5
	for i := 1; i <= n; i++ {
		o := opt
		o.Shard = Shard{Index: i, Count: n}
		files := make(chan File, 1024)
		if _, err := Walk(context.Background(), o, files); err != nil {
			t.Fatal(err)
		}
		for c := range files {
			seen[c.Source]++
		}
	}
	all := make(chan File, 1024)
	total, _ := Walk(context.Background(), opt, all)
	if len(seen) != total {
		t.Errorf("%d files in shards, %d in the tree", len(seen), total)
	}
	for s, k := range seen {
		if k != 1 {
			t.Errorf("%s in %d shards", s, k)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "0/3", "4/3", "1/0", "a/b", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if s, err := ParseShard("2/8"); err != nil || s != (Shard{Index: 2, Count: 8}) || s.String() != "2/8" {
		t.Errorf("ParseShard(2/8) = %+v, %v", s, err)
	}
}

// A file's source holds no more than its own bytes: a slice of its path
// would keep the whole path alive as long as the source (every file's, to
// the end of the run).
func TestSourceNotInPath(t *testing.T) {
	files := make(chan File, 1024)
	if _, err := Walk(context.Background(), Options{Roots: []string{testdataLogs}}, files); err != nil {
		t.Fatal(err)
	}
	n := 0
	for c := range files {
		n++
		path, src := uintptr(unsafe.Pointer(unsafe.StringData(c.Path))), uintptr(unsafe.Pointer(unsafe.StringData(c.Source)))
		if src >= path && src < path+uintptr(len(c.Path)) {
			t.Errorf("source %s is a slice of its path %s", c.Source, c.Path)
		}
	}
	if n == 0 {
		t.Fatal("no file found")
	}
}
