package render

import (
	"bytes"
	"io"
	"runtime"
	"sync"

	kflate "github.com/klauspost/compress/flate"
)

// parallelDeflate compresses what is written to it in blocks on every core
// and writes them in order as one deflate stream, pigz's way: each block is
// compressed with the previous block's last 32 KB as its dictionary, and
// each but the last ends with a sync flush, which byte-aligns it. A
// workbook's tool-call sheet is ~180 MB of XML at 1 GB of logs, and
// deflating it on one goroutine was a second at the end of the full report,
// with the other core idle. The output depends only on the bytes written.
type parallelDeflate struct {
	out      io.Writer
	buf      []byte // the block being filled
	tail     []byte // the last window of the block before it
	inFlight []chan *deflateSlot
	free     []*deflateSlot // slots whose block was written, for the next
	err      error
	writers  *sync.Pool // of the level's compressors
}

// deflateSlot is what one block in flight uses: a compressor, its
// dictionary and its output. A stream keeps its slots (GOMAXPROCS+2 at
// most) from block to block: made anew for each block they were ~90 MB
// of allocation at 1 GB of logs (a sheet of 150 MB is ~600 blocks), and
// the compressors, in a pool the collector empties, were made again ~65
// times a report.
type deflateSlot struct {
	w    *kflate.Writer
	dict []byte
	out  bytes.Buffer
}

// Compressors and block buffers are reused: each is large (~0.5 MB and
// deflateBlock). A stream hands its compressors back here when it ends,
// for the workbook's next part.
var (
	deflateWriters = map[int]*sync.Pool{} // by level
	deflateMu      sync.Mutex
	deflateBlocks  = sync.Pool{New: func() any { b := make([]byte, 0, deflateBlock); return &b }}
)

// deflateBlock is how many bytes each goroutine compresses (a variable for
// tests). Up to GOMAXPROCS+2 blocks are live at once; at 1 MB they were the
// largest item of the full report's heap while the workbook was written.
var deflateBlock = 1 << 18

const deflateWindow = 32 << 10

func newParallelDeflate(out io.Writer, level int) (*parallelDeflate, error) {
	deflateMu.Lock()
	defer deflateMu.Unlock()
	pool := deflateWriters[level]
	if pool == nil {
		w, err := kflate.NewWriter(nil, level)
		if err != nil {
			return nil, err // checked here, so that no block's goroutine can fail
		}
		pool = &sync.Pool{New: func() any { w, _ := kflate.NewWriter(nil, level); return w }}
		pool.Put(w)
		deflateWriters[level] = pool
	}
	return &parallelDeflate{out: out, writers: pool}, nil
}

func (p *parallelDeflate) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 && p.err == nil {
		if p.buf == nil {
			p.buf = (*deflateBlocks.Get().(*[]byte))[:0] // the last one is in flight
		}
		k := min(len(b), deflateBlock-len(p.buf))
		p.buf, b = append(p.buf, b[:k]...), b[k:]
		if len(p.buf) == deflateBlock {
			p.start(false)
		}
	}
	return n, p.err
}

// start compresses the block filled so far on a goroutine of its own.
func (p *parallelDeflate) start(final bool) {
	var slot *deflateSlot
	if n := len(p.free); n > 0 {
		slot, p.free = p.free[n-1], p.free[:n-1]
	} else {
		slot = &deflateSlot{w: p.writers.Get().(*kflate.Writer)}
	}
	block := p.buf
	// The window before this block is its dictionary; its own last window
	// goes into the slot's old dictionary buffer, for the next block.
	slot.dict, p.tail = p.tail, append(slot.dict[:0], block[max(0, len(block)-deflateWindow):]...)
	p.buf = nil
	done := make(chan *deflateSlot, 1)
	p.inFlight = append(p.inFlight, done)
	go func() {
		slot.out.Reset()
		slot.w.ResetDict(&slot.out, slot.dict)
		slot.w.Write(block) // a bytes.Buffer takes every write
		if final {
			slot.w.Close()
		} else {
			slot.w.Flush()
		}
		deflateBlocks.Put(&block)
		done <- slot
	}()
	for len(p.inFlight) > runtime.GOMAXPROCS(0)+1 { // a few blocks in memory at most
		p.writeOldest()
	}
}

func (p *parallelDeflate) writeOldest() {
	slot := <-p.inFlight[0]
	p.inFlight = p.inFlight[1:]
	if p.err == nil {
		_, p.err = p.out.Write(slot.out.Bytes())
	}
	p.free = append(p.free, slot)
}

// Close compresses the last block, final, and writes every block left.
func (p *parallelDeflate) Close() error { return p.finish(true) }

// closeSegment ends the output with a sync flush instead of the final block:
// it is then a segment that more deflate data, compressed apart, may follow
// in one stream (spliceRows).
func (p *parallelDeflate) closeSegment() error { return p.finish(false) }

func (p *parallelDeflate) finish(final bool) error {
	if p.buf == nil {
		p.buf = (*deflateBlocks.Get().(*[]byte))[:0]
	}
	p.start(final)
	for len(p.inFlight) > 0 {
		p.writeOldest()
	}
	for _, slot := range p.free {
		p.writers.Put(slot.w)
	}
	p.free = nil
	return p.err
}

// crc32Combine is the IEEE CRC-32 of a‖b from a's, b's and b's length
// (zlib's crc32_combine; hash/crc32 has none): a sheet's rows are deflated
// and summed as they are made, before the sheet around them is known.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	// odd is the operator that appends one zero bit; squared, two; and so on.
	var odd, even [32]uint32
	odd[0] = 0xedb88320 // the reflected polynomial
	for i, row := 1, uint32(1); i < 32; i, row = i+1, row<<1 {
		odd[i] = row
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four
	for {
		gf2Square(&even, &odd) // appends a byte, then 2, 4, … zero bytes per step
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat *[32]uint32) {
	for i := range 32 {
		square[i] = gf2Times(mat, mat[i])
	}
}
