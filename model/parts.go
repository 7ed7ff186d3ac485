package model

// CallParts hands out a run's tool calls in order, a part at a time, each
// made when it is taken from what the reader or the join still holds.
type CallParts struct {
	N    int               // how many calls in all
	next func() []ToolCall // the next part, nil after the last
	two  bool              // parts alternate between two buffers (KeepTwo)
}

// Next is the next part of the calls, nil after the last. A part is valid
// until the next call (until the one after it with KeepTwo); it holds at
// most the size PartsOf was given.
func (p *CallParts) Next() []ToolCall {
	if p.next == nil {
		return nil
	}
	part := p.next()
	if part == nil {
		p.next = nil
	}
	return part
}

// KeepTwo makes each part valid until the call after the next, so that a
// part may be used on one goroutine while the next is made on another:
// the parts alternate between two buffers (a second part's worth of
// calls, ~0.6 MB for a part of 4,096, so only for runs whose calls are
// folded that way).
func (p *CallParts) KeepTwo() { p.two = true }

// Drain makes every call not handed out yet and drops it: making a call
// counts the warnings it raises, whoever takes it.
func (p *CallParts) Drain() {
	for p.Next() != nil {
	}
}

// All is every call not handed out yet, in one slice.
func (p *CallParts) All() []ToolCall {
	var all []ToolCall
	for part := p.Next(); part != nil; part = p.Next() {
		if all == nil {
			all = make([]ToolCall, 0, p.N) // a long session's calls: no regrowth
		}
		all = append(all, part...)
	}
	return all
}

// PartsOf is the parts of the n calls made by call(i) for i from 0 to
// items, in order, but for the items call declines (false), each part of
// at most size calls.
func PartsOf(n, items, size int, call func(i int) (ToolCall, bool)) *CallParts {
	var bufs [2][]ToolCall // the second only with KeepTwo
	bufs[0] = make([]ToolCall, 0, min(n, size))
	i, k := 0, 0
	p := &CallParts{N: n}
	p.next = func() []ToolCall {
		if p.two {
			k ^= 1
			if bufs[k] == nil {
				bufs[k] = make([]ToolCall, 0, min(n, size))
			}
		}
		part := bufs[k][:0]
		for ; i < items && len(part) < size; i++ {
			if c, ok := call(i); ok {
				part = append(part, c)
			}
		}
		bufs[k] = part
		if len(part) == 0 {
			return nil
		}
		return part
	}
	return p
}
